#pragma once
// Repeated rows and columns: identical lines of a matrix are multiplicities in disguise (boson
// sampling: several photons in one mode repeat a row or a column of the unitary's submatrix).
//
//   identical_rows(a)          classes of rows equal in pattern and in every value (bit for bit, both
//                              parts: a value that differs in its last bit is another row), in the
//                              order of their first rows
//   identical_columns(a)       the same for columns
//   has_identical_lines(a)     whether two rows or two columns are identical (the classes' question
//                              alone, without allocating: a microsecond call's share)
//   expand_lines(a, r, c)      the matrix with row i repeated r[i] times and column j c[j] times (0
//                              drops the line): what multiplicities stand for
#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "../matrix/sparse_matrix.cuh"

namespace sparseperm {

struct line_classes {
  std::vector<int> representative;  // per class: its first line
  std::vector<int> count;           // per class: how many lines are equal to it
  std::vector<int> class_of;        // per line: its class
  int classes() const { return static_cast<int>(representative.size()); }
};

namespace detail {

inline sparse_matrix transposed(const sparse_matrix& a) {
  std::vector<matrix_entry> entries = a.entries();
  for (matrix_entry& e : entries) std::swap(e.row, e.column);
  return sparse_matrix::from_entries(a.n(), std::move(entries));
}

}  // namespace detail

inline line_classes identical_rows(const sparse_matrix& a) {
  using key = std::vector<std::tuple<int, std::uint64_t, std::uint64_t>>;
  const int n = a.n();
  std::vector<key> keys(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto columns = a.row_columns(i);
    const auto re = a.row_values(i);
    const auto im = a.row_imag(i);
    for (std::size_t k = 0; k < columns.size(); ++k) {
      keys[i].emplace_back(columns[k], std::bit_cast<std::uint64_t>(re[k] + 0.0),  // −0 and 0 alike
                           std::bit_cast<std::uint64_t>(im.empty() ? 0.0 : im[k] + 0.0));
    }
  }
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return keys[x] < keys[y]; });
  std::vector<int> first(static_cast<std::size_t>(n));  // per line: the first line equal to it
  for (std::size_t p = 0; p < order.size(); ++p) {
    const int i = order[p];
    first[i] = p > 0 && keys[order[p - 1]] == keys[i] ? first[order[p - 1]] : i;  // stable: the least index
  }
  line_classes c;  // classes in the order of their first lines
  c.class_of.assign(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    if (first[i] == i) {
      c.class_of[i] = c.classes();
      c.representative.push_back(i);
      c.count.push_back(0);
    } else {
      c.class_of[i] = c.class_of[first[i]];
    }
    ++c.count[c.class_of[i]];
  }
  return c;
}

inline line_classes identical_columns(const sparse_matrix& a) { return identical_rows(detail::transposed(a)); }

inline bool has_identical_lines(const sparse_matrix& a) {
  const auto same = [](auto x, auto y) { return std::equal(x.begin(), x.end(), y.begin(), y.end()); };
  for (int i = 0; i < a.n(); ++i) {
    for (int k = i + 1; k < a.n(); ++k) {
      if (same(a.row_columns(i), a.row_columns(k)) && same(a.row_values(i), a.row_values(k)) &&
          same(a.row_imag(i), a.row_imag(k)))
        return true;
      if (same(a.column_rows(i), a.column_rows(k)) && same(a.column_values(i), a.column_values(k)) &&
          same(a.column_imag(i), a.column_imag(k)))
        return true;
    }
  }
  return false;
}

// The largest matrix repeating lines may make: its dimension, and its nonzeros (a matrix's planning
// holds about 250 bytes per nonzero: 2^22 of them about 1 GB and a few seconds; 10^8 took 22 GB and
// 5 minutes, so sizes are refused before anything is allocated).
inline constexpr long long max_expanded_n = 1 << 20;
inline constexpr long long max_expanded_nonzeros = 1 << 22;

// The matrix with row i repeated rows[i] times and column j columns[j] times (an empty list: once
// each), checked for the caller's user: one count per line, none below 0, equal totals (the new
// dimension) within max_expanded_n, nonzeros within max_expanded_nonzeros (counted before any copy);
// else std::invalid_argument saying which. Each copy of a row keeps
// the row's input rounding (a file's decimal values).
inline sparse_matrix expand_lines(const sparse_matrix& a, std::vector<int> rows, std::vector<int> columns) {
  const auto n = static_cast<std::size_t>(a.n());
  const auto counts = [n](std::vector<int>& given, const char* lines) {
    if (given.empty()) given.assign(n, 1);
    if (given.size() != n) {
      throw std::invalid_argument(std::to_string(given.size()) + " " + lines +
                                  " multiplicities (counts) for a matrix of " + std::to_string(n) + " " + lines + "s");
    }
    std::vector<long long> first(n + 1, 0);
    for (std::size_t k = 0; k < n; ++k) {
      if (given[k] < 0) throw std::invalid_argument(std::string("a ") + lines + " multiplicity below 0");
      first[k + 1] = first[k] + given[k];
    }
    return first;
  };
  const std::vector<long long> row_first = counts(rows, "row"), column_first = counts(columns, "column");
  if (row_first.back() != column_first.back()) {
    throw std::invalid_argument("the row multiplicities sum to " + std::to_string(row_first.back()) +
                                " and the column multiplicities to " + std::to_string(column_first.back()) +
                                ": the repeated matrix would not be square");
  }
  if (row_first.back() > max_expanded_n) {
    throw std::invalid_argument("the multiplicities sum to " + std::to_string(row_first.back()) +
                                ", beyond the size limit of " + std::to_string(max_expanded_n));
  }
  long long nonzeros = 0;  // Σ r_i c_j over the entries, stopped once beyond the limit (no overflow)
  for (const matrix_entry& e : a.entries()) {
    nonzeros += static_cast<long long>(rows[e.row]) * columns[e.column];
    if (nonzeros > max_expanded_nonzeros) {
      throw std::invalid_argument("the multiplicities make a " + std::to_string(row_first.back()) + " x " +
                                  std::to_string(row_first.back()) + " matrix of more than " +
                                  std::to_string(max_expanded_nonzeros) + " nonzeros, beyond the size limit");
    }
  }
  std::vector<matrix_entry> entries;
  entries.reserve(static_cast<std::size_t>(nonzeros));
  for (const matrix_entry& e : a.entries()) {
    for (int r = 0; r < rows[e.row]; ++r) {
      for (int c = 0; c < columns[e.column]; ++c) {
        entries.push_back(
            {static_cast<int>(row_first[e.row] + r), static_cast<int>(column_first[e.column] + c), e.value, e.imag});
      }
    }
  }
  sparse_matrix expanded = sparse_matrix::from_entries(static_cast<int>(row_first.back()), std::move(entries));
  if (!a.input_rounding().empty()) {
    std::vector<double> rounding;
    for (std::size_t i = 0; i < n; ++i) rounding.insert(rounding.end(), rows[i], a.input_rounding()[i]);
    expanded.set_input_rounding(std::move(rounding));
  }
  return expanded;
}

}  // namespace sparseperm
