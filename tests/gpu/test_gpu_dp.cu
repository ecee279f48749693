// gpu-dp against independent engines: integer matrices exactly equal to dp's hash tables (and the
// reference where n is small), real ones within their bound of the exact dyadic permanent and
// bit-identical to the same steps on host threads (the same fused multiply-adds in the same order),
// complex ones within their bound of the exact Gaussian-rational permanent; frontiers up to 30 rows
// (millions of states), many primes, the planner's choice, and its refusals.
#include "gpu_test_main.hpp"

#include <sparseperm/dp/ranked_dp.cuh>
#include <sparseperm/perm.cuh>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../complex_reference.hpp"
#include "../host/test_support.hpp"

namespace sp = sparseperm;

namespace {

const sp::engine_description* const gpu_dp = &sp::description_of<sp::engines::gpu_dp>;

sp::permanent_result on_gpu(const sp::sparse_matrix& m, sp::precision p = sp::precision::automatic) {
  sp::compute_options options;
  options.engine = sp::engine_choice(gpu_dp);
  options.precision = p;
  return sp::compute_permanent(m, options);
}

double on_host_threads(const sp::sparse_matrix& m) {
  const auto order = sp::frontier_orders(m).front();
  return sp::detail::ranked_dp_value(m, order, sp::precision::automatic, "host", sp::detail::ranked_dp_on_host{4})
      .value;
}

}  // namespace

TEST_CASE("gpu-dp: integer matrices exact, equal to dp and the reference") {
  sp::random_stream s(31337);
  int compared = 0, large = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 20;
    const auto kind = trial % 2 == 0 ? sp::value_kind::ones : sp::value_kind::integers;
    const auto m = test_support::random_matrix(s, n, 0.15 + 0.1 * (trial % 5), kind);
    if (sp::maximum_matching(m).size < n) continue;
    const auto r = on_gpu(m);
    CAPTURE(trial);
    REQUIRE(r.exact);
    CHECK(r.permanent == sp::permanent_dp(m, 4).permanent);
    if (n <= 12) CHECK(r.permanent == sp::permanent_reference(m).permanent);
    ++compared;
  }
  // 0/1 matrices of n = 36..44 whose frontier reaches 25..29 rows: up to millions of states
  for (int trial = 0; trial < 5; ++trial) {
    sp::erdos_renyi_options o;
    o.n = 36 + 2 * trial;
    o.density = 0.12;
    o.values = sp::value_kind::ones;
    o.seed = 100 + static_cast<std::uint64_t>(trial);
    const auto m = sp::generate_erdos_renyi(o);
    const auto order = sp::frontier_orders(m).front();
    if (order.peak_states > 2e7) continue;  // dp on the host would take minutes
    const auto r = on_gpu(m);
    CAPTURE(o.n);
    REQUIRE(r.exact);
    CHECK(r.permanent == sp::permanent_dp(m, 16).permanent);
    std::printf("gpu-dp n = %d: frontier %d, %.3g states at most, perm %s, %.3f s on the GPU\n", o.n, order.frontier,
                order.peak_states, r.permanent.c_str(), r.seconds.compute);
    ++large;
  }
  std::printf("gpu-dp: %d random integer matrices exact and equal to dp, %d large ones\n", compared, large);
  CHECK(compared >= 100);
  CHECK(large >= 3);
}

TEST_CASE("gpu-dp: real matrices within their bound, bit-identical to the host's steps") {
  sp::random_stream s(4711);
  int bounded = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 2 + trial % 15;
    const auto m = test_support::random_matrix(s, n, 0.35 + 0.1 * (trial % 5), sp::value_kind::uniform, trial % 2 == 1);
    if (m.has_integer_values() || sp::maximum_matching(m).size < n) continue;
    const auto r = on_gpu(m, sp::precision::double_sums);  // doubles, as the host's steps (no escalation)
    CAPTURE(trial);
    REQUIRE_FALSE(r.exact);
    const double d = std::fabs(test_support::difference(r.value, test_support::exact_permanent(m)));
    CHECK(d <= *r.error_bound);
    CHECK(r.value == on_host_threads(m));
    ++bounded;
  }
  std::printf("gpu-dp: %d real matrices within their bounds and equal to the host's steps\n", bounded);
  CHECK(bounded >= 80);
}

TEST_CASE("gpu-dp: complex matrices within their bound of the exact permanent") {
  sp::random_stream s(2718);
  int bounded = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const int n = 1 + trial % 11;
    const auto m = test_complex::random_complex(s, n, trial % 2 == 0 ? 1.0 : 0.5, false);
    if (!m.is_complex() || sp::maximum_matching(m).size < n) continue;
    const auto exact = test_complex::exact_scaled_permanent(m, std::ldexp(1.0, test_complex::value_bits));
    CAPTURE(trial);
    test_complex::check_contains(on_gpu(m), exact, n);
    ++bounded;
  }
  std::printf("gpu-dp: %d complex matrices within their bounds\n", bounded);
  CHECK(bounded >= 60);
}

TEST_CASE("gpu-dp: many primes, and refusals") {
  // 3^20 on the diagonal of 12 rows: a bound of about 380 bits, 16 primes in four passes
  std::vector<sp::matrix_entry> entries;
  const double big = std::pow(3.0, 20);
  for (int i = 0; i < 12; ++i) {
    entries.push_back({i, i, big});
    if (i + 1 < 12) entries.push_back({i, i + 1, 1});
    if (i + 2 < 12) entries.push_back({i + 2, i, 1});
  }
  const auto m = sp::sparse_matrix::from_entries(12, entries);
  const auto r = on_gpu(m);
  REQUIRE(r.exact);
  CHECK(r.permanent == sp::permanent_dp(m, 4).permanent);
  // a dense 64 × 64 matrix: no union of 64 rows
  CHECK_THROWS_AS(on_gpu(test_support::dense_matrix(64, 1)), sp::engine_error);
  // Gaussian integers: no exact complex arithmetic here
  sp::random_stream s(5);
  const auto g = test_complex::random_complex(s, 6, 1.0, true);
  CHECK_THROWS_AS(on_gpu(g, sp::precision::exact), sp::engine_error);
}
