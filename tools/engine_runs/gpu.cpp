// The GPU engines (gpu-sparse, gpu-dense, gpu-dp, gpu-glynn), the batch's dense kernel and the kernel
// module runner: CMakeLists.txt here.
// Without nvcc: the engines' refusals only.
#define SPARSEPERM_ENGINE_RUNS_HERE
#include <sparseperm/engines/gpu_dense.cuh>
#include <sparseperm/engines/gpu_dp.cuh>
#include <sparseperm/engines/gpu_glynn.cuh>
#include <sparseperm/engines/gpu_sparse.cuh>
#if defined(__CUDACC__)
#  include <sparseperm/gpu/dense_batch_kernel.cuh>
#  include <sparseperm/module/gpu_runner.cuh>
#endif
