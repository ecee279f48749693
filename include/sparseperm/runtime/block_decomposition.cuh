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
#include <vector>

#include "matching.cuh"
#include "sparse_matrix.cuh"

namespace sparseperm {

struct matrix_block {
  std::vector<int> rows;     // original row indices, ascending
  std::vector<int> columns;  // original column indices, ascending
  sparse_matrix matrix;      // the block's entries, renumbered in those orders
};

// The rows of each strongly connected component of the row graph of `matching` (perfect).
inline std::vector<std::vector<int>> strongly_connected_rows(const sparse_matrix& a, const bipartite_matching& matching) {
  const int n = a.n();
  std::vector<int> index(n, -1), low(n, 0), stack, component(n, -1);
  std::vector<char> on_stack(n, 0);
  std::vector<std::vector<int>> components;
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
        std::vector<int> rows;
        int member;
        do {
          member = stack.back();
          stack.pop_back();
          on_stack[member] = 0;
          component[member] = static_cast<int>(components.size());
          rows.push_back(member);
        } while (member != row);
        std::sort(rows.begin(), rows.end());
        components.push_back(std::move(rows));
      }
    }
  }
  return components;
}

// The fine blocks of `a`, which must have the perfect matching `matching`.
inline std::vector<matrix_block> fine_blocks(const sparse_matrix& a, const bipartite_matching& matching) {
  std::vector<matrix_block> blocks;
  const int n = a.n();
  std::vector<int> position(n, -1);  // row or column → index inside its block
  for (auto& rows : strongly_connected_rows(a, matching)) {
    matrix_block b;
    b.rows = std::move(rows);
    for (const int r : b.rows) b.columns.push_back(matching.column_of_row[r]);
    std::sort(b.columns.begin(), b.columns.end());
    std::vector<int> row_position(b.rows.size());
    for (std::size_t k = 0; k < b.rows.size(); ++k) position[b.rows[k]] = static_cast<int>(k);
    std::vector<matrix_entry> entries;
    for (std::size_t k = 0; k < b.columns.size(); ++k) {
      const int j = b.columns[k];
      const auto rows_of_j = a.column_rows(j);
      const auto values = a.column_values(j);
      for (std::size_t e = 0; e < rows_of_j.size(); ++e) {
        const int r = rows_of_j[e];
        // inside the block when r's matched column is one of the block's columns, i.e. r is a block row
        if (std::binary_search(b.rows.begin(), b.rows.end(), r)) entries.push_back({position[r], static_cast<int>(k), values[e]});
      }
    }
    b.matrix = sparse_matrix::from_entries(static_cast<int>(b.rows.size()), std::move(entries));
    blocks.push_back(std::move(b));
  }
  return blocks;
}

}  // namespace sparseperm
