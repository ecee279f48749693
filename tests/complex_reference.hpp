#pragma once
// Exact references for complex permanents, shared by the host and GPU tests: random complex
// matrices whose values are dyadic (k / 2^20) or Gaussian integers, their permanents exactly by a
// big-integer subset DP over rows (no code shared with the engines: no Ryser, no frontier), and the
// check that a floating result's bound contains the exact value.
#include <doctest/doctest.h>

#include <sparseperm/core/result.cuh>
#include <sparseperm/matrix/sparse_matrix.cuh>
#include <sparseperm/numeric/big_integer.cuh>
#include "host/test_support.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace test_complex {

namespace sp = sparseperm;
using sp::detail::big_integer;

using test_support::random_complex;
using test_support::value_bits;

struct gaussian {
  big_integer re{0ll}, im{0ll};
};

// perm of the Gaussian integer matrix 2^20·A by a subset DP over rows (shares no code with the
// engines: big integers, no Ryser, no frontier).
inline gaussian exact_scaled_permanent(const sp::sparse_matrix& a, double scale) {
  const int n = a.n();
  std::vector<gaussian> f(std::size_t{1} << n);
  f[0].re = big_integer(1ll);
  for (std::uint64_t mask = 1; mask < f.size(); ++mask) {
    const int row = __builtin_popcountll(mask) - 1;
    const auto columns = a.row_columns(row);
    const auto re = a.row_values(row);
    const auto im = a.row_imag(row);
    gaussian sum;
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const std::uint64_t bit = std::uint64_t{1} << columns[k];
      if (!(mask & bit)) continue;
      const auto r = static_cast<long long>(re[k] * scale);
      const auto i = static_cast<long long>(im.empty() ? 0.0 : im[k] * scale);
      const gaussian& g = f[mask ^ bit];
      sum.re += g.re.times(r);
      sum.re += g.im.times(-i);
      sum.im += g.re.times(i);
      sum.im += g.im.times(r);
    }
    f[mask] = sum;
  }
  return f.back();
}

// |result − perm| ≤ its bound, perm = exact / 2^(20n) (the exact value's conversion to double
// rounds a few units of 2^−53 of it; that much is allowed besides).
// (bits: the values' scale, 0 for Gaussian integers)
inline void check_contains(const sp::permanent_result& r, const gaussian& exact, int n, int bits = value_bits) {
  const double re = std::ldexp(exact.re.to_double(), -bits * n);
  const double im = std::ldexp(exact.im.to_double(), -bits * n);
  REQUIRE(r.complex);
  REQUIRE(r.error_bound.has_value());
  const double slack = 0x1p-50 * (std::fabs(re) + std::fabs(im));
  const double distance = std::hypot(r.value - re, r.imag - im);
  INFO(r.engine << " n = " << n << ": " << sp::complex_text(r) << " vs " << re << " + " << im << "i, bound "
                << *r.error_bound);
  CHECK(distance <= *r.error_bound + slack);
}

// An exact complex result equals the exact Gaussian integer, part by part.
inline void check_exact(const sp::permanent_result& r, const gaussian& exact) {
  INFO(r.engine << ": " << sp::complex_text(r) << " vs " << exact.re.to_decimal() << " + " << exact.im.to_decimal()
                << "i");
  CHECK(r.exact);
  CHECK(r.permanent == exact.re.to_decimal());
  CHECK((r.complex ? r.permanent_imag : std::string("0")) == exact.im.to_decimal());
}

}  // namespace test_complex
