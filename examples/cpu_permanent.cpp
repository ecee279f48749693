// A matrix compiled into a CPU program: sparseperm_add_matrix() in CMake runs sparseperm-gen on
// data/domino_8x6.mtx at build time, and permanent_cpu_cached<M> runs the cpu-cached loop
// specialised to that matrix on OpenMP threads. No GPU and no nvcc needed.
//
//   sparseperm_add_matrix(example_cpu_permanent data/domino_8x6.mtx)
//
// Exit codes: 0 success, 1 a wrong count.
#include <sparseperm/perm.cuh>

#include <cstdio>

#include "domino_8x6.cuh"  // written at build time: sparseperm::generated::domino_8x6::matrix

int main() {
  using board = sparseperm::generated::domino_8x6::matrix;
  const sparseperm::permanent_result r = sparseperm::permanent_cpu_cached<board>();
  std::printf("%s: %s domino tilings of the 8 x 6 board (%s, %d threads, %.4f s)\n%s\n", r.engine.c_str(),
              r.permanent.c_str(), r.exact ? "exact" : "double", r.threads, r.seconds.compute, r.plan.c_str());
  return r.permanent == "167089" ? 0 : 1;
}
