#pragma once
// Maximum bipartite matching of rows to columns (Hopcroft–Karp), on the nonzero pattern.
//
// A matrix whose maximum matching has fewer than n edges is structurally singular: every term of
// its permanent contains a zero, so the permanent is 0 whatever the values. Depth-first searches are
// iterative, so large matrices cannot overflow the stack.
#include <cstdint>
#include <limits>
#include <vector>

#include "../matrix/sparse_matrix.cuh"

namespace sparseperm {

struct bipartite_matching {
  int size = 0;
  std::vector<int> column_of_row;  // -1: row unmatched
  std::vector<int> row_of_column;  // -1: column unmatched
};

inline bipartite_matching maximum_matching(const sparse_matrix& matrix) {
  const int n = matrix.n();
  bipartite_matching m;
  m.column_of_row.assign(n, -1);
  m.row_of_column.assign(n, -1);

  // A greedy start leaves the phases little to do on sparse matrices.
  for (int i = 0; i < n; ++i) {
    for (int j : matrix.row_columns(i)) {
      if (m.row_of_column[j] == -1) {
        m.row_of_column[j] = i;
        m.column_of_row[i] = j;
        ++m.size;
        break;
      }
    }
  }

  constexpr int unreached = std::numeric_limits<int>::max();
  std::vector<int> layer(n), queue(n), next_edge(n), path_rows, path_columns;
  for (;;) {
    // Breadth-first layers from the free rows, over alternating paths.
    int head = 0, tail = 0;
    for (int i = 0; i < n; ++i) {
      layer[i] = m.column_of_row[i] == -1 ? 0 : unreached;
      if (layer[i] == 0) queue[tail++] = i;
    }
    bool free_column_reached = false;
    while (head < tail) {
      const int u = queue[head++];
      for (int j : matrix.row_columns(u)) {
        const int w = m.row_of_column[j];
        if (w == -1) {
          free_column_reached = true;
        } else if (layer[w] == unreached) {
          layer[w] = layer[u] + 1;
          queue[tail++] = w;
        }
      }
    }
    if (!free_column_reached) break;

    // Depth-first augmentation along the layers, one path per free row.
    for (int i = 0; i < n; ++i) next_edge[i] = 0;
    for (int root = 0; root < n; ++root) {
      if (m.column_of_row[root] != -1) continue;
      path_rows.assign(1, root);
      path_columns.clear();
      while (!path_rows.empty()) {
        const int u = path_rows.back();
        const auto columns = matrix.row_columns(u);
        if (next_edge[u] == static_cast<int>(columns.size())) {
          layer[u] = unreached;  // dead end for the rest of this phase
          path_rows.pop_back();
          if (!path_columns.empty()) path_columns.pop_back();
          continue;
        }
        const int j = columns[next_edge[u]++];
        const int w = m.row_of_column[j];
        if (w == -1) {
          path_columns.push_back(j);
          for (std::size_t k = 0; k < path_rows.size(); ++k) {
            m.column_of_row[path_rows[k]] = path_columns[k];
            m.row_of_column[path_columns[k]] = path_rows[k];
          }
          ++m.size;
          break;
        }
        if (layer[w] == layer[u] + 1) {
          path_columns.push_back(j);
          path_rows.push_back(w);
        }
      }
    }
  }
  return m;
}

// The size of a maximum matching: n exactly when the matrix is structurally nonsingular.
inline int structural_rank(const sparse_matrix& matrix) { return maximum_matching(matrix).size; }

}  // namespace sparseperm
