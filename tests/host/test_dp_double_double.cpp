// The dp engine in double-double where terms cancel: in its hash tables and in its dense ranked steps
// (the steps gpu-dp runs, here on host threads), every bound contains the exact permanent (big
// integers) of random signed real and complex matrices of full 53-bit values and of band matrices up
// to n = 40, and certifies the digits double cannot; a transition with its sign flipped (a tampered
// run of the same steps) falls outside the bound.
#include <doctest/doctest.h>

#include <sparseperm/compute.cuh>
#include <sparseperm/dp/dp.cuh>
#include <sparseperm/dp/ranked_dp.cuh>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "../band_matrices.hpp"
#include "../bound_tally.hpp"
#include "../exact_dyadic.hpp"
#include "test_support.hpp"

namespace sp = sparseperm;

namespace dp_double_double_test {

using band_matrices::exact_band_permanent;
using band_matrices::random_band;
using exact_dyadic::error_of;
using exact_dyadic::exact_complex;

sp::permanent_result hash_tables(const sp::sparse_matrix& a, const sp::frontier_order& order, sp::precision p) {
  return sp::dp_result("dp", a, order, sp::permanent_dp_value(a, order, 2, sp::dp_states::hash_tables, nullptr, p));
}

template <class Run = sp::detail::ranked_dp_on_host>
sp::permanent_result dense_steps(const sp::sparse_matrix& a, const sp::frontier_order& order, sp::precision p,
                                 const Run& run = {2}) {
  return sp::dp_result("dp", a, order, sp::detail::ranked_dp_value(a, order, p, "dp", run));
}

// The dense steps' arithmetic with the first transition of a run added with its sign flipped.
std::atomic<bool> flip_next{false};

template <class Arith>
struct flipping : Arith {
  SPARSEPERM_HOST_DEVICE void add(typename Arith::sum& s, typename Arith::entry e, const double* old,
                                  std::uint64_t stride, std::uint64_t rank) const {
    if constexpr (requires { e.value.re; }) {
      if (flip_next.exchange(false)) e.value = {-e.value.re, -e.value.im};
    } else if constexpr (requires { e.value; }) {
      if (flip_next.exchange(false)) e.value = -e.value;
    }
    Arith::add(s, e, old, stride, rank);
  }
};

struct flipping_run {
  template <class Arith>
  std::vector<double> operator()(const sp::detail::ranked_dp_plan& plan, const Arith& arith) const {
    flip_next = true;
    return sp::detail::ranked_dp_on_host{1}(plan, flipping<Arith>{arith});
  }
};

}  // namespace dp_double_double_test

using namespace dp_double_double_test;

TEST_CASE("dp in double-double: bounds contain the exact permanent where terms cancel") {
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 83 : 79);
    exact_dyadic::bound_tally hash_double, hash_dd, dense_double, dense_dd;
    for (int trial = 0; trial < 110; ++trial) {
      const int n = 2 + trial % (complex ? 11 : 13);  // n ≤ 12 complex, ≤ 14 real: every entry present
      const sp::sparse_matrix a = exact_dyadic::random_cancelling(stream, n, complex);
      const exact_complex exact = exact_dyadic::exact_complex_permanent(a);
      const auto order = sp::frontier_orders(a).front();
      const std::string what = std::string(complex ? "complex" : "real") + " n = " + std::to_string(n);
      hash_double.check(hash_tables(a, order, sp::precision::automatic), exact, what + ", hash tables, double");
      hash_dd.check(hash_tables(a, order, sp::precision::double_double), exact, what + ", hash tables, double-double");
      dense_double.check(dense_steps(a, order, sp::precision::automatic), exact, what + ", dense steps, double");
      dense_dd.check(dense_steps(a, order, sp::precision::double_double), exact, what + ", dense steps, double-double");
    }
    // band matrices of n = 16..40: dp's reach, where Ryser's 2^(n−1) steps are out of it
    exact_dyadic::bound_tally band_double, band_dd;
    for (int trial = 0; trial < 25; ++trial) {
      const int n = 16 + trial;
      const sp::sparse_matrix a = random_band(stream, n, complex);
      const exact_complex exact = exact_band_permanent(a);
      const auto order = sp::frontier_orders(a).front();
      const std::string what = std::string(complex ? "complex" : "real") + " band n = " + std::to_string(n);
      band_double.check(dense_steps(a, order, sp::precision::automatic), exact, what + ", double");
      band_dd.check(dense_steps(a, order, sp::precision::double_double), exact, what + ", dense double-double");
      band_dd.check(hash_tables(a, order, sp::precision::double_double), exact, what + ", hash double-double");
    }
    CAPTURE(complex);
    CHECK(hash_dd.median() >= 15);
    CHECK(dense_dd.median() >= 15);
    CHECK(band_dd.median() >= 15);
    CHECK(band_double.median() <= 8);  // the bound through perm(|A|): double certifies little on bands
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": median certified digits, 110 full matrices: hash tables double " << hash_double.median()
            << ", double-double " << hash_dd.median() << "; dense steps double " << dense_double.median()
            << ", double-double " << dense_dd.median() << "; 25 band matrices n = 16..40: double "
            << band_double.median() << ", double-double " << band_dd.median());
  }
}

TEST_CASE("dp in double-double: a flipped transition falls outside the bound") {
  sp::random_stream stream(89);
  int outside = 0, runs = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const bool complex = trial % 2 == 1;
    const sp::sparse_matrix a = random_band(stream, 12 + trial, complex);
    const exact_complex exact = exact_band_permanent(a);
    const auto order = sp::frontier_orders(a).front();
    const sp::permanent_result honest = dense_steps(a, order, sp::precision::double_double);
    const sp::permanent_result tampered = dense_steps(a, order, sp::precision::double_double, flipping_run{});
    CAPTURE(trial);
    CHECK(error_of(honest, exact) <= *honest.error_bound);
    ++runs;
    if (error_of(tampered, exact) > *tampered.error_bound) ++outside;
  }
  CHECK(outside == runs);  // the first entry of the first column, flipped, moves the value far beyond the bound
}

TEST_CASE("auto runs dp again in double-double where its double certifies too few digits, or exactly") {
  sp::random_stream stream(97);
  // one value of 3·2^−100 in a row of values near 1: the row spans more than 53 binary orders, so no
  // exact dyadic run is planned first
  std::vector<sp::matrix_entry> entries = random_band(stream, 60, true).entries();
  entries.front().value = 0x3p-100;
  entries.front().imag = 0;
  const sp::sparse_matrix a = sp::sparse_matrix::from_entries(60, std::move(entries));
  const sp::permanent_result r = sp::compute_permanent(a);
  CAPTURE(r.plan);
  CHECK(r.plan.find("so again in double-double") != std::string::npos);
  CHECK(r.plan.find("dp") != std::string::npos);
  CHECK(sp::trusted_digits(r).value_or(0) >= 10);
  REQUIRE(r.error_bound.has_value());
  CHECK(error_of(r, exact_band_permanent(a, 100)) <= *r.error_bound);
  // the band itself, on a grid of 2^−44: its exact dyadic run is planned as cheap, so it comes first
  const sp::sparse_matrix on_grid = random_band(stream, 60, true);
  const sp::permanent_result e = sp::compute_permanent(on_grid);
  CAPTURE(e.plan);
  CHECK(e.exact);
  CHECK(e.plan.find("so exactly: exact dyadic") != std::string::npos);
  CHECK(error_of(e, exact_band_permanent(on_grid)) <= 0x1p-52 * std::hypot(e.value, e.imag));  // rounded once
}

TEST_CASE("auto runs again in double-double with dp where dp ran one block of several") {
  // a 60 × 60 band (dp's) beside a dense complex 9 × 9 block (a Ryser engine's): the plan's engines are
  // joined by '+', and the double-double run may use dp again for the band, which nothing else reaches
  sp::random_stream stream(101);
  const int band_n = 60, dense_n = 9;
  std::vector<sp::matrix_entry> entries = random_band(stream, band_n, true).entries();
  entries.front().value = 0x3p-100;  // no exact dyadic run first (as above)
  entries.front().imag = 0;
  const auto on_grid = [&] { return std::ldexp(std::floor(std::ldexp(2 * stream.uniform() - 1, 44)), -44); };
  for (int i = 0; i < dense_n; ++i) {
    for (int j = 0; j < dense_n; ++j) {
      const double re = on_grid();
      entries.push_back({band_n + i, band_n + j, re, on_grid()});
    }
  }
  const sp::sparse_matrix a = sp::sparse_matrix::from_entries(band_n + dense_n, std::move(entries));
  sp::compute_options in_double;
  in_double.precision = sp::precision::double_sums;
  const sp::permanent_result first = sp::compute_permanent(a, in_double);
  CAPTURE(first.engine);
  REQUIRE(first.engine.find('+') != std::string::npos);  // two engines: the case at hand
  CHECK(sp::trusted_digits(first).value_or(0) < 10);
  const sp::permanent_result r = sp::compute_permanent(a);
  CAPTURE(r.plan);
  const std::size_t again = r.plan.find("so again in double-double");
  REQUIRE(again != std::string::npos);
  CHECK(r.plan.find("dp", again) != std::string::npos);
  CHECK(sp::trusted_digits(r).value_or(0) >= 10);
  REQUIRE(r.error_bound.has_value());
  CHECK(error_of(r, exact_band_permanent(a, 100)) <= *r.error_bound);
}
