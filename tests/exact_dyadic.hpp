#pragma once
// Exact permanents of matrices of doubles where Ryser's terms cancel, for checking running bounds
// (tests/host/test_running_bounds.cpp, tests/gpu/test_gpu_bounds.cu): random matrices of full 53-bit
// values and their exact dyadic permanents in big integers (a subset recursion over rows, no Ryser).
#include <sparseperm/core/result.cuh>
#include <sparseperm/matrix/sparse_matrix.cuh>
#include <sparseperm/numeric/big_integer.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "host/test_support.hpp"

namespace exact_dyadic {

namespace sp = sparseperm;
namespace ts = test_support;
using sp::detail::big_integer;

// A random n × n matrix of full 53-bit values: uniform in [−1, 1) (real) or both parts so (complex);
// every entry present, or (density < 1) the diagonal and each other entry with that probability.
inline sp::sparse_matrix random_cancelling(sp::random_stream& s, int n, bool complex, double density = 1) {
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (density < 1 && i != j && s.uniform() >= density) continue;
      const double re = 2 * s.uniform() - 1;
      entries.push_back({i, j, re, complex ? 2 * s.uniform() - 1 : 0.0});
    }
  }
  return sp::sparse_matrix::from_entries(n, std::move(entries));
}

// The exact permanent of a complex matrix of doubles: each row scaled to Gaussian integers by its
// lowest binary exponent, a subset recursion over rows in big integers (test_support.hpp's method).
struct exact_complex {
  ts::dyadic re, im;
};

inline exact_complex exact_complex_permanent(const sp::sparse_matrix& a) {
  const int n = a.n();
  struct entry {
    int column;
    big_integer re, im;
  };
  std::vector<std::vector<entry>> rows(n);
  int shift = 0;
  for (int i = 0; i < n; ++i) {
    const auto columns = a.row_columns(i);
    const auto re = a.row_values(i);
    const auto im = a.row_imag(i);
    int low = 1 << 30;
    const auto imag = [&](std::size_t k) { return im.empty() ? 0.0 : im[k]; };
    for (std::size_t k = 0; k < re.size(); ++k) {
      if (re[k] != 0) low = std::min(low, ts::dyadic_of(re[k]).e);
      if (imag(k) != 0) low = std::min(low, ts::dyadic_of(imag(k)).e);
    }
    const auto scaled = [&](double v) {
      if (v == 0) return big_integer(0ll);
      const ts::dyadic d = ts::dyadic_of(v);
      return ts::times_power_of_two(d.m, d.e - low);
    };
    for (std::size_t k = 0; k < re.size(); ++k) rows[i].push_back({columns[k], scaled(re[k]), scaled(imag(k))});
    shift += low;
  }
  std::vector<big_integer> f_re(std::size_t{1} << n, big_integer(0ll)), f_im(f_re);
  f_re[0] = big_integer(1ll);
  for (std::uint32_t s = 1; s < (1u << n); ++s) {
    const int i = __builtin_popcount(s) - 1;
    big_integer sum_re(0ll), sum_im(0ll);
    for (const entry& e : rows[i]) {
      if (!(s & (1u << e.column))) continue;
      const std::uint32_t rest = s & ~(1u << e.column);
      sum_re += e.re * f_re[rest];
      sum_re += (e.im * f_im[rest]).times(-1);
      sum_im += e.re * f_im[rest];
      sum_im += e.im * f_re[rest];
    }
    f_re[s] = sum_re;
    f_im[s] = sum_im;
  }
  return {{f_re.back(), shift}, {f_im.back(), shift}};
}

inline double error_of(const sp::permanent_result& r, const exact_complex& exact) {
  return std::hypot(ts::difference(r.value, exact.re), ts::difference(r.complex ? r.imag : 0.0, exact.im));
}

}  // namespace exact_dyadic
