// A matrix compiled into the program: sparseperm_add_matrix() in CMake runs sparseperm-gen on
// data/domino_8x6.mtx at build time, and the kernels below are specialised to that matrix.
//
//   sparseperm_add_matrix(example_gpu_permanent data/domino_8x6.mtx)
//
// Exit codes: 0 success, 1 a wrong count, 77 no CUDA device (skipped, unless SPARSEPERM_REQUIRE_GPU=1).
#include <sparseperm/perm.cuh>  // compiled by nvcc: the GPU engines too

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "domino_8x6.cuh"  // written at build time: sparseperm::generated::domino_8x6::matrix

int main() {
  if (sparseperm::gpu::device_count() == 0) {
    const char* require = std::getenv("SPARSEPERM_REQUIRE_GPU");
    std::printf("no CUDA device\n");
    return require && std::strcmp(require, "1") == 0 ? 1 : 77;
  }
  using board = sparseperm::generated::domino_8x6::matrix;
  int wrong = 0;
  // Each engine is a tag: only the ones named are compiled.
  for (const sparseperm::permanent_result& r :
       {sparseperm::permanent<board>(), sparseperm::permanent<board, sparseperm::engines::gpu_hybrid>(),
        sparseperm::permanent<board, sparseperm::engines::gpu_purereg>()}) {
    std::printf("%s: %s domino tilings of the 8 x 6 board (%s, %.4f s)\n", r.engine.c_str(), r.permanent.c_str(),
                r.exact ? "exact" : "double", r.seconds.compute);
    wrong += r.permanent != "167089";
  }
  return wrong == 0 ? 0 : 1;
}
