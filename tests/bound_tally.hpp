#pragma once
// Floating results checked against exact permanents where terms cancel (tests of bounds, host and
// GPU): every bound must contain the exact value, and the digits each certifies are kept for medians.
#include <doctest/doctest.h>

#include <sparseperm/core/result.cuh>

#include <algorithm>
#include <string>
#include <vector>

#include "exact_dyadic.hpp"

namespace exact_dyadic {

struct bound_tally {
  int checked = 0, inexact = 0;
  std::vector<int> digits;
  void check(const sp::permanent_result& r, const exact_complex& exact, const std::string& what) {
    CAPTURE(what);
    CAPTURE(r.plan);
    REQUIRE_FALSE(r.exact);
    REQUIRE(r.error_bound.has_value());
    const double error = error_of(r, exact);
    CAPTURE(error);
    CAPTURE(*r.error_bound);
    CHECK(error <= *r.error_bound);
    ++checked;
    if (error > 0) ++inexact;
    digits.push_back(sp::trusted_digits(r).value_or(0));
  }
  int median() {
    std::sort(digits.begin(), digits.end());
    return digits.empty() ? 0 : digits[digits.size() / 2];
  }
};

}  // namespace exact_dyadic
