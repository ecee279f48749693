#pragma once
// Degree reductions, each exact:
//
//   a row (or column) with one nonzero a in column c:  perm(A) = a · perm(A without the row and c)
//   a row i with two nonzeros a = a(i, p), b = a(i, q): perm(A) = perm(B), where B drops row i and
//     replaces columns p and q by the one column b·A(:, p) + a·A(:, q) (expand along row i and use
//     the linearity of the permanent in a column); a column with two nonzeros likewise merges rows.
//
// A merge is taken only where it does not grow the work: the merged line has no more nonzeros than
// the longer of the two it replaces (so n drops by one and nnz does not rise), and only on integer
// matrices, whose merged values are checked to stay exact integers (|v| ≤ 2^53); on real values a
// merge would round. A tridiagonal 0/1 matrix reduces to 1 × 1 by merges alone.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../matrix/sparse_matrix.cuh"
#include "../numeric/big_integer.cuh"
#include "../numeric/scaled_double.cuh"

namespace sparseperm {

struct reduction_result {
  sparse_matrix matrix;       // what is left (possibly 0 × 0)
  bool zero = false;          // a line emptied (merged values cancelled): the permanent is 0
  bool exact_factor = false;  // integer matrix: `factor` is exact
  detail::big_integer factor{1ll};
  detail::scaled_double factor_value;  // the factor in floating point (the only one for real matrices)
  int degree_one = 0;                  // reductions applied
  int degree_two = 0;
};

namespace detail {

class reducible_matrix {
 public:
  explicit reducible_matrix(const sparse_matrix& a) : rows_(a.n()), columns_(a.n()) {
    for (int j = 0; j < a.n(); ++j) {
      const auto r = a.column_rows(j);
      const auto v = a.column_values(j);
      for (std::size_t k = 0; k < r.size(); ++k) {
        rows_[r[k]][j] = v[k];
        columns_[j][r[k]] = v[k];
      }
    }
  }

  // Lines are rows when `by_rows`, else columns; their entries sit in the crossing lines.
  std::vector<std::map<int, double>>& lines(bool by_rows) { return by_rows ? rows_ : columns_; }

  // Removes line i of its kind and crossing line c.
  void remove(bool by_rows, int i, int c) {
    auto& line = lines(by_rows);
    auto& cross = lines(!by_rows);
    for (const auto& [k, v] : cross[c]) {
      if (k != i) line[k].erase(c);
    }
    for (const auto& [k, v] : line[i]) {
      if (k != c) cross[k].erase(i);
    }
    line[i].clear();
    cross[c].clear();
    removed_line(by_rows)[i] = 1;
    removed_line(!by_rows)[c] = 1;
  }

  // Merges crossing lines p and q through line i (two entries), if the work does not grow and the
  // values stay exact integers. Returns false when it does not apply.
  bool merge(bool by_rows, int i) {
    auto& line = lines(by_rows);
    auto& cross = lines(!by_rows);
    const auto first = line[i].begin();
    const auto second = std::next(first);
    const int p = first->first, q = second->first;
    const double a = first->second, b = second->second;
    std::map<int, double> merged;
    for (const auto& [k, v] : cross[p]) {
      if (k != i) merged[k] += 0;  // support first; values below
    }
    for (const auto& [k, v] : cross[q]) {
      if (k != i) merged[k] += 0;
    }
    const std::size_t longer = std::max(cross[p].size(), cross[q].size());
    if (merged.size() > longer) return false;
    for (auto& [k, value] : merged) {
      const auto in_p = cross[p].find(k);
      const auto in_q = cross[q].find(k);
      const __int128 term =
          (in_p != cross[p].end() ? static_cast<__int128>(b) * static_cast<__int128>(in_p->second) : 0) +
          (in_q != cross[q].end() ? static_cast<__int128>(a) * static_cast<__int128>(in_q->second) : 0);
      if (term > static_cast<__int128>(max_exact_integer) || -term > static_cast<__int128>(max_exact_integer))
        return false;
      value = static_cast<double>(term);
    }
    // apply: cross line p becomes the merged one; line i and cross line q go
    for (const auto& [k, v] : cross[p]) line[k].erase(p);
    for (const auto& [k, v] : cross[q]) line[k].erase(q);
    cross[p].clear();
    cross[q].clear();
    for (const auto& [k, v] : merged) {
      if (v == 0) continue;  // cancelled
      cross[p][k] = v;
      line[k][p] = v;
    }
    line[i].clear();
    removed_line(by_rows)[i] = 1;
    removed_line(!by_rows)[q] = 1;
    return true;
  }

  bool removed(bool by_rows, int i) { return removed_line(by_rows)[i] != 0; }
  int n() const { return static_cast<int>(rows_.size()); }

  sparse_matrix remaining() {
    std::vector<int> row_index(rows_.size(), -1), column_index(columns_.size(), -1);
    int rows = 0, columns = 0;
    for (int i = 0; i < n(); ++i) {
      if (!removed(true, i)) row_index[i] = rows++;
      if (!removed(false, i)) column_index[i] = columns++;
    }
    std::vector<matrix_entry> entries;
    for (int j = 0; j < n(); ++j) {
      for (const auto& [i, v] : columns_[j]) entries.push_back({row_index[i], column_index[j], v});
    }
    return sparse_matrix::from_entries(rows, std::move(entries));
  }

 private:
  std::vector<char>& removed_line(bool by_rows) {
    if (removed_rows_.empty()) removed_rows_.assign(rows_.size(), 0), removed_columns_.assign(columns_.size(), 0);
    return by_rows ? removed_rows_ : removed_columns_;
  }
  std::vector<std::map<int, double>> rows_, columns_;
  std::vector<char> removed_rows_, removed_columns_;
};

}  // namespace detail

// Applies degree-1 reductions (always) and degree-2 merges (integer matrices) until none applies.
inline reduction_result reduce_degrees(const sparse_matrix& a) {
  reduction_result result;
  result.exact_factor = a.has_integer_values();
  detail::reducible_matrix m(a);
  for (bool changed = true; changed && !result.zero;) {
    changed = false;
    for (const bool by_rows : {true, false}) {
      for (int i = 0; i < m.n() && !result.zero; ++i) {
        if (m.removed(by_rows, i)) continue;
        auto& line = m.lines(by_rows)[i];
        if (line.empty()) {
          result.zero = true;
        } else if (line.size() == 1) {
          const auto [c, value] = *line.begin();
          if (result.exact_factor) result.factor = result.factor.times(static_cast<long long>(value));
          result.factor_value *= value;
          m.remove(by_rows, i, c);
          ++result.degree_one;
          changed = true;
        } else if (line.size() == 2 && a.has_integer_values() && m.merge(by_rows, i)) {
          ++result.degree_two;
          changed = true;
        }
      }
    }
  }
  if (result.zero) {
    result.factor = detail::big_integer(0ll);
    result.factor_value *= 0.0;
    return result;
  }
  result.matrix = m.remaining();
  return result;
}

}  // namespace sparseperm
