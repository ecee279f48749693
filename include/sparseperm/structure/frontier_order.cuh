#pragma once
// Column orders with a small frontier, and what they predict (the dp engine's cost, and the
// planner's estimate of it).
//
// After t columns of an order, a row is *active* when a processed and an unprocessed column touch it;
// the frontier is the most active rows at once. The dp engine's states are subsets of the active
// rows, so a narrow frontier under some order makes it cheap at any n. Orders tried: greedy (the
// column that leaves the fewest active rows next, from several first columns), reverse Cuthill–McKee
// on the column graph and its reverse, and the given order; the one with the fewest predicted
// transitions comes first.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "../matrix/sparse_matrix.cuh"

namespace sparseperm {

// A column order and what it predicts.
struct frontier_order {
  std::string name;
  std::vector<int> columns;
  int frontier = 0;        // most active rows at once
  double peak_states = 0;  // predicted bound on the states of one step
  double transitions = 0;  // predicted Σ_t states_t · deg(c_t)
};

namespace detail {

inline double log2_binomial(int n, int k) {
  if (k < 0 || k > n) return -std::numeric_limits<double>::infinity();
  return (std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0)) / std::log(2.0);
}

}  // namespace detail

// The frontier of `columns` (a permutation of the columns of `a`) and its predicted work.
inline frontier_order estimate_frontier_order(const sparse_matrix& a, std::vector<int> columns, std::string name) {
  const int n = a.n();
  frontier_order o;
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
    o.peak_states =
        std::max(o.peak_states, std::exp2(std::min(detail::log2_binomial(active, t + 1 - finished), 1023.0)));
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
      std::sort(adjacent.begin(), adjacent.end(), [&](int x, int y) {
        return a.column_degree(x) != a.column_degree(y) ? a.column_degree(x) < a.column_degree(y) : x < y;
      });
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
inline std::vector<frontier_order> frontier_orders(const sparse_matrix& a) {
  std::vector<int> natural(a.n());
  for (int j = 0; j < a.n(); ++j) natural[j] = j;
  std::vector<frontier_order> orders;
  if (a.n() > 0 && a.nnz() == static_cast<std::int64_t>(a.n()) * a.n()) {  // dense: every order is alike
    orders.push_back(estimate_frontier_order(a, std::move(natural), "the matrix's column order (dense)"));
    return orders;
  }
  orders.push_back(estimate_frontier_order(a, greedy_frontier_order(a), "greedy fewest active rows"));
  // The greedy rule is myopic about where to begin: try it from other first columns too (all of them
  // up to n = 128, else 32 spread evenly), keeping the best prediction.
  const int starts = a.n() <= 128 ? a.n() : 32;
  for (int k = 0; k < starts; ++k) {
    const int first = static_cast<int>(static_cast<long long>(k) * a.n() / starts);
    frontier_order o = estimate_frontier_order(a, greedy_frontier_order(a, first), {});
    if (o.transitions < orders.front().transitions) {
      o.name = "greedy fewest active rows from column " + std::to_string(first + 1);  // only for the best
      orders.front() = std::move(o);
    }
  }
  std::vector<int> rcm = cuthill_mckee_order(a);
  orders.push_back(estimate_frontier_order(a, rcm, "reverse Cuthill-McKee"));
  std::reverse(rcm.begin(), rcm.end());
  orders.push_back(estimate_frontier_order(a, std::move(rcm), "Cuthill-McKee"));
  orders.push_back(estimate_frontier_order(a, std::move(natural), "the matrix's column order"));
  std::stable_sort(orders.begin(), orders.end(),
                   [](const frontier_order& x, const frontier_order& y) { return x.transitions < y.transitions; });
  return orders;
}

}  // namespace sparseperm
