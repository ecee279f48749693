// Batches (batch.cuh): the dense floating matrices' SIMD lanes against compute_permanent one matrix
// at a time and against exact rational permanents; the same results whether the batch reads dense
// arrays (also complex128's pairs in place) or sparse matrices; every size of group (1 to 4
// matrices) and lane count; mixed batches keep their order; a matrix whose row grids refuse goes to the planner; a bound that says
// something (a matrix changed by one part in 10^9 falls outside it), also where values of full
// precision cancel (exact big-integer permanents).
#include <doctest/doctest.h>

#include <sparseperm/batch.cuh>
#include <sparseperm/perm.cuh>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"

#include "../bound_tally.hpp"
#include "../complex_reference.hpp"
#include "../exact_dyadic.hpp"

namespace sp = sparseperm;

namespace {

// count dense n × n matrices, row-major, as the lanes read them: reals uniform in (−1, 1], or
// complex ones with dyadic parts k / 2^20 (exact references: complex_reference.hpp)
struct dense_batch {
  int n = 0;
  std::vector<double> real, imag;
  std::vector<double> interleaved;  // numpy's complex128: real and imaginary part of each entry side by side
  std::vector<sp::sparse_matrix> matrices;

  dense_batch(sp::random_stream& s, int count, int n_, bool complex) : n(n_) {
    for (int k = 0; k < count; ++k) {
      const sp::sparse_matrix m = complex ? test_support::random_complex(s, n, 1.0, false)
                                          : test_support::random_matrix(s, n, 1.0, sp::value_kind::uniform, true);
      if (m.nnz() != static_cast<std::int64_t>(n) * n) {  // a value drawn 0: draw again
        --k;
        continue;
      }
      add(m);
    }
  }
  void add(const sp::sparse_matrix& m) {
    const std::size_t start = real.size();
    real.resize(start + static_cast<std::size_t>(n) * n, 0.0);
    imag.resize(real.size(), 0.0);
    for (const sp::matrix_entry& e : m.entries()) {
      real[start + static_cast<std::size_t>(e.row) * n + e.column] = e.value;
      imag[start + static_cast<std::size_t>(e.row) * n + e.column] = e.imag;
    }
    interleaved.resize(2 * real.size());
    for (std::size_t at = start; at < real.size(); ++at) {
      interleaved[2 * at] = real[at];
      interleaved[2 * at + 1] = imag[at];
    }
    matrices.push_back(m);
  }
  std::int64_t count() const { return static_cast<std::int64_t>(matrices.size()); }
  sp::dense_matrices values(bool complex) const { return {count(), n, real.data(), complex ? imag.data() : nullptr}; }
  sp::dense_matrices values_in_place() const { return {count(), n, interleaved.data(), interleaved.data() + 1, 2}; }
};

sp::compute_options with_threads(int threads) {
  sp::compute_options o;
  o.threads = threads;
  return o;
}

bool from_lanes(const sp::permanent_result& r) { return r.plan.find("matrices at once") != std::string::npos; }

}  // namespace

TEST_CASE("batch lanes: each result within its bound of compute_permanent's and of the exact permanent") {
  sp::random_stream s(20261127);
  int exact_checked = 0;
  for (const bool complex : {false, true}) {
    for (int n = sp::dense_batch_min_n; n <= 15; ++n) {
      const int count = 1 + (n * 3) % 9;  // groups of 1 to 4, partial last groups
      const dense_batch batch(s, count, n, complex);
      CAPTURE(n);
      CAPTURE(complex);
      const auto at = [&](std::int64_t k) { return batch.matrices[static_cast<std::size_t>(k)]; };
      for (const int threads : {1, 3}) {
        const auto results = sp::compute_permanents(batch.count(), at, with_threads(threads), batch.values(complex));
        const auto sparse = sp::compute_permanents(batch.count(), at, with_threads(threads));
        // complex128 read in place (entries two doubles apart)
        const auto in_place =
            complex ? sp::compute_permanents(batch.count(), at, with_threads(threads), batch.values_in_place())
                    : sparse;
        REQUIRE(results.size() == batch.matrices.size());
        for (std::size_t k = 0; k < results.size(); ++k) {
          const sp::permanent_result& r = results[k];
          CHECK(r.value == in_place[k].value);
          CHECK(r.imag == in_place[k].imag);
          CHECK(r.error_bound == in_place[k].error_bound);
          CHECK(from_lanes(r) == (count >= threads));  // fewer: each matrix gets every thread
          CHECK(r.engine == "cpu-sparse");
          CHECK(r.complex == complex);
          // dense arrays or sparse matrices: the same lanes, the same bits
          CHECK(r.value == sparse[k].value);
          CHECK(r.imag == sparse[k].imag);
          CHECK(r.error_bound == sparse[k].error_bound);
          // a result kept as numbers and a shared description (dense arrays) reads as a whole one
          CHECK(r.permanent == sparse[k].permanent);
          CHECK(r.permanent_imag == sparse[k].permanent_imag);
          CHECK(r.plan == sparse[k].plan);
          CHECK(r.n == sparse[k].n);
          CHECK(r.nnz == sparse[k].nnz);
          CHECK(r.threads == sparse[k].threads);
          CHECK(r.exact == sparse[k].exact);
          CHECK(results.value(k) == r.value);
          CHECK(results.imag(k) == r.imag);
          CHECK(results.error_bound(k) == r.error_bound);
          CHECK(results.complex(k) == r.complex);
          CHECK_FALSE(results.exact(k));
          CHECK(results.in_range(k));
          if (threads > 1) continue;
          const sp::permanent_result one = sp::compute_permanent(batch.matrices[k], with_threads(1));
          REQUIRE(r.error_bound.has_value());
          REQUIRE(one.error_bound.has_value());
          CHECK(std::hypot(r.value - one.value, r.imag - one.imag) <= *r.error_bound + *one.error_bound);
          // as informative as the engine's own where the values sit on their row grids; elsewhere the
          // lanes bound the grids' rounding (the next test), which cpu-sparse's split row sums avoid
          if (!sp::detail::row_grids_of<double>(batch.matrices[k]).facts.change) {
            CHECK(*r.error_bound <= 1.5 * *one.error_bound);
          }
          if (n > 9) continue;
          if (complex) {
            test_complex::check_contains(r, test_complex::exact_scaled_permanent(batch.matrices[k], 0x1p20), n);
          } else {
            const test_support::dyadic exact = test_support::exact_permanent(batch.matrices[k]);
            CHECK(std::fabs(test_support::difference(r.value, exact)) <= *r.error_bound);
          }
          ++exact_checked;
        }
      }
    }
  }
  CHECK(exact_checked >= 24);
}

TEST_CASE("batch lanes: where values of full precision cancel, the bound from the terms' row sums") {
  // random signed real and complex matrices of 53-bit values, n = 7..13, against their exact dyadic
  // permanents (big integers): the automatic precision's walk bounds what the grids' rounding moves
  // each term by; precision double keeps the a-priori term, which certifies far fewer digits
  sp::random_stream s(20261129);
  for (const bool complex : {false, true}) {
    exact_dyadic::bound_tally automatic, fast;
    int outside = 0, tampered = 0;
    for (int n = 7; n <= 13; ++n) {
      std::vector<sp::sparse_matrix> matrices;
      for (int k = 0; k < 16; ++k) matrices.push_back(exact_dyadic::random_cancelling(s, n, complex));
      const auto at = [&](std::int64_t k) { return matrices[static_cast<std::size_t>(k)]; };
      sp::compute_options in_double = with_threads(1);
      in_double.precision = sp::precision::double_sums;
      const auto results = sp::compute_permanents(16, at, with_threads(1));
      const auto fast_results = sp::compute_permanents(16, at, in_double);
      for (std::size_t k = 0; k < matrices.size(); ++k) {
        const std::string what = std::string(complex ? "complex" : "real") + " n = " + std::to_string(n);
        CHECK(from_lanes(results[k]));
        CHECK(results[k].plan.find("bounded from the terms") != std::string::npos);
        CHECK(fast_results[k].plan.find("bounded from the terms") == std::string::npos);
        automatic.check(results[k], exact_dyadic::exact_complex_permanent(matrices[k]), what);
        fast.check(fast_results[k], exact_dyadic::exact_complex_permanent(matrices[k]), what + ", double");
        // the bound says something: one entry changed by one part in 10^9 moves the exact permanent
        // outside it
        if (k % 4 != 0) continue;
        std::vector<sp::matrix_entry> entries = matrices[k].entries();
        entries[k].value *= 1 + 1e-9;
        const auto changed = exact_dyadic::exact_complex_permanent(sp::sparse_matrix::from_entries(n, entries));
        ++tampered;
        if (exact_dyadic::error_of(results[k], changed) > *results[k].error_bound) ++outside;
      }
    }
    CAPTURE(complex);
    CHECK(automatic.checked == 112);
    CHECK(automatic.median() >= 10);
    CHECK(fast.median() + 3 <= automatic.median());
    CHECK(outside >= tampered * 9 / 10);
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": median digits " << automatic.median() << ", precision double " << fast.median()
            << "; changed by 1e-9 and outside the bound: " << outside << " of " << tampered);
  }
}

TEST_CASE("single dense calls: one matrix's Gray code in four lanes, within its bound of the exact permanent") {
  // compute_permanent under auto on dense floating n = 7..12 runs the lanes, a quarter of the walk a
  // lane; from a row-major array (compute_dense_permanent) without a sparse_matrix, the same result
  // bit for bit. Random signed real and complex matrices of 53-bit values against their exact dyadic
  // permanents (big integers), against the batch's lanes (one matrix a lane), and a bound that says
  // something (one entry changed by one part in 10^9 falls outside it).
  sp::random_stream s(20261130);
  for (const bool complex : {false, true}) {
    exact_dyadic::bound_tally tally;
    int in_lanes = 0, outside = 0, tampered = 0;
    for (int n = 7; n <= 12; ++n) {
      for (int k = 0; k < 12; ++k) {
        const sp::sparse_matrix m = exact_dyadic::random_cancelling(s, n, complex);
        dense_batch one(s, 0, n, complex);
        one.add(m);
        const std::string what = std::string(complex ? "complex" : "real") + " n = " + std::to_string(n);
        CAPTURE(what);
        const sp::permanent_result r = sp::compute_permanent(m);
        const auto exact = exact_dyadic::exact_complex_permanent(m);
        tally.check(r, exact, what);
        CHECK(sp::trusted_digits(r).value_or(0) >= 10);
        const auto matrix = [&] { return m; };
        for (const sp::dense_matrices& values : {one.values(complex), one.values_in_place()}) {
          const sp::permanent_result d = sp::compute_dense_permanent(values, matrix, {});
          CHECK(d.value == r.value);
          CHECK(d.imag == r.imag);
          CHECK(d.error_bound == r.error_bound);
          CHECK(d.plan == r.plan);
        }
        if (r.plan.find("one matrix in") == std::string::npos) continue;  // cpu-sparse certified more
        ++in_lanes;
        CHECK(r.engine == "cpu-sparse");
        const auto at = [&](std::int64_t) { return m; };
        const auto batch = sp::compute_permanents(1, at, with_threads(1), one.values(complex));
        CHECK(std::hypot(batch[0].value - r.value, batch[0].imag - r.imag) <= *batch[0].error_bound + *r.error_bound);
        if (k % 3 != 0) continue;
        std::vector<sp::matrix_entry> entries = m.entries();
        entries[static_cast<std::size_t>(k)].value *= 1 + 1e-9;
        ++tampered;
        const auto changed = exact_dyadic::exact_complex_permanent(sp::sparse_matrix::from_entries(n, entries));
        if (exact_dyadic::error_of(r, changed) > *r.error_bound) ++outside;
      }
    }
    CAPTURE(complex);
    CHECK(tally.checked == 72);
    CHECK(in_lanes >= 60);
    CHECK(outside >= tampered * 9 / 10);
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": " << in_lanes << " of 72 in the lanes, median digits " << tally.median()
            << "; changed by 1e-9 and outside the bound: " << outside << " of " << tampered);
  }
}

TEST_CASE("single small calls: integer matrices exact from the lanes where the bound is below 1/2") {
  // dense integer matrices (signed, positive, Gaussian), n = 7..12, against cpu-sparse's exact
  // 128-bit sums; those whose terms may reach 2^44 stay with cpu-sparse
  sp::random_stream s(20261131);
  int in_lanes = 0, checked = 0;
  for (int n = 7; n <= 12; ++n) {
    for (int k = 0; k < 12; ++k) {
      const int kind = k % 3;  // values in ±1..±3, in 1..3, Gaussian ±1..±2 ± i·(0..2)
      std::vector<sp::matrix_entry> entries;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const double magnitude = 1 + static_cast<double>(s.next() % (kind == 2 ? 2 : 3));
          const double sign = kind == 1 || s.next() % 2 == 0 ? 1 : -1;
          const double imag = kind == 2 ? static_cast<double>(s.next() % 5) - 2 : 0.0;
          entries.push_back({i, j, sign * magnitude, imag});
        }
      const sp::sparse_matrix m = sp::sparse_matrix::from_entries(n, entries);
      const sp::permanent_result r = sp::compute_permanent(m);
      sp::compute_options by_engine;
      by_engine.engine = sp::engines::cpu_sparse{};
      const sp::permanent_result truth = sp::compute_permanent(m, by_engine);
      CAPTURE(n);
      CAPTURE(kind);
      REQUIRE(truth.exact);
      CHECK(r.exact);
      CHECK(r.permanent == truth.permanent);
      CHECK(r.permanent_imag == truth.permanent_imag);
      ++checked;
      if (r.plan.find("one matrix in") == std::string::npos) continue;
      ++in_lanes;
      CHECK(r.plan.find("exact: the only integer within the bound") != std::string::npos);
      CHECK(r.nnz == m.nnz());
      dense_batch one(s, 0, n, kind == 2);
      one.add(m);
      const sp::permanent_result d = sp::compute_dense_permanent(one.values(kind == 2), [&] { return m; }, {});
      CHECK(d.permanent == r.permanent);
      CHECK(d.permanent_imag == r.permanent_imag);
      CHECK(d.plan == r.plan);
    }
  }
  CHECK(checked == 72);
  CHECK(in_lanes >= 30);
  MESSAGE(in_lanes << " of " << checked << " integer matrices exact from the lanes");
  // n <= 8 of any pattern: 0/1 matrices with zeros (bipartite graphs' perfect matchings) and signed
  // floating ones with zeros, against exact values
  int sparse_in_lanes = 0;
  exact_dyadic::bound_tally tally;
  for (int k = 0; k < 40; ++k) {
    const int n = 7 + k % 2;
    std::vector<sp::matrix_entry> entries;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i == j || s.next() % 5 < 3) entries.push_back({i, j, 1.0, 0.0});
    const sp::sparse_matrix graph = sp::sparse_matrix::from_entries(n, entries);
    const sp::permanent_result r = sp::compute_permanent(graph);
    sp::compute_options by_engine;
    by_engine.engine = sp::engines::cpu_sparse{};
    CHECK(r.exact);
    CHECK(r.permanent == sp::compute_permanent(graph, by_engine).permanent);
    const sp::sparse_matrix cancelling = exact_dyadic::random_cancelling(s, n, k % 4 < 2, 0.7);
    const sp::permanent_result c = sp::compute_permanent(cancelling);
    tally.check(c, exact_dyadic::exact_complex_permanent(cancelling), "with zeros");
    const bool lanes = r.plan.find("small, no plan: Ryser's loop on one matrix") != std::string::npos;
    sparse_in_lanes += lanes ? 1 : 0;
    if (lanes) CHECK(r.nnz == graph.nnz());
    // from a row-major array with its zeros (numpy's single call): the same results and plans, the
    // matching and identical lines checked on the array
    for (const sp::sparse_matrix* m : {&graph, &cancelling}) {
      dense_batch one(s, 0, n, m->is_complex());
      one.add(*m);
      const sp::permanent_result d = sp::compute_dense_permanent(one.values(m->is_complex()), [&] { return *m; }, {});
      const sp::permanent_result e = sp::compute_permanent(*m);
      CHECK(d.permanent == e.permanent);
      CHECK(d.permanent_imag == e.permanent_imag);
      CHECK(d.plan == e.plan);
    }
  }
  // no perfect matching among the nonzeros (columns 0 and 1 only in row 0): the planner's 0 and its
  // reason, not the lanes'
  {
    const int n = 8;
    std::vector<sp::matrix_entry> entries;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (j >= 2 || i == 0) entries.push_back({i, j, 1.0 + static_cast<double>(s.next() % 1000), 0.0});
    const sp::sparse_matrix singular = sp::sparse_matrix::from_entries(n, entries);
    REQUIRE(sp::maximum_matching(singular).size < n);
    dense_batch one(s, 0, n, false);
    one.add(singular);
    const sp::permanent_result d = sp::compute_dense_permanent(one.values(false), [&] { return singular; }, {});
    CHECK(d.permanent == "0");
    CHECK(d.plan == sp::compute_permanent(singular).plan);
    CHECK(d.plan.find("one matrix in") == std::string::npos);
  }
  CHECK(sparse_in_lanes >= 20);  // the rest have two identical lines: the planner's (Glynn over them)
  CHECK(tally.median() >= 10);
  MESSAGE(sparse_in_lanes << " of 40 0/1 matrices with zeros exact from the lanes; signed ones with zeros: median "
                          << tally.median() << " digits");
}

TEST_CASE("single dense calls: the lanes only where they certify the digits asked for, and not for repeated lines") {
  sp::random_stream s(31);
  const sp::sparse_matrix m = exact_dyadic::random_cancelling(s, 9, true);
  sp::compute_options more;
  more.digits = 14;  // beyond what the lanes certify: cpu-sparse's split row sums, then further
  const sp::permanent_result r = sp::compute_permanent(m, more);
  CHECK(r.plan.find("one matrix in") == std::string::npos);
  CHECK((r.exact || sp::trusted_digits(r).value_or(0) >= 14));
  std::vector<sp::matrix_entry> entries;  // row 1 a copy of row 0
  for (const sp::matrix_entry& e : m.entries()) {
    if (e.row == 1) continue;
    entries.push_back(e);
    if (e.row == 0) entries.push_back({1, e.column, e.value, e.imag});
  }
  const sp::sparse_matrix repeated = sp::sparse_matrix::from_entries(9, entries);
  REQUIRE(repeated.nnz() == 81);
  dense_batch one(s, 0, 9, true);
  one.add(repeated);
  const auto matrix = [&] { return repeated; };
  const sp::permanent_result d = sp::compute_dense_permanent(one.values(true), matrix, {});
  CHECK(d.plan.find("one matrix in") == std::string::npos);
  CHECK(d.value == sp::compute_permanent(repeated).value);
}

// The lanes' preparation four matrices at once (AVX2, where the CPU has it) against the portable one
// matrix by matrix: the same grids, columns and start (bit for bit), the same refusals, and the same
// facts within the few ulps a fused sum of squares may move a modulus; entries near 2^±450 take
// hypot in both, lane by lane.
TEST_CASE("batch lanes: the preparation four matrices at once equals the one matrix by matrix") {
  if (!sp::detail::lanes_have_avx2()) {
    MESSAGE("this CPU has no AVX2: the lanes prepare matrix by matrix only");
    return;
  }
  sp::random_stream s(20261128);
  int compared = 0, extreme = 0;
  for (const bool complex : {false, true}) {
    for (int n = sp::detail::dense_lanes_min_n; n <= sp::detail::dense_lanes_max_n; n += 1 + n / 8) {
      for (int count = 1; count <= sp::detail::dense_lanes; ++count) {
        const std::size_t square = static_cast<std::size_t>(n) * n;
        std::vector<double> re(square * count), im(square * count);
        const bool scaled = (n + count) % 3 == 0;  // some entries beyond the squares' normal range
        for (std::size_t at = 0; at < re.size(); ++at) {
          const double scale = !scaled ? 1 : at % 7 == 0 ? 0x1p-450 : at % 11 == 0 ? 0x1p450 : 1;
          re[at] = (2 * s.uniform() - 1) * scale;
          im[at] = complex ? (2 * s.uniform() - 1) * scale : 0.0;
        }
        extreme += scaled;
        const double* real[sp::detail::dense_lanes]{};
        const double* imag[sp::detail::dense_lanes]{};
        for (int lane = 0; lane < count; ++lane) {
          real[lane] = re.data() + square * lane;
          imag[lane] = im.data() + square * lane;
        }
        // the same values as complex128 lays them out (entries two doubles apart)
        std::vector<double> pairs(2 * re.size());
        for (std::size_t at = 0; at < re.size(); ++at) {
          pairs[2 * at] = re[at];
          pairs[2 * at + 1] = im[at];
        }
        const double* real_pairs[sp::detail::dense_lanes]{};
        const double* imag_pairs[sp::detail::dense_lanes]{};
        for (int lane = 0; lane < count; ++lane) {
          real_pairs[lane] = pairs.data() + 2 * square * lane;
          imag_pairs[lane] = pairs.data() + 2 * square * lane + 1;
        }
        const auto prepared = [&](bool at_once, std::vector<double>& buffer, bool* refused, int step = 1) {
          buffer.assign(sp::detail::dense_lane_group::columns_size(n, complex) +
                            sp::detail::dense_lane_group::x0_size(n, complex),
                        -1.0);
          sp::detail::dense_lane_group g;
          g.n = n;
          g.complex = complex;
          g.columns = buffer.data();
          g.x0 = buffer.data() + sp::detail::dense_lane_group::columns_size(n, complex);
          g.step = step;
          const double* const* from_real = step == 1 ? real : real_pairs;
          const double* const* from_imag = step == 1 ? imag : imag_pairs;
          if (at_once) {
            g.prepare(from_real, from_imag, count, refused);
          } else {
            g.prepare_each(from_real, from_imag, count, refused);
          }
          return g;
        };
        std::vector<double> vector_buffer, each_buffer;
        bool vector_refused[sp::detail::dense_lanes]{}, each_refused[sp::detail::dense_lanes]{};
        const auto a = prepared(true, vector_buffer, vector_refused);
        const auto b = prepared(false, each_buffer, each_refused);
        CAPTURE(n);
        CAPTURE(count);
        CAPTURE(complex);
        CHECK(vector_buffer == each_buffer);
        std::vector<double> vector_pairs_buffer, each_pairs_buffer;
        bool refused_pairs[sp::detail::dense_lanes]{};
        prepared(true, vector_pairs_buffer, refused_pairs, 2);
        prepared(false, each_pairs_buffer, refused_pairs, 2);
        CHECK(vector_pairs_buffer == vector_buffer);
        CHECK(each_pairs_buffer == each_buffer);
        const auto close = [](double x, double y) { return x == y || std::fabs(x - y) <= 1e-14 * std::fabs(y); };
        for (int lane = 0; lane < count; ++lane) {
          CHECK(vector_refused[lane] == each_refused[lane]);
          CHECK(close(a.facts[lane].change, b.facts[lane].change));
          CHECK(close(a.facts[lane].shrink, b.facts[lane].shrink));
          CHECK(close(a.facts[lane].abs_permanent, b.facts[lane].abs_permanent));
          CHECK(close(a.facts[lane].underflow, b.facts[lane].underflow));
          CHECK(a.facts[lane].nonnegative == b.facts[lane].nonnegative);
          CHECK(a.facts[lane].representable == b.facts[lane].representable);
          ++compared;
        }
      }
    }
  }
  CHECK(compared >= 100);
  CHECK(extreme >= 5);
}

TEST_CASE("batch lanes: the routing check four entries at a time equals the one entry at a time") {
  // rows of random, integer and special values (0, ±inf, NaN, subnormals, 2^52 ± 1/2, beyond 2^53),
  // real, complex and complex128's pairs in place: the same verdicts and row sums
#if SPARSEPERM_LANES_AVX2
  if (!sp::detail::lanes_have_avx2()) {
    MESSAGE("this CPU has no AVX2: the check reads one entry at a time only");
    return;
  }
  const double specials[] = {0.0,      -0.0,      1.0, -3.0,   0.5,        1e300,        1e-300,       0x1p-1074,
                             INFINITY, -INFINITY, NAN, 0x1p53, 0x1p54 + 2, 0x1p52 + 0.5, 0x1p51 + 0.5, -2.0};
  sp::random_stream s(20261129);
  int compared = 0, unusable = 0, fractions = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int n = 7 + static_cast<int>(s.next() % 12);
    const int kind = static_cast<int>(s.next() % 3);  // Gaussian-like, small integers, with specials
    std::vector<double> pairs(2 * static_cast<std::size_t>(n) * n);
    for (double& v : pairs) {
      v = kind == 0 ? s.uniform() - 0.5 : static_cast<double>(static_cast<int>(s.next() % 7) - 3);
      if (kind == 2 && s.next() % 8 == 0) v = specials[s.next() % std::size(specials)];
    }
    for (const int step : {1, 2}) {  // separate parts, or pairs
      const double* re = pairs.data();
      const double* im = step == 2 ? pairs.data() + 1 : pairs.data() + static_cast<std::size_t>(n) * n;
      for (const bool complex : {false, true}) {
        bool fraction[2] = {false, false}, imaginary[2] = {false, false}, usable[2] = {true, true};
        double sums[2][sp::detail::dense_lanes_max_n]{};
        usable[0] =
            sp::detail::scan_lanes_rows(n, re, complex ? im : nullptr, step, fraction[0], imaginary[0], sums[0]);
        for (int i = 0; i < n && usable[1]; ++i) {
          const std::size_t row = static_cast<std::size_t>(i) * n * step;
          usable[1] = sp::detail::scan_row(n, re + row, complex ? im + row : nullptr, step, fraction[1], imaginary[1],
                                           sums[1][i]);
        }
        CAPTURE(trial);
        REQUIRE(usable[0] == usable[1]);
        ++compared;
        if (!usable[0]) {
          ++unusable;
          continue;
        }
        CHECK(fraction[0] == fraction[1]);
        CHECK(imaginary[0] == imaginary[1]);
        fractions += fraction[0];
        for (int i = 0; i < n; ++i) CHECK(sums[0][i] == doctest::Approx(sums[1][i]).epsilon(1e-14));
      }
    }
  }
  CHECK(compared == 16000);
  CHECK(unusable > 100);
  CHECK(fractions > 100);
  CHECK(compared - unusable - fractions > 100);  // rows of integers
#else
  MESSAGE("no AVX2 build: the check reads one entry at a time only");
#endif
}

TEST_CASE("batch lanes: a bound that says something") {
  // positive 10 x 10 matrices: a change of one entry by 1e-9 moves the permanent by about 1e-10 of
  // it, far beyond a bound below 1e-11 of it
  sp::random_stream s(7);
  dense_batch batch(s, 0, 10, false);
  const sp::sparse_matrix base = test_support::random_matrix(s, 10, 1.0, sp::value_kind::uniform);
  REQUIRE(base.nnz() == 100);
  std::vector<sp::matrix_entry> changed = base.entries();
  changed[0].value *= 1 + 1e-9;
  batch.add(base);
  batch.add(sp::sparse_matrix::from_entries(10, changed));
  const auto at = [&](std::int64_t k) { return batch.matrices[static_cast<std::size_t>(k)]; };
  const auto r = sp::compute_permanents(2, at, with_threads(1), batch.values(false));
  REQUIRE(from_lanes(r[0]));
  const test_support::dyadic truth = test_support::exact_permanent(batch.matrices[0]);
  CHECK(std::fabs(test_support::difference(r[0].value, truth)) <= *r[0].error_bound);
  CHECK(*r[0].error_bound < 1e-11 * std::fabs(r[0].value));
  CHECK(std::fabs(test_support::difference(r[1].value, truth)) > *r[1].error_bound);
}

// The lanes compute in double with compensated sums: a batch that asks for double-double gets it
// matrix by matrix, as compute_permanent gives it (before, the lanes answered in double).
TEST_CASE("batch lanes: double-double asked for is double-double, matrix by matrix") {
  sp::random_stream s(12);
  for (const bool complex : {false, true}) {
    const dense_batch batch(s, 6, 9, complex);
    const auto at = [&](std::int64_t k) { return batch.matrices[static_cast<std::size_t>(k)]; };
    sp::compute_options dd = with_threads(2);
    dd.precision = sp::precision::double_double;
    const auto results = sp::compute_permanents(batch.count(), at, dd, batch.values(complex));
    for (std::size_t k = 0; k < results.size(); ++k) {
      CAPTURE(complex);
      CAPTURE(k);
      CHECK_FALSE(from_lanes(results[k]));
      REQUIRE(results[k].error_bound.has_value());
      CHECK(*sp::trusted_digits(results[k]) >= 14);
      sp::compute_options one = dd;
      one.threads = 1;
      CHECK(results[k].value == sp::compute_permanent(batch.matrices[k], one).value);
    }
  }
}

TEST_CASE("batch lanes: mixed batches keep their order; refused grids and other matrices take the planner") {
  sp::random_stream s(11);
  dense_batch batch(s, 5, 9, false);
  // a row whose values span 2^80: its grid would round 1e-12 to 0 (row_grid_refusal)
  std::vector<sp::matrix_entry> wide = batch.matrices[0].entries();
  for (sp::matrix_entry& e : wide)
    if (e.row == 0) e.value = e.column == 0 ? 1e12 : 1e-12;
  batch.add(sp::sparse_matrix::from_entries(9, wide));
  // integers: exact, cpu-sparse's own loop; a sparse one: the planner
  std::vector<sp::matrix_entry> integers;
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) integers.push_back({i, j, static_cast<double>(1 + (i + j) % 3)});
  batch.add(sp::sparse_matrix::from_entries(9, integers));
  batch.add(test_support::random_matrix(s, 9, 0.3, sp::value_kind::uniform));
  const auto at = [&](std::int64_t k) { return batch.matrices[static_cast<std::size_t>(k)]; };
  for (const bool dense_values : {true, false}) {
    CAPTURE(dense_values);
    const auto results = dense_values ? sp::compute_permanents(batch.count(), at, with_threads(2), batch.values(false))
                                      : sp::compute_permanents(batch.count(), at, with_threads(2));
    for (std::size_t k = 0; k < results.size(); ++k) {
      CAPTURE(k);
      const sp::permanent_result one = sp::compute_permanent(batch.matrices[k], with_threads(1));
      CHECK(from_lanes(results[k]) == (k < 5));
      CHECK(results[k].exact == one.exact);
      if (one.exact) {
        CHECK(results[k].permanent == one.permanent);
      } else {
        CHECK(std::fabs(results[k].value - one.value) <= *results[k].error_bound + *one.error_bound);
      }
    }
    CHECK(results[5].engine == sp::compute_permanent(batch.matrices[5], with_threads(1)).engine);
  }
}

TEST_CASE("batch lanes: a bad matrix is the batch's error, by index; a stop ends the batch") {
  sp::random_stream s(13);
  dense_batch batch(s, 6, 8, true);
  batch.imag[3 * 64 + 10] = std::nan("");
  const auto at = [&](std::int64_t k) -> sp::sparse_matrix {
    if (k == 3) throw std::invalid_argument("entry (1, 2) is not a finite number");
    return batch.matrices[static_cast<std::size_t>(k)];
  };
  CHECK_THROWS_WITH_AS(sp::compute_permanents(batch.count(), at, with_threads(2), batch.values(true)),
                       "matrix 3: entry (1, 2) is not a finite number", sp::batch_error);
  sp::progress_counter progress;
  progress.stop.store(true);
  sp::compute_options stopped = with_threads(2);
  stopped.progress = &progress;
  CHECK_THROWS(sp::compute_permanents(2, at, stopped, sp::dense_matrices{2, 8, batch.real.data(), batch.imag.data()}));
}
