// Complex matrices on every host engine and through the planner: Gaussian integers exactly, complex
// doubles against exact Gaussian-rational references (the values are dyadic: k/2^20), bounds that
// contain the truth; Matrix Market's complex field with hermitian and skew-symmetric reading.
#include <doctest/doctest.h>

#include <sparseperm/matrix/matrix_market.cuh>
#include <sparseperm/perm.cuh>
#include <sparseperm/result_json.cuh>

#include <cmath>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace sp = sparseperm;
using sp::detail::big_integer;

namespace {

constexpr int value_bits = 20;  // values k / 2^20: perm · 2^(20 n) is a Gaussian integer

struct gaussian {
  big_integer re{0ll}, im{0ll};
};

// perm of the Gaussian integer matrix 2^20·A by a subset DP over rows (shares no code with the
// engines: big integers, no Ryser, no frontier).
gaussian exact_scaled_permanent(const sp::sparse_matrix& a, double scale) {
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

// A random complex matrix: each entry present with `density`, parts k / 2^20 with |k| ≤ 2^20, or
// Gaussian integers in [−3, 3] when `integers`.
sp::sparse_matrix random_complex(sp::random_stream& s, int n, double density, bool integers) {
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (s.uniform() >= density) continue;
      const auto part = [&] {
        if (integers) return static_cast<double>(static_cast<long long>(s.below(7)) - 3);
        return std::ldexp(
            static_cast<double>(static_cast<long long>(s.below((1u << (value_bits + 1)) + 1)) - (1ll << value_bits)),
            -value_bits);
      };
      const double re = part(), im = part();
      entries.push_back({i, j, re, im});
    }
  }
  return sp::sparse_matrix::from_entries(n, std::move(entries));
}

// |result − perm| ≤ its bound, perm = exact / 2^(20n) (the exact value's conversion to double
// rounds a few units of 2^−53 of it; that much is allowed besides).
void check_contains(const sp::permanent_result& r, const gaussian& exact, int n) {
  const double re = std::ldexp(exact.re.to_double(), -value_bits * n);
  const double im = std::ldexp(exact.im.to_double(), -value_bits * n);
  REQUIRE(r.complex);
  REQUIRE(r.error_bound.has_value());
  const double slack = 0x1p-50 * (std::fabs(re) + std::fabs(im));
  const double distance = std::hypot(r.value - re, r.imag - im);
  INFO(r.engine << " n = " << n << ": " << sp::complex_text(r) << " vs " << re << " + " << im << "i, bound "
                << *r.error_bound);
  CHECK(distance <= *r.error_bound + slack);
}

sp::compute_options options_for(const sp::engine_description* engine,
                                sp::precision precision = sp::precision::automatic) {
  sp::compute_options options;
  options.engine = sp::engine_choice(engine);
  options.precision = precision;
  return options;
}

const std::vector<const sp::engine_description*>& host_complex_engines() {
  static const std::vector<const sp::engine_description*> engines = [] {
    std::vector<const sp::engine_description*> list;
    for (const auto* e : sp::engine_descriptions()) {
      if (e->complex_values && !e->on_gpu() && !e->generated()) list.push_back(e);
    }
    return list;
  }();
  return engines;
}

}  // namespace

TEST_CASE("the host engines that take complex matrices are reference, cpu-sparse, dp and glynn") {
  std::string names;
  for (const auto* e : host_complex_engines()) names += std::string(e->name) + " ";
  CHECK(names == "cpu-sparse dp glynn reference ");
}

TEST_CASE("Gaussian integer matrices: every host engine and auto exact and equal to a big-integer subset DP") {
  sp::random_stream s(18);
  int checked = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 1 + trial % 12;
    const auto m = random_complex(s, n, trial % 3 == 0 ? 1.0 : 0.5, true);
    const gaussian exact = exact_scaled_permanent(m, 1);
    for (const sp::engine_description* e : host_complex_engines()) {
      const auto r = sp::compute_permanent(m, options_for(e));
      INFO(e->name << " n = " << n);
      CHECK(r.exact);
      CHECK(r.permanent == exact.re.to_decimal());
      CHECK((r.complex ? r.permanent_imag : std::string("0")) == exact.im.to_decimal());
    }
    const auto r = sp::compute_permanent(m, options_for(nullptr, sp::precision::exact));
    CHECK(r.exact);
    CHECK(r.permanent == exact.re.to_decimal());
    CHECK((r.complex ? r.permanent_imag : std::string("0")) == exact.im.to_decimal());
    ++checked;
  }
  CHECK(checked == 120);
}

TEST_CASE("complex doubles: every host engine's bound contains the exact Gaussian-rational permanent") {
  sp::random_stream s(1818);
  int bounded = 0;
  for (int trial = 0; trial < 130; ++trial) {
    const int n = 1 + trial % 12;
    const auto m = random_complex(s, n, trial % 2 == 0 ? 1.0 : 0.4, false);
    if (sp::maximum_matching(m).size < n || !m.is_complex()) continue;
    const gaussian exact = exact_scaled_permanent(m, std::ldexp(1.0, value_bits));
    for (const sp::engine_description* e : host_complex_engines()) {
      for (auto p : {sp::precision::double_sums, sp::precision::compensated}) {
        if (e->name != "cpu-sparse" && p == sp::precision::double_sums) continue;
        const auto r = sp::compute_permanent(m, options_for(e, p));
        CHECK_FALSE(r.exact);
        check_contains(r, exact, n);
      }
    }
    check_contains(sp::compute_permanent(m), exact, n);
    ++bounded;
  }
  CHECK(bounded >= 100);
}

TEST_CASE("engines for real matrices refuse complex ones, by name") {
  const auto m = sp::sparse_matrix::from_entries(2, {{0, 0, 1, 1}, {1, 1, 2, 0}, {0, 1, 1, 0}});
  for (const auto* e : sp::engine_descriptions()) {
    if (e->complex_values) continue;
    try {
      sp::compute_permanent(m, options_for(e));
      FAIL("engine " << e->name << " took a complex matrix");
    } catch (const sp::engine_error& error) {
      CHECK(error.reason() == sp::engine_error::kind::refused);
      CHECK(std::string(error.what()).find("real matrices only") != std::string::npos);
    }
  }
  const auto r = sp::compute_permanent(m);  // (1 + i)·2
  CHECK(r.exact);
  CHECK(sp::complex_text(r) == "2 + 2i");
}

TEST_CASE("complex Matrix Market: general, symmetric, skew-symmetric and hermitian, coordinate and array") {
  // the same matrix [[1, 2+i], [3−2i, 4i]] written four ways where the symmetry allows
  const auto general = sp::parse_matrix_market(
      "%%MatrixMarket matrix coordinate complex general\n2 2 4\n1 1 1 0\n1 2 2 1\n2 1 3 -2\n2 2 0 4\n", "g.mtx");
  CHECK(general.matrix.is_complex());
  auto r = sp::compute_permanent(general.matrix);  // 1·4i + (2+i)(3−2i) = 4i + 8 − i = 8 + 3i
  CHECK(sp::complex_text(r) == "8 + 3i");
  const auto array =
      sp::parse_matrix_market("%%MatrixMarket matrix array complex general\n2 2\n1 0\n3 -2\n2 1\n0 4\n", "a.mtx");
  CHECK(array.matrix == general.matrix);
  // hermitian: the upper triangle is the conjugate
  const auto hermitian = sp::parse_matrix_market(
      "%%MatrixMarket matrix coordinate complex hermitian\n2 2 3\n1 1 1 0\n2 1 3 -2\n2 2 5 0\n", "h.mtx");
  r = sp::compute_permanent(hermitian.matrix);  // 5 + (3−2i)(3+2i) = 5 + 13
  CHECK(sp::complex_text(r) == "18 + 0i");
  const auto hermitian_array =
      sp::parse_matrix_market("%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n3 -2\n5 0\n", "ha.mtx");
  CHECK(hermitian_array.matrix == hermitian.matrix);
  // symmetric: the same value mirrored; skew-symmetric: its negative
  const auto symmetric =
      sp::parse_matrix_market("%%MatrixMarket matrix coordinate complex symmetric\n2 2 2\n2 1 1 1\n1 1 2 0\n", "s.mtx");
  r = sp::compute_permanent(symmetric.matrix);  // (1+i)^2 = 2i, a22 = 0
  CHECK(sp::complex_text(r) == "0 + 2i");
  const auto skew =
      sp::parse_matrix_market("%%MatrixMarket matrix coordinate complex skew-symmetric\n2 2 1\n2 1 1 1\n", "k.mtx");
  r = sp::compute_permanent(skew.matrix);  // (1+i)·(−1−i) = −2i
  CHECK(sp::complex_text(r) == "0 - 2i");
  // the writer: complex general, read back to the same matrix
  const auto again = sp::parse_matrix_market(sp::to_matrix_market(hermitian.matrix), "again.mtx");
  CHECK(again.field == "complex");
  CHECK(again.matrix == hermitian.matrix);
  // a complex file whose imaginary parts are 0 holds a real matrix
  const auto real =
      sp::parse_matrix_market("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 7 0\n", "r.mtx");
  CHECK_FALSE(real.matrix.is_complex());
}

TEST_CASE("complex Matrix Market errors name the line") {
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      sp::parse_matrix_market(text, "bad.mtx");
    } catch (const sp::input_error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(error_of("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 5\n")
            .find("bad.mtx:3: expected 4 fields (row column real imaginary)") != std::string::npos);
  CHECK(error_of("%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 1 5 1\n")
            .find("bad.mtx:3: a hermitian matrix has a real diagonal") != std::string::npos);
  CHECK(error_of("%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n1 1 5\n")
            .find("bad.mtx:1: the 'hermitian' symmetry needs the 'complex' field") != std::string::npos);
  CHECK(error_of("%%MatrixMarket matrix array complex general\n1 1\n5\n")
            .find("bad.mtx:3: expected two numbers (real imaginary)") != std::string::npos);
  CHECK(error_of("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 5 nan\n")
            .find("bad.mtx:3: value 'nan' is not finite") != std::string::npos);
}

TEST_CASE("a complex record: JSON parts and the human a + bi") {
  const auto m = sp::sparse_matrix::from_entries(1, {{0, 0, 0.5, -0.25}});
  const auto r = sp::compute_permanent(m);
  CHECK(sp::complex_text(r) == "0.5 - 0.25i");
  const std::string json = sp::to_json(r);
  CHECK(json.find("\"permanent\": \"0.5 - 0.25i\", \"value\": null") != std::string::npos);
  CHECK(json.find("\"complex\": true, \"real\": \"0.5\", \"imag\": \"-0.25\", \"real_value\": 0.5, "
                  "\"imag_value\": -0.25") != std::string::npos);
  const auto real = sp::compute_permanent(sp::sparse_matrix::from_entries(1, {{0, 0, 3}}));
  CHECK(sp::to_json(real).find("complex") == std::string::npos);  // real records are unchanged
}
