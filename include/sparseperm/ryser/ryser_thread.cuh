#pragma once
// One GPU thread of a generated Ryser kernel: its chunk of the launch (Algorithm 2), its running sum
// kept in `partial` across launches. steps(first, end, t, sum) does the work.
#include <cstdint>

#include "../core/config.cuh"
#include "launch_parameters.cuh"

namespace sparseperm::detail {

#if defined(__CUDACC__)
template <class Sum, class Steps>
__device__ inline void ryser_thread(const launch& work, Sum* partial, Steps&& steps) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= work.threads) return;
  Sum sum = partial[t];
  steps(work.thread_first(t), work.thread_end(t), t, sum);
  partial[t] = sum;
}

// The same with the running sum left in global memory, for loops that touch it rarely (the
// compensated totals of gpu-hybrid and gpu-purereg, absorbed once a run): the registers a copy would
// hold go to the hot loop.
template <class Sum, class Steps>
__device__ inline void ryser_thread_in_memory(const launch& work, Sum* partial, Steps&& steps) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= work.threads) return;
  steps(work.thread_first(t), work.thread_end(t), t, partial[t]);
}
#endif

}  // namespace sparseperm::detail
