#pragma once
// A sparsity pattern of at most 64 columns as row bitmasks: rows[j] has bit i set when a(i, j) ≠ 0.
//
// This is the constexpr form that the orderings, the partitioning and the planners work on: the same
// code runs at compile time on a generated matrix and at run time on a file's matrix.
#include <cstdint>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/precondition.cuh"

namespace sparseperm {

struct column_masks {
  int n = 0;
  std::uint64_t rows[max_ryser_n]{};

  SPARSEPERM_HOST_DEVICE constexpr int degree(int column) const { return detail::popcount(rows[column]); }

  SPARSEPERM_HOST_DEVICE constexpr int row_degree(int row) const {
    int degree = 0;
    for (int j = 0; j < n; ++j) degree += static_cast<int>((rows[j] >> row) & 1u);
    return degree;
  }

  SPARSEPERM_HOST_DEVICE constexpr int nnz() const {
    int count = 0;
    for (int j = 0; j < n; ++j) count += degree(j);
    return count;
  }

  SPARSEPERM_HOST_DEVICE constexpr bool contains(int row, int column) const {
    return ((rows[column] >> row) & 1u) != 0;
  }

  friend constexpr bool operator==(const column_masks&, const column_masks&) = default;
};

// Builds the masks from (row, column) pairs; out-of-range indices are a precondition violation.
template <class Pairs>
constexpr column_masks make_column_masks(int n, const Pairs& entries) {
  detail::expects(n >= 0 && n <= max_ryser_n, "make_column_masks: n must be in [0, 64]");
  column_masks masks;
  masks.n = n;
  for (const auto& [row, column] : entries) {
    detail::expects(row >= 0 && row < n && column >= 0 && column < n, "make_column_masks: entry index out of range");
    masks.rows[column] |= std::uint64_t{1} << row;
  }
  return masks;
}

}  // namespace sparseperm
