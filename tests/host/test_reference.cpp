// The reference engine's three algorithms against each other and against closed forms.
#include <doctest/doctest.h>

#include <sparseperm/engines/reference.cuh>

#include <cmath>

#include "test_support.hpp"

namespace sp = sparseperm;
using sp::detail::int128;

namespace {

int128 factorial128(int n) {
  int128 f = 1;
  for (int k = 2; k <= n; ++k) f *= k;
  return f;
}

int128 derangements128(int n) {  // D(n) = (n − 1)(D(n − 1) + D(n − 2))
  int128 a = 1, b = 0;           // D(0), D(1)
  if (n == 0) return a;
  for (int k = 2; k <= n; ++k) {
    const int128 c = (k - 1) * (a + b);
    a = b;
    b = c;
  }
  return b;
}

}  // namespace

TEST_CASE("brute force, dense Ryser and the subset DP agree exactly on integer matrices") {
  sp::random_stream stream(2024);
  int compared = 0;
  for (int n = 1; n <= 9; ++n) {
    for (double density : {0.3, 0.6, 1.0}) {
      for (auto kind : {sp::value_kind::ones, sp::value_kind::integers}) {
        const auto m = test_support::random_matrix(stream, n, density, kind);
        const int128 brute = sp::reference::brute_force<int128>(m);
        CHECK(sp::reference::dense_ryser_exact(m) == brute);
        CHECK(sp::reference::subset_dp<int128>(m) == brute);
        ++compared;
      }
    }
  }
  CHECK(compared == 54);
}

TEST_CASE("long double agrees with the exact answers on small real matrices") {
  sp::random_stream stream(99);
  for (int n = 1; n <= 9; ++n) {
    const auto m = test_support::random_matrix(stream, n, 0.7, sp::value_kind::uniform);
    const long double brute = sp::reference::brute_force<long double>(m);
    CHECK(static_cast<double>(sp::reference::dense_ryser(m)) ==
          doctest::Approx(static_cast<double>(brute)).epsilon(1e-14));
    CHECK(static_cast<double>(sp::reference::subset_dp<long double>(m)) ==
          doctest::Approx(static_cast<double>(brute)).epsilon(1e-14));
  }
}

TEST_CASE("closed forms") {
  for (int n = 1; n <= 12; ++n) {
    CHECK(sp::reference::subset_dp<int128>(test_support::dense_matrix(n, 1)) == factorial128(n));
    CHECK(sp::reference::subset_dp<int128>(test_support::derangement_matrix(n)) == derangements128(n));
  }
  for (int n = 1; n <= 20; n += 3) {
    CHECK(sp::reference::dense_ryser_exact(test_support::dense_matrix(n, 1)) == factorial128(n));
    CHECK(sp::reference::dense_ryser_exact(test_support::derangement_matrix(n)) == derangements128(n));
  }
  CHECK(sp::detail::to_decimal(factorial128(20)) == "2432902008176640000");
  CHECK(sp::detail::to_decimal(-factorial128(25)) == "-15511210043330985984000000");
}

TEST_CASE("the engine picks its algorithm and arithmetic") {
  const auto small = sp::permanent_reference(test_support::dense_matrix(8, 1));
  CHECK(small.exact);
  CHECK(small.permanent == "40320");
  CHECK(small.plan.find("brute force") != std::string::npos);
  const auto larger = sp::permanent_reference(test_support::derangement_matrix(16));
  CHECK(larger.exact);
  CHECK(larger.permanent == sp::detail::to_decimal(derangements128(16)));
  CHECK(larger.plan.find("Ryser") != std::string::npos);
  const auto real = sp::permanent_reference(test_support::dense_matrix(12, 0.5));
  CHECK_FALSE(real.exact);
  CHECK(real.value == doctest::Approx(479001600.0 / 4096.0).epsilon(1e-15));  // 12! / 2^12
  const auto empty = sp::permanent_reference(sp::sparse_matrix{});
  CHECK(empty.permanent == "1");
  CHECK_THROWS_AS(sp::permanent_reference(test_support::dense_matrix(27, 1)), sp::engine_error);
}
