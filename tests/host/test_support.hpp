#pragma once
// Shared helpers of the host tests: random matrices of every kind, singular ones included.
#include <sparseperm/runtime/generator.cuh>
#include <sparseperm/runtime/sparse_matrix.cuh>

#include <cstdint>
#include <string>
#include <vector>

namespace test_support {

// Each entry nonzero with probability `density`; values from `kind`: uniform in (0, 1] (in (−1, 1]
// with `signed_reals`), integers in [−3, 3] \ {0}, or ones.
// Unlike generate_erdos_renyi, singular draws are kept.
inline sparseperm::sparse_matrix random_matrix(sparseperm::random_stream& stream, int n, double density,
                                               sparseperm::value_kind kind, bool signed_reals = false) {
  std::vector<sparseperm::matrix_entry> entries;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (stream.uniform() >= density) continue;
      double v = 1;
      if (kind == sparseperm::value_kind::uniform) v = signed_reals ? 1.0 - 2 * stream.uniform() : 1.0 - stream.uniform();
      if (kind == sparseperm::value_kind::integers) {
        do {
          v = static_cast<double>(static_cast<std::int64_t>(stream.below(7)) - 3);
        } while (v == 0);
      }
      entries.push_back({i, j, v});
    }
  }
  return sparseperm::sparse_matrix::from_entries(n, std::move(entries));
}

inline sparseperm::sparse_matrix dense_matrix(int n, double value) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, value);
  return sparseperm::sparse_matrix::from_dense(n, a);
}

// J − I: the permanent counts derangements.
inline sparseperm::sparse_matrix derangement_matrix(int n) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, 1.0);
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i) * n + i] = 0;
  return sparseperm::sparse_matrix::from_dense(n, a);
}

inline std::string kind_name(sparseperm::value_kind kind) {
  switch (kind) {
    case sparseperm::value_kind::uniform: return "uniform";
    case sparseperm::value_kind::ones: return "ones";
    case sparseperm::value_kind::integers: return "integers";
  }
  return "?";
}

}  // namespace test_support
