#pragma once
// One matrix, two results: do they agree? Exact ones digit for digit (both parts of a complex one),
// floating ones within the sum of their error bounds (the modulus of the difference for complex).
#include <doctest/doctest.h>

#include <sparseperm/core/result.cuh>

#include <cmath>

namespace test_agreement {

// Checks a against b; true when b is exact.
inline bool check_agree(const sparseperm::permanent_result& a, const sparseperm::permanent_result& b) {
  CHECK(a.exact == b.exact);
  if (b.exact) {
    CHECK(sparseperm::complex_text(a) == sparseperm::complex_text(b));
    return true;
  }
  REQUIRE(a.error_bound.has_value());
  REQUIRE(b.error_bound.has_value());
  CHECK(std::hypot(a.value - b.value, a.imag - b.imag) <= *a.error_bound + *b.error_bound);
  return false;
}

}  // namespace test_agreement
