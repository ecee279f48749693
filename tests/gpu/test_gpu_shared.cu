// The GPU engines on shared SuiteSparse matrices (headers made at build time by
// sparseperm_add_matrix): mycielskian5 and can_24 against the reference, ibm32 (n = 32) against
// cpu-sparse; all three are 0/1 matrices, so the comparisons are exact.
#include "gpu_test_main.hpp"

#include <string>

#include <sparseperm/engines/cpu_sparse.cuh>
#include <sparseperm/engines/gpu_sparse.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/module/codegen.cuh>
#include <sparseperm/permanent.cuh>

#include "can_24.cuh"
#include "ibm32.cuh"
#include "mycielskian5.cuh"

namespace sp = sparseperm;

template <class M>
void check_all_engines(const sp::permanent_result& expected) {
  const sp::sparse_matrix m = sp::to_sparse_matrix<M>();
  for (const auto& r : {sp::permanent<M, sp::engines::gpu_purereg>(), sp::permanent<M, sp::engines::gpu_hybrid>(),
                        sp::permanent<M, sp::engines::gpu_cached>(), sp::permanent_gpu_sparse(m)}) {
    CAPTURE(r.engine);
    CHECK(r.exact);
    CHECK(r.permanent == expected.permanent);
    MESSAGE(std::string(M::name) << " " << r.engine << ": " << r.permanent << " in " << r.seconds.compute << " s");
  }
}

TEST_CASE("mycielskian5 and can_24 against the reference") {
  check_all_engines<sp::generated::mycielskian5::matrix>(
      sp::permanent_reference(sp::to_sparse_matrix<sp::generated::mycielskian5::matrix>()));
  check_all_engines<sp::generated::can_24::matrix>(
      sp::permanent_reference(sp::to_sparse_matrix<sp::generated::can_24::matrix>()));
}

TEST_CASE("ibm32 against cpu-sparse") {
  const auto expected = sp::permanent_cpu_sparse(sp::to_sparse_matrix<sp::generated::ibm32::matrix>());
  REQUIRE(expected.exact);
  check_all_engines<sp::generated::ibm32::matrix>(expected);
}
