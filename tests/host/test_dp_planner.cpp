// The dp engine (dense ranked states and hash tables), the structural reductions and the auto planner
// against the reference engines on hundreds of random matrices (reducible, block-triangular and
// singular ones included), and on closed forms: Fibonacci numbers (tridiagonal 0/1), band matrices, block-diagonal products,
// triangular matrices, matrices without a perfect matching.
#include <doctest/doctest.h>

#include <sparseperm/compute.cuh>
#include <sparseperm/engines/dp.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/planner.cuh>
#include <sparseperm/structure/block_decomposition.cuh>
#include <sparseperm/structure/reductions.cuh>

#include <cmath>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace sp = sparseperm;

namespace {

// Decimal addition of non-negative integers, independent of big_integer.
std::string add_decimal(const std::string& a, const std::string& b) {
  std::string r;
  int carry = 0;
  for (std::size_t k = 0; k < std::max(a.size(), b.size()) || carry; ++k) {
    const int d =
        carry + (k < a.size() ? a[a.size() - 1 - k] - '0' : 0) + (k < b.size() ? b[b.size() - 1 - k] - '0' : 0);
    r.push_back(static_cast<char>('0' + d % 10));
    carry = d / 10;
  }
  return std::string(r.rbegin(), r.rend());
}

sp::sparse_matrix band_matrix(int n, int width, double value = 1) {
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < n; ++i) {
    for (int j = std::max(0, i - width); j <= std::min(n - 1, i + width); ++j) entries.push_back({i, j, value});
  }
  return sp::sparse_matrix::from_entries(n, std::move(entries));
}

// diag(B1, B2) with random entries above the blocks (upper block triangular when `coupled`).
sp::sparse_matrix block_matrix(const sp::sparse_matrix& b1, const sp::sparse_matrix& b2, sp::random_stream& stream,
                               bool coupled) {
  std::vector<sp::matrix_entry> entries;
  for (const auto& e : b1.entries()) entries.push_back(e);
  for (const auto& e : b2.entries()) entries.push_back({e.row + b1.n(), e.column + b1.n(), e.value});
  if (coupled) {
    for (int i = 0; i < b1.n(); ++i) {
      for (int j = 0; j < b2.n(); ++j) {
        if (stream.uniform() < 0.3) entries.push_back({i, b1.n() + j, 1.0 + static_cast<double>(stream.below(3))});
      }
    }
  }
  return sp::sparse_matrix::from_entries(b1.n() + b2.n(), std::move(entries));
}

// A random row and column permutation: hides the block structure from the natural order.
sp::sparse_matrix shuffled(const sp::sparse_matrix& m, sp::random_stream& stream) {
  std::vector<int> rows(m.n()), columns(m.n());
  for (int i = 0; i < m.n(); ++i) rows[i] = columns[i] = i;
  for (int i = m.n() - 1; i > 0; --i) {
    std::swap(rows[i], rows[stream.below(static_cast<std::uint64_t>(i) + 1)]);
    std::swap(columns[i], columns[stream.below(static_cast<std::uint64_t>(i) + 1)]);
  }
  return m.permuted(rows, columns);
}

void check_agrees(const sp::sparse_matrix& m, const sp::permanent_result& reference, const sp::permanent_result& r) {
  if (m.has_integer_values()) {
    REQUIRE(r.exact);
    CHECK(r.permanent == reference.permanent);
  } else {
    const double scale = test_support::ryser_absolute_sum(m) + std::fabs(reference.value);
    CHECK(std::fabs(r.value - reference.value) <= 1e-12 * scale);
  }
}

}  // namespace

TEST_CASE("dp and auto agree with the reference on random matrices, n = 1..20") {
  sp::random_stream stream(2026);
  int compared = 0, integer = 0, reducible = 0, singular = 0;
  const sp::value_kind kinds[] = {sp::value_kind::uniform, sp::value_kind::ones, sp::value_kind::integers};
  for (int round = 0; round < 10; ++round) {
    for (int n = 1; n <= 20; ++n) {
      for (int shape = 0; shape < 3; ++shape) {
        const auto kind = kinds[(round + n + shape) % 3];
        const bool signed_reals = kind == sp::value_kind::uniform && round % 2 == 1;
        sp::sparse_matrix m;
        if (shape == 0 || n < 4) {  // plain sparse, often singular at low density
          m = test_support::random_matrix(stream, n, 0.15 + 0.05 * (round % 5), kind, signed_reals);
        } else {  // two blocks, diagonal or upper block triangular, shuffled
          const int k = 1 + static_cast<int>(stream.below(static_cast<std::uint64_t>(n - 1)));
          const auto b1 = test_support::random_matrix(stream, k, 0.6, kind, signed_reals);
          const auto b2 = test_support::random_matrix(stream, n - k, 0.6, kind, signed_reals);
          m = shuffled(block_matrix(b1, b2, stream, shape == 2 && kind != sp::value_kind::uniform), stream);
          ++reducible;
        }
        CAPTURE(n);
        CAPTURE(round);
        CAPTURE(shape);
        CAPTURE(test_support::kind_name(kind));
        const auto reference = sp::permanent_reference(m);
        check_agrees(m, reference, sp::permanent_dp(m));  // dense ranked states where they fit
        const auto order = sp::frontier_orders(m).front();
        check_agrees(m, reference,
                     sp::dp_result("dp", m, order, sp::permanent_dp_value(m, order, 2, sp::dp_states::hash_tables)));
        check_agrees(m, reference, sp::compute_permanent(m));
        singular += sp::maximum_matching(m).size < n;
        integer += m.has_integer_values();
        ++compared;
      }
    }
  }
  MESSAGE("dp and auto cross-checked against the reference on "
          << compared << " random matrices (n = 1..20): " << integer << " integer (exact), " << reducible
          << " built reducible, " << singular << " structurally singular");
  CHECK(compared >= 500);
  CHECK(singular >= 20);
}

TEST_CASE("tridiagonal 0/1 matrices: Fibonacci numbers, exactly, up to n = 1000") {
  std::vector<std::string> fibonacci{"0", "1"};  // F(0), F(1)
  while (fibonacci.size() < 1003)
    fibonacci.push_back(add_decimal(fibonacci[fibonacci.size() - 1], fibonacci[fibonacci.size() - 2]));
  for (int n : {1, 2, 3, 10, 50, 90, 100, 333, 1000}) {
    CAPTURE(n);
    const auto m = band_matrix(n, 1);
    const auto r = sp::compute_permanent(m);
    REQUIRE(r.exact);
    CHECK(r.permanent == fibonacci[n + 1]);
    const auto d = sp::permanent_dp(m);
    CHECK(d.permanent == fibonacci[n + 1]);
  }
}

TEST_CASE("all-ones band matrices") {
  for (int width : {1, 2, 3}) {
    for (int n = 1; n <= 18; ++n) {
      CAPTURE(width);
      CAPTURE(n);
      const auto m = band_matrix(n, width);
      const auto reference = sp::permanent_reference(m);
      CHECK(sp::permanent_dp(m).permanent == reference.permanent);
      CHECK(sp::compute_permanent(m).permanent == reference.permanent);
    }
  }
  // |i − j| ≤ 2: permutations within distance 2 of the identity (OEIS A002524)
  const char* distance_two[] = {"1", "2", "6", "14", "31", "73", "172", "400", "932", "2177", "5081", "11854"};
  for (int n = 1; n <= 12; ++n) CHECK(sp::permanent_dp(band_matrix(n, 2)).permanent == distance_two[n - 1]);
  // Large bands: dp with and without the planner's reductions, exactly
  for (int width : {2, 3}) {
    const auto m = band_matrix(300, width);
    CHECK(sp::permanent_dp(m).permanent == sp::compute_permanent(m).permanent);
  }
}

TEST_CASE("products over blocks, triangular matrices, no perfect matching") {
  sp::random_stream stream(77);
  for (int trial = 0; trial < 20; ++trial) {
    const int k = 2 + static_cast<int>(stream.below(8)), l = 2 + static_cast<int>(stream.below(8));
    const auto b1 = test_support::random_matrix(stream, k, 0.6, sp::value_kind::integers);
    const auto b2 = test_support::random_matrix(stream, l, 0.6, sp::value_kind::integers);
    const auto m = shuffled(block_matrix(b1, b2, stream, trial % 2 == 1), stream);
    const auto p1 = sp::detail::big_integer::from_decimal(sp::permanent_reference(b1).permanent);
    const auto p2 = sp::detail::big_integer::from_decimal(sp::permanent_reference(b2).permanent);
    CHECK(sp::compute_permanent(m).permanent == (p1 * p2).to_decimal());
    CHECK(sp::permanent_dp(m).permanent == (p1 * p2).to_decimal());
  }
  // upper triangular with diagonal 1..n: n!
  std::vector<sp::matrix_entry> entries;
  const int n = 30;
  for (int i = 0; i < n; ++i) {
    for (int j = i; j < n; ++j) entries.push_back({i, j, j == i ? static_cast<double>(i + 1) : 1.0});
  }
  const auto triangular = sp::sparse_matrix::from_entries(n, entries);
  const auto r = sp::compute_permanent(triangular);
  CHECK(r.permanent == "265252859812191058636308480000000");  // 30!
  CHECK(r.engine == "structure");
  CHECK(sp::permanent_dp(triangular).permanent == r.permanent);
  // a 0/1 matrix whose rows 0 and 1 share a single column: no perfect matching
  const auto singular = sp::sparse_matrix::from_entries(3, {{0, 0, 1}, {1, 0, 1}, {2, 1, 1}, {2, 2, 1}});
  CHECK(sp::compute_permanent(singular).permanent == "0");
  CHECK(sp::permanent_dp(singular).permanent == "0");
}

TEST_CASE("fine blocks and reductions") {
  // diag(2, [[1,1],[1,1]]) with an entry (0, 1) that lies in no perfect matching
  const auto m = sp::sparse_matrix::from_entries(3, {{0, 0, 2}, {0, 1, 5}, {1, 1, 1}, {1, 2, 1}, {2, 1, 1}, {2, 2, 1}});
  const auto blocks = sp::fine_blocks(m, sp::maximum_matching(m));
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].matrix.n() + blocks[1].matrix.n() == 3);
  CHECK(blocks[0].matrix.nnz() + blocks[1].matrix.nnz() == 5);  // (0, 1) dropped
  CHECK(sp::compute_permanent(m).permanent == "4");
  // a degree-2 row merges two columns; a tridiagonal matrix reduces to nothing
  const auto reduced = sp::reduce_degrees(band_matrix(20, 1));
  CHECK(reduced.degree_two + reduced.degree_one == 20);
  CHECK(reduced.matrix.n() == 0);
  CHECK(reduced.factor.to_decimal() == "10946");  // F(21)
}

TEST_CASE("dp keys wider than 64 rows") {
  // n = 80: a full first column and a bidiagonal rest; every order has all 80 rows active at once,
  // so the keys take two words (and four, forced, give the same sums).
  const int n = 80;
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < n; ++i) entries.push_back({i, 0, 1});
  for (int j = 1; j < n; ++j) {
    entries.push_back({j, j, 2});
    entries.push_back({j - 1, j, 1});
  }
  const auto m = sp::sparse_matrix::from_entries(n, entries);
  const auto best = sp::frontier_orders(m).front();
  CHECK(best.frontier > 64);
  const auto two = sp::permanent_dp_value(m, best);
  REQUIRE(two.exact);
  sp::detail::dp_run_stats stats;
  const sp::detail::big_integer four(sp::detail::run_dp<4, sp::exact_arithmetic>(m, best.columns, 1, stats));
  CHECK(two.exact_value == four);
  CHECK(two.exact_value.to_decimal() == sp::compute_permanent(m).permanent);
}

TEST_CASE("the planner picks only engines available here, and auto agrees with each forced engine") {
  sp::random_stream stream(99);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 4 + static_cast<int>(stream.below(12));
    const auto m =
        test_support::random_matrix(stream, n, 0.35, trial % 2 ? sp::value_kind::ones : sp::value_kind::integers);
    const auto plan = sp::make_plan(m);
    for (const auto& block : plan.blocks) {
      REQUIRE(block.engine != nullptr);
      CHECK(block.engine->planned());
      CHECK_FALSE(sp::engine_unavailable(*block.engine));
      for (const auto& e : block.estimates) {
        REQUIRE(e.engine != nullptr);
        if (sp::engine_unavailable(*e.engine)) CHECK_FALSE(e.seconds.has_value());
      }
    }
    const auto automatic = sp::compute_permanent(m);
    for (const sp::engine_description* e : sp::engine_descriptions()) {
      if (sp::engine_unavailable(*e) || n > e->max_n) continue;
      CAPTURE(e->name);
      sp::compute_options forced;
      forced.engine = sp::engine_choice(e);
      CHECK(sp::compute_permanent(m, forced).permanent == automatic.permanent);
    }
  }
}

TEST_CASE("big integers") {
  using sp::detail::big_integer;
  const auto a = big_integer::from_decimal("123456789012345678901234567890");
  CHECK(a.to_decimal() == "123456789012345678901234567890");
  CHECK((a * a).to_decimal() == "15241578753238836750495351562536198787501905199875019052100");
  CHECK(a.times(-3).to_decimal() == "-370370367037037036703703703670");
  big_integer s = a;
  s += a.times(-1);
  CHECK(s.is_zero());
  CHECK(big_integer::from_decimal("-5").to_decimal() == "-5");
  big_integer t(7ll);
  t += big_integer(-10ll);
  CHECK(t.to_decimal() == "-3");
}

TEST_CASE("without a module runner the generated engines say what is missing, and auto plans without them") {
  // this program includes compute.cuh alone, and its options name no module runner
  const sp::compute_options options;
  REQUIRE(options.modules == nullptr);
  const auto m = sp::sparse_matrix::from_dense(3, std::vector<double>(9, 1.0));
  for (const sp::engine_description* e : sp::engine_descriptions()) {
    if (!e->generated()) continue;
    CAPTURE(e->name);
    const auto why = sp::engine_unavailable(*e, options);
    REQUIRE(why);
    CHECK(why->find("sparseperm::module_pipeline(), from <sparseperm/pipeline.cuh>") != std::string::npos);
    CHECK_THROWS_WITH_AS(sp::compute_permanent(m, {.engine = sp::engine_choice(e)}),
                         doctest::Contains("<sparseperm/pipeline.cuh>"), sp::engine_error);
  }
  CHECK(sp::compute_permanent(m).permanent == "6");
}

TEST_CASE("the planner shares the chunked engines' estimates over the MPI ranks, not the others'") {
  sp::random_stream s(31);
  const sp::sparse_matrix m = test_support::random_matrix(s, 24, 0.4, sp::value_kind::uniform);
  const sp::frontier_order order = sp::frontier_orders(m).front();
  sp::compute_options alone, ranks;
  const sp::process_group four{0, 4, {}, {}, {}};
  ranks.processes = &four;
  for (const char* name : {"cpu-sparse", "dp"}) {
    CAPTURE(name);
    const sp::engine_description* engine = sp::find_engine(name);
    REQUIRE(engine);
    const auto one = sp::detail::estimate_engine({m, order, alone, 1e12}, *engine);
    const auto shared = sp::detail::estimate_engine({m, order, ranks, 1e12}, *engine);
    REQUIRE(one.seconds);
    REQUIRE(shared.seconds);
    CHECK(*shared.seconds == doctest::Approx(*one.seconds / (engine->journals ? 4 : 1)));
  }
}

// A first cpu-cached run compiles its module: the planner prices that compile per matrix (the size of
// the unrolled block, 4.3x for complex values), not as one second for every matrix, so a complex
// n = 28 whose compile would take most of the run goes to an engine that needs none.
TEST_CASE("cpu-cached's compile is priced per matrix, complex values dearer") {
  sp::random_stream s(28);
  const sp::sparse_matrix sparse_real = test_support::random_matrix(s, 28, 0.3, sp::value_kind::uniform);
  const sp::sparse_matrix dense_real = test_support::random_matrix(s, 28, 0.6, sp::value_kind::uniform);
  const sp::sparse_matrix dense_complex = test_support::random_complex(s, 28, 0.6, false);
  const sp::engine_description* cached = sp::find_engine("cpu-cached");
  const sp::engine_description* cpu_sparse = sp::find_engine("cpu-sparse");
  REQUIRE(cached);
  REQUIRE(cpu_sparse);
  const sp::compute_options options;
  const auto estimate = [&](const sp::sparse_matrix& m, const sp::engine_description& engine) {
    const sp::frontier_order order = sp::frontier_orders(m).front();
    sp::engine_estimate e;
    engine.estimate({m, order, options, 1e12}, e);  // the engine's own model, runner or not
    REQUIRE(e.seconds);
    return e;
  };
  const auto a = estimate(sparse_real, *cached), b = estimate(dense_real, *cached),
             c = estimate(dense_complex, *cached);
  REQUIRE(a.compile_seconds);
  REQUIRE(b.compile_seconds);
  REQUIRE(c.compile_seconds);
  MESSAGE("cpu-cached compile estimates, n = 28: real p = 0.3 "
          << *a.compile_seconds << " s, p = 0.6 " << *b.compile_seconds << " s, complex p = 0.6 " << *c.compile_seconds
          << " s");
  CHECK(*a.compile_seconds > cached->compile_seconds);  // the headers, then the block
  CHECK(*b.compile_seconds > *a.compile_seconds);
  CHECK(*c.compile_seconds > 2 * *b.compile_seconds);
  // measured on this kind of machine: 3.8 and 5.4 s real, 14.8 s complex (a dense complex block)
  CHECK(*c.compile_seconds == doctest::Approx(14.8).epsilon(0.3));
  // compile and run against cpu-sparse, which needs no compile: the first call does not pay for one
  CHECK(*c.seconds + *c.compile_seconds > *estimate(dense_complex, *cpu_sparse).seconds);
}
