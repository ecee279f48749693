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

#include "../complex_reference.hpp"

namespace sp = sparseperm;
using namespace test_complex;

namespace {

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

TEST_CASE("every engine in the catalog takes complex matrices") {
  const auto m = sp::sparse_matrix::from_entries(2, {{0, 0, 1, 1}, {1, 1, 2, 0}, {0, 1, 1, 0}});
  for (const auto* e : sp::engine_descriptions()) {
    INFO(e->name);
    CHECK(e->complex_values);
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
