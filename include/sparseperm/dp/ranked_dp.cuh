#pragma once
// The dp engine's column-frontier program with states in dense arrays, for the GPU (gpu/ranked_dp_kernel.cuh)
// and for checking that code on the host.
//
// After t columns the states are the k-subsets of the a active rows (dp/dp.cuh), where k is the
// number of active rows matched so far; here every one of the C(a, k) subsets has a slot, at its
// colexicographic rank Σ_i C(b_i, i + 1) (b_0 < b_1 < … its positions in the active list). A column
// step then needs no hash table: each new state is computed by one thread, which unranks its index,
// finds the old states it comes from (the new state less one of the column's rows), ranks them and
// sums their values times the entries. Writes are consecutive; reads are gathers. The price is that
// unreachable subsets have slots too, which the frontier's binomial bound counts anyway.
//
// Positions: the old active list keeps its order, the column's new rows are appended (the *union*, at
// most 63 rows), and the rows the column finishes (no column left) must be matched and leave; the new
// list is the union without them, in the same order. So an old state's mask is a union mask below
// the old list's length, and a new state's mask is a union mask with the finishing rows' bits taken
// out.
//
// Arithmetics (lanes of doubles a state, stored lane by lane):
//   ranked_real      the value and a second lane on |A| for the bound, fused multiply-adds
//   ranked_complex   real part, imaginary part and the lane on the moduli
//   ranked_real_dd, ranked_complex_dd   the same in double-double (precision::double_double)
//   ranked_residues  four residues modulo primes below 2^25 (numeric/modular.cuh): exact integers,
//                    joined by the CRT over ⌈K/4⌉ passes
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "../core/config.cuh"
#include "../core/engine_error.cuh"
#include "../core/progress.cuh"
#include "../detail/bits.cuh"
#include "../detail/threads.cuh"
#include "../matrix/exactness.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/arithmetic.cuh"
#include "../numeric/double_double.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/modular.cuh"
#include "../structure/frontier_order.cuh"
#include "dp_value.cuh"

namespace sparseperm {

// The widest union of active rows a dense step holds: masks are 64-bit words.
inline constexpr int ranked_dp_max_frontier = 63;

namespace detail {

// C(b, j) for 0 ≤ b ≤ 63 and 0 ≤ j ≤ 64 (every C(63, j) is below 2^63).
inline constexpr int ranked_binomial_rows = 64, ranked_binomial_stride = 65;

inline std::vector<std::uint64_t> ranked_binomials() {
  std::vector<std::uint64_t> c(ranked_binomial_rows * ranked_binomial_stride, 0);
  for (int b = 0; b < ranked_binomial_rows; ++b) {
    c[b * ranked_binomial_stride] = 1;
    for (int j = 1; j <= b; ++j) {
      c[b * ranked_binomial_stride + j] =
          c[(b - 1) * ranked_binomial_stride + j - 1] + (j < b ? c[(b - 1) * ranked_binomial_stride + j] : 0);
    }
  }
  return c;
}

// One column of the order.
struct ranked_dp_step {
  int old_active = 0, old_matched = 0;  // the old states: old_matched-subsets of old_active positions
  int new_active = 0, new_matched = 0;  // the new ones, after the finishing rows leave
  std::uint64_t finishing = 0;          // union positions of the rows this column finishes
  std::uint64_t entries = 0;            // union positions of the column's rows
  int first_entry = 0;                  // its entries in the plan's list, by ascending union position
  std::uint64_t old_states = 1, new_states = 1;
};

struct ranked_dp_plan {
  std::vector<ranked_dp_step> steps;
  std::vector<double> entry_value, entry_imag;  // the entries, step by step (imag: complex matrices)
  std::uint64_t peak_states = 1;                // the largest state array
  double states = 0;                            // Σ of the new states of every step: the work
  double work = 0;                              // Σ new states · union size: unranking and ranking
  double transitions = 0;                       // Σ new states · column degree: multiply-adds at most
  int frontier = 0;                             // the widest union
  bool zero = false;                            // a step has no state: the permanent is 0
  std::int64_t nnz = 0;
};

// The steps of `order` on `a`; throws too_large when a union exceeds ranked_dp_max_frontier rows.
inline ranked_dp_plan make_ranked_dp_plan(const sparse_matrix& a, const frontier_order& order) {
  const int n = a.n();
  const std::vector<std::uint64_t> binomial = ranked_binomials();
  const auto choose = [&](int b, int j) -> std::uint64_t {
    return j < 0 || j > b ? 0 : binomial[b * ranked_binomial_stride + j];
  };
  ranked_dp_plan plan;
  plan.nnz = a.nnz();
  std::vector<int> remaining(n), position(n, -1), list;
  for (int i = 0; i < n; ++i) remaining[i] = a.row_degree(i);
  int matched = 0;
  for (const int c : order.columns) {
    ranked_dp_step s;
    s.old_active = static_cast<int>(list.size());
    s.old_matched = matched;
    s.old_states = choose(s.old_active, s.old_matched);
    const auto rows = a.column_rows(c);
    const auto values = a.column_values(c);
    const auto imag = a.column_imag(c);
    for (const int r : rows) {
      if (position[r] < 0) position[r] = static_cast<int>(list.size()), list.push_back(r);
    }
    if (static_cast<int>(list.size()) > ranked_dp_max_frontier) {
      throw engine_error(engine_error::kind::too_large, "the dense dp holds at most " +
                                                            std::to_string(ranked_dp_max_frontier) +
                                                            " active rows, and this column order needs more");
    }
    plan.frontier = std::max(plan.frontier, static_cast<int>(list.size()));
    std::vector<std::pair<int, std::size_t>> by_position;
    for (std::size_t k = 0; k < rows.size(); ++k) by_position.emplace_back(position[rows[k]], k);
    std::sort(by_position.begin(), by_position.end());
    s.first_entry = static_cast<int>(plan.entry_value.size());
    for (const auto& [p, k] : by_position) {
      s.entries |= std::uint64_t{1} << p;
      plan.entry_value.push_back(values[k]);
      plan.entry_imag.push_back(imag.empty() ? 0.0 : imag[k]);
      if (--remaining[rows[k]] == 0) s.finishing |= std::uint64_t{1} << p;
    }
    const int union_size = static_cast<int>(list.size());
    std::vector<int> next;
    for (const int r : list) {
      if (remaining[r] > 0) {
        position[r] = static_cast<int>(next.size());
        next.push_back(r);
      } else {
        position[r] = -1;
      }
    }
    list = std::move(next);
    s.new_active = static_cast<int>(list.size());
    s.new_matched = matched + 1 - popcount(s.finishing);
    matched = s.new_matched;
    s.new_states = choose(s.new_active, s.new_matched);
    if (s.new_states == 0) plan.zero = true;
    plan.peak_states = std::max({plan.peak_states, s.old_states, s.new_states});
    plan.states += static_cast<double>(s.new_states);
    plan.work += static_cast<double>(s.new_states) * union_size;
    plan.transitions += static_cast<double>(s.new_states) * static_cast<double>(rows.size());
    plan.steps.push_back(s);
  }
  return plan;
}

// The mask of the colex rank `index` among the k-subsets of positions below a.
SPARSEPERM_HOST_DEVICE inline std::uint64_t colex_unrank(std::uint64_t index, int k, int a,
                                                         const std::uint64_t* binomial) {
  std::uint64_t mask = 0;
  int c = a;
  for (int i = k; i >= 1; --i) {
    --c;
    while (binomial[c * ranked_binomial_stride + i] > index) --c;  // stops at c = i − 1: C(i − 1, i) = 0
    mask |= std::uint64_t{1} << c;
    index -= binomial[c * ranked_binomial_stride + i];
  }
  return mask;
}

// `mask` with a zero bit inserted at each of `positions` (ascending, final positions).
SPARSEPERM_HOST_DEVICE inline std::uint64_t insert_zero_bits(std::uint64_t mask, std::uint64_t positions) {
  for (; positions != 0; positions &= positions - 1) {
    const std::uint64_t low = (positions & (~positions + 1)) - 1;
    mask = (mask & low) | ((mask & ~low) << 1);
  }
  return mask;
}

// The new state of rank `index` of step `s`: Σ over the column's rows r in it (whose removal leaves an
// old state) of a_rc · old[state − r]. Arith: ranked_real, ranked_complex or ranked_residues.
template <class Arith>
SPARSEPERM_HOST_DEVICE inline typename Arith::sum ranked_dp_state(const ranked_dp_step& s, std::uint64_t index,
                                                                  const std::uint64_t* binomial, const Arith& arith,
                                                                  const typename Arith::entry* entries,
                                                                  const double* old_values) {
  typename Arith::sum sum = arith.zero();
  const std::uint64_t state =
      insert_zero_bits(colex_unrank(index, s.new_matched, s.new_active, binomial), s.finishing) | s.finishing;
  const std::uint64_t old_list = (std::uint64_t{1} << s.old_active) - 1;
  const std::uint64_t new_rows = state & ~old_list;
  if ((new_rows & (new_rows - 1)) != 0) return sum;  // two of the column's new rows: no old state
  const std::uint64_t candidates = new_rows != 0 ? new_rows : state & s.entries;
  // rank(state − b_m) = Σ_{j<m} C(b_j, j + 1) + Σ_{j>m} C(b_j, j), b_j the j-th bit of state
  std::uint64_t above = 0;
  int j = 0;
  for (std::uint64_t m = state; m != 0; m &= m - 1, ++j)
    above += binomial[trailing_zeros(m) * ranked_binomial_stride + j];
  std::uint64_t below = 0;
  j = 0;
  for (std::uint64_t m = state; m != 0; m &= m - 1, ++j) {
    const int b = trailing_zeros(m);
    const std::uint64_t bit = std::uint64_t{1} << b;
    above -= binomial[b * ranked_binomial_stride + j];
    if (candidates & bit) {
      const int e = s.first_entry + popcount(s.entries & (bit - 1));
      arith.add(sum, entries[e], old_values, s.old_states, below + above);
    }
    below += binomial[b * ranked_binomial_stride + j + 1];
  }
  return sum;
}

// A real value and its lane on |A|: |computed − exact| ≤ γ_nnz · perm(|A|) (a term passes at most one
// fused multiply-add a column for each of that column's entries).
struct ranked_real {
  static constexpr int lanes = 2;
  struct entry {
    double value, modulus;
  };
  struct sum {
    double value, modulus;
  };
  static entry entry_of(double value, double) { return {value, std::fabs(value)}; }
  SPARSEPERM_HOST_DEVICE sum zero() const { return {0, 0}; }
  static void one(double* values) { values[0] = values[1] = 1; }
  SPARSEPERM_HOST_DEVICE void add(sum& s, const entry& e, const double* old, std::uint64_t stride,
                                  std::uint64_t rank) const {
    s.value = std::fma(e.value, old[rank], s.value);
    s.modulus = std::fma(e.modulus, old[stride + rank], s.modulus);
  }
  SPARSEPERM_HOST_DEVICE void store(double* values, std::uint64_t stride, std::uint64_t index, const sum& s) const {
    values[index] = s.value;
    values[stride + index] = s.modulus;
  }
};

// Complex values and the lane on the moduli (rounded up): a column rounds each part of each term at
// most twice per entry, and a complex error is at most √2 times its parts', so the error grows by at
// most 2√2 < 3 roundings an entry: γ_3nnz · perm(|A|).
struct ranked_complex {
  static constexpr int lanes = 3;
  struct entry {
    double re, im, modulus;
  };
  struct sum {
    double re, im, modulus;
  };
  static entry entry_of(double re, double im) {
    return {re, im,
            im == 0 ? std::fabs(re) : std::nextafter(std::hypot(re, im), std::numeric_limits<double>::infinity())};
  }
  SPARSEPERM_HOST_DEVICE sum zero() const { return {0, 0, 0}; }
  static void one(double* values) { values[0] = 1, values[1] = 0, values[2] = 1; }
  SPARSEPERM_HOST_DEVICE void add(sum& s, const entry& e, const double* old, std::uint64_t stride,
                                  std::uint64_t rank) const {
    const double re = old[rank], im = old[stride + rank];
    s.re = std::fma(e.re, re, std::fma(-e.im, im, s.re));
    s.im = std::fma(e.re, im, std::fma(e.im, re, s.im));
    s.modulus = std::fma(e.modulus, old[2 * stride + rank], s.modulus);
  }
  SPARSEPERM_HOST_DEVICE void store(double* values, std::uint64_t stride, std::uint64_t index, const sum& s) const {
    values[index] = s.re;
    values[stride + index] = s.im;
    values[2 * stride + index] = s.modulus;
  }
};

// A real value in double-double (hi and lo lanes) and the lane on |A|: a transition is a DWTimesFP3
// product and an AccurateDWPlusDW sum (numeric/double_double.cuh); bound: dp_double_double_bound.
struct ranked_real_dd {
  static constexpr int lanes = 3;
  struct entry {
    double value, modulus;
  };
  struct sum {
    double_double value;
    double modulus;
  };
  static entry entry_of(double value, double) { return {value, std::fabs(value)}; }
  SPARSEPERM_HOST_DEVICE sum zero() const { return {{0, 0}, 0}; }
  static void one(double* values) { values[0] = 1, values[1] = 0, values[2] = 1; }
  SPARSEPERM_HOST_DEVICE void add(sum& s, const entry& e, const double* old, std::uint64_t stride,
                                  std::uint64_t rank) const {
    s.value = dd_plus(s.value, dd_times(double_double(old[rank], old[stride + rank]), e.value));
    s.modulus = std::fma(e.modulus, old[2 * stride + rank], s.modulus);
  }
  SPARSEPERM_HOST_DEVICE void store(double* values, std::uint64_t stride, std::uint64_t index, const sum& s) const {
    values[index] = s.value.hi;
    values[stride + index] = s.value.lo;
    values[2 * stride + index] = s.modulus;
  }
};

// Complex values in double-double (re.hi, re.lo, im.hi, im.lo) and the lane on the moduli.
struct ranked_complex_dd {
  static constexpr int lanes = 5;
  struct entry {
    complex_double value;
    double modulus;
  };
  struct sum {
    complex_double_double value;
    double modulus;
  };
  static entry entry_of(double re, double im) { return {{re, im}, ranked_complex::entry_of(re, im).modulus}; }
  SPARSEPERM_HOST_DEVICE sum zero() const { return {{}, 0}; }
  static void one(double* values) { values[0] = 1, values[1] = values[2] = values[3] = 0, values[4] = 1; }
  SPARSEPERM_HOST_DEVICE void add(sum& s, const entry& e, const double* old, std::uint64_t stride,
                                  std::uint64_t rank) const {
    const complex_double_double x{{old[rank], old[stride + rank]}, {old[2 * stride + rank], old[3 * stride + rank]}};
    const complex_double_double p = dd_times(x, e.value);
    s.value = {dd_plus(s.value.re, p.re), dd_plus(s.value.im, p.im)};
    s.modulus = std::fma(e.modulus, old[4 * stride + rank], s.modulus);
  }
  SPARSEPERM_HOST_DEVICE void store(double* values, std::uint64_t stride, std::uint64_t index, const sum& s) const {
    values[index] = s.value.re.hi;
    values[stride + index] = s.value.re.lo;
    values[2 * stride + index] = s.value.im.hi;
    values[3 * stride + index] = s.value.im.lo;
    values[4 * stride + index] = s.modulus;
  }
};

// Four residues a state, modulo the primes first_prime … first_prime + 3 (modular.cuh): every residue
// stays within p/2 + 1 of 0, so a residue times an entry's residue plus a sum is below 2^49, exact.
struct ranked_residues {
  static constexpr int lanes = 4;
  modulus primes[lanes];
  struct entry {
    double r[lanes];
  };
  struct sum {
    double r[lanes];
  };
  explicit ranked_residues(int first_prime) {
    for (int l = 0; l < lanes; ++l) primes[l] = modulus_of(modular_primes[(first_prime + l) % modular_prime_count]);
  }
  // An integer entry's residues: fmod is exact for every double.
  entry entry_of(double value, double) const {
    entry e;
    for (int l = 0; l < lanes; ++l) e.r[l] = reduce(std::fmod(value, primes[l].p), primes[l]);
    return e;
  }
  SPARSEPERM_HOST_DEVICE sum zero() const { return {{0, 0, 0, 0}}; }
  static void one(double* values) {
    for (int l = 0; l < lanes; ++l) values[l] = 1;
  }
  SPARSEPERM_HOST_DEVICE void add(sum& s, const entry& e, const double* old, std::uint64_t stride,
                                  std::uint64_t rank) const {
    for (int l = 0; l < lanes; ++l) s.r[l] = reduce(std::fma(e.r[l], old[l * stride + rank], s.r[l]), primes[l]);
  }
  SPARSEPERM_HOST_DEVICE void store(double* values, std::uint64_t stride, std::uint64_t index, const sum& s) const {
    for (int l = 0; l < lanes; ++l) values[l * stride + index] = s.r[l];
  }
};

template <class Arith>
std::vector<typename Arith::entry> ranked_entries(const ranked_dp_plan& plan, const Arith& arith) {
  std::vector<typename Arith::entry> entries(plan.entry_value.size());
  for (std::size_t k = 0; k < entries.size(); ++k) entries[k] = arith.entry_of(plan.entry_value[k], plan.entry_imag[k]);
  return entries;
}

// Runs the steps on host threads (the GPU's code, checked where there is no GPU): the last state's
// lanes.
struct ranked_dp_on_host {
  int threads = 1;
  const progress_counter* progress = nullptr;  // a stop request ends the run within 4096 states
  template <class Arith>
  std::vector<double> operator()(const ranked_dp_plan& plan, const Arith& arith) const {
    const std::vector<std::uint64_t> binomial = ranked_binomials();
    const auto entries = ranked_entries(plan, arith);
    std::vector<double> old(Arith::lanes), next;
    Arith::one(old.data());
    for (const ranked_dp_step& s : plan.steps) {
      throw_if_stopped(progress);
      next.assign(Arith::lanes * s.new_states, 0.0);
      constexpr std::int64_t chunk = 4096;
      const auto chunks = static_cast<std::int64_t>((s.new_states + chunk - 1) / chunk);
      parallel_for<schedule::dynamic_one>(chunks, threads, [&](std::int64_t c) {
        if (stop_requested(progress)) return;  // the step is dropped below
        const auto end = std::min<std::uint64_t>(s.new_states, static_cast<std::uint64_t>(c + 1) * chunk);
        for (auto index = static_cast<std::uint64_t>(c) * chunk; index < end; ++index) {
          arith.store(next.data(), s.new_states, index,
                      ranked_dp_state(s, index, binomial.data(), arith, entries.data(), old.data()));
        }
      });
      throw_if_stopped(progress);
      old.swap(next);
    }
    return old;
  }
};

// Bytes of the two state arrays of a plan in an arithmetic of `lanes` doubles a state.
inline double ranked_dp_bytes(double peak_states, int lanes) { return 2.0 * lanes * 8.0 * peak_states; }

// Passes over the steps that `primes` residues take, four primes a pass.
inline int ranked_dp_passes(int primes) { return (primes + ranked_residues::lanes - 1) / ranked_residues::lanes; }

// The lanes a state holds for `matrix` with `primes` residues (0: doubles, or double-double for p).
inline int ranked_dp_lanes(const sparse_matrix& matrix, int primes, precision p = precision::automatic) {
  if (primes > 0) return ranked_residues::lanes;
  if (p == precision::double_double) return matrix.is_complex() ? ranked_complex_dd::lanes : ranked_real_dd::lanes;
  return matrix.is_complex() ? ranked_complex::lanes : ranked_real::lanes;
}

inline double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 4.0 * (1ull << 30);
}

// Whether the dp engine runs `order` in dense steps on the host: a union of at most 63 rows, the
// arithmetic dp promises (integer matrices exact: residues must hold them, so Gaussian integers and
// integers beyond 16 primes stay on the hash tables' wide integers), and arrays within a quarter of
// the memory. Where states are few against C(active, matched), the hash tables keep only those.
inline bool dense_dp_fits(const sparse_matrix& a, const frontier_order& order, precision p = precision::automatic) {
  if (order.frontier > ranked_dp_max_frontier) return false;
  if (a.has_integer_values() && exact_refusal(a, "dp", exact_reach::within_residue_primes)) return false;
  const int lanes = ranked_dp_lanes(a, a.has_integer_values() ? 1 : 0, p);
  return ranked_dp_bytes(order.peak_states, lanes) <= 0.25 * physical_memory_bytes();
}

// What the dense steps run for precision p: residues (how many primes) or 0 for doubles.
inline int ranked_dp_primes(const sparse_matrix& matrix, precision p) {
  if (p == precision::double_sums || p == precision::compensated) return 0;
  if (exact_refusal(matrix, "", exact_reach::within_residue_primes)) return 0;
  return primes_for_bits(permanent_bound_bits(matrix));
}

// The permanent from the dense steps of `order`, each pass run by `run` (ranked_dp_on_host, or the
// GPU's): exact in residues where ranked_dp_primes says so, else doubles with a bound from the lane on
// |A|. --precision exact on a matrix the residues cannot hold is refused.
template <class Run>
dp_value ranked_dp_value(const sparse_matrix& a, const frontier_order& order, precision p, std::string_view engine,
                         const Run& run) {
  if (p == precision::exact) {
    if (const auto why = exact_refusal(a, engine, exact_reach::within_residue_primes))
      throw engine_error(engine_error::kind::refused, *why);
  }
  const ranked_dp_plan plan = make_ranked_dp_plan(a, order);
  dp_value result;
  result.peak_states = plan.peak_states;
  result.transitions = plan.transitions;
  const int primes = ranked_dp_primes(a, p);
  result.complex = a.is_complex();
  if (primes > 0) {
    result.exact = true;
    std::vector<double> residue(primes), prime(primes);
    for (int first = 0; first < primes; first += ranked_residues::lanes) {
      const std::vector<double> lanes =
          plan.zero ? std::vector<double>(ranked_residues::lanes, 0.0) : run(plan, ranked_residues(first));
      for (int l = 0; l < ranked_residues::lanes && first + l < primes; ++l) {
        residue[first + l] = lanes[l];
        prime[first + l] = modular_primes[first + l];
      }
    }
    result.exact_value = chinese_remainder(residue, prime);
    result.value = result.exact_value.to_double();
    const int passes = ranked_dp_passes(primes);
    result.arithmetic = "exact: residues modulo " + std::to_string(primes) + " primes below 2^25 in " +
                        std::to_string(passes) + (passes == 1 ? " pass" : " passes") + ", joined by the CRT";
    return result;
  }
  const double allowance = dp_underflow_allowance(absolute_values(a), plan.transitions);
  if (p == precision::double_double) {  // the lane on |A| rounds each term at most nnz times
    const double lane_unit = 1 - gamma_of(static_cast<double>(a.nnz()) + 1, 0x1p-53);
    if (a.is_complex()) {
      const std::vector<double> lanes = plan.zero ? std::vector<double>(5, 0.0) : run(plan, ranked_complex_dd{});
      result.value = lanes[0] + lanes[1];
      result.imag = lanes[2] + lanes[3];
      result.error_bound =
          dp_double_double_bound(a, lanes[4] / lane_unit, std::fabs(result.value) + std::fabs(result.imag), allowance);
      result.arithmetic = "complex double-double; bound from a lane on |A|";
    } else {
      const std::vector<double> lanes = plan.zero ? std::vector<double>(3, 0.0) : run(plan, ranked_real_dd{});
      result.value = lanes[0] + lanes[1];
      result.error_bound = dp_double_double_bound(a, lanes[2] / lane_unit, std::fabs(result.value), allowance);
      result.arithmetic = "double-double; bound from a lane on |A|";
    }
    return result;
  }
  if (a.is_complex()) {
    const std::vector<double> lanes = plan.zero ? std::vector<double>(3, 0.0) : run(plan, ranked_complex{});
    result.value = lanes[0];
    result.imag = lanes[1];
    const double g = gamma_of(3.0 * static_cast<double>(a.nnz()) + 3, 0x1p-53);
    result.error_bound = (g * lanes[2] / (1 - g) + 8 * allowance) * bound_margin;
    result.arithmetic = "complex double, fused multiply-adds; bound from a lane on |A|";
  } else {
    const std::vector<double> lanes = plan.zero ? std::vector<double>(2, 0.0) : run(plan, ranked_real{});
    result.value = lanes[0];
    const double g = gamma_of(static_cast<double>(a.nnz()) + 1, 0x1p-53);
    result.error_bound = (g * lanes[1] / (1 - g) + allowance) * bound_margin;
    result.arithmetic = "double, fused multiply-adds; bound from a lane on |A|";
  }
  return result;
}

}  // namespace detail
}  // namespace sparseperm
