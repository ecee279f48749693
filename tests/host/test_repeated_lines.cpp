// Repeated rows and columns: detection (exact, bit for bit), expansion, and the glynn engine against
// the reference on the expanded matrices (real, complex, integer and Gaussian integer), the planner
// choosing it, the all-equal 62 x 62 matrix exactly, and glynn's tasks journaled and shared over ranks.
#include <doctest/doctest.h>

#include <sparseperm/perm.cuh>
#include <sparseperm/structure/repeated_lines.cuh>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "../agreement.hpp"
#include "ranks_in_threads.hpp"
#include "test_support.hpp"

namespace sp = sparseperm;

namespace {

sp::compute_options with_engine(const sp::engine_description* engine) {
  sp::compute_options options;
  options.engine = sp::engine_choice(engine);
  return options;
}

}  // namespace

TEST_CASE("identical rows and columns are found bit for bit, near twins are not") {
  const auto base = sp::sparse_matrix::from_entries(3, {{0, 0, 0.1}, {0, 1, 2}, {1, 2, 1}, {2, 0, 3}});
  const auto m = sp::expand_lines(base, {2, 1, 3}, {1, 4, 1});
  CHECK(m.n() == 6);
  const sp::line_classes rows = sp::identical_rows(m);
  CHECK(rows.classes() == 3);
  CHECK(rows.count == std::vector<int>{2, 1, 3});  // in the order of the first row of each class
  const sp::line_classes columns = sp::identical_columns(m);
  CHECK(columns.classes() == 3);
  CHECK(columns.count == std::vector<int>{1, 4, 1});
  // one entry one unit in the last place away: another row
  std::vector<sp::matrix_entry> entries = m.entries();
  for (auto& e : entries) {
    if (e.row == 1 && e.column == 0) e.value = std::nextafter(e.value, 1.0);
  }
  const sp::line_classes near = sp::identical_rows(sp::sparse_matrix::from_entries(6, entries));
  CHECK(near.classes() == 4);
  // complex: the imaginary part counts
  const auto z = sp::sparse_matrix::from_entries(2, {{0, 0, 1, 1}, {1, 0, 1, -1}, {0, 1, 2}, {1, 1, 2}});
  CHECK(sp::identical_rows(z).classes() == 2);
  CHECK(sp::identical_columns(z).classes() == 2);
}

TEST_CASE("has_identical_lines answers as the classes do, on random matrices") {
  sp::random_stream stream(41);
  int with = 0, without = 0;
  for (int round = 0; round < 400; ++round) {
    const int n = 1 + static_cast<int>(stream.below(8));
    // few distinct values and a low density: twins happen, and rows equal in values but not in columns
    sp::sparse_matrix m = test_support::random_matrix(stream, n, round % 2 ? 0.3 : 1.0, sp::value_kind::ones, false);
    if (round % 3 == 0 && n >= 2)
      m = sp::expand_lines(m, std::vector<int>(n, 1), [&] {
        std::vector<int> c(n, 1);
        c[0] = 2;
        c[n - 1] = 0;
        return c;
      }());
    const bool expected = sp::identical_rows(m).classes() < m.n() || sp::identical_columns(m).classes() < m.n();
    CAPTURE(m.n());
    CHECK(sp::has_identical_lines(m) == expected);
    (expected ? with : without) += 1;
  }
  CHECK(with >= 50);
  CHECK(without >= 50);
  // one row's entry moved to another column, same values: not identical
  const auto shifted = sp::sparse_matrix::from_entries(2, {{0, 0, 1}, {1, 1, 1}});
  CHECK_FALSE(sp::has_identical_lines(shifted));
}

TEST_CASE("expand_lines refuses multiplicities that do not fit the matrix") {
  const auto base = sp::sparse_matrix::from_entries(2, {{0, 0, 1}, {1, 1, 1}});
  CHECK_THROWS_AS(sp::expand_lines(base, {1, 1, 1}, {1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(sp::expand_lines(base, {2, 1}, {1, 1}), std::invalid_argument);
  CHECK_THROWS_AS(sp::expand_lines(base, {-1, 3}, {1, 1}), std::invalid_argument);
  CHECK(sp::expand_lines(base, {0, 2}, {1, 1}).n() == 2);  // 0 drops a row
  // nonzeros counted before the copy: 2 x 1500^2 = 4.5e6 beyond 2^22; 1448^2 x 2 = 4193408 within
  CHECK_THROWS_WITH_AS(sp::expand_lines(base, {1500, 1500}, {1500, 1500}),
                       "the multiplicities make a 3000 x 3000 matrix of more than 4194304 nonzeros, beyond the size "
                       "limit",
                       std::invalid_argument);
  CHECK(sp::expand_lines(base, {1448, 1448}, {1448, 1448}).nnz() == 2 * 1448 * 1448);
}

TEST_CASE("glynn on repeated rows and columns equals the reference on the expanded matrix") {
  sp::random_stream s(4040);
  const auto* glynn = &sp::description_of<sp::engines::glynn>;
  const auto* reference = &sp::description_of<sp::engines::reference>;
  int compared = 0, exact = 0;
  for (int trial = 0; trial < 240; ++trial) {
    const int kind = trial % 4;
    const test_support::repeated_case c = test_support::random_repeated(s, kind, 12);
    const auto m = sp::expand_lines(c.base, c.rows, c.columns);
    if (sp::maximum_matching(m).size < m.n()) continue;
    const auto g = sp::compute_permanent(m, with_engine(glynn));
    const auto r = sp::compute_permanent(m, with_engine(reference));
    INFO("kind " << kind << " N = " << m.n() << ": glynn " << sp::complex_text(g) << " reference "
                 << sp::complex_text(r) << " (" << g.plan << ")");
    exact += test_agreement::check_agree(g, r);
    ++compared;
  }
  CHECK(compared >= 150);
  CHECK(exact >= 60);
}

TEST_CASE("glynn needs prod(f_k + 1) terms: two photons in each of 9 modes") {
  sp::random_stream s(7);
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < 9; ++i) {
    for (int j = 0; j < 9; ++j) entries.push_back({i, j, 1 - 2 * s.uniform(), 1 - 2 * s.uniform()});
  }
  const auto base = sp::sparse_matrix::from_entries(9, std::move(entries));
  const std::vector<int> twice(9, 2);
  const auto m = sp::expand_lines(base, twice, twice);
  const auto g = sp::compute_permanent(m, with_engine(&sp::description_of<sp::engines::glynn>));
  CHECK(g.plan.find("13122 terms") != std::string::npos);  // 3^8 · 2, not 2^17
  const auto r = sp::compute_permanent(m, with_engine(&sp::description_of<sp::engines::reference>));
  CHECK(std::hypot(g.value - r.value, g.imag - r.imag) <= *g.error_bound + *r.error_bound);
  // the planner finds the repetition itself (under auto, glynn's a-priori bound certifies fewer than
  // 10 digits of this complex matrix, and cpu-sparse runs it again in double-double)
  sp::compute_options compensated;
  compensated.precision = sp::precision::compensated;
  const auto planned = sp::compute_permanent(m, compensated);
  CHECK(planned.engine == "glynn");
  const auto certified = sp::compute_permanent(m);
  CHECK(sp::trusted_digits(certified).value_or(0) >= 10);
  CHECK(std::hypot(certified.value - r.value, certified.imag - r.imag) <= *certified.error_bound + *r.error_bound);
}

TEST_CASE("an all-equal 62 x 62 matrix: exactly 62! a^62, in Glynn's 62 terms") {
  const auto m = test_support::dense_matrix(62, 3);
  const auto r = sp::compute_permanent(m);
  CHECK(r.engine == "glynn");
  CHECK(r.exact);
  sp::detail::big_integer expected(1ll);
  for (int k = 1; k <= 62; ++k) expected = expected.times(3 * k);
  CHECK(r.permanent == expected.to_decimal());
  CHECK(r.plan.find("62 terms") != std::string::npos);
  // and a complex value, a = 1 + i: 62! (1 + i)^62 = 62! (2i)^31 = −62! 2^31 i
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < 62; ++i) {
    for (int j = 0; j < 62; ++j) entries.push_back({i, j, 1, 1});
  }
  const auto z = sp::compute_permanent(sp::sparse_matrix::from_entries(62, std::move(entries)));
  sp::detail::big_integer imag(-1ll);
  for (int k = 1; k <= 62; ++k) imag = imag.times(k);
  imag = imag.times(1ll << 31);
  CHECK(z.exact);
  CHECK(z.permanent == "0");
  CHECK(z.permanent_imag == imag.to_decimal());
}

TEST_CASE("glynn's tasks are chunks: a journal resumes them and ranks share them, bit for bit") {
  const std::string journal = (std::filesystem::temp_directory_path() / "sparseperm-glynn.journal").string();
  sp::random_stream s(4242);
  // real, complex, integers in 128 bits, and integers that need big integers (entries near 2^40)
  for (const int kind : {0, 1, 2, 3}) {
    CAPTURE(kind);
    std::vector<sp::matrix_entry> entries;
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) {
        const double big = std::ldexp(static_cast<double>(s.below(1 << 20)) + 1, 20);  // up to 2^40
        double integer = static_cast<double>(s.below(18)) - 9;                         // in [−9, 9] without 0
        if (integer >= 0) integer += 1;
        const double re = kind == 3 ? big : kind == 2 ? integer : 1.0 - 2 * s.uniform();
        entries.push_back({i, j, re, kind == 1 ? 1.0 - 2 * s.uniform() : 0.0});
      }
    }
    const sp::sparse_matrix base = sp::sparse_matrix::from_entries(6, std::move(entries));
    const sp::sparse_matrix m = sp::expand_lines(base, {3, 2, 2, 1, 3, 1}, {2, 2, 2, 2, 2, 2});
    std::filesystem::remove(journal);
    // floating kinds in one arithmetic throughout (auto would run the ranks' values again in
    // double-double, which a journaled run does not)
    const sp::precision precision = kind < 2 ? sp::precision::compensated : sp::precision::automatic;
    sp::compute_options options = with_engine(&sp::description_of<sp::engines::glynn>);
    options.checkpoint = journal;
    options.precision = precision;
    const auto first = sp::compute_permanent(m, options);
    CHECK(first.plan.find("journal " + journal + ": 0 of") != std::string::npos);
    if (kind == 3) CHECK(first.plan.find("big integers") != std::string::npos);
    // a journal cut in the middle of a record: the whole records are kept, the rest run again
    const auto size = std::filesystem::file_size(journal);
    std::filesystem::resize_file(journal, size / 2 + 3);
    const auto resumed = sp::compute_permanent(m, options);
    CHECK(resumed.plan.find(" chunks resumed from it") != std::string::npos);
    CHECK(resumed.plan.find(": 0 of") == std::string::npos);
    CHECK(resumed.permanent == first.permanent);
    CHECK(resumed.permanent_imag == first.permanent_imag);
    CHECK(resumed.error_bound == first.error_bound);
    std::filesystem::remove(journal);
    // ranks: every one the one process's value, bit for bit
    for (const int size_of : {2, 3}) {
      test_support::ranks_in_threads ranks(size_of);
      const auto results = ranks.each([&](int r) {
        sp::compute_options shared = with_engine(&sp::description_of<sp::engines::glynn>);
        shared.threads = 1 + r;
        shared.processes = ranks.rank(r);
        shared.precision = precision;
        const auto result = sp::compute_permanent(m, shared);
        const bool dealt = result.plan.find("MPI ranks, the chunks dealt out by rank 0") != std::string::npos;
        return sp::complex_text(result) + " " + (result.error_bound ? sp::format_double(*result.error_bound) : "") +
               (dealt ? "" : " (not dealt out)");
      });
      for (const std::string& r : results)
        CHECK(r == sp::complex_text(first) + " " + (first.error_bound ? sp::format_double(*first.error_bound) : ""));
    }
  }
}
