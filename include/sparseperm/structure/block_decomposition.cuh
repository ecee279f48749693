#pragma once
// The Dulmage–Mendelsohn fine decomposition of a square matrix with a perfect matching.
//
// With a perfect matching M, direct an edge from row r to row r' whenever r has a nonzero in the
// column matched to r'. The strongly connected components of that graph are the fine blocks: each
// block's rows and their matched columns form a fully indecomposable submatrix, every perfect
// matching stays inside the blocks, so the entries between blocks lie in no perfect matching and
// perm(A) = Π perm(block). Connected components are unions of blocks. (Tarjan's algorithm,
// iterative: n may be large.)
#include <algorithm>
#include <span>
#include <vector>

#include "../matrix/sparse_matrix.cuh"
#include "matching.cuh"

namespace sparseperm {

struct matrix_block {
  std::vector<int> rows;     // original row indices, ascending
  std::vector<int> columns;  // original column indices, ascending
  sparse_matrix matrix;      // the block's entries, renumbered in those orders
};

// The strongly connected components of the row graph of `matching` (perfect), flat: component k's
// rows, ascending, are rows[start[k] .. start[k + 1]) (one array, not a vector per component: a
// diagonal matrix of n = 10^7 has 10^7 of them).
struct row_components {
  std::vector<int> rows;
  std::vector<int> start{0};
  std::size_t size() const { return start.size() - 1; }
  std::span<const int> of(std::size_t k) const {
    return {rows.data() + start[k], static_cast<std::size_t>(start[k + 1] - start[k])};
  }
};

inline row_components strongly_connected_rows(const sparse_matrix& a, const bipartite_matching& matching) {
  const int n = a.n();
  std::vector<int> index(n, -1), low(n, 0), stack;
  std::vector<char> on_stack(n, 0);
  row_components components;
  components.rows.reserve(static_cast<std::size_t>(n));
  int next_index = 0;
  struct frame {
    int row;
    std::size_t edge;
  };
  std::vector<frame> calls;
  for (int root = 0; root < n; ++root) {
    if (index[root] >= 0) continue;
    calls.push_back({root, 0});
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!calls.empty()) {
      frame& f = calls.back();
      const auto columns = a.row_columns(f.row);
      if (f.edge < columns.size()) {
        const int next = matching.row_of_column[columns[f.edge++]];
        if (next == f.row) continue;
        if (index[next] < 0) {
          index[next] = low[next] = next_index++;
          stack.push_back(next);
          on_stack[next] = 1;
          calls.push_back({next, 0});
        } else if (on_stack[next]) {
          low[f.row] = std::min(low[f.row], index[next]);
        }
        continue;
      }
      const int row = f.row;
      calls.pop_back();
      if (!calls.empty()) low[calls.back().row] = std::min(low[calls.back().row], low[row]);
      if (low[row] == index[row]) {
        const std::size_t first = components.rows.size();
        int member;
        do {
          member = stack.back();
          stack.pop_back();
          on_stack[member] = 0;
          components.rows.push_back(member);
        } while (member != row);
        std::sort(components.rows.begin() + static_cast<std::ptrdiff_t>(first), components.rows.end());
        components.start.push_back(static_cast<int>(components.rows.size()));
      }
    }
  }
  return components;
}

// The fine blocks of `a`, which must have the perfect matching `matching`, in the order of
// strongly_connected_rows: the 1 × 1 blocks as their one entry (a factor of the permanent), the
// others as matrices.
struct fine_decomposition {
  std::vector<matrix_entry> singles;  // 1 × 1 blocks: row, its matched column, the value
  std::vector<matrix_block> blocks;   // blocks of n ≥ 2
  std::vector<int> sizes;             // every block's n, in order
};

inline fine_decomposition fine_decompose(const sparse_matrix& a, const bipartite_matching& matching) {
  fine_decomposition d;
  const row_components components = strongly_connected_rows(a, matching);
  const int n = a.n();
  std::vector<int> position(n, -1);  // row → index inside its block
  d.sizes.reserve(components.size());
  for (std::size_t k = 0; k < components.size(); ++k) {
    const auto rows = components.of(k);
    d.sizes.push_back(static_cast<int>(rows.size()));
    if (rows.size() == 1) {
      const int r = rows[0], c = matching.column_of_row[r];
      const auto columns = a.row_columns(r);
      const auto at = std::lower_bound(columns.begin(), columns.end(), c);
      const auto k = static_cast<std::size_t>(at - columns.begin());
      d.singles.push_back({r, c, a.row_values(r)[k], a.is_complex() ? a.row_imag(r)[k] : 0.0});
      continue;
    }
    matrix_block b;
    b.rows.assign(rows.begin(), rows.end());
    for (const int r : b.rows) b.columns.push_back(matching.column_of_row[r]);
    std::sort(b.columns.begin(), b.columns.end());
    for (std::size_t p = 0; p < b.rows.size(); ++p) position[b.rows[p]] = static_cast<int>(p);
    std::vector<matrix_entry> entries;
    for (std::size_t p = 0; p < b.columns.size(); ++p) {
      const int j = b.columns[p];
      const auto rows_of_j = a.column_rows(j);
      const auto values = a.column_values(j);
      const auto imag = a.column_imag(j);
      for (std::size_t e = 0; e < rows_of_j.size(); ++e) {
        const int r = rows_of_j[e];
        // inside the block when r's matched column is one of the block's columns, i.e. r is a block row
        if (std::binary_search(b.rows.begin(), b.rows.end(), r))
          entries.push_back({position[r], static_cast<int>(p), values[e], imag.empty() ? 0.0 : imag[e]});
      }
    }
    b.matrix = sparse_matrix::from_entries(static_cast<int>(b.rows.size()), std::move(entries));
    d.blocks.push_back(std::move(b));
  }
  return d;
}

// Every fine block as a matrix (1 × 1 ones included), in the same order.
inline std::vector<matrix_block> fine_blocks(const sparse_matrix& a, const bipartite_matching& matching) {
  fine_decomposition d = fine_decompose(a, matching);
  std::vector<matrix_block> blocks;
  std::size_t single = 0, other = 0;
  for (const int size : d.sizes) {
    if (size > 1) {
      blocks.push_back(std::move(d.blocks[other++]));
      continue;
    }
    const matrix_entry& e = d.singles[single++];
    matrix_block b;
    b.rows = {e.row};
    b.columns = {e.column};
    b.matrix = sparse_matrix::from_entries(1, {{0, 0, e.value, e.imag}});
    blocks.push_back(std::move(b));
  }
  return blocks;
}

}  // namespace sparseperm
