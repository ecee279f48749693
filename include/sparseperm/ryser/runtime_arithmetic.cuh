#pragma once
// The arithmetic a run-time Ryser engine (cpu-sparse, gpu-sparse) uses for a matrix and a
// precision, and the checks every engine shares before it promises an exact result.
//
//   exact_refusal(matrix, e, reach) why engine `e` cannot keep `--precision exact` (non-integer
//                                   values, entries beyond what it holds exactly), or nothing
//   exact_candidates_of             the exact arithmetics that hold a matrix: 128 bits, K primes
//   arithmetic_for / choose_ryser_arithmetic
//                                   double (plain or compensated sums), or the cheapest exact
//                                   arithmetic at the engine's site (numeric/arithmetic.cuh's
//                                   prices): 128-bit integers or residues modulo K primes (K from
//                                   the proven bound, rounded up to runtime_prime_counts in the
//                                   run-time engines; visit the choice with visit_arithmetic:
//                                   ryser/arithmetic_types.cuh)
//   row_grids_of<T>(matrix)         the row grids floating runs round the values to, and what that
//                                   changes (numeric/error_bound.cuh); for complex matrices both
//                                   parts, on a grid sized by the row's Σ (|re| + |im|)
//   row_abs_sums, row_l1_sums       per row Σ_j |a_ij| (the modulus) and Σ_j (|re| + |im|)
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../core/engine_error.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/arithmetic.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/exact_integer.cuh"
#include "../numeric/int128_bound.cuh"
#include "../numeric/modular.cuh"
#include "sparse_ryser.cuh"

namespace sparseperm::detail {

// Per row Σ_j |a_ij|, |a| the modulus for complex matrices (bounds for perm(|A|)).
inline std::vector<double> row_abs_sums(const sparse_matrix& matrix) {
  std::vector<double> sums(static_cast<std::size_t>(matrix.n()), 0.0);
  for (int i = 0; i < matrix.n(); ++i) {
    const auto re = matrix.row_values(i);
    const auto im = matrix.row_imag(i);
    for (std::size_t k = 0; k < re.size(); ++k) sums[i] += im.empty() ? std::fabs(re[k]) : std::hypot(re[k], im[k]);
  }
  return sums;
}

// Per row Σ_j (|re a_ij| + |im a_ij|): bounds each part's row sum, and the modulus's.
inline std::vector<double> row_l1_sums(const sparse_matrix& matrix) {
  std::vector<double> sums(static_cast<std::size_t>(matrix.n()), 0.0);
  for (int i = 0; i < matrix.n(); ++i) {
    for (double v : matrix.row_values(i)) sums[i] += std::fabs(v);
    for (double v : matrix.row_imag(i)) sums[i] += std::fabs(v);
  }
  return sums;
}

// True when 128-bit integers hold every intermediate value of an exact engine whose partial sums are
// bounded by 2^extra_bits · Π R_i (Ryser: extra_bits = n − 1; a sum over permutations: 0).
inline bool fits_int128(const sparse_matrix& matrix, int extra_bits) {
#if SPARSEPERM_HAS_INT128
  if (!matrix.has_integer_values()) return false;
  // integers ≤ 128·2^53: exact; for Gaussian integers |re| + |im| bounds both parts of every product
  const std::vector<double> row_sums = row_l1_sums(matrix);
  return int128_bound_holds(row_sums.data(), matrix.n(), extra_bits);
#else
  (void)matrix;
  (void)extra_bits;
  return false;
#endif
}

// A proven bound on log2 |perm| of an integer matrix (modular.cuh's rule).
inline double permanent_bound_bits(const sparse_matrix& matrix) {
  const int n = matrix.n();
  std::vector<double> row_sums(n, 0.0), column_sums(n, 0.0);
  std::vector<int> row_degrees(n, 0), column_degrees(n, 0);
  bool zero_one = true;
  for (int j = 0; j < n; ++j) {
    const auto rows = matrix.column_rows(j);
    const auto values = matrix.column_values(j);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const double v = std::fabs(values[k]);
      zero_one = zero_one && v == 1;
      row_sums[rows[k]] += v;
      column_sums[j] += v;
      ++row_degrees[rows[k]];
      ++column_degrees[j];
    }
  }
  return permanent_bound_bits(row_sums.data(), row_degrees.data(), column_sums.data(), column_degrees.data(), n,
                              zero_one);
}

// The row grids of a run-time matrix and what rounding to them changes (ryser_plan.cuh's
// grid_facts_of for the run-time engines). T: the floating type (long double for `reference`).
template <class T = double>
struct row_grids {
  std::vector<int> exponent;  // per row
  bool representable = true;
  grid_rounding_facts facts;
  T value(int row, double v) const {
    return representable ? round_to_grid<T>(static_cast<T>(v), exponent[row]) : static_cast<T>(v);
  }
  complex_number<T> value(int row, double re, double im) const { return {value(row, re), value(row, im)}; }
};

// What changing row i of `matrix` by at most rho(i) relatively does to its permanent (error_bound.cuh's
// grid_rounding_builder, fed the row and column sums of |a_ij|): the row grids' rounding here, the
// rounding of a file's values on reading in compute.cuh. `widen` (≥ 1) scales the sums where they
// must bound values other than the ones held.
template <class Rho>
grid_rounding_builder perturbation_builder(const sparse_matrix& matrix, const Rho& rho, double widen = 1) {
  grid_rounding_builder b;
  const bool complex = matrix.is_complex();  // |a| the modulus; never "nonnegative"
  for (int i = 0; i < matrix.n(); ++i) {
    double sum = 0;
    bool negative = complex;
    const auto im = matrix.row_imag(i);
    const auto re = matrix.row_values(i);
    for (std::size_t k = 0; k < re.size(); ++k) {
      sum += complex ? std::hypot(re[k], im[k]) : std::fabs(re[k]);
      negative = negative || re[k] < 0;
    }
    b.row(rho(i), sum * widen * (complex ? bound_margin : 1), negative);
  }
  for (int j = 0; j < matrix.n(); ++j) {
    double sum = 0;
    const auto im = matrix.column_imag(j);
    const auto re = matrix.column_values(j);
    for (std::size_t k = 0; k < re.size(); ++k) sum += complex ? std::hypot(re[k], im[k]) : std::fabs(re[k]);
    b.column(sum * widen * (complex ? bound_margin : 1));
  }
  return b;
}

template <class T = double>
row_grids<T> row_grids_of(const sparse_matrix& matrix) {
  const int n = matrix.n();
  row_grids<T> g;
  g.exponent.resize(n);
  const std::vector<double> sums = row_l1_sums(matrix);  // real matrices: Σ|a_ij|
  for (int i = 0; i < n; ++i) {
    g.exponent[i] = grid_exponent(sums[i]);
    g.representable = g.representable && g.exponent[i] <= max_grid_exponent;
  }
  grid_rounding_builder b = perturbation_builder(matrix, [&](int i) {
    double rho = 0;
    const auto re = matrix.row_values(i);
    const auto im = matrix.row_imag(i);
    for (std::size_t k = 0; k < re.size(); ++k) {
      if (im.empty()) {
        rho = std::max(rho, relative_change<T>(static_cast<T>(re[k]), g.value(i, re[k])));
      } else {  // relative to the modulus: a part near 0 may move far relative to itself
        rho = std::max(rho, relative_change_complex<T>(re[k], im[k], g.value(i, re[k]), g.value(i, im[k])));
      }
    }
    return rho;
  });
  if (!g.representable) b.unrepresentable();
  g.facts = b.facts();
  return g;
}

// Why a floating Ryser run of `matrix` could not be certified, or nothing: rounding the values to
// their row grids must change each row by less than 100% (a row whose values span more than about
// 2^50 loses its small ones: (1e20, 2) rounds 2 to 0), and the row sums must stay in range. The
// planner leaves such matrices to dp and reference, whose bounds need no grids.
inline std::optional<std::string> ryser_bound_refusal(const sparse_matrix& matrix) {
  if (matrix.has_integer_values()) return std::nullopt;  // exact, or integers on any grid
  const grid_rounding_facts f = row_grids_of<double>(matrix).facts;
  if (!f.representable) return std::string("a row's sum of |a_ij| is beyond 2^1021");
  if (!(f.change < 1))
    return std::string("the values of a row span too many binary orders for a certified double result");
  return std::nullopt;
}

// Residue arithmetic holds the matrix: integers, and modular.cuh's rule (as for generated kernels).
inline bool fits_residues(const sparse_matrix& matrix) {
  if (!matrix.has_integer_values() || matrix.is_complex()) return false;  // residues are real
  std::vector<double> row_sums(matrix.n(), 0.0);
  for (int i = 0; i < matrix.n(); ++i) {
    for (double v : matrix.row_values(i)) row_sums[i] += std::fabs(v);
  }
  return residues_hold(row_sums.data(), matrix.n(), permanent_bound_bits(matrix));
}

// Why an engine named `engine` that holds `reach` exactly cannot keep --precision exact on this
// matrix, or nothing: every engine needs integer values; dp (and the planner, which can hand any block
// to dp) holds any integer matrix, `reference` only within 128 bits, the Ryser engines within 128 bits
// or residues, gpu-dp real matrices within the residues' 16 primes.
inline std::optional<std::string> exact_refusal(const sparse_matrix& matrix, std::string_view engine,
                                                exact_reach reach) {
  const std::string name(engine);
  if (!matrix.has_integer_values()) {
    return "--precision exact needs an integer matrix (Gaussian integers for a complex one), and this one has "
           "non-integer values (engine '" +
           name + "')";
  }
  if (reach == exact_reach::any_integer) return std::nullopt;
  if (reach == exact_reach::within_residue_primes) {
    if (matrix.is_complex()) {
      return "--precision exact: engine '" + name + "' has no exact complex arithmetic; the dp engine has";
    }
    if (primes_for_bits(permanent_bound_bits(matrix)) > modular_prime_count) {
      return "--precision exact: engine '" + name + "' holds permanents below 2^" +
             std::to_string(static_cast<int>(modular_prime_count * modular_bits_per_prime) - 2) +
             " exactly, and this one's bound is larger; the dp engine computes any integer matrix exactly";
    }
    return std::nullopt;
  }
  if (matrix.is_complex()) reach = exact_reach::within_128_bits;  // no complex residues
  const bool int128 = fits_int128(matrix, matrix.n() > 0 ? matrix.n() - 1 : 0);
  if (reach == exact_reach::within_128_bits) {
    if (int128) return std::nullopt;
    return "--precision exact: engine '" + name +
           "' is exact only within 128 bits; the dp engine computes any integer matrix exactly";
  }
  if (!int128 && !fits_residues(matrix)) {
    return "--precision exact: the entries are too large for engine '" + name +
           "' (beyond 128 bits it needs every row's sum of |a_ij| at most 2^24); the dp engine computes any integer "
           "matrix exactly";
  }
  return std::nullopt;
}

// The prime counts a run-time Ryser engine is compiled for: five instantiations instead of sixteen.
using runtime_prime_counts = std::integer_sequence<int, 1, 2, 4, 8, 16>;

// The exact arithmetics that hold `matrix` (none for non-integer values; residues are real). A
// run-time engine rounds the primes up to runtime_prime_counts.
inline exact_candidates exact_candidates_of(const sparse_matrix& matrix, bool runtime_primes) {
  exact_candidates c;
  if (!matrix.has_integer_values() || matrix.n() == 0) return c;
  c.int128 = fits_int128(matrix, matrix.n() - 1);
  if (fits_residues(matrix)) {
    c.primes = primes_for_bits(permanent_bound_bits(matrix));
    if (runtime_primes) {
      int primes = 1;
      while (primes < c.primes) primes *= 2;
      c.primes = std::min(primes, modular_prime_count);
    }
  }
  return c;
}

// What precision p runs at a site, given the exact arithmetics that hold the matrix: double or
// compensated sums as asked; exact in the cheapest exact arithmetic (the caller has refused a matrix
// none holds: exact_refusal); the default: that exact arithmetic for an integer matrix, compensated
// sums for the others and where none holds.
inline arithmetic_choice arithmetic_for(precision p, const exact_candidates& candidates, arithmetic_site site) {
  switch (p) {
    case precision::double_sums:
      return {arithmetic::double_sums};
    case precision::compensated:
      return {arithmetic::compensated};
    case precision::exact:
      if (const auto best = cheapest_exact(candidates, site)) return *best;
      throw engine_error(engine_error::kind::failed, "--precision exact: no exact arithmetic holds this matrix");
    default:
      return cheapest_exact(candidates, site).value_or(arithmetic_choice{});
  }
}

// What precision p runs for `matrix` in a Ryser engine at a site (arithmetic_for), --precision
// exact refused first where the engine cannot keep it.
inline arithmetic_choice choose_ryser_arithmetic(const sparse_matrix& matrix, precision p, std::string_view engine,
                                                 arithmetic_site site) {
  if (p == precision::exact) {
    if (const auto why = exact_refusal(matrix, engine, exact_reach::within_128_bits_or_residues)) {
      throw engine_error(engine_error::kind::refused, *why);
    }
  }
  return arithmetic_for(p, exact_candidates_of(matrix, is_runtime(site)), site);
}

}  // namespace sparseperm::detail
