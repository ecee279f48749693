#pragma once
// Structural facts of a pattern of at most 64 columns, at compile time: does a perfect matching
// exist? Without one, every term of the permanent has a zero factor and the permanent is 0.
#include <cstdint>

#include "../core/config.cuh"
#include "../matrix/column_masks.cuh"

namespace sparseperm {

// Kuhn's augmenting paths over the row bitmasks (n ≤ 64: at most 64 searches of 64·64 steps).
constexpr int structural_rank(const column_masks& m) {
  int column_of_row[max_ryser_n];
  for (int& c : column_of_row) c = -1;
  int size = 0;
  for (int root = 0; root < m.n; ++root) {
    // Iterative depth-first search for an augmenting path from column `root`.
    int parent_column[max_ryser_n];
    int via_row[max_ryser_n];
    std::uint64_t visited_rows = 0;
    int stack[max_ryser_n + 1];
    int depth = 0;
    stack[depth++] = root;
    parent_column[root] = -1;
    int free_row = -1, free_column = -1;
    std::uint64_t seen_columns = std::uint64_t{1} << root;
    while (depth > 0 && free_row < 0) {
      const int column = stack[--depth];
      for (std::uint64_t rows = m.rows[column] & ~visited_rows; rows != 0; rows &= rows - 1) {
        const int row = detail::trailing_zeros(rows);
        visited_rows |= std::uint64_t{1} << row;
        const int next = column_of_row[row];
        if (next < 0) {
          free_row = row;
          free_column = column;
          break;
        }
        if (((seen_columns >> next) & 1u) == 0) {
          seen_columns |= std::uint64_t{1} << next;
          parent_column[next] = column;
          via_row[next] = row;
          stack[depth++] = next;
        }
      }
    }
    if (free_row < 0) continue;
    // Flip the path: free_row ← free_column, then back along the parents.
    int row = free_row, column = free_column;
    while (column >= 0) {
      const int previous_row = column == root ? -1 : via_row[column];
      column_of_row[row] = column;
      row = previous_row;
      column = column == root ? -1 : parent_column[column];
    }
    ++size;
  }
  return size;
}

}  // namespace sparseperm
