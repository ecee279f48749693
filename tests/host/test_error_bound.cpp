// Error bounds of floating results (numeric/error_bound.cuh): the row grids make x exact, and every
// reported bound contains the difference to the exact rational permanent (test_support.hpp's
// exact_permanent) on random real matrices, for every host engine, both floating precisions, and
// the planner's products.
#include <doctest/doctest.h>

#include <sparseperm/compute.cuh>
#include <sparseperm/engines/cpu_sparse.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/matrix/exactness.cuh>
#include <sparseperm/matrix/row_grids.cuh>
#include <sparseperm/numeric/error_bound.cuh>
#include <sparseperm/numeric/product_bound.cuh>
#include <sparseperm/result_json.cuh>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"

#include "../complex_reference.hpp"

namespace sp = sparseperm;
namespace ts = test_support;

namespace {

// The bound holds, and says how close the value is.
struct containment {
  int checked = 0;
  int inexact = 0;        // results that differ from the exact permanent: the check is not vacuous
  double tightest = 1e9;  // the smallest bound / |error| seen among those

  void check(const sp::permanent_result& r, const ts::dyadic& exact, const std::string& what) {
    CAPTURE(what);
    CAPTURE(r.engine);
    CAPTURE(r.plan);
    REQUIRE(!r.exact);
    REQUIRE(r.error_bound.has_value());
    const double error = std::fabs(ts::difference(r.value, exact));
    CAPTURE(r.value);
    CAPTURE(error);
    CAPTURE(*r.error_bound);
    CHECK(error <= *r.error_bound);
    ++checked;
    if (error > 0) {
      ++inexact;
      tightest = std::min(tightest, *r.error_bound / error);
    }
  }
};

}  // namespace

TEST_CASE("row grids: values on them, every partial sum of a row exact, integers unchanged") {
  sp::random_stream stream(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 2 + trial % 30;
    std::vector<double> row(n);
    double abs_sum = 0;
    for (double& v : row) {
      v = (1 - 2 * stream.uniform()) * std::ldexp(1.0, static_cast<int>(stream.below(40)) - 20);
      abs_sum += std::fabs(v);
    }
    const int e = sp::detail::grid_exponent(abs_sum);
    CHECK(std::ldexp(1.0, e) >= abs_sum);
    const double grid = std::ldexp(1.0, e + 2 - 53);
    double sum = 0;
    for (double v : row) {
      const double r = sp::detail::round_to_grid(v, e);
      CHECK(std::fabs(r - v) <= grid / 2);
      CHECK(std::floor(r / grid) == r / grid);  // a multiple of the grid
      sum += std::fabs(r);
    }
    CHECK(sum / grid <= 0x1p52);  // so every signed partial sum, halved or not, is a double
  }
  for (double v : {1.0, -3.0, 7.0, 1e6, -12345.0})
    CHECK(sp::detail::round_to_grid(v, sp::detail::grid_exponent(40 * std::fabs(v))) == v);
}

TEST_CASE("trusted digits and the product bound") {
  sp::permanent_result r;
  r.value = 123.456;
  r.error_bound = 1e-9;
  CHECK(sp::trusted_digits(r) == 11);
  r.error_bound = 200;
  CHECK(sp::trusted_digits(r) == 0);
  r.exact = true;
  CHECK(!sp::trusted_digits(r));
  // two blocks, one exact: the bound is the inexact block's, relative, plus the multiplications
  sp::detail::product_bound b(4);
  b.factor(2.0, 0);
  b.factor(10.0, 1e-12);
  const double bound = b.of(sp::detail::scaled_double(3.0), sp::detail::scaled_double(60.0));
  CHECK(bound >= 6e-12);
  CHECK(bound < 6.1e-12);
  sp::detail::product_bound zero(3);
  zero.factor(0.0, 1e-15);
  CHECK(zero.of(sp::detail::scaled_double(2.0), sp::detail::scaled_double(0.0)) >= 2e-15);
  // values far below double's range: the bound still holds and is not infinite
  sp::detail::product_bound tiny(2);
  tiny.factor(1e-200, 0);
  tiny.factor(1e-200, 1e-216);
  sp::detail::scaled_double product(1e-200);
  product *= 1e-200;
  const double tiny_bound = tiny.of(sp::detail::scaled_double(1.0), product);
  CHECK(tiny_bound == std::numeric_limits<double>::denorm_min());
  CHECK(product.to_double() == 0);
  CHECK(product.conversion_error_up() == std::numeric_limits<double>::denorm_min());
}

TEST_CASE("every host engine's bound contains the exact error on random real matrices") {
  sp::random_stream stream(2026);
  containment nonnegative, signed_values;
  for (int trial = 0; trial < 48; ++trial) {
    const int n = 4 + trial % 13;
    const bool with_signs = trial % 3 == 2;
    const double density = trial % 2 == 0 ? 0.35 : 0.7;
    const sp::sparse_matrix a = ts::random_matrix(stream, n, density, sp::value_kind::uniform, with_signs);
    if (sp::maximum_matching(a).size < n) continue;
    const ts::dyadic exact = ts::exact_permanent(a);
    containment& c = with_signs ? signed_values : nonnegative;
    CAPTURE(n);
    CAPTURE(trial);
    for (const auto p : {sp::precision::double_sums, sp::precision::compensated}) {
      c.check(sp::permanent_cpu_sparse(a, {.threads = 2, .precision = p}), exact,
              "cpu-sparse " + std::string(sp::precision_name(p)));
    }
    c.check(sp::permanent_dp(a, 2), exact, "dp");
    c.check(sp::permanent_reference(a), exact, "reference");
    sp::compute_options automatic;
    automatic.threads = 2;
    c.check(sp::compute_permanent(a, automatic), exact, "auto");
  }
  MESSAGE("nonnegative: " << nonnegative.checked << " results, " << nonnegative.inexact << " inexact, bound/error >= "
                          << nonnegative.tightest << "; signed: " << signed_values.checked << " results, "
                          << signed_values.inexact << " inexact, bound/error >= " << signed_values.tightest);
  CHECK(nonnegative.inexact >= 40);
  CHECK(signed_values.inexact >= 20);
}

TEST_CASE("values of very different sizes in a row: the grid moves the small ones, and the bound says so") {
  // row 0 holds 1 and values near 2^−40: rounding them to the row's grid changes them relatively a lot
  std::vector<sp::matrix_entry> entries;
  sp::random_stream stream(5);
  const int n = 10;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j && stream.uniform() > 0.4) continue;
      const double scale = i == 0 && j != 0 ? 0x1p-40 : 1.0;
      entries.push_back({i, j, scale * (1 - stream.uniform())});
    }
  }
  const sp::sparse_matrix a = sp::sparse_matrix::from_entries(n, entries);
  const sp::detail::row_grids<double> grids = sp::detail::row_grids_of<double>(a);
  CHECK(grids.facts.change > 0x1p-20);  // relative changes of 2^−12 and so on
  const ts::dyadic exact = ts::exact_permanent(a);
  containment c;
  c.check(sp::permanent_cpu_sparse(a, {.threads = 1}), exact, "cpu-sparse");
  c.check(sp::permanent_reference(a), exact, "reference");
  c.check(sp::permanent_dp(a, 1), exact, "dp");
  CHECK(c.inexact >= 1);
}

TEST_CASE("integer matrices in double precision: exact x, and a bound that holds") {
  sp::random_stream stream(8);
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 8 + trial;
    const sp::sparse_matrix a = ts::random_matrix(stream, n, 0.5, sp::value_kind::integers);
    if (sp::maximum_matching(a).size < n) continue;
    CHECK(sp::detail::row_grids_of<double>(a).facts.change == 0);  // integers are on their grids
    const ts::dyadic exact = ts::exact_permanent(a);
    containment c;
    c.check(sp::permanent_cpu_sparse(a, {.threads = 2, .precision = sp::precision::double_sums}), exact,
            "cpu-sparse double");
    c.check(sp::permanent_cpu_sparse(a, {.threads = 2, .precision = sp::precision::compensated}), exact,
            "cpu-sparse compensated");
  }
}

// Magnitudes beyond double's range: a_ij = m_ij · 2^(p_i + q_j) with small integers m_ij and row and
// column exponents up to ±1000 (entries from about 1e-300 to 1e+300, every one a double), so that
// perm(A) = 2^(Σp + Σq) · perm(M) exactly, perm(M) an integer below 2^53. Every engine that runs here
// returns it scaled (scale_exponent) within its bound, and the decimal text names the same number.
TEST_CASE("permanents beyond double's range: rows and columns scaled by powers of two") {
  sp::random_stream stream(1125);
  int checked = 0, beyond = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const int n = 6 + trial % 6;
    std::vector<int> p(n), q(n);
    long long total = 0;
    const int sign = trial % 3 == 2 ? -1 : 1;  // a third of them tiny instead of huge
    for (int i = 0; i < n; ++i) total += p[i] = sign * static_cast<int>(300 + stream.below(200));
    for (int j = 0; j < n; ++j) total += q[j] = sign * static_cast<int>(100 + stream.below(400));
    std::vector<sp::matrix_entry> small, wide;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (i != j && stream.uniform() < 0.4) continue;
        const double m = static_cast<double>(1 + stream.below(3)) * (trial % 2 == 1 && stream.uniform() < 0.3 ? -1 : 1);
        small.push_back({i, j, m});
        wide.push_back({i, j, std::ldexp(m, p[i] + q[j])});
      }
    }
    const sp::sparse_matrix m = sp::sparse_matrix::from_entries(n, small);
    const sp::sparse_matrix a = sp::sparse_matrix::from_entries(n, wide);
    const sp::permanent_result integer = sp::permanent_dp(m);
    REQUIRE(integer.exact);
    const double exact = std::stod(integer.permanent);  // below 2^53: exact
    for (const sp::engine_description* e : sp::engine_descriptions()) {
      if (sp::engine_unavailable(*e) || e->generated() || !e->planned()) continue;
      CAPTURE(trial);
      CAPTURE(e->name);
      sp::compute_options options;
      options.engine = sp::engine_choice(e);
      sp::permanent_result r;
      try {
        r = sp::compute_permanent(a, options);
      } catch (const sp::engine_error& error) {  // glynn: no repeated lines; nothing else may refuse
        CAPTURE(std::string(error.what()));
        CHECK(std::string(e->name) == "glynn");
        continue;
      }
      REQUIRE_FALSE(r.exact);
      REQUIRE(r.error_bound.has_value());
      // the truth, exact, at the result's scale: perm(M) · 2^(total − scale_exponent)
      const double truth = std::ldexp(exact, static_cast<int>(total - r.scale_exponent));
      CHECK(std::fabs(r.scaled_value - truth) <= r.scaled_error_bound);
      if (exact != 0) {
        CHECK(r.scale_exponent != 0);  // beyond double's range either way
        // value stays the nearest double: ±inf above the range, 0 or a subnormal below it, and the
        // bound holds for it
        if (total > 0) CHECK((std::isinf(r.value) && std::isinf(*r.error_bound)));
        if (total < 0)
          CHECK((std::fabs(r.value) < std::numeric_limits<double>::min() && *r.error_bound > 0 &&
                 *r.error_bound < 1e-300));
        // the decimal text: 10^(log10 |perm(M)| + total · log10 2)
        const long double log10_truth = std::log10(std::fabs(static_cast<long double>(exact))) +
                                        static_cast<long double>(total) * 0.30102999566398119521L;
        const std::string& text = r.permanent;
        CAPTURE(text);
        CAPTURE(r.plan);
        const long long power = std::stoll(text.substr(text.find('e') + 1));
        CHECK(power == static_cast<long long>(std::floor(log10_truth)));
        const long double mantissa = std::stold(text.substr(0, text.find('e')));
        CHECK(std::fabs(std::fabs(mantissa) - std::pow(10.0L, log10_truth - power)) <=
              1e-9L + 10 * r.scaled_error_bound / std::fabs(r.scaled_value));
        ++beyond;
      }
      ++checked;
    }
  }
  MESSAGE(checked << " results beyond double's range checked, " << beyond << " with their decimal text");
  CHECK(beyond >= 36);
}

// An integer matrix that no exact arithmetic of a named Ryser engine holds (rows beyond 2^24, the
// bound beyond 128 bits) runs in doubles under the default: scaled like any real matrix, it gives the
// leading digits of dp's exact big integer instead of an overflow.
TEST_CASE("a large matrix near 1 whose row sums multiply beyond 2^(768 - n) is scaled once") {
  // 200 x 200, a band of 21 values in [0.5, 1.5): rows sum to about 21, about 2^880 in all; once scaled
  // the product is still beyond 2^568, and compute_permanent used to scale it again without end
  sp::random_stream stream(2026);
  const int n = 200;
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - 10); j <= std::min(n - 1, i + 10); ++j)
      entries.push_back({i, j, 0.5 + stream.uniform(), 0});
  const sp::sparse_matrix a = sp::sparse_matrix::from_entries(n, entries);
  sp::compute_options options;
  options.threads = 2;
  const sp::permanent_result automatic = sp::compute_permanent(a, options);
  options.engine = sp::engine_choice(sp::find_engine("dp"));
  const sp::permanent_result dp = sp::compute_permanent(a, options);
  REQUIRE(automatic.error_bound);
  REQUIRE(dp.error_bound);
  CHECK(std::isfinite(automatic.value));
  CHECK(std::fabs(automatic.value - dp.value) <= *automatic.error_bound + *dp.error_bound);
}

// needs_unit_scaling's quick check from binary exponents: where it says the row sums' product is
// within the limit, the logarithms say so too; and it says so for ordinary matrices (it saves their
// square roots and logarithms), not only where nothing is near the limit.
TEST_CASE("the row sums' quick check never clears a matrix the careful check would scale") {
  sp::random_stream stream(77);
  int cleared = 0, careful_within = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int n = 2 + trial % 30;
    const bool complex = trial % 3 == 0;
    // row magnitudes around 2^shift each, so that Σ_i log2 R_i lands anywhere near ±(768 − n)
    const double target = (stream.uniform() * 2 - 1) * 1.2 * (sp::detail::unscaled_log2_limit - n);
    std::vector<sp::matrix_entry> entries;
    for (int i = 0; i < n; ++i) {
      const int shift = static_cast<int>(std::lround(target / n + (stream.uniform() - 0.5) * 8));
      for (int j = 0; j < n; ++j) {
        if (j != i && stream.uniform() < 0.5) continue;  // the diagonal keeps every line nonempty
        const double re = std::ldexp(stream.uniform() * 2 - 1, shift);
        const double im = complex ? std::ldexp(stream.uniform() * 2 - 1, shift) : 0.0;
        if (re != 0 || im != 0) entries.push_back({i, j, re, im});
      }
    }
    const sp::sparse_matrix a = sp::sparse_matrix::from_entries(n, entries);
    if (a.has_empty_line()) continue;
    const double limit = sp::detail::unscaled_log2_limit - n;
    double log2_product = 0;
    for (const double r : sp::detail::row_abs_sums(a)) log2_product += std::log2(r);
    const bool quick = sp::detail::row_sums_surely_within(a, limit);
    CAPTURE(n);
    CAPTURE(log2_product);
    if (quick) CHECK(std::fabs(log2_product) <= limit);
    cleared += quick;
    careful_within += std::fabs(log2_product) <= limit - 2 * n;  // clear of the exponents' slack
    CHECK(sp::detail::needs_unit_scaling(a) == (std::fabs(log2_product) > limit));
  }
  MESSAGE("cleared by the quick check: " << cleared << "; within the limit by 2n or more: " << careful_within);
  CHECK(cleared >= careful_within);  // within 2n of the limit, it says so from the exponents alone
  CHECK(cleared > 500);
}

TEST_CASE("integer matrices a named engine runs in doubles are scaled beyond double's range") {
  const int n = 27;
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < n; ++i) {
    entries.push_back({i, i, std::ldexp(1.0, 40) - 1 - i});  // perm ≈ 2^1080
    entries.push_back({i, (i + 1) % n, 1048573});
    entries.push_back({i, (i + 5) % n, -1048571});
  }
  const auto a = sp::sparse_matrix::from_entries(n, entries);
  REQUIRE(a.has_integer_values());
  const auto exact = sp::compute_permanent(a);  // auto: exact on dp
  REQUIRE(exact.exact);
  REQUIRE(exact.permanent.size() > 310);
  sp::compute_options options;
  options.engine = sp::engine_choice(sp::engines::cpu_sparse{});
  const auto r = sp::compute_permanent(a, options);
  CHECK_FALSE(r.exact);
  CHECK(r.scale_exponent != 0);
  CHECK(std::isinf(r.value));
  // "d.dddd…e+E": E + 1 digits, the leading ones dp's to the digits the bound trusts
  const std::string& text = r.permanent;
  CAPTURE(text);
  CAPTURE(exact.permanent);
  REQUIRE(sp::trusted_digits(r).value_or(0) >= 12);
  CHECK(std::stoul(text.substr(text.find('e') + 1)) + 1 == exact.permanent.size());
  const double mantissa = std::stod(text.substr(0, text.find('e')));
  const double leading = std::stod(exact.permanent.substr(0, 1) + "." + exact.permanent.substr(1, 16));
  CHECK(std::fabs(mantissa - leading) <= 1e-11 * leading);
}

// Complex magnitudes beyond double's range: a_ij = m_ij · 2^(p_i + q_j) with small Gaussian integers
// m_ij, so perm(A) = 2^(Σp + Σq) · perm(M), perm(M) exact from the subset DP of complex_reference.
// Every host engine that takes complex matrices returns it scaled, both parts within the bound.
TEST_CASE("complex permanents beyond double's range: scaled by the moduli, both parts within the bound") {
  sp::random_stream stream(4096);
  int checked = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const int n = 5 + trial % 5;
    const int sign = trial % 2 == 1 ? -1 : 1;
    std::vector<int> p(n), q(n);
    long long total = 0;
    for (int i = 0; i < n; ++i) total += p[i] = sign * static_cast<int>(300 + stream.below(200));
    for (int j = 0; j < n; ++j) total += q[j] = sign * static_cast<int>(100 + stream.below(300));
    std::vector<sp::matrix_entry> small, wide;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (i != j && stream.uniform() < 0.4) continue;
        const double re = static_cast<double>(static_cast<long long>(stream.below(5)) - 2);
        const double im = static_cast<double>(1 + stream.below(3));
        small.push_back({i, j, re, im});
        wide.push_back({i, j, std::ldexp(re, p[i] + q[j]), std::ldexp(im, p[i] + q[j])});
      }
    }
    const auto m = sp::sparse_matrix::from_entries(n, small);
    const auto a = sp::sparse_matrix::from_entries(n, wide);
    const auto exact = test_complex::exact_scaled_permanent(m, 1);
    const double re = exact.re.to_double(), im = exact.im.to_double();  // below 2^53: exact
    if (re == 0 && im == 0) continue;
    for (const sp::engine_description* e : sp::engine_descriptions()) {
      if (sp::engine_unavailable(*e) || e->generated() || !e->planned() || !e->complex_values) continue;
      if (e->name == "glynn") continue;  // no repeated lines
      CAPTURE(trial);
      CAPTURE(e->name);
      sp::compute_options options;
      options.engine = sp::engine_choice(e);
      const auto r = sp::compute_permanent(a, options);
      REQUIRE(r.complex);
      REQUIRE_FALSE(r.exact);
      CHECK(r.scale_exponent != 0);
      const int shift = static_cast<int>(total - r.scale_exponent);
      CHECK(std::hypot(r.scaled_value - std::ldexp(re, shift), r.scaled_imag - std::ldexp(im, shift)) <=
            r.scaled_error_bound);
      CHECK(r.permanent.find('e') != std::string::npos);
      const std::string json = sp::to_json(r, "m.mtx");
      CHECK(json.find("\"exponent\": null") != std::string::npos);
      ++checked;
    }
  }
  MESSAGE(checked << " complex results beyond double's range checked");
  CHECK(checked >= 20);
}
