// gpu-dense against the reference (real and complex, every precision, n = 2..22 in the compiled
// sizes 16 and 24), against gpu-sparse where the reference is slow (n = 25..32, padding and none),
// one queue and two bit for bit over many chunks, bounds that say something, double-double against
// gpu-sparse's up to n = 36, and auto's choice of it for a dense complex block (in double, then in
// double-double) and in batches.
#include "gpu_test_main.hpp"

#include <sparseperm/perm.cuh>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../agreement.hpp"
#include "../engine_options.hpp"
#include "random_matrix.hpp"

namespace sp = sparseperm;

namespace {

// Dense: every entry present, parts uniform in [−1, 1] (small integers when `integers`).
sp::sparse_matrix random_dense(sp::random_stream& s, int n, bool complex, bool integers) {
  std::vector<sp::matrix_entry> entries;
  const auto part = [&] {
    return integers ? static_cast<double>(static_cast<long long>(s.below(5)) - 2) : 1 - 2 * s.uniform();
  };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double re = part(), im = complex ? part() : 0.0;
      if (re != 0 || im != 0) entries.push_back({i, j, re, im});
    }
  }
  return sp::sparse_matrix::from_entries(n, std::move(entries));
}

const sp::engine_description* dense_engine() { return &sp::description_of<sp::engines::gpu_dense>; }

}  // namespace

TEST_CASE("gpu-dense agrees with the reference, real and complex, in every precision") {
  sp::random_stream s(5150);
  const auto* reference = &sp::description_of<sp::engines::reference>;
  int exact = 0, bounded = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 21;  // 2..22: N = 16 and 24
    const bool complex = trial % 2 == 1, integers = trial % 5 == 0;
    const auto m = random_dense(s, n, complex, integers);
    if (sp::maximum_matching(m).size < n) continue;
    const auto r = sp::compute_permanent(m, test_options::with_engine(reference));
    for (auto p : {sp::precision::automatic, sp::precision::double_sums, sp::precision::compensated}) {
      if (integers && p != sp::precision::automatic) continue;  // floating sums of an exact value
      const auto g = sp::compute_permanent(m, test_options::with_engine(dense_engine(), p));
      INFO("n = " << n << (complex ? " complex" : " real") << (integers ? " integers" : "") << ": gpu-dense "
                  << sp::complex_text(g) << ", reference " << sp::complex_text(r) << " (" << g.plan << ")");
      CHECK(g.engine == "gpu-dense");
      if (g.exact) {
        CHECK(g.plan.find("exact: gpu-sparse's kernel") != std::string::npos);
      } else {
        CHECK(g.plan.find("dense: ") != std::string::npos);
      }
      if (test_agreement::check_agree(g, r)) {
        ++exact;
      } else {
        ++bounded;
      }
    }
  }
  std::printf("gpu-dense: %d exact results equal, %d error bounds checked\n", exact, bounded);
  CHECK(exact >= 8);
  CHECK(bounded >= 120);
}

TEST_CASE("gpu-dense and gpu-sparse agree within their bounds at n = 25..32") {
  sp::random_stream s(77);
  const auto* sparse = &sp::description_of<sp::engines::gpu_sparse>;
  for (const int n : {25, 28, 29, 30, 32}) {
    for (const bool complex : {false, true}) {
      const auto m = random_dense(s, n, complex, false);
      // in double: the default would run the complex ones again in double-double (the test below)
      const auto g = sp::compute_permanent(m, test_options::with_engine(dense_engine(), sp::precision::double_sums));
      const auto q = sp::compute_permanent(m, test_options::with_engine(sparse, sp::precision::double_sums));
      INFO("n = " << n << (complex ? " complex" : " real") << ": gpu-dense " << sp::complex_text(g) << " (" << g.plan
                  << "), gpu-sparse " << sp::complex_text(q));
      test_agreement::check_agree(g, q);
      const int rows = complex && (n == 29 || n == 30) ? 30 : (n + 3) / 4 * 4;  // complex 29, 30: no N = 32
      CHECK(g.plan.find("dense: " + std::to_string(rows) + " rows") != std::string::npos);
      std::printf("n = %d %s: gpu-dense %.3f s, gpu-sparse %.3f s\n", n, complex ? "complex" : "real",
                  g.seconds.compute, q.seconds.compute);
    }
  }
}

TEST_CASE("gpu-dense: one queue and two give the same sums bit for bit over many chunks") {
  sp::random_stream s(3);
  for (const bool complex : {false, true}) {
    const auto m = random_dense(s, 23, complex, false);
    const auto one = sp::permanent_gpu_dense(m, {.devices = {0}, .min_chunk_bits = 12, .max_chunk_bits = 14});
    const auto two = sp::permanent_gpu_dense(m, {.devices = {0, 0}, .min_chunk_bits = 12, .max_chunk_bits = 14});
    const auto whole = sp::permanent_gpu_dense(m);
    INFO(one.plan);
    CHECK(one.plan.find("chunks of 2^") != std::string::npos);
    CHECK(one.value == two.value);
    CHECK(one.imag == two.imag);
    REQUIRE(whole.error_bound.has_value());
    CHECK(std::hypot(one.value - whole.value, one.imag - whole.imag) <= 2 * *whole.error_bound);
  }
}

TEST_CASE("gpu-dense's bound says something: a positive dense matrix, and a value moved past it") {
  sp::random_stream s(11);
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < 26; ++i)
    for (int j = 0; j < 26; ++j) entries.push_back({i, j, 0.5 + s.uniform()});
  const auto m = sp::sparse_matrix::from_entries(26, std::move(entries));
  const auto g = sp::compute_permanent(m, test_options::with_engine(dense_engine()));
  const auto q = sp::compute_permanent(m, test_options::with_engine(&sp::description_of<sp::engines::gpu_sparse>));
  REQUIRE(g.error_bound.has_value());
  CHECK(*g.error_bound <= 1e-10 * std::abs(g.value));
  CHECK(std::abs(g.value - q.value) <= *g.error_bound + *q.error_bound);
  const double tampered = g.value + 3 * (*g.error_bound + *q.error_bound);
  CHECK(std::abs(tampered - q.value) > *g.error_bound + *q.error_bound);
}

TEST_CASE("gpu-dense in double-double agrees with gpu-sparse's within their bounds at n = 17..36") {
  // n beyond the exact permanents of the tests (tests/gpu/test_gpu_bounds.cu has those), every compiled
  // size, padding and none: the two kernels' values agree within the sum of their bounds, and each
  // bound certifies 14 digits or more (the values' terms cancel: parts uniform in [-1, 1])
  sp::random_stream s(2718);
  const auto* sparse = &sp::description_of<sp::engines::gpu_sparse>;
  for (const int n : {17, 24, 27, 28, 30, 31, 32, 35, 36}) {
    for (const bool complex : {false, true}) {
      if (n > 32 && complex) continue;  // (a few seconds each in double-double)
      const auto m = random_dense(s, n, complex, false);
      const auto g = sp::compute_permanent(m, test_options::with_engine(dense_engine(), sp::precision::double_double));
      const auto q = sp::compute_permanent(m, test_options::with_engine(sparse, sp::precision::double_double));
      INFO("n = " << n << (complex ? " complex" : " real") << ": gpu-dense " << sp::complex_text(g) << " (" << g.plan
                  << "), gpu-sparse " << sp::complex_text(q));
      CHECK(g.plan.find("split row sums") != std::string::npos);
      CHECK(g.plan.find("dense: " + std::to_string(sp::detail::dense_dd_rows_for(n, complex)) + " rows") !=
            std::string::npos);
      REQUIRE(g.error_bound.has_value());
      REQUIRE(q.error_bound.has_value());
      CHECK(std::hypot(g.value - q.value, g.imag - q.imag) <= *g.error_bound + *q.error_bound);
      CHECK(sp::trusted_digits(g).value_or(0) >= 14);
      std::printf("n = %d %s in double-double: gpu-dense %.3f s, gpu-sparse %.3f s, %d digits\n", n,
                  complex ? "complex" : "real", g.seconds.compute, q.seconds.compute,
                  sp::trusted_digits(g).value_or(0));
    }
  }
}

TEST_CASE("auto runs a dense complex 32 x 32 on gpu-dense, in double and then in double-double") {
  sp::random_stream s(32);
  const auto m = random_dense(s, 32, true, false);
  // in double: the default asks for 10 digits and runs such a matrix again in double-double, on
  // gpu-dense's own kernel
  sp::compute_options options;
  options.precision = sp::precision::double_sums;
  const auto r = sp::compute_permanent(m, options);
  INFO(r.plan);
  CHECK(r.engine.find("gpu-dense") != std::string::npos);
  const auto certified = sp::compute_permanent(m);
  INFO(certified.plan);
  CHECK(sp::trusted_digits(certified).value_or(0) >= 10);
  CHECK(certified.plan.find("so again in double-double") != std::string::npos);
  CHECK(certified.engine == "gpu-dense");
}

TEST_CASE("a batch: small dense matrices a warp each, few large ones the whole GPU each (gpu-dense)") {
  sp::random_stream s(64);
  std::vector<sp::sparse_matrix> batch;
  for (int k = 0; k < 200; ++k) batch.push_back(random_dense(s, 12, k % 2 == 1, false));             // a warp each
  for (int k = 0; k < 8; ++k) batch.push_back(random_dense(s, k < 4 ? 22 : 27, k % 2 == 1, false));  // whole GPU
  sp::compute_options options;
  options.threads = 2;
  const auto results = sp::compute_permanents(
      static_cast<std::int64_t>(batch.size()), [&](std::int64_t k) { return batch[static_cast<std::size_t>(k)]; },
      options);
  REQUIRE(results.size() == batch.size());
  int warps = 0, whole = 0;
  for (std::size_t k = 0; k < batch.size(); ++k) {
    const auto single = sp::compute_permanent(batch[k], test_options::with_engine(dense_engine()));
    INFO("matrix " << k << ", n = " << batch[k].n() << ": " << results[k].engine << " (" << results[k].plan << ")");
    if (batch[k].n() == 12) {
      CHECK(results[k].engine == "gpu-sparse");
      CHECK(results[k].plan.find("a warp each") != std::string::npos);
      ++warps;
    } else {  // gpu-dense's run, and where its one grid a row certified too few digits, auto's again
      const bool again = results[k].plan.find("so again in double-double") != std::string::npos;
      CHECK((results[k].engine == "gpu-dense" || again));
      CHECK((again || results[k].plan.find("dense: ") != std::string::npos));
      CHECK(sp::trusted_digits(results[k]).value_or(0) >= 10);
      ++whole;
    }
    test_agreement::check_agree(results[k], single);
  }
  CHECK(warps == 200);
  CHECK(whole == 8);
}
