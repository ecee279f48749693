// Exact mode (--precision exact) beyond 128 bits: the modular building blocks, and cpu-sparse's
// residues against known counts and against dp's wide integers on random integer matrices.
#include <doctest/doctest.h>

#include <sparseperm/compute.cuh>
#include <sparseperm/engines/cpu_sparse.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/matrix/exactness.cuh>
#include <sparseperm/numeric/modular.cuh>
#include <sparseperm/ryser/arithmetic_types.cuh>

#include <cmath>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace sp = sparseperm;
using sp::detail::big_integer;

namespace {

big_integer factorial(int n) {
  big_integer f(1LL);
  for (int k = 2; k <= n; ++k) f = f.times(k);
  return f;
}

// D(n) = (n − 1)(D(n − 1) + D(n − 2)), D(0) = 1, D(1) = 0.
big_integer derangements(int n) {
  big_integer a(1LL), b(0LL);
  for (int k = 2; k <= n; ++k) {
    big_integer next = a;
    next += b;
    next = next.times(k - 1);
    a = b;
    b = next;
  }
  return n == 0 ? big_integer(1LL) : b;
}

// J − I − P (P the cyclic shift): the ménage numbers.
sp::sparse_matrix menage_matrix(int n) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, 1.0);
  for (int i = 0; i < n; ++i) {
    a[static_cast<std::size_t>(i) * n + i] = 0;
    a[static_cast<std::size_t>(i) * n + (i + 1) % n] = 0;
  }
  return sp::sparse_matrix::from_dense(n, a);
}

sp::permanent_result exact_cpu_sparse(const sp::sparse_matrix& m) {
  return sp::permanent_cpu_sparse(m, {.threads = 2, .precision = sp::precision::exact});
}

}  // namespace

TEST_CASE("a residue product is exact and stays small") {
  sp::random_stream stream(7);
  for (int k = 0; k < sp::detail::modular_prime_count; ++k) {
    const double p = sp::detail::modular_primes[k];
    const auto m = sp::detail::modulus_of(p);
    const auto ip = static_cast<std::int64_t>(p);
    double r = 3;
    for (int step = 0; step < 20000; ++step) {
      const double x =
          static_cast<double>(static_cast<std::int64_t>(stream.below(1u << 25)) - (1 << 24));  // |x| ≤ 2^24
      const double next = sp::detail::multiply(r, x, m);
      const std::int64_t expected = ((static_cast<std::int64_t>(r) % ip) * (static_cast<std::int64_t>(x) % ip)) % ip;
      REQUIRE(((static_cast<std::int64_t>(next) - expected) % ip) == 0);
      REQUIRE(std::fabs(next) <= p / 2 + 1);
      r = next;
    }
  }
}

namespace {
// Integers up to the largest the generated kernels hand over unreduced (modular_exact_limit, just
// below 2^53): a value anywhere in that range, random and at the ends.
double unreduced_integer(sp::random_stream& stream, int step) {
  const double limit = sp::detail::modular_exact_limit - 1;
  if (step % 4 == 0) return step % 8 == 0 ? limit : -limit;
  const double v = std::floor(stream.uniform() * limit);
  return step % 2 == 0 ? v : -v;
}
}  // namespace

TEST_CASE("reductions of integers near 2^53: one value, a pair whose sum is not a double, sums of products") {
  sp::random_stream stream(11);
  int pairs_not_exact = 0;
  for (int k = 0; k < sp::detail::modular_prime_count; ++k) {
    const double p = sp::detail::modular_primes[k];
    const auto m = sp::detail::modulus_of(p);
    const auto ip = static_cast<std::int64_t>(p);
    const auto congruent = [&](double r, std::int64_t expected) {
      return ((static_cast<std::int64_t>(r) - expected) % ip) == 0 && std::fabs(r) <= p / 2 + 1;
    };
    for (int step = 0; step < 4000; ++step) {
      const double a = unreduced_integer(stream, step);
      const double b = unreduced_integer(stream, step + 1 + static_cast<int>(stream.below(3)));
      REQUIRE(congruent(sp::detail::reduce(a, m), static_cast<std::int64_t>(a) % ip));
      // the exact sum in 64 bits; the double sum rounds for about half of these pairs
      const std::int64_t sum = static_cast<std::int64_t>(a) + static_cast<std::int64_t>(b);
      if (static_cast<double>(sum) != a + b || std::fabs(a + b) > 9007199254740992.0) ++pairs_not_exact;
      REQUIRE(congruent(sp::detail::reduce_pair(a, b, m), sum % ip));
    }
  }
  CHECK(pairs_not_exact > 1000);
  // residue_dot: `capacity` products of operands up to 2^24 + 1, reduced once
  for (int trial = 0; trial < 200; ++trial) {
    sp::detail::residue_dot<3> dot;
    std::int64_t expected[3] = {};
    for (int t = 0; t < sp::detail::residue_dot<3>::capacity; ++t) {
      sp::detail::residues<3> x, y;
      for (int k = 0; k < 3; ++k) {
        const double bound = (1 << 24) + 1;
        x.r[k] = trial % 2 == 0 ? bound : std::floor((2 * stream.uniform() - 1) * bound);
        y.r[k] = trial % 2 == 0 ? -bound : std::floor((2 * stream.uniform() - 1) * bound);
        const auto ip = static_cast<std::int64_t>(sp::detail::modular_primes[k]);
        expected[k] = (expected[k] + static_cast<std::int64_t>(x.r[k]) * static_cast<std::int64_t>(y.r[k]) % ip) % ip;
      }
      dot.add(x, y);
    }
    const auto v = dot.value();
    for (int k = 0; k < 3; ++k) {
      const auto ip = static_cast<std::int64_t>(sp::detail::modular_primes[k]);
      REQUIRE(((static_cast<std::int64_t>(v.r[k]) - expected[k]) % ip) == 0);
    }
  }
}

TEST_CASE("Chinese remainders give back signed integers of hundreds of bits") {
  const std::vector<big_integer> values = {big_integer(0LL), big_integer(-1LL), factorial(60), factorial(61).times(-1),
                                           derangements(70)};
  for (const big_integer& v : values) {
    const int primes = sp::detail::primes_for_bits(static_cast<double>(v.bits()));
    std::vector<double> residue, p;
    for (int k = 0; k < primes; ++k) {
      p.push_back(sp::detail::modular_primes[k]);
      // v mod p from the decimal digits
      std::int64_t r = 0;
      const std::string text = v.to_decimal();
      for (char c : text) {
        if (c != '-') r = (r * 10 + (c - '0')) % static_cast<std::int64_t>(p.back());
      }
      residue.push_back(static_cast<double>(text[0] == '-' ? -r : r));
    }
    CHECK(sp::detail::chinese_remainder(residue, p).to_decimal() == v.to_decimal());
  }
}

TEST_CASE("the permanent bound holds and is tight on all-ones matrices") {
  for (int n : {1, 5, 12, 30, 64}) {
    const auto ones = test_support::dense_matrix(n, 1.0);
    const double bits = sp::detail::permanent_bound_bits(ones);
    CHECK(bits >= static_cast<double>(factorial(n).bits()) - 1);  // Brègman is perm(J) = n! itself
    CHECK(bits <= static_cast<double>(factorial(n).bits()) + 1e-6);
    const auto twos = test_support::dense_matrix(n, 2.0);  // not 0/1: Π row sums (2n)^n
    CHECK(sp::detail::permanent_bound_bits(twos) >= n * std::log2(2.0 * n));
  }
}

TEST_CASE("known counts beyond 128 bits, exactly: n!, derangements, menage numbers") {
  struct known {
    const char* name;
    sp::sparse_matrix matrix;
    std::string value;
  };
  const known cases[] = {
      {"all ones 24", test_support::dense_matrix(24, 1.0), factorial(24).to_decimal()},
      {"derangements 24", test_support::derangement_matrix(24), derangements(24).to_decimal()},
      {"menage 24", menage_matrix(24), "80399425364623070680706"},  // Touchard's formula
      {"menage 10", menage_matrix(10), "439792"},
      {"threes 22", test_support::dense_matrix(22, 3.0),
       [] {  // 3^22 · 22!
         big_integer e = factorial(22);
         for (int k = 0; k < 22; ++k) e = e.times(3);
         return e.to_decimal();
       }()},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto r = exact_cpu_sparse(c.matrix);
    CHECK(r.exact);
    CHECK(r.permanent == c.value);
    if (c.matrix.n() >= 22) CHECK(r.plan.find("residues") != std::string::npos);  // beyond the 128-bit bound
  }
  // The default is exact too, in the cheapest exact arithmetic that holds the matrix (residues
  // beyond 128 bits), and keeps compensated double only where none does (rows summing beyond 2^24).
  const auto d = sp::permanent_cpu_sparse(test_support::dense_matrix(24, 1.0), {.threads = 2});
  CHECK(d.exact);
  CHECK(d.permanent == factorial(24).to_decimal());
  CHECK(d.plan.find("residues") != std::string::npos);
  const auto wide = sp::permanent_cpu_sparse(test_support::dense_matrix(24, 8388608.0), {.threads = 2});
  CHECK_FALSE(wide.exact);
}

TEST_CASE("residues agree with dp's wide integers on random integer matrices beyond 128 bits") {
  sp::random_stream stream(2026);
  int residues = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int n = 13 + trial % 6;
    std::vector<sp::matrix_entry> entries;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (stream.uniform() < 0.65) {
          double v = 0;
          while (v == 0) v = static_cast<double>(static_cast<std::int64_t>(stream.below(401)) - 200);
          entries.push_back({i, j, v});
        }
      }
    }
    const auto m = sp::sparse_matrix::from_entries(n, std::move(entries));
    CAPTURE(n);
    CAPTURE(trial);
    const auto r = exact_cpu_sparse(m);
    const auto dp = sp::permanent_dp(m, 2);
    REQUIRE(dp.exact);
    CHECK(r.exact);
    CHECK(r.permanent == dp.permanent);
    residues += r.plan.find("residues") != std::string::npos;
  }
  CHECK(residues >= 20);
}

TEST_CASE("exact mode refuses what it cannot keep, with reasons") {
  using kind = sp::engine_error::kind;
  const auto real = test_support::dense_matrix(6, 0.5);
  CHECK_THROWS_WITH_AS(exact_cpu_sparse(real), doctest::Contains("needs an integer matrix"), sp::engine_error);
  try {
    exact_cpu_sparse(real);
  } catch (const sp::engine_error& e) {
    CHECK(e.reason() == kind::refused);
  }
  // Beyond 128 bits with rows summing above 2^24: residues cannot hold x; dp can.
  std::vector<double> big(30 * 30, 1.0);
  for (int j = 0; j < 30; ++j) big[j] = 1e8;
  const auto m = sp::sparse_matrix::from_dense(30, big);
  CHECK_THROWS_WITH_AS(exact_cpu_sparse(m), doctest::Contains("too large"), sp::engine_error);
  sp::compute_options options;
  options.engine = sp::engines::cpu_sparse{};
  options.precision = sp::precision::exact;
  // a matrix of doubles is exact as integers times powers of two (0.5·J: 6!/2^6); where a row spans more
  // than 53 binary orders (0.1 and 1e-3, full 53-bit values) its integers exceed 2^53, which only dp's
  // big integers take (under auto too), exactly as the reference's long doubles say to 18 digits
  const sp::permanent_result halves = sp::compute_permanent(real, options);
  CHECK(halves.exact);
  CHECK(halves.permanent == "11.25");
  std::vector<double> spread(36, 0.1);
  for (int i = 0; i < 6; ++i) spread[static_cast<std::size_t>(i) * 6] = 1e-3;
  const auto wide = sp::sparse_matrix::from_dense(6, spread);
  CHECK_THROWS_WITH_AS(sp::compute_permanent(wide, options), doctest::Contains("auto and dp compute it exactly"),
                       sp::engine_error);
  const double reference = sp::permanent_reference(wide).value;
  for (const sp::engine_choice engine : {sp::engine_choice(sp::engines::dp{}), sp::engine_choice{}}) {
    options.engine = engine;
    const sp::permanent_result r = sp::compute_permanent(wide, options);
    CHECK(r.exact);
    CHECK(r.value == doctest::Approx(reference).epsilon(1e-14));
  }
  // auto under exact on a matrix the Ryser engines refuse: dp takes it
  const auto r = sp::compute_permanent(sp::sparse_matrix::from_dense(6, std::vector<double>(36, 1e8)), options);
  CHECK(r.exact);
}
