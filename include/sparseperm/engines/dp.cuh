#pragma once
// The `dp` engine: the column-frontier dynamic program (DESIGN §4).
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
// else big integers); real matrices in double with TwoSum-compensated sums per state. OpenMP threads
// share a step by the hash of the new state's key: each thread owns the states of its shard, so the
// sums do not depend on timing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "../detail/accumulators.cuh"
#include "../detail/big_integer.cuh"
#include "../detail/error_bound.cuh"
#include "../detail/exact_integer.cuh"
#include "../detail/threads.cuh"
#include "../engine_error.cuh"
#include "../runtime/sparse_matrix.cuh"

namespace sparseperm {

// The widest frontier the dp engine keeps (8 words of row slots).
inline constexpr int dp_max_frontier = 512;

// A column order and what it predicts.
struct dp_order {
  std::string name;
  std::vector<int> columns;
  int frontier = 0;             // most active rows at once
  double peak_states = 0;       // predicted bound on the states of one step
  double transitions = 0;       // predicted Σ_t states_t · deg(c_t)
};

namespace detail {

inline double log2_binomial(int n, int k) {
  if (k < 0 || k > n) return -std::numeric_limits<double>::infinity();
  return (std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0)) / std::log(2.0);
}

}  // namespace detail

// The frontier of `columns` (a permutation of the columns of `a`) and its predicted work.
inline dp_order estimate_dp_order(const sparse_matrix& a, std::vector<int> columns, std::string name) {
  const int n = a.n();
  dp_order o;
  o.name = std::move(name);
  std::vector<int> remaining(n);
  std::vector<char> touched(n, 0);
  for (int i = 0; i < n; ++i) remaining[i] = a.row_degree(i);
  int active = 0, finished = 0;
  for (int t = 0; t < static_cast<int>(columns.size()); ++t) {
    const int c = columns[t];
    const double states_before = std::exp2(std::min(detail::log2_binomial(active, t - finished), 1023.0));
    o.transitions += states_before * a.column_degree(c);
    for (const int r : a.column_rows(c)) {
      if (!touched[r]) touched[r] = 1, ++active;
    }
    o.frontier = std::max(o.frontier, active);
    for (const int r : a.column_rows(c)) {
      if (--remaining[r] == 0) --active, ++finished;
    }
    o.peak_states = std::max(o.peak_states, std::exp2(std::min(detail::log2_binomial(active, t + 1 - finished), 1023.0)));
  }
  o.columns = std::move(columns);
  return o;
}

// Greedy: next, the column after which the fewest rows are active (ties: fewer new rows, lower
// index); the first column is `first`, or chosen by the same rule when it is −1. Each column's key
// (growth = new rows − rows it finishes, new rows) changes only when a column sharing a row with it is
// taken, so keys are updated there and the least is kept in a heap (stale entries skipped): the work
// is Σ_r deg(r)·(its columns' degrees) log n, near-linear in nnz for sparse matrices (a scan of every
// column at every step made planning a band matrix of n = 10^4 take 10 s).
inline std::vector<int> greedy_frontier_order(const sparse_matrix& a, int first = -1) {
  const int n = a.n();
  std::vector<int> remaining(n), fresh(n), finishing(n, 0), order;
  std::vector<char> touched(n, 0), done(n, 0);
  order.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) remaining[i] = a.row_degree(i);
  for (int c = 0; c < n; ++c) {
    fresh[c] = a.column_degree(c);
    for (const int r : a.column_rows(c)) finishing[c] += remaining[r] == 1;
  }
  using key = std::tuple<int, int, int>;  // growth, new rows, column
  std::priority_queue<key, std::vector<key>, std::greater<>> heap;
  const auto push = [&](int c) { heap.emplace(fresh[c] - finishing[c], fresh[c], c); };
  const auto take = [&](int c) {
    done[c] = 1;
    order.push_back(c);
    for (const int r : a.column_rows(c)) {
      if (!touched[r]) {
        touched[r] = 1;
        for (const int d : a.row_columns(r)) {
          if (!done[d]) --fresh[d], push(d);
        }
      }
      if (--remaining[r] == 1) {
        for (const int d : a.row_columns(r)) {
          if (!done[d]) ++finishing[d], push(d);  // the one column left that holds r
        }
      }
    }
  };
  if (first >= 0 && first < n) take(first);
  for (int c = 0; c < n; ++c) {
    if (!done[c]) push(c);
  }
  while (static_cast<int>(order.size()) < n) {
    const auto [growth, new_rows, c] = heap.top();
    heap.pop();
    if (done[c] || growth != fresh[c] - finishing[c] || new_rows != fresh[c]) continue;  // stale
    take(c);
  }
  return order;
}

// Reverse Cuthill–McKee on the column graph (columns adjacent when they share a row), from a
// pseudo-peripheral column of each connected part.
inline std::vector<int> cuthill_mckee_order(const sparse_matrix& a) {
  const int n = a.n();
  std::vector<int> order;
  std::vector<char> seen(n, 0);
  const auto neighbours = [&](int c, std::vector<int>& out) {
    out.clear();
    for (const int r : a.column_rows(c)) {
      for (const int d : a.row_columns(r)) {
        if (d != c) out.push_back(d);
      }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  };
  std::vector<int> adjacent, level;
  const auto breadth_first = [&](int start, std::vector<char>& mark, std::vector<int>& visit) {
    visit.assign(1, start);
    mark[start] = 1;
    for (std::size_t k = 0; k < visit.size(); ++k) {
      neighbours(visit[k], adjacent);
      std::sort(adjacent.begin(), adjacent.end(),
                [&](int x, int y) { return a.column_degree(x) != a.column_degree(y) ? a.column_degree(x) < a.column_degree(y) : x < y; });
      for (const int d : adjacent) {
        if (!mark[d]) mark[d] = 1, visit.push_back(d);
      }
    }
  };
  std::vector<char> probe(n, 0);
  for (int start = 0; start < n; ++start) {
    if (seen[start]) continue;
    // the last column reached from `start` is far from it: begin there
    breadth_first(start, probe, level);
    for (const int c : level) probe[c] = 0;  // ready for the next part, without an O(n) copy per part
    breadth_first(level.back(), seen, level);
    order.insert(order.end(), level.rbegin(), level.rend());
  }
  return order;
}

// The candidate orders, estimated; the cheapest first.
inline std::vector<dp_order> dp_orders(const sparse_matrix& a) {
  std::vector<int> natural(a.n());
  for (int j = 0; j < a.n(); ++j) natural[j] = j;
  std::vector<dp_order> orders;
  orders.push_back(estimate_dp_order(a, greedy_frontier_order(a), "greedy fewest active rows"));
  // The greedy rule is myopic about where to begin: try it from other first columns too (all of them
  // up to n = 128, else 32 spread evenly), keeping the best prediction.
  const int starts = a.n() <= 128 ? a.n() : 32;
  for (int k = 0; k < starts; ++k) {
    const int first = static_cast<int>(static_cast<long long>(k) * a.n() / starts);
    dp_order o = estimate_dp_order(a, greedy_frontier_order(a, first), "greedy fewest active rows from column " + std::to_string(first + 1));
    if (o.transitions < orders.front().transitions) orders.front() = std::move(o);
  }
  std::vector<int> rcm = cuthill_mckee_order(a);
  orders.push_back(estimate_dp_order(a, rcm, "reverse Cuthill-McKee"));
  std::reverse(rcm.begin(), rcm.end());
  orders.push_back(estimate_dp_order(a, std::move(rcm), "Cuthill-McKee"));
  orders.push_back(estimate_dp_order(a, std::move(natural), "the matrix's column order"));
  std::stable_sort(orders.begin(), orders.end(), [](const dp_order& x, const dp_order& y) { return x.transitions < y.transitions; });
  return orders;
}

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

// State values: TwoSum-compensated doubles (accumulators.cuh), 128-bit integers, or big integers.
struct dp_double {
  using value = two_sum;
  static value one() { return {1, 0}; }
  static void add_product(value& to, const value& from, double a) { to.add(from.value() * a); }
};

#if SPARSEPERM_HAS_INT128
struct dp_int128 {
  using value = __int128;
  static value one() { return 1; }
  static void add_product(value& to, const value& from, double a) { to += from * static_cast<long long>(a); }
};
#endif

struct dp_big {
  using value = big_integer;
  static value one() { return big_integer(1ll); }
  static void add_product(value& to, const value& from, double a) { to += from.times(static_cast<long long>(a)); }
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
};

template <int Words, class Arithmetic>
typename Arithmetic::value run_dp(const sparse_matrix& a, const std::vector<int>& columns, int threads, dp_run_stats& stats) {
  using key = slot_set<Words>;
  using value = typename Arithmetic::value;
  const int n = a.n();
  std::vector<int> remaining(n), slot(n, -1), free_slots;
  for (int i = 0; i < n; ++i) remaining[i] = a.row_degree(i);
  for (int s = Words * 64 - 1; s >= 0; --s) free_slots.push_back(s);
  std::vector<std::pair<key, value>> states{{key{}, Arithmetic::one()}};
  for (const int c : columns) {
    const auto rows = a.column_rows(c);
    const auto values = a.column_values(c);
    key finishing{};
    for (const int r : rows) {
      if (slot[r] < 0) slot[r] = free_slots.back(), free_slots.pop_back();
      if (remaining[r] == 1) finishing.add(slot[r]);
    }
    stats.transitions += static_cast<double>(states.size()) * static_cast<double>(rows.size());
    const int shards = states.size() >= 4096 ? std::max(threads, 1) : 1;
    std::vector<std::vector<std::pair<key, value>>> next(shards);
    const auto step = [&](int shard) {
      state_table<key, value> table(states.size());
      for (const auto& [k, v] : states) {
        for (std::size_t e = 0; e < rows.size(); ++e) {
          const int s = slot[rows[e]];
          if (k.has(s)) continue;
          key extended = k;
          extended.add(s);
          if (!extended.contains(finishing)) continue;  // a row with no column left must be matched now
          extended.remove(finishing);
          if (shards > 1 && static_cast<int>(extended.hash() % static_cast<std::uint64_t>(shards)) != shard) continue;
          Arithmetic::add_product(table.at(extended), v, values[e]);
        }
      }
      next[shard].reserve(table.size());
      table.for_each([&](const key& k, const value& v) { next[shard].emplace_back(k, v); });
    };
    if (shards > 1) {
      parallel_for<schedule::static_one>(shards, shards, [&](std::int64_t s) { step(static_cast<int>(s)); });
    } else {
      step(0);
    }
    states.clear();
    for (auto& part : next) {
      for (auto& entry : part) states.push_back(std::move(entry));
    }
    stats.peak_states = std::max(stats.peak_states, states.size());
    for (const int r : rows) {
      if (--remaining[r] == 0) free_slots.push_back(slot[r]);
    }
    if (states.empty()) return value{};  // no partial matching survives: permanent 0
  }
  return states.empty() ? value{} : states.front().second;
}

template <class Arithmetic>
typename Arithmetic::value run_dp_words(const sparse_matrix& a, const dp_order& order, int threads, dp_run_stats& stats) {
  if (order.frontier <= 64) return run_dp<1, Arithmetic>(a, order.columns, threads, stats);
  if (order.frontier <= 128) return run_dp<2, Arithmetic>(a, order.columns, threads, stats);
  if (order.frontier <= 256) return run_dp<4, Arithmetic>(a, order.columns, threads, stats);
  return run_dp<8, Arithmetic>(a, order.columns, threads, stats);
}

}  // namespace detail

namespace detail {

// What products that underflow (each rounding at most 2^−1074, times the columns still to come, each
// at most max(1, Σ|a_ij|)) can add to a dp run of `transitions` multiplications.
inline double dp_underflow_allowance(const sparse_matrix& a, double transitions) {
  double log2_growth = 0;
  for (int j = 0; j < a.n(); ++j) {
    double sum = 0;
    for (double v : a.column_values(j)) sum += std::fabs(v);
    log2_growth += std::log2(std::max(1.0, sum));
  }
  const double log2_allowance = std::log2(std::max(transitions, 1.0)) + 2 + log2_growth - 1074;
  return log2_allowance < -1074 ? 0x1p-1074 : std::exp2(log2_allowance);
}

inline bool has_negative_value(const sparse_matrix& a) {
  for (int j = 0; j < a.n(); ++j) {
    for (double v : a.column_values(j)) {
      if (v < 0) return true;
    }
  }
  return false;
}

// |A|, entry by entry.
inline sparse_matrix absolute_values(const sparse_matrix& a) {
  std::vector<matrix_entry> entries = a.entries();
  for (auto& e : entries) e.value = std::fabs(e.value);
  return sparse_matrix::from_entries(a.n(), std::move(entries));
}

}  // namespace detail

// A block's permanent from dp: exact (big integer) for integer matrices, else a double.
struct dp_value {
  bool exact = false;
  detail::big_integer exact_value;
  double value = 0;
  double error_bound = 0;  // real matrices: a bound on |value − permanent|
  std::string arithmetic;
  std::size_t peak_states = 0;
  double transitions = 0;
};

inline dp_value permanent_dp_value(const sparse_matrix& a, const dp_order& order, int threads = 0) {
  if (order.frontier > dp_max_frontier) {
    throw engine_error(engine_error::kind::too_large, "the dp engine's frontier would hold " + std::to_string(order.frontier) +
                                                          " rows (at most " + std::to_string(dp_max_frontier) + ")");
  }
  threads = detail::engine_threads(threads);
  dp_value result;
  detail::dp_run_stats stats;
  if (a.has_integer_values()) {
    result.exact = true;
#if SPARSEPERM_HAS_INT128
    if (detail::fits_int128(a, 0)) {
      result.exact_value = detail::big_integer(detail::run_dp_words<detail::dp_int128>(a, order, threads, stats));
      result.arithmetic = "exact 128-bit integers";
    } else
#endif
    {
      result.exact_value = detail::run_dp_words<detail::dp_big>(a, order, threads, stats);
      result.arithmetic = "exact big integers";
    }
    result.value = result.exact_value.to_double();
  } else {
    result.value = detail::run_dp_words<detail::dp_double>(a, order, threads, stats).value();
    result.arithmetic = "double, compensated sums per state";
    // Every partial matching's product passes at most 3 roundings a column (a state's value(), the
    // multiplication, the TwoSum's second-order rest), so |error| ≤ γ_3n · Σ_matchings |Π a|
    // = γ_3n · perm(|A|): |value| itself for a nonnegative matrix, a second run on |A| otherwise.
    const double g = detail::gamma_of(3.0 * a.n() + 3, 0x1p-53);
    double abs_permanent = std::fabs(result.value);
    if (detail::has_negative_value(a)) {
      detail::dp_run_stats abs_stats;
      abs_permanent = detail::run_dp_words<detail::dp_double>(detail::absolute_values(a), order, threads, abs_stats).value();
      result.arithmetic += "; bound from a second run on |A|";
    }
    result.error_bound = (g * abs_permanent / (1 - g) + detail::dp_underflow_allowance(a, stats.transitions)) * detail::bound_margin;
  }
  result.peak_states = stats.peak_states;
  result.transitions = stats.transitions;
  return result;
}

}  // namespace sparseperm
