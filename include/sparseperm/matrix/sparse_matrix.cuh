#pragma once
// A square sparse matrix known at run time, kept in both CSC (the Ryser engines walk columns) and
// CSR (matchings and row sums walk rows). Only nonzeros are stored: a zero value is not an entry.
//
// Values are real, or complex: an imaginary part beside each real one, kept only when some entry
// has one that is not 0 (a complex file whose imaginary parts are all 0 holds a real matrix, whose
// permanent is real). Engines that compute real permanents only are not given complex matrices
// (engines/engine.cuh's complex_values trait).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "../core/config.cuh"
#include "column_masks.cuh"

namespace sparseperm {

struct matrix_entry {
  int row = 0;
  int column = 0;
  double value = 0;
  double imag = 0;  // the imaginary part
};

// Integers of magnitude up to 2^53 are exact in a double: the bound for "integer values".
inline constexpr double max_exact_integer = 9007199254740992.0;

class sparse_matrix {
 public:
  sparse_matrix() = default;  // the 0×0 matrix

  // Entries in any order. Zero values are dropped; a repeated position or an index outside [0, n) is
  // a precondition violation (the Matrix Market reader reports those with file and line first).
  static sparse_matrix from_entries(int n, std::vector<matrix_entry> entries) {
    if (n < 0) throw std::invalid_argument("sparse_matrix: negative dimension");
    std::erase_if(entries, [](const matrix_entry& e) { return e.value == 0 && e.imag == 0; });
    for (const matrix_entry& e : entries) {
      if (e.row < 0 || e.row >= n || e.column < 0 || e.column >= n) {
        throw std::invalid_argument("sparse_matrix: entry index out of range");
      }
    }
    const auto column_major = [](const matrix_entry& a, const matrix_entry& b) {
      return a.column != b.column ? a.column < b.column : a.row < b.row;
    };
    if (!std::is_sorted(entries.begin(), entries.end(), column_major)) {  // dense readers give them sorted
      std::sort(entries.begin(), entries.end(), column_major);
    }
    for (std::size_t k = 1; k < entries.size(); ++k) {
      if (entries[k].row == entries[k - 1].row && entries[k].column == entries[k - 1].column) {
        throw std::invalid_argument("sparse_matrix: repeated entry");
      }
    }
    sparse_matrix m;
    m.n_ = n;
    m.column_start_.assign(n + 1, 0);
    m.row_start_.assign(n + 1, 0);
    for (const matrix_entry& e : entries) {
      ++m.column_start_[e.column + 1];
      ++m.row_start_[e.row + 1];
      m.integer_values_ = m.integer_values_ && std::trunc(e.value) == e.value &&
                          std::fabs(e.value) <= max_exact_integer && std::trunc(e.imag) == e.imag &&
                          std::fabs(e.imag) <= max_exact_integer;
      m.complex_ = m.complex_ || e.imag != 0;
    }
    std::partial_sum(m.column_start_.begin(), m.column_start_.end(), m.column_start_.begin());
    std::partial_sum(m.row_start_.begin(), m.row_start_.end(), m.row_start_.begin());
    m.column_rows_.resize(entries.size());
    m.column_values_.resize(entries.size());
    m.row_columns_.resize(entries.size());
    m.row_values_.resize(entries.size());
    if (m.complex_) {
      m.column_imag_.resize(entries.size());
      m.row_imag_.resize(entries.size());
    }
    std::vector<std::int64_t> row_fill(m.row_start_.begin(), m.row_start_.end() - 1);
    for (std::size_t k = 0; k < entries.size(); ++k) {  // column-major order: rows ascend in each column
      const matrix_entry& e = entries[k];
      m.column_rows_[k] = e.row;
      m.column_values_[k] = e.value;
      const std::int64_t slot = row_fill[e.row]++;  // and columns ascend in each row
      m.row_columns_[slot] = e.column;
      m.row_values_[slot] = e.value;
      if (m.complex_) {
        m.column_imag_[k] = e.imag;
        m.row_imag_[slot] = e.imag;
      }
    }
    return m;
  }

  // A dense row-major n×n array, zeros included.
  static sparse_matrix from_dense(int n, std::span<const double> row_major) {
    if (row_major.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n)) {
      throw std::invalid_argument("sparse_matrix::from_dense: size is not n*n");
    }
    std::vector<matrix_entry> entries;
    for (int j = 0; j < n; ++j) {  // column-major: from_entries' order
      for (int i = 0; i < n; ++i) {
        const double v = row_major[static_cast<std::size_t>(i) * n + j];
        if (v != 0) entries.push_back({i, j, v});
      }
    }
    return from_entries(n, std::move(entries));
  }

  int n() const noexcept { return n_; }
  std::int64_t nnz() const noexcept { return static_cast<std::int64_t>(column_rows_.size()); }

  std::span<const int> column_rows(int j) const { return {column_rows_.data() + column_start_[j], column_size(j)}; }
  std::span<const double> column_values(int j) const {
    return {column_values_.data() + column_start_[j], column_size(j)};
  }
  std::span<const int> row_columns(int i) const { return {row_columns_.data() + row_start_[i], row_size(i)}; }
  std::span<const double> row_values(int i) const { return {row_values_.data() + row_start_[i], row_size(i)}; }
  // Imaginary parts beside column_values and row_values: complex matrices only (empty otherwise).
  std::span<const double> column_imag(int j) const {
    return complex_ ? std::span<const double>{column_imag_.data() + column_start_[j], column_size(j)}
                    : std::span<const double>{};
  }
  std::span<const double> row_imag(int i) const {
    return complex_ ? std::span<const double>{row_imag_.data() + row_start_[i], row_size(i)}
                    : std::span<const double>{};
  }
  // Some entry has an imaginary part that is not 0.
  bool is_complex() const noexcept { return complex_; }

  int column_degree(int j) const { return static_cast<int>(column_size(j)); }
  int row_degree(int i) const { return static_cast<int>(row_size(i)); }

  // A row or column without nonzeros: every term of the permanent has a zero factor.
  bool has_empty_line() const {
    for (int k = 0; k < n_; ++k) {
      if (row_size(k) == 0 || column_size(k) == 0) return true;
    }
    return false;
  }

  // The columns by ascending degree, ties by index: the sparse Ryser engines flip the first ones most.
  std::vector<int> columns_by_degree() const {
    std::vector<int> order(n_);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return column_size(a) < column_size(b); });
    return order;
  }

  // Every value is an integer of magnitude ≤ 2^53 (0/1 graphs, small-integer matrices; for complex
  // matrices both parts: Gaussian integers), held as written: a file's value that was rounded on
  // reading makes the matrix not an integer one.
  bool has_integer_values() const noexcept { return integer_values_ && input_rounding_.empty(); }

  // What reading rounded: per row, a bound on the relative change |â − a|/|a| of its values (a the
  // value written in the file, â the double held); empty when every value was held exactly. Results
  // that are not exact add what it can change (compute.cuh); matrices made in code hold their
  // doubles exactly.
  const std::vector<double>& input_rounding() const noexcept { return input_rounding_; }
  void set_input_rounding(std::vector<double> per_row) {
    if (!per_row.empty() && per_row.size() != static_cast<std::size_t>(n_)) {
      throw std::invalid_argument("sparse_matrix::set_input_rounding: one bound per row");
    }
    input_rounding_ = std::move(per_row);
  }

  // Entries in column-major order.
  std::vector<matrix_entry> entries() const {
    std::vector<matrix_entry> result;
    result.reserve(column_rows_.size());
    for (int j = 0; j < n_; ++j) {
      for (std::int64_t k = column_start_[j]; k < column_start_[j + 1]; ++k) {
        result.push_back({column_rows_[k], j, column_values_[k], complex_ ? column_imag_[k] : 0.0});
      }
    }
    return result;
  }

  // The matrix with row rows[p] at position p and column columns[q] at position q.
  sparse_matrix permuted(std::span<const int> rows, std::span<const int> columns) const {
    check_permutation(rows);
    check_permutation(columns);
    std::vector<int> row_position(n_), column_position(n_);
    for (int p = 0; p < n_; ++p) {
      row_position[rows[p]] = p;
      column_position[columns[p]] = p;
    }
    std::vector<matrix_entry> moved = entries();
    for (matrix_entry& e : moved) {
      e.row = row_position[e.row];
      e.column = column_position[e.column];
    }
    return from_entries(n_, std::move(moved));
  }

  // The sparsity pattern as row bitmasks (n ≤ 64).
  column_masks masks() const {
    if (n_ > max_ryser_n) throw std::invalid_argument("sparse_matrix::masks: n > 64");
    column_masks result;
    result.n = n_;
    for (int j = 0; j < n_; ++j) {
      for (int i : column_rows(j)) result.rows[j] |= std::uint64_t{1} << i;
    }
    return result;
  }

  // Row-major n×n copy, zeros included; real matrices only (complex ones: dense_complex).
  std::vector<double> dense() const {
    if (complex_) throw std::logic_error("sparse_matrix::dense: a complex matrix (use dense_complex)");
    std::vector<double> result(static_cast<std::size_t>(n_) * n_, 0.0);
    for (int j = 0; j < n_; ++j) {
      const auto rows = column_rows(j);
      const auto values = column_values(j);
      for (std::size_t k = 0; k < rows.size(); ++k) result[static_cast<std::size_t>(rows[k]) * n_ + j] = values[k];
    }
    return result;
  }

  // Row-major n×n copies of the real and imaginary parts (the imaginary all 0 for real matrices).
  void dense_complex(std::vector<double>& real, std::vector<double>& imag) const {
    real.assign(static_cast<std::size_t>(n_) * n_, 0.0);
    imag.assign(static_cast<std::size_t>(n_) * n_, 0.0);
    for (const matrix_entry& e : entries()) {
      real[static_cast<std::size_t>(e.row) * n_ + e.column] = e.value;
      imag[static_cast<std::size_t>(e.row) * n_ + e.column] = e.imag;
    }
  }

  // The same matrix: dimension, pattern and values (not what reading rounded on the way).
  friend bool operator==(const sparse_matrix& a, const sparse_matrix& b) {
    return a.n_ == b.n_ && a.column_start_ == b.column_start_ && a.column_rows_ == b.column_rows_ &&
           a.column_values_ == b.column_values_ && a.column_imag_ == b.column_imag_;
  }

 private:
  std::size_t column_size(int j) const { return static_cast<std::size_t>(column_start_[j + 1] - column_start_[j]); }
  std::size_t row_size(int i) const { return static_cast<std::size_t>(row_start_[i + 1] - row_start_[i]); }

  void check_permutation(std::span<const int> order) const {
    std::vector<char> seen(n_, 0);
    if (order.size() != static_cast<std::size_t>(n_))
      throw std::invalid_argument("sparse_matrix: bad permutation size");
    for (int v : order) {
      if (v < 0 || v >= n_ || seen[v]) throw std::invalid_argument("sparse_matrix: not a permutation");
      seen[v] = 1;
    }
  }

  int n_ = 0;
  std::vector<std::int64_t> column_start_{0};
  std::vector<int> column_rows_;
  std::vector<double> column_values_;
  std::vector<std::int64_t> row_start_{0};
  std::vector<int> row_columns_;
  std::vector<double> row_values_;
  std::vector<double> column_imag_;  // complex matrices only
  std::vector<double> row_imag_;
  bool integer_values_ = true;
  bool complex_ = false;
  std::vector<double> input_rounding_;
};

}  // namespace sparseperm
