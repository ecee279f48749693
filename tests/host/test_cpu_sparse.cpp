// cpu-sparse against the reference engine on hundreds of random matrices, and on closed forms.
#include <doctest/doctest.h>

#include <sparseperm/engines/cpu_sparse.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/ryser/dense_ryser.cuh>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ranks_in_threads.hpp"
#include "test_support.hpp"

namespace sp = sparseperm;
using sp::detail::int128;

namespace {

void check_against_reference(const sp::sparse_matrix& m, int threads) {
  const auto reference = sp::permanent_reference(m);
  const auto result = sp::permanent_cpu_sparse(m, {.threads = threads});
  if (m.has_integer_values()) {
    REQUIRE(reference.exact);
    REQUIRE(result.exact);
    CHECK(result.permanent == reference.permanent);
  } else if (result.exact) {  // only an empty row or column makes a real matrix exact: permanent 0
    CHECK(result.permanent == "0");
    CHECK(std::fabs(reference.value) <= 1e-13 * test_support::ryser_absolute_sum(m));
  } else {
    CHECK(std::fabs(result.value - reference.value) <=
          1e-13 * test_support::ryser_absolute_sum(m) + 1e-12 * std::fabs(reference.value));
  }
}

}  // namespace

TEST_CASE("cpu-sparse agrees with the reference on random matrices, n = 1..14") {
  sp::random_stream stream(31337);
  int compared = 0, integer = 0;
  for (int n = 1; n <= 14; ++n) {
    for (double density : {0.15, 0.3, 0.5, 0.8}) {
      for (auto kind : {sp::value_kind::uniform, sp::value_kind::ones, sp::value_kind::integers}) {
        for (int threads : {1, 2}) {
          const auto m =
              kind == sp::value_kind::uniform && threads == 2
                  ? test_support::random_matrix(stream, n, density, kind, true)  // signed reals: cancellation
                  : test_support::random_matrix(stream, n, density, kind);
          CAPTURE(n);
          CAPTURE(density);
          CAPTURE(test_support::kind_name(kind));
          check_against_reference(m, threads);
          ++compared;
          integer += m.has_integer_values();
        }
      }
    }
  }
  MESSAGE("cpu-sparse cross-checked against the reference on " << compared << " random matrices (n = 1..14), "
                                                               << integer << " of them integer and compared exactly");
  CHECK(compared == 336);
}

namespace {

// gpu-dense's thread (ryser/dense_ryser.cuh, its columns Stride values apart) and cpu-sparse's loop
// over the same columns and the same aligned chunks (of 2^chunk_bits steps): their sums of the terms,
// and the sum of |terms|.
template <int N, class X, class Sum, int Stride = N>
void dense_and_sparse_sums(const sp::sparse_matrix& m, int chunk_bits, Sum& dense, Sum& sparse) {
  const int n = m.n();
  const auto columns = sp::detail::make_ryser_columns<X>(m, m.columns_by_degree(), false);
  const sp::detail::dense_columns<X> d(columns, N, sp::detail::dense_held_columns<N, X>);
  std::vector<X> spaced(static_cast<std::size_t>(d.stored) * Stride, X{7});  // the gaps never read
  for (int j = 0; j < d.stored; ++j) std::copy_n(d.values.begin() + j * N, N, spaced.begin() + j * Stride);
  const sp::detail::sparse_columns_view<X> v{n, columns.start.data(), columns.rows.data(), columns.values.data(),
                                             columns.x0.data()};
  std::vector<X> x(static_cast<std::size_t>(n));
  const std::uint64_t end = sp::step_count(n), chunk = std::uint64_t{1} << chunk_bits;
  for (std::uint64_t first = 1; first < end; first += chunk) {
    const std::uint64_t last = std::min(first + chunk, end);
    sp::detail::dense_ryser_steps<N, Stride>(sp::detail::dense_columns_view<X>{spaced.data(), d.x0.data()}, first, last,
                                             dense);
    sp::detail::sparse_ryser_steps(v, x.data(), 1, first, last, sparse);
  }
}

// Equal for integer values (every term and sum exact), within 1e-13 of Σ|terms| otherwise.
template <class Sum>
void check_same_sum(const Sum& dense, const Sum& sparse, bool integers) {
  const auto value = [](const Sum& s) { return s.value(); };
  if (integers) {
    CHECK(value(dense) == value(sparse));
  } else {
    CHECK(std::abs(value(dense) - value(sparse)) <= 1e-13 * sparse.magnitude);
  }
}

}  // namespace

TEST_CASE("gpu-dense's loop sums what cpu-sparse's does, in every register layout") {
  sp::random_stream s(4021);
  int checked = 0;
  for (int trial = 0; trial < 90; ++trial) {
    const int n = 2 + trial % 11;  // 2..12
    const bool integers = trial % 2 == 0;
    const double density = trial % 3 == 0 ? 1.0 : 0.7;
    const int chunk_bits = trial % 4 == 0 ? 20 : 1 + trial % 5;
    INFO("n = " << n << ", density " << density << (integers ? ", integers" : "") << ", chunks of 2^" << chunk_bits);
    const auto real =
        test_support::random_matrix(s, n, density, integers ? sp::value_kind::integers : sp::value_kind::uniform, true);
    const auto complex = test_support::random_complex(s, n, density, integers);
    if (real.has_empty_line() || complex.has_empty_line()) continue;
    // real: two held columns (N = 12), one (N = 40); complex: one (N = 12), none (N = 28, and N = 30,
    // whose product ends in two leftover rows)
    sp::detail::compensated_sum dense12, sparse12, dense40, sparse40;
    dense_and_sparse_sums<12, double>(real, chunk_bits, dense12, sparse12);
    dense_and_sparse_sums<40, double, sp::detail::compensated_sum, 42>(real, chunk_bits, dense40, sparse40);
    check_same_sum(dense12, sparse12, integers);
    check_same_sum(dense40, sparse40, integers);
    using complex_sum = sp::detail::complex_sum<sp::detail::compensated_sum>;
    complex_sum dense[3], sparse[3];
    dense_and_sparse_sums<12, sp::complex_double>(complex, chunk_bits, dense[0], sparse[0]);
    dense_and_sparse_sums<28, sp::complex_double, complex_sum, 29>(complex, chunk_bits, dense[1], sparse[1]);
    dense_and_sparse_sums<30, sp::complex_double>(complex, chunk_bits, dense[2], sparse[2]);
    for (int k = 0; k < 3; ++k) {
      check_same_sum(dense[k].re, sparse[k].re, integers);
      check_same_sum(dense[k].im, sparse[k].im, integers);
    }
    ++checked;
  }
  CHECK(checked >= 60);
  static_assert(sp::detail::dense_held_columns<12, double> == 2 && sp::detail::dense_held_columns<40, double> == 1);
  // double-double: the sizes compiled, none beyond n = 40 (gpu-sparse's kernel runs those)
  static_assert(sp::detail::dense_dd_rows_for(2, false) == 16 && sp::detail::dense_dd_rows_for(30, false) == 32 &&
                sp::detail::dense_dd_rows_for(30, true) == 30 && sp::detail::dense_dd_rows_for(31, true) == 32 &&
                sp::detail::dense_dd_rows_for(40, true) == 40 && sp::detail::dense_dd_rows_for(41, false) == 0);
  static_assert(sp::detail::dense_held_columns<12, sp::complex_double> == 1 &&
                sp::detail::dense_held_columns<28, sp::complex_double> == 0);
  static_assert(sp::detail::dense_rows_for(30, true) == 30 && sp::detail::dense_rows_for(30, false) == 32 &&
                sp::detail::dense_rows_for(29, true) == 30 && sp::detail::dense_rows_for(31, true) == 32);
}

TEST_CASE("signed real matrices with cancellation") {
  sp::random_stream stream(5);
  for (int n = 2; n <= 12; ++n) {
    std::vector<sp::matrix_entry> entries;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (stream.uniform() < 0.6) entries.push_back({i, j, 2 * stream.uniform() - 1});
      }
    }
    check_against_reference(sp::sparse_matrix::from_entries(n, entries), 2);
  }
}

TEST_CASE("cpu-sparse agrees with dense Ryser up to n = 22") {
  sp::random_stream stream(777);
  int compared = 0;
  for (int n = 15; n <= 22; ++n) {
    for (auto kind : {sp::value_kind::uniform, sp::value_kind::ones}) {
      const auto m = test_support::random_matrix(stream, n, n <= 18 ? 0.3 : 0.2, kind);
      check_against_reference(m, 2);
      ++compared;
    }
  }
  MESSAGE("cpu-sparse cross-checked against dense Ryser on " << compared << " random matrices (n = 15..22)");
}

TEST_CASE("closed forms: n!, derangements, identity, triangular") {
  int128 factorial = 1;
  int128 d_prev = 1, d = 0;  // D(0), D(1)
  for (int n = 1; n <= 20; ++n) {
    factorial *= n;
    if (n >= 2) {
      const int128 next = (n - 1) * (d_prev + d);
      d_prev = d;
      d = next;
    }
    const auto ones = sp::permanent_cpu_sparse(test_support::dense_matrix(n, 1), {.threads = 2});
    CHECK(ones.exact);
    CHECK(ones.permanent == sp::detail::to_decimal(factorial));
    const auto deranged = sp::permanent_cpu_sparse(test_support::derangement_matrix(n), {.threads = 2});
    CHECK(deranged.permanent == sp::detail::to_decimal(n == 1 ? int128{0} : d));
  }
  // Identity: 1. A diagonal: the product of the diagonal. Triangular: the product of the diagonal too.
  for (int n : {1, 5, 16, 23}) {
    std::vector<sp::matrix_entry> diagonal, triangular;
    double product = 1;
    for (int i = 0; i < n; ++i) {
      const double v = 1.0 + (i % 3) * 0.25;
      product *= v;
      diagonal.push_back({i, i, 1});
      triangular.push_back({i, i, v});
      for (int j = i + 1; j < n && j < i + 4; ++j) triangular.push_back({i, j, 0.5});
    }
    CHECK(sp::permanent_cpu_sparse(sp::sparse_matrix::from_entries(n, diagonal)).permanent == "1");
    const auto tri = sp::permanent_cpu_sparse(sp::sparse_matrix::from_entries(n, triangular));
    CHECK(tri.value == doctest::Approx(product).epsilon(1e-13));
  }
}

TEST_CASE("edge cases") {
  CHECK(sp::permanent_cpu_sparse(sp::sparse_matrix{}).permanent == "1");
  const auto one = sp::permanent_cpu_sparse(sp::sparse_matrix::from_entries(1, {{0, 0, -2.5}}));
  CHECK(one.value == -2.5);
  // An empty row: 0 without running.
  const auto empty_row =
      sp::permanent_cpu_sparse(sp::sparse_matrix::from_entries(3, {{0, 0, 1}, {1, 1, 1}, {0, 2, 1}}));
  CHECK(empty_row.permanent == "0");
  CHECK(empty_row.exact);
  // Above the limit.
  CHECK_THROWS_AS(sp::permanent_cpu_sparse(test_support::derangement_matrix(65)), sp::engine_error);
  // A matrix too large for 128-bit exactness falls back to double and says so.
  const auto big = sp::permanent_cpu_sparse(test_support::dense_matrix(26, 1e6));
  CHECK_FALSE(big.exact);
  CHECK(big.value == doctest::Approx(4.0329146112660565e26 * 1e156).epsilon(1e-11));  // 26! · 10^156
}

TEST_CASE("progress counts every Gray step") {
  sp::progress_counter progress;
  sp::random_stream stream(1);
  const auto m = test_support::random_matrix(stream, 18, 0.4, sp::value_kind::ones);
  sp::permanent_cpu_sparse(m, {.threads = 2, .progress = &progress});
  CHECK(progress.done.load() == (std::uint64_t{1} << 17) - 1);
  CHECK(progress.total.load() == progress.done.load());
  CHECK(progress.fraction() == 1.0);
}

TEST_CASE("ranks share cpu-sparse's chunks: the same value as one process, bit for bit; mismatches refused") {
  sp::random_stream s(2026);
  const std::string journal = (std::filesystem::temp_directory_path() / "sparseperm-ranks.journal").string();
  for (int trial = 0; trial < 6; ++trial) {
    const bool integers = trial % 2 == 0;
    const sp::sparse_matrix m =
        test_support::random_matrix(s, 18 + trial, 0.4, integers ? sp::value_kind::ones : sp::value_kind::uniform);
    // one process with the chunks that journaled and distributed runs use
    std::filesystem::remove(journal);
    const auto alone = sp::permanent_cpu_sparse(m, {.threads = 2, .sharing = {journal, nullptr}});
    std::filesystem::remove(journal);
    for (const int size : {2, 3, 4}) {
      CAPTURE(trial);
      CAPTURE(size);
      test_support::ranks_in_threads ranks(size);
      const auto results = ranks.each([&](int r) {
        const auto result = sp::permanent_cpu_sparse(m, {.threads = 1, .sharing = {"", ranks.rank(r)}});
        return result.permanent + " " + (result.error_bound ? std::to_string(*result.error_bound) : "exact");
      });
      for (const std::string& r : results) {
        CHECK(r == alone.permanent + " " + (alone.error_bound ? std::to_string(*alone.error_bound) : "exact"));
      }
    }
  }
  // a rank that computes another matrix of the same size: every rank refuses
  const sp::sparse_matrix a = test_support::random_matrix(s, 16, 0.4, sp::value_kind::ones);
  const sp::sparse_matrix b = test_support::random_matrix(s, 16, 0.4, sp::value_kind::ones);
  test_support::ranks_in_threads ranks(3);
  const auto results = ranks.each([&](int r) {
    return sp::permanent_cpu_sparse(r == 1 ? b : a, {.threads = 1, .sharing = {"", ranks.rank(r)}}).permanent;
  });
  for (const std::string& r : results) {
    CHECK(r.rfind("rank_error: rank 1 of 3 ran another computation", 0) == 0);
  }
}

TEST_CASE("ranks resume from every rank's journal; a lost journal's chunks are dealt out again") {
  sp::random_stream s(77);
  const sp::sparse_matrix m = test_support::random_matrix(s, 20, 0.4, sp::value_kind::ones);
  const std::string journal = (std::filesystem::temp_directory_path() / "sparseperm-ranks-resume.journal").string();
  const auto journal_of = [&](int r) { return journal + "." + std::to_string(r) + "-of-3"; };
  for (int r = 0; r < 3; ++r) std::filesystem::remove(journal_of(r));
  const auto alone = sp::permanent_cpu_sparse(m, {.threads = 2});
  const auto run_ranks = [&] {
    test_support::ranks_in_threads ranks(3);
    return ranks.each([&](int r) {
      const auto result = sp::permanent_cpu_sparse(m, {.threads = 1 + r, .sharing = {journal, ranks.rank(r)}});
      return result.permanent + "|" + result.plan;
    });
  };
  const auto fresh = run_ranks();
  for (const std::string& r : fresh) {
    CHECK(r.substr(0, r.find('|')) == alone.permanent);
    CHECK(r.find("the chunks dealt out by rank 0 as the ranks ask") != std::string::npos);
    CHECK(r.find(", 0 from the ranks' journals") != std::string::npos);
  }
  // every chunk (2^19 steps in 512 chunks of 1024) is in one journal: nothing is run again
  const auto resumed = run_ranks();
  for (const std::string& r : resumed) {
    CHECK(r.substr(0, r.find('|')) == alone.permanent);
    CHECK(r.find(", 512 from the ranks' journals") != std::string::npos);
    CHECK(r.find("the ranks ran 0 to 0 chunks") != std::string::npos);
  }
  // rank 1's journal is lost: its chunks are run again, by whichever rank asks
  std::filesystem::remove(journal_of(1));
  const auto partly = run_ranks();
  CHECK(partly[1].find("journal " + journal_of(1) + ": 0 of 512 chunks resumed from it") != std::string::npos);
  for (const std::string& r : partly) {
    CHECK(r.substr(0, r.find('|')) == alone.permanent);
    CHECK(r.find(", 0 from the ranks' journals") == std::string::npos);
  }
  for (int r = 0; r < 3; ++r) std::filesystem::remove(journal_of(r));
}
