#pragma once
// The column-frontier dynamic program (the `dp` engine's algorithm; its tag: engines/dp.cuh).
//
// Columns are processed in an order. After t columns, a state is the set of rows matched so far
// among the *active* rows (touched by a processed and by an unprocessed column); rows whose columns
// are all processed must be matched and leave the state. A state's value is the sum, over the
// partial matchings of the processed columns that match exactly that set, of the product of their
// entries. Processing column c extends every state by one of c's unmatched rows. The work is
// Σ_t states_t · deg(c_t) and a state count is at most C(active, matched), so a matrix whose
// bipartite graph has a narrow frontier under some order is cheap at any n (a band matrix of
// n = 1000 takes milliseconds), where Ryser needs 2^(n−1) steps.
//
// Orders tried: greedy (the column that leaves the fewest active rows next), reverse Cuthill–McKee
// on the column graph and its reverse, and the given order; the one with the fewest predicted
// transitions wins. Active rows live in slots that are reused, so keys stay as wide as the frontier
// (multi-word beyond 64 rows), not as n.
//
// Values: integer matrices exactly (128-bit integers when Π_i Σ_j |a_ij| < 2^125.5 bounds every state,
// else big integers); real matrices in double with TwoSum-compensated sums per state (the
// arithmetics and their state sums: numeric/value_types.cuh). OpenMP threads
// share a step by the hash of the new state's key: each thread owns the states of its shard, so the
// sums do not depend on timing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/progress.cuh"
#include "../detail/format.cuh"
#include "../detail/threads.cuh"
#include "../matrix/exactness.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/big_integer.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/exact_integer.cuh"
#include "../numeric/value_types.cuh"
#include "../structure/frontier_order.cuh"
#include "dp_value.cuh"
#include "ranked_dp.cuh"

namespace sparseperm {

// The widest frontier the dp engine keeps (8 words of row slots).
inline constexpr int dp_max_frontier = 512;

namespace detail {

// A set of frontier slots.
template <int Words>
struct slot_set {
  std::uint64_t word[Words]{};
  bool has(int s) const { return (word[s >> 6] >> (s & 63)) & 1u; }
  void add(int s) { word[s >> 6] |= std::uint64_t{1} << (s & 63); }
  bool contains(const slot_set& m) const {
    for (int w = 0; w < Words; ++w) {
      if ((word[w] & m.word[w]) != m.word[w]) return false;
    }
    return true;
  }
  void remove(const slot_set& m) {
    for (int w = 0; w < Words; ++w) word[w] &= ~m.word[w];
  }
  std::uint64_t hash() const {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int w = 0; w < Words; ++w) {
      h ^= word[w] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return h ^ (h >> 33);
  }
  friend bool operator==(const slot_set&, const slot_set&) = default;
};

// Open addressing, linear probing; keys and values side by side.
template <class Key, class Value>
class state_table {
 public:
  explicit state_table(std::size_t expected = 16) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    keys_.resize(capacity);
    values_.resize(capacity);
    used_.assign(capacity, 0);
  }
  Value& at(const Key& key) {
    if (2 * (size_ + 1) > keys_.size()) grow();
    std::size_t mask = keys_.size() - 1, slot = key.hash() & mask;
    while (used_[slot] && !(keys_[slot] == key)) slot = (slot + 1) & mask;
    if (!used_[slot]) {
      used_[slot] = 1;
      keys_[slot] = key;
      values_[slot] = Value{};
      ++size_;
    }
    return values_[slot];
  }
  std::size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t s = 0; s < keys_.size(); ++s) {
      if (used_[s]) f(keys_[s], values_[s]);
    }
  }

 private:
  void grow() {
    state_table bigger(keys_.size());
    for_each([&](const Key& k, const Value& v) { bigger.at(k) = v; });
    *this = std::move(bigger);
  }
  std::vector<Key> keys_;
  std::vector<Value> values_;
  std::vector<unsigned char> used_;
  std::size_t size_ = 0;
};

struct dp_run_stats {
  std::size_t peak_states = 0;
  double transitions = 0;
  const progress_counter* progress = nullptr;  // in: a stop request ends the run within 4096 states
};

// The dp in arithmetic Arith (numeric/value_types.cuh): a state's value is a state_sum of products,
// each transition adds old value · entry (TwoSum-compensated doubles, 128-bit or big integers, or
// their complex counterparts).
template <int Words, class Arith>
typename Arith::product run_dp(const sparse_matrix& a, const std::vector<int>& columns, int threads,
                               dp_run_stats& stats) {
  using key = slot_set<Words>;
  using state = state_sum<Arith>;
  using product = typename Arith::product;
  const int n = a.n();
  std::vector<int> remaining(n), slot(n, -1), free_slots;
  for (int i = 0; i < n; ++i) remaining[i] = a.row_degree(i);
  for (int s = Words * 64 - 1; s >= 0; --s) free_slots.push_back(s);
  std::vector<std::pair<key, state>> states(1);
  states.front().second.add(product(1ll));
  std::vector<typename Arith::value> entries;
  for (const int c : columns) {
    throw_if_stopped(stats.progress);
    const auto rows = a.column_rows(c);
    const auto values = a.column_values(c);
    const auto imag = a.column_imag(c);
    entries.clear();
    for (std::size_t e = 0; e < rows.size(); ++e)
      entries.push_back(Arith::entry(values[e], imag.empty() ? 0.0 : imag[e]));
    key finishing{};
    for (const int r : rows) {
      if (slot[r] < 0) slot[r] = free_slots.back(), free_slots.pop_back();
      if (remaining[r] == 1) finishing.add(slot[r]);
    }
    stats.transitions += static_cast<double>(states.size()) * static_cast<double>(rows.size());
    const int shards = states.size() >= 4096 ? std::max(threads, 1) : 1;
    std::vector<std::vector<std::pair<key, state>>> next(shards);
    const auto step = [&](int shard) {
      state_table<key, state> table(states.size());
      std::size_t visited = 0;
      for (const auto& [k, v] : states) {
        if ((++visited & 0xfff) == 0 && stop_requested(stats.progress)) return;  // the column is dropped below
        for (std::size_t e = 0; e < rows.size(); ++e) {
          const int s = slot[rows[e]];
          if (k.has(s)) continue;
          key extended = k;
          extended.add(s);
          if (!extended.contains(finishing)) continue;  // a row with no column left must be matched now
          extended.remove(finishing);
          if (shards > 1 && static_cast<int>(extended.hash() % static_cast<std::uint64_t>(shards)) != shard) continue;
          table.at(extended).add(Arith::multiply(v.value(), entries[e]));
        }
      }
      next[shard].reserve(table.size());
      table.for_each([&](const key& k, const state& v) { next[shard].emplace_back(k, v); });
    };
    if (shards > 1) {
      parallel_for<schedule::static_one>(shards, shards, [&](std::int64_t s) { step(static_cast<int>(s)); });
    } else {
      step(0);
    }
    throw_if_stopped(stats.progress);  // within 4096 states of a request, not only between columns
    states.clear();
    for (auto& part : next) {
      for (auto& entry : part) states.push_back(std::move(entry));
    }
    stats.peak_states = std::max(stats.peak_states, states.size());
    for (const int r : rows) {
      if (--remaining[r] == 0) free_slots.push_back(slot[r]);
    }
    if (states.empty()) return product{};  // no partial matching survives: permanent 0
  }
  return states.empty() ? product{} : product(states.front().second.value());
}

template <class Arith>
typename Arith::product run_dp_words(const sparse_matrix& a, const frontier_order& order, int threads,
                                     dp_run_stats& stats) {
  if (order.frontier <= 64) return run_dp<1, Arith>(a, order.columns, threads, stats);
  if (order.frontier <= 128) return run_dp<2, Arith>(a, order.columns, threads, stats);
  if (order.frontier <= 256) return run_dp<4, Arith>(a, order.columns, threads, stats);
  return run_dp<8, Arith>(a, order.columns, threads, stats);
}

}  // namespace detail

namespace detail {

inline void check_dp_frontier(const frontier_order& order) {
  if (order.frontier > dp_max_frontier) {
    throw engine_error(engine_error::kind::too_large, "the dp engine's frontier would hold " +
                                                          std::to_string(order.frontier) + " rows (at most " +
                                                          std::to_string(dp_max_frontier) + ")");
  }
}

// Integer values of any size (held exactly as doubles) in big integers, or big Gaussian integers for
// a complex matrix: the exact value into `result`.
inline void run_dp_big_integers(const sparse_matrix& a, const frontier_order& order, int threads, dp_value& result,
                                dp_run_stats& stats) {
  result.exact = true;
  if (a.is_complex()) {
    big_gaussian v = run_dp_words<big_gaussian_arithmetic>(a, order, threads, stats);
    result.complex = true;
    result.exact_value = std::move(v.re);
    result.exact_imag = std::move(v.im);
    result.imag = result.exact_imag.to_double();
    result.arithmetic = "exact big Gaussian integers";
  } else {
    result.exact_value = run_dp_words<big_integer_arithmetic>(a, order, threads, stats);
    result.arithmetic = "exact big integers";
  }
  result.value = result.exact_value.to_double();
}

}  // namespace detail

// Complex matrices: Gaussian integers exactly, else complex doubles with TwoSum per part, bounded
// like real ones (below) with four roundings a complex multiplication and perm(|A|) from a run on
// the moduli.
inline void permanent_dp_complex(const sparse_matrix& a, const frontier_order& order, int threads, dp_value& result,
                                 detail::dp_run_stats& stats) {
  result.complex = true;
  if (a.has_integer_values()) {
#if SPARSEPERM_HAS_INT128
    if (detail::fits_int128(a, 0)) {
      const auto v = detail::run_dp_words<gaussian_exact_arithmetic>(a, order, threads, stats);
      result.exact = true;
      result.exact_value = detail::big_integer(v.re);
      result.exact_imag = detail::big_integer(v.im);
      result.value = result.exact_value.to_double();
      result.imag = result.exact_imag.to_double();
      result.arithmetic = "exact 128-bit Gaussian integers";
      return;
    }
#endif
    detail::run_dp_big_integers(a, order, threads, result, stats);
    return;
  }
  const complex_double v = detail::run_dp_words<complex_double_arithmetic>(a, order, threads, stats);
  result.value = v.re;
  result.imag = v.im;
  result.arithmetic = "complex double, compensated sums per state; bound from a second run on |A|";
  // per column: a complex multiplication (4 roundings), value() and the TwoSum rest of each part
  const double g = detail::gamma_of(6.0 * a.n() + 6, 0x1p-53);
  const sparse_matrix moduli = detail::absolute_values(a);
  detail::dp_run_stats abs_stats;
  abs_stats.progress = stats.progress;
  const double abs_permanent = detail::run_dp_words<double_arithmetic>(moduli, order, threads, abs_stats);
  result.error_bound = (g * abs_permanent / (1 - g) + 8 * detail::dp_underflow_allowance(moduli, stats.transitions)) *
                       detail::bound_margin;
}

// Real and complex matrices of non-integers in double-double, bounded through perm(|A|)
// (detail::dp_double_double_bound): a second run in double on |A| where A has signs.
inline void permanent_dp_double_double(const sparse_matrix& a, const frontier_order& order, int threads,
                                       dp_value& result, detail::dp_run_stats& stats) {
  double value_modulus = 0;
  if (a.is_complex()) {
    const complex_double_double v = detail::run_dp_words<complex_double_double_arithmetic>(a, order, threads, stats);
    result.complex = true;
    result.value = v.re.hi + v.re.lo;
    result.imag = v.im.hi + v.im.lo;
    value_modulus = std::fabs(result.value) + std::fabs(result.imag);
    result.arithmetic = "complex double-double";
  } else {
    const double_double v = detail::run_dp_words<double_double_arithmetic>(a, order, threads, stats);
    result.value = v.hi + v.lo;
    value_modulus = std::fabs(result.value);
    result.arithmetic = "double-double";
  }
  const sparse_matrix moduli = detail::absolute_values(a);
  double modulus_permanent = 0;
  if (a.is_complex() || detail::has_negative_value(a)) {
    // the run on |A| in double: its compensated sums round each term at most 3n + 3 times
    detail::dp_run_stats abs_stats;
    abs_stats.progress = stats.progress;
    const double g = detail::gamma_of(3.0 * a.n() + 3, 0x1p-53);
    modulus_permanent = detail::run_dp_words<double_arithmetic>(moduli, order, threads, abs_stats) / (1 - g);
    result.arithmetic += "; bound from a second run on |A|";
  } else {  // perm(|A|) = perm(A): the value, within far less than 2^−50 of itself
    modulus_permanent = value_modulus / (1 - 0x1p-50);
  }
  result.error_bound = detail::dp_double_double_bound(a, modulus_permanent, value_modulus,
                                                      detail::dp_underflow_allowance(moduli, stats.transitions));
}

// Integers of any size held as doubles (the rows of a matrix of doubles times powers of two, beyond
// 2^53 where a row spans more binary orders, so the matrix no longer counts as integer): exactly, in
// big integers (big Gaussian integers for a complex matrix), in the hash tables.
inline dp_value permanent_dp_big_integers(const sparse_matrix& a, const frontier_order& order, int threads = 0,
                                          const progress_counter* progress = nullptr) {
  detail::check_dp_frontier(order);
  dp_value result;
  detail::dp_run_stats stats;
  stats.progress = progress;
  detail::run_dp_big_integers(a, order, detail::engine_threads(threads), result, stats);
  result.arithmetic = "states in hash tables; " + result.arithmetic;
  result.peak_states = stats.peak_states;
  result.transitions = stats.transitions;
  return result;
}

// Where the dp engine keeps its states: dense ranked arrays where they fit (detail::dense_dp_fits),
// else hash tables of the states that occur; tests ask for one.
enum class dp_states { automatic, hash_tables, dense_where_exact };

// Precision: integer matrices are exact in any; precision::double_double runs the others in
// double-double, every other precision in double.
inline dp_value permanent_dp_value(const sparse_matrix& a, const frontier_order& order, int threads = 0,
                                   dp_states states = dp_states::automatic, const progress_counter* progress = nullptr,
                                   precision p = precision::automatic) {
  detail::check_dp_frontier(order);
  threads = detail::engine_threads(threads);
  bool dense = false;
  if (states == dp_states::automatic) {
    dense = detail::dense_dp_fits(a, order, p);
  } else if (states == dp_states::dense_where_exact) {
    dense = order.frontier <= ranked_dp_max_frontier &&
            (!a.has_integer_values() || !detail::exact_refusal(a, "dp", exact_reach::within_residue_primes));
  }
  if (dense) {
    dp_value v = detail::ranked_dp_value(a, order, p == precision::double_double ? p : precision::automatic, "dp",
                                         detail::ranked_dp_on_host{threads, progress});
    v.arithmetic = "states in dense ranked arrays; " + v.arithmetic;
    return v;
  }
  dp_value result;
  detail::dp_run_stats stats;
  stats.progress = progress;
  if (p == precision::double_double && !a.has_integer_values()) {
    permanent_dp_double_double(a, order, threads, result, stats);
  } else if (a.is_complex()) {
    permanent_dp_complex(a, order, threads, result, stats);
  } else if (a.has_integer_values()) {
#if SPARSEPERM_HAS_INT128
    if (detail::fits_int128(a, 0)) {
      result.exact = true;
      result.exact_value = detail::big_integer(detail::run_dp_words<exact_arithmetic>(a, order, threads, stats));
      result.value = result.exact_value.to_double();
      result.arithmetic = "exact 128-bit integers";
    } else
#endif
    {
      detail::run_dp_big_integers(a, order, threads, result, stats);
    }
  } else {
    result.value = detail::run_dp_words<double_arithmetic>(a, order, threads, stats);
    result.arithmetic = "double, compensated sums per state";
    // Every partial matching's product passes at most 3 roundings a column (a state's value(), the
    // multiplication, the TwoSum's second-order rest), so |error| ≤ γ_3n · Σ_matchings |Π a|
    // = γ_3n · perm(|A|): |value| itself for a nonnegative matrix, a second run on |A| otherwise.
    const double g = detail::gamma_of(3.0 * a.n() + 3, 0x1p-53);
    double abs_permanent = std::fabs(result.value);
    if (detail::has_negative_value(a)) {
      detail::dp_run_stats abs_stats;
      abs_stats.progress = stats.progress;
      abs_permanent = detail::run_dp_words<double_arithmetic>(detail::absolute_values(a), order, threads, abs_stats);
      result.arithmetic += "; bound from a second run on |A|";
    }
    result.error_bound =
        (g * abs_permanent / (1 - g) + detail::dp_underflow_allowance(a, stats.transitions)) * detail::bound_margin;
  }
  result.peak_states = stats.peak_states;
  result.transitions = stats.transitions;
  result.arithmetic = "states in hash tables; " + result.arithmetic;
  return result;
}

}  // namespace sparseperm
