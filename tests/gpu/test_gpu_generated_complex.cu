// The generated GPU engines (gpu-purereg, gpu-hybrid, gpu-cached) on complex matrix types, through
// permanent<M, Engine>(): Gaussian integers exact in 128-bit Gaussian integers and equal to a
// big-integer subset DP, complex doubles (and the Gaussian integers in complex doubles) within their
// bounds of the exact Gaussian-rational permanent. One of the four parts (SPARSEPERM_COMPLEX_PART) of the 112
// complex matrices make_random_matrices writes.
#include "gpu_test_main.hpp"

#include <sparseperm/module/codegen.cuh>
#include <sparseperm/permanent.cuh>

#include <cmath>
#include <cstdio>
#include <string>

#include "../complex_reference.hpp"

#include "../generated/random_matrices.hpp"

namespace sp = sparseperm;
using namespace test_complex;

namespace {

struct tally {
  int matrices = 0, exact = 0, bounded = 0;
};

template <class M, sp::precision P, class Check>
void run_engines(const Check& check) {
  check(sp::permanent<M, sp::engines::gpu_purereg, P>());
  check(sp::permanent<M, sp::engines::gpu_hybrid, P>());
  check(sp::permanent<M, sp::engines::gpu_cached, P>());
}

struct check_matrix {
  tally& t;
  template <class M>
  void operator()() {
    constexpr int n = M::pattern::n;
    const sp::sparse_matrix m = sp::to_sparse_matrix<M>();
    const bool integers = m.has_integer_values();
    const int bits = integers ? 0 : value_bits;
    const gaussian exact = exact_scaled_permanent(m, std::ldexp(1.0, bits));
    INFO(std::string(M::name) << ": n = " << n << ", " << m.nnz() << " nonzeros");
    ++t.matrices;
    if constexpr (sp::constants_of<M>.integer_values()) {
      run_engines<M, sp::precision::automatic>([&](const sp::permanent_result& r) {
        INFO(r.plan);
        check_exact(r, exact);
        ++t.exact;
      });
    }
    const auto bounded = [&](const sp::permanent_result& r) {
      INFO(r.plan);
      CHECK_FALSE(r.exact);
      check_contains(r, exact, n, bits);
      ++t.bounded;
    };
    run_engines<M, sp::precision::compensated>(bounded);
    bounded(sp::permanent<M, sp::engines::gpu_cached, sp::precision::double_sums>());
  }
};

}  // namespace

TEST_CASE("gpu-purereg, gpu-hybrid and gpu-cached on complex matrix types: exact and bounded") {
  tally t;
  FOR_EACH_COMPLEX_MATRIX(check_matrix{t});
  std::printf("complex part %d: %d matrices, %d exact results equal, %d error bounds checked\n",
              SPARSEPERM_COMPLEX_PART, t.matrices, t.exact, t.bounded);
  CHECK(t.matrices == 28);
  CHECK(t.exact == 3 * 14);
  CHECK(t.bounded == 4 * 28);
}
