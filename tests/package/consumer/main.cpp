#include <sparseperm/perm.cuh>

#include <cstdio>

int main() {
  // perm of the 5 × 5 all-ones matrix is 5! = 120.
  std::vector<double> ones(25, 1.0);
  const auto result = sparseperm::compute_permanent(sparseperm::sparse_matrix::from_dense(5, ones));
  std::printf("perm(J5) = %s via %s\n", result.permanent.c_str(), result.engine.c_str());
  return result.permanent == "120" ? 0 : 1;
}
