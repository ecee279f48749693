#pragma once
// Shared helpers of the host tests: random matrices of every kind, singular ones included.
#include <sparseperm/gray_code.cuh>
#include <sparseperm/runtime/generator.cuh>
#include <sparseperm/runtime/sparse_matrix.cuh>

#include <cmath>
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

// Σ_g |Π x_g|: the size of the terms that Ryser adds with alternating signs, the scale of its
// rounding error (long double, dense Nijenhuis–Wilf).
inline double ryser_absolute_sum(const sparseperm::sparse_matrix& m) {
  const int n = m.n();
  const std::vector<double> a = m.dense();
  std::vector<long double> x(n);
  for (int i = 0; i < n; ++i) {
    long double row_sum = 0;
    for (int j = 0; j < n; ++j) row_sum += a[static_cast<std::size_t>(i) * n + j];
    x[i] = a[static_cast<std::size_t>(i) * n + n - 1] - row_sum / 2;
  }
  auto magnitude = [&] {
    long double p = 1;
    for (long double v : x) p *= v;
    return std::fabs(p);
  };
  long double sum = magnitude();
  for (std::uint64_t g = 1; g < sparseperm::step_count(n); ++g) {
    const int j = sparseperm::changed_column(g);
    for (int i = 0; i < n; ++i) x[i] += sparseperm::direction(g) * a[static_cast<std::size_t>(i) * n + j];
    sum += magnitude();
  }
  return static_cast<double>(2 * sum);
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
