// gpu-sparse's bounds where Ryser's terms cancel: on random signed real and complex matrices of full
// 53-bit values, every bound contains the exact dyadic permanent (big integers), in double,
// compensated and double-double, and double-double's running bound certifies 15 digits.
#include "gpu_test_main.hpp"

#include <sparseperm/perm.cuh>

#include <algorithm>
#include <string>
#include <vector>

#include "../engine_options.hpp"
#include "../exact_dyadic.hpp"

namespace sp = sparseperm;

TEST_CASE("gpu-sparse: running bounds contain the exact permanent where terms cancel") {
  for (const bool complex : {false, true}) {
    sp::random_stream stream(complex ? 71 : 67);
    std::vector<int> digits[3];
    for (int trial = 0; trial < 100; ++trial) {
      const int n = 2 + trial % (complex ? 11 : 13);
      const sp::sparse_matrix a = exact_dyadic::random_cancelling(stream, n, complex);
      const exact_dyadic::exact_complex exact = exact_dyadic::exact_complex_permanent(a);
      int k = 0;
      for (const sp::precision p :
           {sp::precision::double_sums, sp::precision::compensated, sp::precision::double_double}) {
        sp::compute_options options = test_options::with_engine(&sp::description_of<sp::engines::gpu_sparse>);
        options.precision = p;
        const sp::permanent_result r = sp::compute_permanent(a, options);
        CAPTURE(n);
        CAPTURE(complex);
        CAPTURE(r.plan);
        REQUIRE(r.error_bound.has_value());
        const double error = exact_dyadic::error_of(r, exact);
        CAPTURE(error);
        CAPTURE(*r.error_bound);
        CHECK(error <= *r.error_bound);
        digits[k++].push_back(sp::trusted_digits(r).value_or(0));
      }
    }
    for (auto& d : digits) std::sort(d.begin(), d.end());
    MESSAGE(std::string(complex ? "complex" : "real")
            << ": median certified digits on gpu-sparse: double " << digits[0][50] << ", compensated " << digits[1][50]
            << ", double-double " << digits[2][50] << " (100 matrices)");
    CHECK(digits[2][50] >= 15);  // double and compensated keep the grids' a-priori term on the GPU
  }
}
