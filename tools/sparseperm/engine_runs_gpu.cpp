// The tool's GPU engines (gpu-sparse, gpu-dp, gpu-glynn) and its kernel module runner, compiled
// apart from main.cpp so that the tool's units build in parallel (core/config.cuh:
// SPARSEPERM_SEPARATE_ENGINE_RUNS). Without nvcc: the engines' refusals only.
#define SPARSEPERM_ENGINE_RUNS_HERE
#include <sparseperm/engines/gpu_dp.cuh>
#include <sparseperm/engines/gpu_glynn.cuh>
#include <sparseperm/engines/gpu_sparse.cuh>
#if defined(__CUDACC__)
#  include <sparseperm/module/gpu_runner.cuh>
#endif
