#include <sparseperm/module/codegen.cuh>
#include <sparseperm/perm.cuh>

#include <cstdio>

#include "tiny.cuh"  // generated at build time by the installed sparseperm-gen

int main() {
  // perm of the 5 × 5 all-ones matrix is 5! = 120.
  std::vector<double> ones(25, 1.0);
  const auto result = sparseperm::compute_permanent(sparseperm::sparse_matrix::from_dense(5, ones));
  // [[2 1 0] [0 3 0] [1 0 4]]: 2·3·4 = 24 (the only permutation without a zero)
  using tiny = sparseperm::generated::tiny::matrix;
  static_assert(tiny::pattern::nnz == 5);
  const auto generated = sparseperm::compute_permanent(sparseperm::to_sparse_matrix<tiny>());
  std::printf("perm(J5) = %s via %s; perm(tiny) = %s\n", result.permanent.c_str(), result.engine.c_str(),
              generated.permanent.c_str());
  return result.permanent == "120" && generated.permanent == "24" ? 0 : 1;
}
