// Bounds on the GPU where terms cancel: on random signed real and complex matrices of full 53-bit
// values, every bound of gpu-sparse contains the exact dyadic permanent (big integers), in double,
// compensated and double-double, and double-double's running bound certifies 15 digits (gpu-dense's
// double-double kernel too), and under auto
// (one grid, the fine parts' bound) 10 or more; gpu-dp's in
// double and double-double too, on band matrices up to n = 45 as well, its double-double values
// bit-identical to the same steps on host threads; gpu-glynn's where rows and columns repeat; a
// batch's warp route in auto (split row sums) and double.
#include "gpu_test_main.hpp"

#include <sparseperm/dp/ranked_dp.cuh>
#include <sparseperm/perm.cuh>
#include <sparseperm/structure/repeated_lines.cuh>

#include <algorithm>
#include <string>
#include <vector>

#include "../band_matrices.hpp"
#include "../bound_tally.hpp"
#include "../engine_options.hpp"
#include "../exact_dyadic.hpp"

namespace sp = sparseperm;

namespace {

sp::permanent_result on_gpu(const sp::engine_description& engine, const sp::sparse_matrix& a, sp::precision p) {
  sp::compute_options options = test_options::with_engine(&engine);
  options.precision = p;
  return sp::compute_permanent(a, options);
}

std::string kind_of(bool complex, int n) {
  return std::string(complex ? "complex" : "real") + " n = " + std::to_string(n);
}

}  // namespace

TEST_CASE("gpu-sparse: running bounds contain the exact permanent where terms cancel") {
  const auto& gpu_sparse = sp::description_of<sp::engines::gpu_sparse>;
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 71 : 67);
    exact_dyadic::bound_tally plain, compensated, wide;
    for (int trial = 0; trial < 100; ++trial) {
      const int n = 2 + trial % (complex ? 11 : 13);
      const sp::sparse_matrix a = exact_dyadic::random_cancelling(stream, n, complex);
      const exact_dyadic::exact_complex exact = exact_dyadic::exact_complex_permanent(a);
      const std::string what = kind_of(complex, n);
      plain.check(on_gpu(gpu_sparse, a, sp::precision::double_sums), exact, what + ", double");
      compensated.check(on_gpu(gpu_sparse, a, sp::precision::compensated), exact, what + ", compensated");
      wide.check(on_gpu(gpu_sparse, a, sp::precision::double_double), exact, what + ", double-double");
    }
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": median certified digits on gpu-sparse: double " << plain.median() << ", compensated "
            << compensated.median() << ", double-double " << wide.median() << " (100 matrices)");
    CHECK(wide.median() >= 15);  // double and compensated keep the grids' a-priori term on the GPU
  }
}

TEST_CASE("gpu-dense in double-double: running bounds contain the exact permanent where terms cancel") {
  // the dense kernel of split row sums and double-double products (N = 16 rows, padding included),
  // in several chunks; double and compensated keep one grid a row (the grids' a-priori term)
  const auto& gpu_dense = sp::description_of<sp::engines::gpu_dense>;
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 151 : 149);
    exact_dyadic::bound_tally plain, wide, chunked;
    for (int trial = 0; trial < 100; ++trial) {
      const int n = 2 + trial % (complex ? 11 : 13);
      const sp::sparse_matrix a = exact_dyadic::random_cancelling(stream, n, complex, trial % 4 == 0 ? 0.6 : 1.0);
      const exact_dyadic::exact_complex exact = exact_dyadic::exact_complex_permanent(a);
      const std::string what = kind_of(complex, n);
      plain.check(on_gpu(gpu_dense, a, sp::precision::compensated), exact, what + ", compensated");
      const sp::permanent_result r = on_gpu(gpu_dense, a, sp::precision::double_double);
      CHECK(r.plan.find("split row sums") != std::string::npos);
      wide.check(r, exact, what + ", double-double");
      if (n < 8) continue;
      sp::gpu::launch_options options;
      options.precision = sp::precision::double_double;
      options.min_chunk_bits = 4;  // several chunks, so several records
      options.max_chunk_bits = 4;
      chunked.check(sp::permanent_gpu_dense(a, options), exact, what + ", double-double in chunks of 2^4");
    }
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": median certified digits on gpu-dense: compensated " << plain.median() << ", double-double "
            << wide.median() << " (100 matrices), in chunks " << chunked.median() << " (" << chunked.checked << ")");
    CHECK(wide.median() >= 15);
    CHECK(chunked.median() >= 15);
    CHECK(plain.median() + 5 <= wide.median());
  }
}

TEST_CASE("gpu-sparse under auto: the fine parts' running bound contains the exact permanent and says something") {
  // the engine's run under auto (without the double-double run that follows where it certifies
  // fewer digits than asked) and the fine parts' run alone (one grid a row, F_i in shared memory):
  // three digits or more beyond the grids' a-priori term, and one entry changed by one part in 10^9
  // moves the exact permanent outside it
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 83 : 79);
    exact_dyadic::bound_tally automatic, fine, one_grid;
    int outside = 0, tampered = 0, again = 0;
    for (int trial = 0; trial < 100; ++trial) {
      const int n = 2 + trial % (complex ? 11 : 13);
      const sp::sparse_matrix a = exact_dyadic::random_cancelling(stream, n, complex, trial % 3 == 0 ? 0.5 : 1.0);
      const exact_dyadic::exact_complex exact = exact_dyadic::exact_complex_permanent(a);
      const std::string what = kind_of(complex, n);
      sp::gpu::launch_options options;
      options.min_chunk_bits = 4;  // several chunks, so several records
      // auto as the engine runs it: the fine parts' run again where the first run's rounding
      // certifies more digits than the grids' a-priori change leaves
      const sp::permanent_result first = sp::detail::run_gpu_sparse(a, options, "gpu-sparse");
      automatic.check(first, exact, what + ", auto");
      if (first.plan.find("so again with the fine parts") != std::string::npos) ++again;
      options.fine_parts_at_once = true;
      const sp::permanent_result r = sp::detail::run_gpu_sparse(a, options, "gpu-sparse");
      // (the grids round some value of nearly every such matrix; the others need no fine parts)
      CHECK((r.plan.find("fine parts") != std::string::npos) == sp::detail::grids_round_signed_values(a));
      fine.check(r, exact, what + ", fine parts");
      options.fine_parts_at_once = false;
      options.precision = sp::precision::compensated;
      one_grid.check(sp::detail::run_gpu_sparse(a, options, "gpu-sparse"), exact, what + ", compensated");
      if (trial % 3 != 1 || n < 6) continue;
      std::vector<sp::matrix_entry> entries = a.entries();
      entries[static_cast<std::size_t>(trial) % entries.size()].value *= 1 + 1e-9;
      const auto changed = exact_dyadic::exact_complex_permanent(sp::sparse_matrix::from_entries(n, entries));
      ++tampered;
      if (exact_dyadic::error_of(r, changed) > *r.error_bound) ++outside;
    }
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": gpu-sparse with the fine parts' bound, median certified digits " << fine.median()
            << " (compensated, one grid: " << one_grid.median() << "; auto " << automatic.median() << ", run again on "
            << again << "); changed by 1e-9 and outside the bound: " << outside << " of " << tampered);
    CHECK(fine.median() >= 10);
    CHECK(automatic.median() >= 10);
    CHECK(again > 20);
    CHECK(one_grid.median() + 3 <= fine.median());
    CHECK(outside >= tampered * 9 / 10);
  }
}

TEST_CASE("a batch a warp each: split row sums under auto contain the exact permanent where terms cancel") {
  // the batch's warp route (engine gpu-sparse: every dense floating matrix on the GPU, a warp each),
  // 16 matrices of each n = 8..13: auto splits the row sums as cpu-sparse does; double keeps one grid
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 113 : 109);
    exact_dyadic::bound_tally automatic, in_double;
    for (int n = 8; n <= 13; ++n) {
      std::vector<sp::sparse_matrix> batch;
      for (int k = 0; k < 16; ++k) batch.push_back(exact_dyadic::random_cancelling(stream, n, complex));
      const auto at = [&](std::int64_t k) { return batch[static_cast<std::size_t>(k)]; };
      sp::compute_options options = test_options::with_engine(&sp::description_of<sp::engines::gpu_sparse>);
      const auto results = sp::compute_permanents(16, at, options);
      options.precision = sp::precision::double_sums;
      const auto fast = sp::compute_permanents(16, at, options);
      for (std::size_t k = 0; k < batch.size(); ++k) {
        const exact_dyadic::exact_complex exact = exact_dyadic::exact_complex_permanent(batch[k]);
        CHECK(results[k].plan.find("a warp each") != std::string::npos);
        automatic.check(results[k], exact, kind_of(complex, n) + ", auto");
        in_double.check(fast[k], exact, kind_of(complex, n) + ", double");
      }
    }
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": a warp each, median certified digits: auto " << automatic.median() << ", double "
            << in_double.median() << " (96 matrices)");
    CHECK(automatic.median() >= 11);
    CHECK(in_double.median() + 3 <= automatic.median());
  }
}

TEST_CASE("gpu-dp in double-double: bounds contain the exact permanent, bit-identical to the host's steps") {
  const auto& gpu_dp = sp::description_of<sp::engines::gpu_dp>;
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 103 : 101);
    exact_dyadic::bound_tally plain, wide;
    int identical = 0;
    for (int trial = 0; trial < 130; ++trial) {
      // 100 full matrices (n ≤ 14 real, ≤ 12 complex), then 30 bands of n = 16..45
      const bool band = trial >= 100;
      const int n = band ? trial - 84 : 2 + trial % (complex ? 11 : 13);
      const sp::sparse_matrix a =
          band ? band_matrices::random_band(stream, n, complex) : exact_dyadic::random_cancelling(stream, n, complex);
      const exact_dyadic::exact_complex exact =
          band ? band_matrices::exact_band_permanent(a) : exact_dyadic::exact_complex_permanent(a);
      const std::string what = kind_of(complex, n) + (band ? " band" : "");
      plain.check(on_gpu(gpu_dp, a, sp::precision::double_sums), exact, what + ", double");
      const sp::permanent_result r = on_gpu(gpu_dp, a, sp::precision::double_double);
      wide.check(r, exact, what + ", double-double");
      const sp::dp_value host = sp::detail::ranked_dp_value(
          a, sp::frontier_orders(a).front(), sp::precision::double_double, "host", sp::detail::ranked_dp_on_host{4});
      if (r.value == host.value && r.imag == host.imag) ++identical;
    }
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": median certified digits on gpu-dp: double " << plain.median() << ", double-double " << wide.median()
            << " (130 matrices); double-double bit-identical to the host's steps on " << identical);
    CHECK(wide.median() >= 15);
    CHECK(identical == wide.checked);
  }
}

TEST_CASE("gpu-glynn in double-double: bounds contain the exact permanent where rows and columns repeat") {
  const auto& gpu_glynn = sp::description_of<sp::engines::gpu_glynn>;
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 109 : 107);
    exact_dyadic::bound_tally plain, wide;
    while (wide.checked < 100) {
      const test_support::repeated_case c = test_support::random_repeated(stream, complex ? 1 : 0, complex ? 12 : 14);
      const sp::sparse_matrix a = sp::expand_lines(c.base, c.rows, c.columns);
      if (sp::maximum_matching(a).size < a.n()) continue;  // permanent 0 for a structural reason: exact
      const exact_dyadic::exact_complex exact = exact_dyadic::exact_complex_permanent(a);
      const std::string what = kind_of(complex, a.n()) + ", " + std::to_string(c.base.n()) + " distinct lines";
      plain.check(on_gpu(gpu_glynn, a, sp::precision::compensated), exact, what + ", compensated");
      wide.check(on_gpu(gpu_glynn, a, sp::precision::double_double), exact, what + ", double-double");
    }
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": median certified digits on gpu-glynn: compensated " << plain.median() << ", double-double "
            << wide.median() << " (100 matrices)");
    CHECK(wide.median() >= 15);
  }
}
