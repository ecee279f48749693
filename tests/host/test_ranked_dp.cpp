// gpu-dp's dense steps (dp/ranked_dp.cuh), run on host threads with the same per-state code the
// GPU runs: ranks and unranks, then whole permanents against independent references: the big-integer
// subset DP of exact values (test_support, complex_reference), the reference engine and the hash dp,
// on random matrices under their best order and under random orders (new rows and finishing rows in
// every combination), integer ones exactly in residues, real and complex ones within their bounds.
#include <doctest/doctest.h>

#include <sparseperm/dp/ranked_dp.cuh>
#include <sparseperm/engines/dp.cuh>
#include <sparseperm/engines/reference.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../complex_reference.hpp"
#include "test_support.hpp"

namespace sp = sparseperm;

namespace {

sp::permanent_result ranked(const sp::sparse_matrix& m, const sp::frontier_order& order,
                            sp::precision p = sp::precision::automatic) {
  return sp::dp_result("gpu-dp", m, order,
                       sp::detail::ranked_dp_value(m, order, p, "gpu-dp", sp::detail::ranked_dp_on_host{2}));
}

sp::frontier_order random_order(const sp::sparse_matrix& m, sp::random_stream& s) {
  std::vector<int> columns(m.n());
  for (int j = 0; j < m.n(); ++j) columns[j] = j;
  for (int j = m.n() - 1; j > 0; --j) std::swap(columns[j], columns[s.below(static_cast<std::uint64_t>(j) + 1)]);
  return sp::estimate_frontier_order(m, std::move(columns), "random");
}

// |value − exact| ≤ bound, exact a dyadic rational (the subset DP in big integers).
void check_bound(const sp::sparse_matrix& m, const sp::permanent_result& r) {
  REQUIRE_FALSE(r.exact);
  REQUIRE(r.error_bound.has_value());
  const double d = std::fabs(test_support::difference(r.value, test_support::exact_permanent(m)));
  CHECK(d <= *r.error_bound);
}

}  // namespace

TEST_CASE("colex ranks: unranking walks every k-subset in order, and rank(unrank(i)) = i") {
  const auto binomial = sp::detail::ranked_binomials();
  for (int a : {0, 1, 5, 12}) {
    for (int k = 0; k <= a; ++k) {
      const std::uint64_t count = binomial[a * sp::detail::ranked_binomial_stride + k];
      std::uint64_t previous = 0;
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t mask = sp::detail::colex_unrank(i, k, a, binomial.data());
        CHECK(sp::detail::popcount(mask) == k);
        CHECK(mask < (std::uint64_t{1} << a));
        if (i > 0) CHECK(mask > previous);  // colex order is numeric order of masks
        previous = mask;
        std::uint64_t rank = 0;
        int j = 0;
        for (std::uint64_t b = mask; b != 0; b &= b - 1, ++j)
          rank += binomial[sp::detail::trailing_zeros(b) * sp::detail::ranked_binomial_stride + j + 1];
        CHECK(rank == i);
      }
    }
  }
  // the widest union: C(63, 31), the last subset
  const std::uint64_t last = binomial[63 * sp::detail::ranked_binomial_stride + 31] - 1;
  CHECK(sp::detail::colex_unrank(last, 31, 63, binomial.data()) == ((std::uint64_t{1} << 31) - 1) << 32);
  CHECK(sp::detail::insert_zero_bits(0b1011, 0b10100) == 0b100011);
}

TEST_CASE("dense steps: integer matrices exact in residues, equal to the reference and to dp") {
  sp::random_stream s(4242);
  int compared = 0, random_orders = 0, zero = 0;
  for (int trial = 0; trial < 240; ++trial) {
    const int n = 1 + trial % 16;
    const auto kind = trial % 2 == 0 ? sp::value_kind::ones : sp::value_kind::integers;
    const auto m = test_support::random_matrix(s, n, 0.2 + 0.1 * (trial % 5), kind);
    const auto reference = sp::permanent_reference(m);
    REQUIRE(reference.exact);
    CAPTURE(trial);
    const auto best = sp::frontier_orders(m).front();
    const auto r = ranked(m, best);
    CHECK(r.exact);
    CHECK(r.permanent == reference.permanent);
    CHECK(r.permanent ==
          sp::dp_result("dp", m, best, sp::permanent_dp_value(m, best, 2, sp::dp_states::hash_tables)).permanent);
    const auto shuffled = random_order(m, s);
    CHECK(ranked(m, shuffled, sp::precision::exact).permanent == reference.permanent);
    zero += reference.permanent == "0";
    ++random_orders;
    ++compared;
  }
  MESSAGE(compared << " integer matrices (n = 1..16) exact in residues, " << random_orders
                   << " also in a random column order, " << zero << " with permanent 0");
  CHECK(zero >= 20);
}

TEST_CASE("dense steps: structured 0/1 matrices (degree-1 and degree-2 rows, bands, grids) and wide entries") {
  // a 6 × 6 grid graph's biadjacency with the diagonal: degree 3 to 5, frontier about 2·6
  std::vector<sp::matrix_entry> grid;
  const int side = 6;
  for (int i = 0; i < side * side; ++i) {
    grid.push_back({i, i, 1});
    if (i % side + 1 < side) grid.push_back({i, i + 1, 1}), grid.push_back({i + 1, i, 1});
    if (i + side < side * side) grid.push_back({i, i + side, 1}), grid.push_back({i + side, i, 1});
  }
  const auto g = sp::sparse_matrix::from_entries(side * side, grid);
  CHECK(ranked(g, sp::frontier_orders(g).front()).permanent ==
        sp::permanent_dp_value(g, sp::frontier_orders(g).front(), 2, sp::dp_states::hash_tables)
            .exact_value.to_decimal());
  // rows of degree 1 and 2, and entries up to 2^40 (many primes): dp's big integers agree
  sp::random_stream s(99);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 8 + trial % 20;
    std::vector<sp::matrix_entry> entries;
    for (int i = 0; i < n; ++i) {
      entries.push_back({i, i, 1});
      if (i % 3 != 0) entries.push_back({i, (i + 1) % n, 2});
      const int far = static_cast<int>(s.below(static_cast<std::uint64_t>(n)));
      if (i % 3 == 2 && far != i && far != (i + 1) % n) entries.push_back({i, far, std::ldexp(1.0, 40) - 1});
    }
    const auto m = sp::sparse_matrix::from_entries(n, entries);
    const auto order = sp::frontier_orders(m).front();
    const auto r = ranked(m, order);
    CAPTURE(trial);
    CHECK(r.exact);
    CHECK(r.permanent == sp::permanent_dp_value(m, order, 2, sp::dp_states::hash_tables).exact_value.to_decimal());
  }
}

TEST_CASE("dense steps: real matrices within their bound of the exact dyadic permanent") {
  sp::random_stream s(5150);
  int bounded = 0;
  for (int trial = 0; trial < 160; ++trial) {
    const int n = 1 + trial % 14;
    const auto m = test_support::random_matrix(s, n, 0.3 + 0.1 * (trial % 6), sp::value_kind::uniform, trial % 2 == 1);
    CAPTURE(trial);
    if (m.has_integer_values()) continue;  // empty lines: exact 0
    check_bound(m, ranked(m, sp::frontier_orders(m).front()));
    check_bound(m, ranked(m, random_order(m, s)));
    ++bounded;
  }
  // integer matrices in doubles when asked: still within the bound
  const auto m = test_support::random_matrix(s, 12, 0.6, sp::value_kind::integers);
  check_bound(m, ranked(m, sp::frontier_orders(m).front(), sp::precision::double_sums));
  CHECK(bounded >= 140);
}

TEST_CASE("dense steps: complex matrices within their bound, Gaussian integers in doubles by default") {
  sp::random_stream s(777);
  int bounded = 0;
  for (int trial = 0; trial < 100; ++trial) {
    const int n = 1 + trial % 11;
    const bool integers = trial % 4 == 3;
    const auto m = test_complex::random_complex(s, n, trial % 2 == 0 ? 1.0 : 0.45, integers);
    if (!m.is_complex()) continue;
    const auto exact =
        test_complex::exact_scaled_permanent(m, integers ? 1.0 : std::ldexp(1.0, test_complex::value_bits));
    CAPTURE(trial);
    for (const auto& order : {sp::frontier_orders(m).front(), random_order(m, s)}) {
      const auto r = ranked(m, order);
      REQUIRE(r.complex);
      test_complex::check_contains(r, exact, n, integers ? 0 : test_complex::value_bits);
    }
    if (integers) CHECK_THROWS_AS(ranked(m, sp::frontier_orders(m).front(), sp::precision::exact), sp::engine_error);
    ++bounded;
  }
  CHECK(bounded >= 85);
}

TEST_CASE("dense steps refuse what they cannot hold: a union beyond 63 rows, exactness beyond 16 primes") {
  // a dense 64 × 64 matrix: its first column's rows are already 64
  const auto dense = test_support::dense_matrix(64, 1);
  try {
    (void)sp::detail::make_ranked_dp_plan(dense, sp::frontier_orders(dense).front());
    FAIL("a union of 64 rows was planned");
  } catch (const sp::engine_error& e) {
    CHECK(e.reason() == sp::engine_error::kind::too_large);
  }
  // entries 2^50 on a diagonal band: the bound needs more than 16 primes of 25 bits
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < 12; ++i) {
    entries.push_back({i, i, std::ldexp(1.0, 50)});
    if (i + 1 < 12) entries.push_back({i, i + 1, 1});
  }
  const auto big = sp::sparse_matrix::from_entries(12, entries);
  const auto order = sp::frontier_orders(big).front();
  CHECK_THROWS_AS(ranked(big, order, sp::precision::exact), sp::engine_error);
  const auto r = ranked(big, order);  // the default falls back to doubles with a bound
  CHECK_FALSE(r.exact);
  CHECK(std::fabs(r.value - std::ldexp(1.0, 600)) <= *r.error_bound);
}
