#pragma once
// Band matrices where terms cancel, for checking dp's bounds beyond the reach of a subset recursion
// (tests/host/test_dp_double_double.cpp, tests/gpu/test_gpu_bounds.cu): signed real or complex values
// on a grid of 2^−44, and their exact permanents from the rows scaled to integers, which dp's hash
// tables hold exactly in big integers.
#include <sparseperm/dp/dp.cuh>
#include <sparseperm/matrix/sparse_matrix.cuh>
#include <sparseperm/structure/frontier_order.cuh>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "exact_dyadic.hpp"

namespace band_matrices {

namespace sp = sparseperm;

// An n × n band (|i − j| ≤ 4): the frontier stays 9 rows at any n.
inline sp::sparse_matrix random_band(sp::random_stream& s, int n, bool complex) {
  std::vector<sp::matrix_entry> entries;
  const auto value = [&] { return std::ldexp(std::floor(std::ldexp(2 * s.uniform() - 1, 44)), -44); };
  for (int i = 0; i < n; ++i) {
    for (int j = std::max(0, i - 4); j < std::min(n, i + 5); ++j) {
      const double re = value();
      entries.push_back({i, j, re, complex ? value() : 0.0});
    }
  }
  return sp::sparse_matrix::from_entries(n, std::move(entries));
}

// The exact permanent of a matrix of values on a grid of 2^−grid: the matrix times 2^grid is integer.
inline exact_dyadic::exact_complex exact_band_permanent(const sp::sparse_matrix& a, int grid = 44) {
  std::vector<sp::matrix_entry> entries = a.entries();
  for (sp::matrix_entry& e : entries) {
    e.value = std::ldexp(e.value, grid);
    e.imag = std::ldexp(e.imag, grid);
    if (e.value != std::floor(e.value) || e.imag != std::floor(e.imag))
      throw std::invalid_argument("exact_band_permanent: a value off the grid");
  }
  // integers of any size (beyond 2^53 the matrix no longer counts as integer, so dp's exact arithmetic
  // is called directly)
  const sp::sparse_matrix integers = sp::sparse_matrix::from_entries(a.n(), std::move(entries));
  sp::detail::dp_run_stats stats;
  const sp::detail::big_gaussian v =
      sp::detail::run_dp_words<sp::big_gaussian_arithmetic>(integers, sp::frontier_orders(integers).front(), 2, stats);
  const int e = -grid * a.n();
  return {{v.re, e}, {v.im, e}};
}

}  // namespace band_matrices
