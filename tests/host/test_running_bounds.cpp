// Running (a-posteriori) bounds where the terms of Ryser's sum cancel: signed real and complex
// matrices of full 53-bit values (boson-sampling amplitudes are such), against their exact dyadic
// permanents in big integers. Every bound contains the exact value, in double, compensated and
// double-double; it certifies digits (the a-priori bounds through perm(|A|) certified none here); a
// tampered sum falls outside it; auto repeats a run in double-double when double certifies fewer
// digits than asked for; and inspect's forecast of the digits is near what runs certify.
#include <doctest/doctest.h>

#include <sparseperm/compute.cuh>
#include <sparseperm/engines/cpu_sparse.cuh>
#include <sparseperm/engines/glynn.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/ryser/cpu_sparse.cuh>
#include <sparseperm/ryser/dense_ryser.cuh>
#include <sparseperm/ryser/device_chunks.cuh>
#include <sparseperm/ryser/digits_forecast.cuh>
#include <sparseperm/ryser/sparse_ryser.cuh>
#include <sparseperm/settings.cuh>
#include <sparseperm/structure/repeated_lines.cuh>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../bound_tally.hpp"
#include "../exact_dyadic.hpp"
#include "test_support.hpp"

namespace sp = sparseperm;
namespace ts = test_support;
using exact_dyadic::error_of;
using exact_dyadic::exact_complex;
using exact_dyadic::exact_complex_permanent;
using exact_dyadic::random_cancelling;
using sp::detail::big_integer;

namespace {

sp::permanent_result run_cpu_sparse(const sp::sparse_matrix& a, sp::precision p) {
  return sp::permanent_cpu_sparse(a, {.threads = 2, .progress = nullptr, .precision = p, .sharing = {}});
}

}  // namespace

TEST_CASE("running bounds contain the exact permanent where terms cancel, and certify digits") {
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 37 : 29);
    exact_dyadic::bound_tally plain, compensated, wide, automatic;
    for (int trial = 0; trial < 110; ++trial) {
      const int n = 2 + trial % (complex ? 11 : 13);  // n ≤ 12 complex, ≤ 14 real
      const sp::sparse_matrix a = random_cancelling(stream, n, complex);
      const exact_complex exact = exact_complex_permanent(a);
      const std::string what = std::string(complex ? "complex" : "real") + " n = " + std::to_string(n);
      plain.check(run_cpu_sparse(a, sp::precision::double_sums), exact, what + ", double");
      compensated.check(run_cpu_sparse(a, sp::precision::compensated), exact, what + ", compensated");
      wide.check(run_cpu_sparse(a, sp::precision::double_double), exact, what + ", double-double");
      automatic.check(sp::compute_permanent(a), exact, what + ", auto");
    }
    CAPTURE(complex);
    CHECK(plain.inexact > plain.checked / 2);  // the checks compare values that differ from the truth
    // what the bounds say: a-priori bounds through perm(|A|) certified 0 to 4 digits here
    CHECK(plain.median() >= 11);
    CHECK(compensated.median() >= 12);
    CHECK(wide.median() >= 15);
    CHECK(automatic.median() >= 12);
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": median certified digits: double " << plain.median() << ", compensated " << compensated.median()
            << ", double-double " << wide.median() << ", auto " << automatic.median() << " (" << plain.checked
            << " matrices each)");
  }
}

namespace {

// A double-double sum whose first term, over all threads, is added with its sign flipped.
std::atomic<bool> flip_pending{false};

template <class Sum>
struct flipped_sum : Sum {
  template <class T>
  void add(const T& term) {
    add_signed(term, false);
  }
  template <class T>
  void add_signed(const T& term, bool negative) {
    Sum::add_signed(term, flip_pending.exchange(false) ? !negative : negative);
  }
  void merge(const flipped_sum& other) { Sum::merge(other); }
};

// cpu-sparse's run on split row sums (numeric/double_double.cuh) with the accumulator Sum and product
// Product, its result as the engine would set it.
template <class X, class Sum, class Product>
sp::permanent_result split_run(const sp::sparse_matrix& a, bool flip) {
  namespace d = sp::detail;
  std::vector<int> order(a.n());
  for (int j = 0; j < a.n(); ++j) order[j] = j;
  const auto columns = d::make_ryser_columns<X>(a, order, false);
  d::host_chunking chunking;
  d::shared_chunks shared{d::chunk_sharing{}};
  flip_pending = flip;
  const Sum sum = d::sum_all_steps<X, Sum, Product>(columns, 1, nullptr, chunking, shared, "cpu-sparse");
  sp::permanent_result r;
  r.engine = "cpu-sparse";
  r.n = a.n();
  d::set_ryser_sum(r, a.n(), sum, chunking.longest_chain(), {columns.grid, 1, !Product::wide});
  return r;
}

struct plain_split_product : sp::detail::plain_product {
  static constexpr bool wide = false;
};
struct dd_split_product : sp::detail::double_double_product {
  static constexpr bool wide = true;
};

}  // namespace

TEST_CASE("a tampered sum falls outside the running bound: the bound says something") {
  namespace d = sp::detail;
  sp::random_stream stream(41);
  int outside = 0, runs = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const int n = 4 + trial % 9;
    const bool complex = trial % 2 == 1;
    const sp::sparse_matrix a = random_cancelling(stream, n, complex);
    const exact_complex exact = exact_complex_permanent(a);
    const auto check = [&](const sp::permanent_result& honest, const sp::permanent_result& tampered) {
      CAPTURE(n);
      CAPTURE(complex);
      CHECK(error_of(honest, exact) <= *honest.error_bound);  // the same run untampered holds
      ++runs;
      if (error_of(tampered, exact) > *tampered.error_bound) ++outside;
    };
    if (complex) {
      using X = d::split_value<sp::complex_double>;
      check(split_run<X, d::complex_sum<d::compensated_sum>, plain_split_product>(a, false),
            split_run<X, flipped_sum<d::complex_sum<d::compensated_sum>>, plain_split_product>(a, true));
      check(split_run<X, d::complex_sum<d::dd_sum>, dd_split_product>(a, false),
            split_run<X, flipped_sum<d::complex_sum<d::dd_sum>>, dd_split_product>(a, true));
    } else {
      using X = d::split_value<double>;
      check(split_run<X, d::compensated_sum, plain_split_product>(a, false),
            split_run<X, flipped_sum<d::compensated_sum>, plain_split_product>(a, true));
      check(split_run<X, d::dd_sum, dd_split_product>(a, false),
            split_run<X, flipped_sum<d::dd_sum>, dd_split_product>(a, true));
    }
  }
  CHECK(runs == 48);
  CHECK(outside == runs);  // one flipped term of 2^(n−1) moves the sum far beyond every bound
}

namespace {

// gpu-sparse's walk under auto on values the grids round, as its threads run it (the device's code,
// sparse_ryser_steps with fine_parts_sum, here on the host): the steps cut among `threads` threads,
// their sums reduced into a chunk's record as the launcher does, the result as the engine sets it.
template <class X>
sp::permanent_result fine_parts_run(const sp::sparse_matrix& a, int threads) {
  namespace d = sp::detail;
  using Inner = std::conditional_t<sp::is_complex_number<X>, d::complex_sum<d::compensated_sum>, d::compensated_sum>;
  using Sum = d::fine_parts_sum<Inner>;
  using Term = decltype(d::plain_product{}(static_cast<const X*>(nullptr), 0, 1));
  const int n = a.n();
  const auto columns = d::make_ryser_columns<X>(a, a.columns_by_degree(), false, true);
  REQUIRE(columns.fine.size() == static_cast<std::size_t>(n));
  const d::sparse_columns_view<X> view{
      n, columns.start.data(), columns.rows.data(), columns.values.data(), columns.x0.data(), columns.fine.data()};
  const std::uint64_t end = std::uint64_t{1} << (n - 1);
  std::vector<Sum> sums(static_cast<std::size_t>(threads));
  std::vector<X> x(static_cast<std::size_t>(n));
  std::uint64_t chain = 1;
  for (int t = 0; t < threads; ++t) {
    const std::uint64_t first = 1 + (end - 1) * t / threads, last = 1 + (end - 1) * (t + 1) / threads;
    if (first < last) d::sparse_ryser_steps(view, x.data(), 1, first, last, sums[t], d::plain_product{});
    chain = std::max(chain, last - first);
  }
  d::floating_run_facts facts{columns.grid};
  Sum start;
  d::add_fine_parts_term(columns.x0.data(), columns.fine.data(), n, 1, start, false);
  facts.start_fine = start.fine;
  const std::vector<d::chunk_record<Sum, Term>> records{d::chunk_record<Sum, Term>::of(sums.data(), sums.size())};
  sp::permanent_result r;
  r.engine = "gpu-sparse";
  r.n = n;
  d::set_ryser_records<Sum>(r, n, d::plain_product{}(columns.x0.data(), n, 1), records, chain, facts);
  return r;
}

}  // namespace

TEST_CASE("gpu-sparse's fine parts' running bound, its threads' walk on the host: contains and says something") {
  // one grid a row, as gpu-sparse keeps x in shared memory: the a-priori term of the grids' rounding
  // certifies nothing on these matrices; the fine parts' bound within two digits of cpu-sparse's split
  // row sums, and one entry changed by one part in 10^9 moves the exact permanent outside it
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 53 : 47);
    exact_dyadic::bound_tally fine, split;
    int outside = 0, tampered = 0;
    for (int trial = 0; trial < 120; ++trial) {
      const int n = 2 + trial % (complex ? 11 : 13);
      const double density = trial % 3 == 0 ? 0.5 : 1.0;
      const sp::sparse_matrix a = random_cancelling(stream, n, complex, density);
      const exact_complex exact = exact_complex_permanent(a);
      const std::string what = std::string(complex ? "complex" : "real") + " n = " + std::to_string(n);
      const sp::permanent_result r =
          complex ? fine_parts_run<sp::complex_double>(a, 1 + trial % 7) : fine_parts_run<double>(a, 1 + trial % 7);
      fine.check(r, exact, what + ", fine parts");
      split.check(sp::permanent_cpu_sparse(
                      a, {.threads = 1, .progress = nullptr, .precision = sp::precision::compensated, .sharing = {}}),
                  exact, what + ", split row sums");
      if (trial % 3 != 1 || n < 6) continue;
      std::vector<sp::matrix_entry> entries = a.entries();
      entries[static_cast<std::size_t>(trial) % entries.size()].value *= 1 + 1e-9;
      const exact_complex changed = exact_complex_permanent(sp::sparse_matrix::from_entries(n, entries));
      ++tampered;
      if (error_of(r, changed) > *r.error_bound) ++outside;
    }
    CAPTURE(complex);
    CHECK(fine.checked == 120);
    CHECK(fine.median() >= 10);
    CHECK(fine.median() + 2 >= split.median());
    CHECK(outside >= tampered * 9 / 10);
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": fine parts' bound, median digits " << fine.median() << " (split row sums " << split.median()
            << "); changed by 1e-9 and outside the bound: " << outside << " of " << tampered);
  }
}

namespace {

// gpu-dense's double-double walk as its threads run it (the device's code, dense_dd_ryser_steps, on the
// host): N rows (n of them the matrix's, the rest padding), x's fine parts in registers or strided
// memory as the kernel keeps them, the steps cut among `threads` threads, their sums reduced into a
// chunk's record as the launcher does, the result as the engine sets it. Sum: the accumulator
// (a flipped_sum for the tampering test).
template <int N, class V, class Sum>
sp::permanent_result dense_dd_run(const sp::sparse_matrix& a, int threads, bool strided) {
  namespace d = sp::detail;
  using X = d::split_value<V>;
  const int n = a.n();
  const auto columns = d::make_ryser_columns<X>(a, a.columns_by_degree(), false);
  const d::dense_columns<X> dense(columns, N, 0);
  const std::uint64_t end = std::uint64_t{1} << (n - 1);
  std::vector<Sum> sums(static_cast<std::size_t>(threads));
  std::vector<V> fine(static_cast<std::size_t>(N) * threads, V{7});  // overwritten before it is read
  std::uint64_t chain = 1;
  for (int t = 0; t < threads; ++t) {
    const std::uint64_t first = 1 + (end - 1) * t / threads, last = 1 + (end - 1) * (t + 1) / threads;
    chain = std::max(chain, last - first);
    if (first >= last) continue;
    if (strided) {
      d::dense_dd_ryser_steps<N>(dense.view(), d::dense_strided_fine<V>{fine.data() + t, threads}, first, last,
                                 sums[t]);
    } else {
      d::dense_dd_ryser_steps<N>(dense.view(), d::dense_register_fine<N, V>{}, first, last, sums[t]);
    }
  }
  using Term = decltype(d::double_double_product{}(columns.x0.data(), n, 1));
  const std::vector<d::chunk_record<Sum, Term>> records{d::chunk_record<Sum, Term>::of(sums.data(), sums.size())};
  sp::permanent_result r;
  r.engine = "gpu-dense";
  r.n = n;
  d::set_ryser_records<Sum>(r, n, d::double_double_product{}(columns.x0.data(), n, 1), records, chain,
                            d::floating_run_facts{columns.grid});
  return r;
}

// Real or complex (V) matrices through dense_dd_run: 15 digits certified with x's fine parts in registers
// (real, N = 16) and in strided memory (N = 16, and 24: padding rows multiply exactly); one term's sign
// flipped falls outside.
template <class V>
void check_dense_dd_walk(std::uint64_t seed) {
  constexpr bool complex = sp::is_complex_number<V>;
  using Sum = std::conditional_t<complex, sp::detail::complex_sum<sp::detail::dd_sum>, sp::detail::dd_sum>;
  sp::random_stream stream(seed);
  exact_dyadic::bound_tally registers, strided, padded;
  int outside = 0, flipped = 0;
  for (int trial = 0; trial < 110; ++trial) {
    const int n = 2 + trial % (complex ? 11 : 13);
    const sp::sparse_matrix a = random_cancelling(stream, n, complex, trial % 4 == 0 ? 0.6 : 1.0);
    const exact_complex exact = exact_complex_permanent(a);
    const std::string what = std::string(complex ? "complex" : "real") + " n = " + std::to_string(n);
    const int threads = 1 + trial % 5;
    if (!complex)
      registers.check(dense_dd_run<16, V, Sum>(a, threads, false), exact, what + ", fine parts in registers");
    strided.check(dense_dd_run<16, V, Sum>(a, threads, true), exact, what + ", fine parts in memory");
    padded.check(dense_dd_run<24, V, Sum>(a, threads, true), exact, what + ", N = 24");
    if (n < 4 || trial % 4 != 1) continue;
    flip_pending = true;
    const sp::permanent_result tampered = dense_dd_run<16, V, flipped_sum<Sum>>(a, threads, true);
    ++flipped;
    if (error_of(tampered, exact) > *tampered.error_bound) ++outside;
  }
  CAPTURE(complex);
  CHECK(strided.checked == 110);
  CHECK(strided.median() >= 15);
  CHECK(padded.median() >= 15);
  if (!complex) CHECK(registers.median() >= 15);
  CHECK(flipped >= 20);
  CHECK(outside == flipped);
  MESSAGE(std::string(complex ? "complex" : "real")
          << ": gpu-dense double-double on the host, median certified digits " << strided.median() << " ("
          << strided.checked << " matrices; N = 24: " << padded.median()
          << "); one term flipped, outside the bound: " << outside << " of " << flipped);
}

}  // namespace

TEST_CASE("gpu-dense's double-double walk on the host: bounds contain the exact permanent, a flipped term not") {
  check_dense_dd_walk<double>(127);
  check_dense_dd_walk<sp::complex_double>(131);
}

TEST_CASE("the fine parts' term: F_i bounds what the grids moved a row by, P1 - P0 what that moves a term by") {
  // rows whose two large entries cancel: for half the subsets x_i is small beside the row's Σ|a|, so
  // the grids' rounding moves x_i by far more than double's rounding of the term (F_i / |x_i| about
  // 2^−25, against a product's 2n·u); the worst f_i = F_i·x_i/|x_i| moves Π x by exactly P1 − P0
  namespace d = sp::detail;
  sp::random_stream stream(59);
  int terms = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 3 + trial % 8;
    const bool complex = trial % 2 == 1;
    std::vector<sp::matrix_entry> entries = random_cancelling(stream, n, complex).entries();
    for (sp::matrix_entry& e : entries) {
      if (e.row % 2 == 0 && e.column < 2) e.value += e.column == 0 ? 0x1p20 : -0x1p20;
    }
    const sp::sparse_matrix a = sp::sparse_matrix::from_entries(n, entries);
    const auto check = [&]<class X>(const d::ryser_columns<X>& columns) {
      // F_i against Σ_j |a_ij − â_ij| / 2 in long double (each difference exact)
      std::vector<long double> moved(static_cast<std::size_t>(n), 0.0L);
      for (int position = 0; position < n; ++position) {
        const int j = a.columns_by_degree()[static_cast<std::size_t>(position)];
        for (const sp::matrix_entry& e : entries) {
          if (e.column != j) continue;
          for (int k = columns.start[position]; k < columns.start[position + 1]; ++k) {
            if (columns.rows[k] != e.row) continue;
            if constexpr (sp::is_complex_number<X>) {
              moved[e.row] += std::fabs(static_cast<long double>(columns.values[k].re) - e.value) +
                              std::fabs(static_cast<long double>(columns.values[k].im) - e.imag);
            } else {
              moved[e.row] += std::fabs(static_cast<long double>(columns.values[k]) - e.value);
            }
          }
        }
      }
      for (int i = 0; i < n; ++i) {
        CHECK(columns.fine[i] >= moved[i] / 2);
        CHECK(columns.fine[i] <= moved[i] / 2 * (1 + 0x1p-30L));
      }
      // every subset g of the first n − 1 columns: x̂_g = x_0 + its columns, exact on the grids
      for (std::uint64_t g = 0; g < (std::uint64_t{1} << (n - 1)); ++g) {
        std::vector<X> x = columns.x0;
        for (int j = 0; j + 1 < n; ++j) {
          if (!((g >> j) & 1)) continue;
          for (int k = columns.start[j]; k < columns.start[j + 1]; ++k) x[columns.rows[k]] += columns.values[k];
        }
        d::fine_parts_sum<
            std::conditional_t<sp::is_complex_number<X>, d::complex_sum<d::compensated_sum>, d::compensated_sum>>
            sum;
        d::add_fine_parts_term(x.data(), columns.fine.data(), n, 1, sum, false);
        long double p0 = 1, p1 = 1, worst = 1;
        for (int i = 0; i < n; ++i) {
          long double m;
          if constexpr (sp::is_complex_number<X>) {
            m = std::hypot(static_cast<long double>(x[i].re), static_cast<long double>(x[i].im));
          } else {
            m = std::fabs(static_cast<long double>(x[i]));
          }
          p0 *= m;
          worst *= m + static_cast<long double>(moved[i]) / 2;
          p1 *= m + columns.fine[i];
        }
        worst -= p0;  // |Π (x̂_i + f_i) − Π x̂_i| for f_i = F_i·x̂_i/|x̂_i|, the largest
        const double unit = d::gamma_of(2 * n, 0x1p-53) + d::gamma_of(n, 0x1p-53);
        const double base = sp::is_complex_number<X> ? sum.fine.base : static_cast<double>(p0);
        CAPTURE(n);
        CAPTURE(g);
        CHECK(worst <= static_cast<long double>(sum.fine.excess) * (1 + 0x1p-40L) + unit * 1.1L * base);
        ++terms;
      }
    };
    std::vector<int> order = a.columns_by_degree();
    if (complex) {
      check(d::make_ryser_columns<sp::complex_double>(a, order, false, true));
    } else {
      check(d::make_ryser_columns<double>(a, order, false, true));
    }
  }
  CHECK(terms > 5000);
}

namespace {

// Glynn's sum over repeated rows and columns (the glynn engine's run), its terms summed in Sum: flipped
// sums flip one term's sign.
struct glynn_summer_with_flip {
  bool flip = false;
  template <class Arith, class Sum>
  Sum operator()(const sp::detail::glynn_setup& g, const std::vector<typename Arith::value>& u,
                 sp::detail::glynn_summing& summing) const {
    if constexpr (requires { Sum::compensated; }) {  // floating sums
      flip_pending = flip;
      return sp::detail::glynn_on_host{}.template operator()<Arith, flipped_sum<Sum>>(g, u, summing);
    } else {
      return sp::detail::glynn_on_host{}.template operator()<Arith, Sum>(g, u, summing);
    }
  }
};

sp::permanent_result run_glynn(const sp::sparse_matrix& a, sp::precision p, bool flip = false) {
  return sp::detail::run_glynn(a, {.precision = p, .threads = 2, .progress = nullptr, .sharing = {}}, "glynn",
                               glynn_summer_with_flip{flip});
}

}  // namespace

TEST_CASE("glynn's bounds where terms cancel: repeated rows and columns, double and double-double") {
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 61 : 59);
    exact_dyadic::bound_tally plain, compensated, wide;
    for (int trial = 0; trial < 110; ++trial) {
      const ts::repeated_case c = ts::random_repeated(stream, complex ? 1 : 0, complex ? 12 : 14);
      const sp::sparse_matrix a = sp::expand_lines(c.base, c.rows, c.columns);
      if (a.has_empty_line()) continue;
      const exact_complex exact = exact_complex_permanent(a);
      const std::string what = std::string(complex ? "complex" : "real") + " n = " + std::to_string(a.n()) + ", " +
                               std::to_string(c.base.n()) + " distinct lines";
      plain.check(run_glynn(a, sp::precision::double_sums), exact, what + ", double");
      compensated.check(run_glynn(a, sp::precision::compensated), exact, what + ", compensated");
      wide.check(run_glynn(a, sp::precision::double_double), exact, what + ", double-double");
    }
    CAPTURE(complex);
    CHECK(wide.checked >= 100);
    CHECK(plain.inexact > plain.checked / 2);
    CHECK(wide.median() >= 15);
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": glynn's median certified digits: double " << plain.median() << ", compensated "
            << compensated.median() << ", double-double " << wide.median() << " (" << wide.checked << " matrices)");
  }
  // a flipped term falls outside double-double's bound
  sp::random_stream stream(67);
  int outside = 0, runs = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const ts::repeated_case c = ts::random_repeated(stream, trial % 2, 12);
    const sp::sparse_matrix a = sp::expand_lines(c.base, c.rows, c.columns);
    if (a.has_empty_line()) continue;
    const exact_complex exact = exact_complex_permanent(a);
    const sp::permanent_result honest = run_glynn(a, sp::precision::double_double);
    const sp::permanent_result tampered = run_glynn(a, sp::precision::double_double, true);
    CHECK(error_of(honest, exact) <= *honest.error_bound);
    if (tampered.value == honest.value && tampered.imag == honest.imag) continue;  // the flipped term was 0
    ++runs;
    if (error_of(tampered, exact) > *tampered.error_bound) ++outside;
  }
  CHECK(runs >= 20);
  CHECK(outside == runs);
}

TEST_CASE("auto repeats a run in double-double where double certifies fewer digits than asked") {
  sp::random_stream stream(53);
  int escalated = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const sp::sparse_matrix a = random_cancelling(stream, 14, trial % 2 == 1);
    const exact_complex exact = exact_complex_permanent(a);
    sp::compute_options options;
    options.digits = 15;
    sp::compute_options compensated;
    compensated.precision = sp::precision::compensated;
    const sp::permanent_result first = sp::compute_permanent(a, compensated);
    const sp::permanent_result r = sp::compute_permanent(a, options);
    CAPTURE(r.plan);
    CHECK(error_of(r, exact) <= *r.error_bound);
    if (sp::trusted_digits(first).value_or(0) < 15) {
      ++escalated;
      CHECK(r.plan.find("so again in double-double") != std::string::npos);
      CHECK(sp::trusted_digits(r).value_or(0) >= 15);
    }
    // the default, 10 digits, is met in double here: no second run
    const sp::permanent_result ten = sp::compute_permanent(a);
    CHECK(ten.plan.find("double-double") == std::string::npos);
    CHECK(sp::trusted_digits(ten).value_or(0) >= 10);
  }
  CHECK(escalated >= 4);  // double certifies 11 to 14 digits at n = 14: most runs escalate
}

TEST_CASE("--precision double-double: refused by engines without it, digits only with auto") {
  const sp::sparse_matrix a = sp::sparse_matrix::from_dense(2, std::vector<double>{0.5, -0.25, 0.75, 1});
  sp::compute_options options;
  options.precision = sp::precision::double_double;
  options.engine = sp::engine_choice(&sp::description_of<sp::engines::reference>);
  CHECK_THROWS_WITH_AS(
      sp::compute_permanent(a, options),
      doctest::Contains("engine 'reference' does not run --precision double-double (engines that do: "),
      sp::engine_error);
  const auto texts = [](std::string precision, std::string digits) {
    sp::setting_texts t;
    t.precision = std::move(precision);
    t.digits = std::move(digits);
    return t;
  };
  CHECK_THROWS_WITH_AS(sp::options_from_text(texts("double", "12")),
                       "option '--digits' is auto's goal: precision 'double' runs as asked", std::invalid_argument);
  CHECK_THROWS_AS(sp::options_from_text(texts("", "18")), std::invalid_argument);
  CHECK(sp::options_from_text(texts("", "12")).digits == 12);
  CHECK(sp::options_from_text(texts("auto", "")).precision == sp::precision::automatic);
}

namespace {

// D / 10^f, from a decimal "−123.456", equals m·2^e: D·2^−e = m·10^f (e < 0) or D = m·2^e·10^f.
bool decimal_equals(const std::string& text, const ts::dyadic& exact) {
  std::string digits = text;
  std::size_t f = 0;
  if (const std::size_t point = digits.find('.'); point != std::string::npos) {
    f = digits.size() - point - 1;
    digits.erase(point, 1);
  }
  big_integer left = big_integer::from_decimal(digits), right = exact.m;
  for (std::size_t k = 0; k < f; ++k) right = right.times(10);
  if (exact.e < 0) {
    left = ts::times_power_of_two(left, -exact.e);
  } else {
    right = ts::times_power_of_two(right, exact.e);
  }
  return left == right;
}

}  // namespace

TEST_CASE("exact dyadic permanents of matrices of doubles, and 62! a^62 in Glynn's terms") {
  sp::random_stream stream(61);
  // 40 matrices of 53-bit values in ±[1/2, 1) (each row spans 53 binary orders: integers below 2^53),
  // then 30 of full 53-bit values of many binary orders, some entries absent (integers beyond 2^53,
  // which dp's big integers take)
  for (int trial = 0; trial < 70; ++trial) {
    const bool wide_rows = trial >= 40;
    const int n = wide_rows ? 1 + trial % 10 : 2 + trial % 9;
    const bool complex = trial % 2 == 1;
    std::vector<sp::matrix_entry> entries;
    const auto value = [&] {
      return wide_rows ? std::ldexp(2 * stream.uniform() - 1, -static_cast<int>(stream.below(40)))
                       : (stream.uniform() < 0.5 ? -1 : 1) * (0.5 + stream.uniform() / 2);
    };
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (wide_rows && stream.uniform() < 0.2) continue;
        const double re = value();
        entries.push_back({i, j, re, complex ? value() : 0.0});
      }
    }
    const sp::sparse_matrix a = sp::sparse_matrix::from_entries(n, std::move(entries));
    const exact_complex exact = exact_complex_permanent(a);
    sp::compute_options options;
    options.precision = sp::precision::exact;
    const sp::permanent_result r = sp::compute_permanent(a, options);
    CAPTURE(n);
    CAPTURE(r.plan);
    REQUIRE(r.exact);
    CHECK(decimal_equals(r.permanent, exact.re));
    CHECK(decimal_equals(r.complex ? r.permanent_imag : std::string("0"), exact.im));
    CHECK(r.plan.find("exact dyadic") != std::string::npos);
  }
  const sp::sparse_matrix wide = sp::sparse_matrix::from_dense(2, std::vector<double>{0.1, 3.3, -0.7, 1e-3});
  sp::compute_options exact;
  exact.precision = sp::precision::exact;
  const sp::permanent_result w = sp::compute_permanent(wide, exact);
  CHECK(w.exact);
  CHECK(w.plan.find("exact big integers") != std::string::npos);
  CHECK(decimal_equals(w.permanent, exact_complex_permanent(wide).re));
  exact.engine = sp::engine_choice(&sp::description_of<sp::engines::cpu_sparse>);
  CHECK_THROWS_WITH_AS(sp::compute_permanent(wide, exact), doctest::Contains("auto and dp compute it exactly"),
                       sp::engine_error);

  // SUperman's all-0.91 62 x 62: auto's double certifies a few digits, then Glynn's 62 terms exactly
  const double a = 0.91;
  const sp::permanent_result r = sp::compute_permanent(ts::dense_matrix(62, a));
  CAPTURE(r.plan);
  REQUIRE(r.exact);
  CHECK(r.engine == "glynn");
  ts::dyadic expected{big_integer(1ll), 0};
  for (int k = 2; k <= 62; ++k) expected.m = expected.m.times(k);
  const ts::dyadic da = ts::dyadic_of(a);
  for (int k = 0; k < 62; ++k) expected.m = expected.m * da.m, expected.e += da.e;
  CHECK(decimal_equals(r.permanent, expected));
}

namespace {

// Σ|t| of the Nijenhuis–Wilf terms, every one of them (n ≤ 16).
double all_terms_magnitude(const sp::sparse_matrix& a) {
  const int n = a.n();
  std::vector<std::complex<double>> x0(n, 0.0);
  std::vector<std::vector<std::complex<double>>> dense(n, std::vector<std::complex<double>>(n, 0.0));
  for (int i = 0; i < n; ++i) {
    const auto columns = a.row_columns(i);
    const auto re = a.row_values(i);
    const auto im = a.row_imag(i);
    for (std::size_t k = 0; k < columns.size(); ++k) dense[i][columns[k]] = {re[k], im.empty() ? 0.0 : im[k]};
    for (int j = 0; j < n; ++j) x0[i] += j == n - 1 ? dense[i][j] : -0.5 * dense[i][j];
  }
  double sum = 0;
  for (std::uint32_t mask = 0; mask < (1u << (n - 1)); ++mask) {
    double term = 1;
    for (int i = 0; i < n; ++i) {
      std::complex<double> x = x0[i];
      for (int j = 0; j + 1 < n; ++j)
        if (mask & (1u << j)) x += dense[i][j];
      term *= std::abs(x);
    }
    sum += term;
  }
  return sum;
}

}  // namespace

TEST_CASE("inspect's digits forecast: the sampled sum of |terms| and the digits a run certifies") {
  sp::random_stream stream(89);
  for (const bool complex : {false, true}) {
    for (const int n : {8, 12, 14}) {
      const sp::sparse_matrix a = random_cancelling(stream, n, complex);
      const sp::detail::digits_forecast f = sp::detail::forecast_digits(a);
      const double truth = all_terms_magnitude(a);
      CAPTURE(complex);
      CAPTURE(n);
      CAPTURE(truth);
      CAPTURE(f.term_sum);
      CHECK_FALSE(f.nonnegative);
      CHECK(f.term_sum >= truth / 2);
      CHECK(f.term_sum <= truth * 2);
      const sp::permanent_result r = run_cpu_sparse(a, sp::precision::double_sums);
      const double modulus = std::hypot(r.value, r.complex ? r.imag : 0.0);
      const double forecast = std::log10(modulus / f.permanent_for(0, f.double_unit));
      const int certified = sp::trusted_digits(r).value_or(0);
      CAPTURE(forecast);
      CAPTURE(certified);
      CHECK(std::fabs(forecast - certified) <= 2);
    }
  }
  // nonnegative values: a relative bound whatever the terms do
  const sp::detail::digits_forecast ones = sp::detail::forecast_digits(ts::dense_matrix(10, 0.5));
  CHECK(ones.nonnegative);
  CHECK(ones.nonnegative_double_digits() >= 12);
}
