#pragma once
// The dp engine's dense ranked steps (dp/ranked_dp.cuh) on a GPU: a launch a column of the order, a
// thread a new state (a grid-stride loop over their ranks), the binomials in shared memory. The
// gpu-dp engine (engines/gpu_dp.cuh) runs its passes with ranked_dp_on_gpu.
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/ranked_dp_kernel.cuh needs nvcc"
#endif

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/engine_error.cuh"
#include "../detail/format.cuh"
#include "../dp/ranked_dp.cuh"
#include "cuda_support.cuh"

namespace sparseperm {

namespace detail {

// The new states of one step, a grid-stride loop over their ranks; the binomials in shared memory.
template <class Arith>
__global__ void ranked_dp_kernel(ranked_dp_step s, const std::uint64_t* binomial_table, Arith arith,
                                 const typename Arith::entry* entries, const double* old_values, double* new_values) {
  __shared__ std::uint64_t binomial[ranked_binomial_rows * ranked_binomial_stride];
  for (int k = threadIdx.x; k < ranked_binomial_rows * ranked_binomial_stride; k += blockDim.x) {
    binomial[k] = binomial_table[k];
  }
  __syncthreads();
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t index = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; index < s.new_states;
       index += stride) {
    arith.store(new_values, s.new_states, index, ranked_dp_state(s, index, binomial, arith, entries, old_values));
  }
}

// Runs a plan's steps on one device: two state arrays, a launch a step; the last state's lanes.
struct ranked_dp_on_gpu {
  int device = 0;
  std::string_view engine;           // what errors call it
  double* device_seconds = nullptr;  // summed over passes
  std::string* where = nullptr;
  int* threads = nullptr;  // the widest launch

  template <class Arith>
  std::vector<double> operator()(const ranked_dp_plan& plan, const Arith& arith) const {
    const cudaDeviceProp properties = gpu::select_device(device, std::string(engine));
    std::size_t free_bytes = 0, total_bytes = 0;
    gpu::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    const double bytes = ranked_dp_bytes(static_cast<double>(plan.peak_states), Arith::lanes);
    if (bytes > 0.9 * static_cast<double>(free_bytes)) {
      throw engine_error(engine_error::kind::too_large,
                         "engine '" + std::string(engine) + "' needs " + format_bytes(bytes) +
                             " of device memory for " + format_count(static_cast<double>(plan.peak_states)) +
                             " states, and " + format_bytes(static_cast<double>(free_bytes)) + " are free");
    }
    const std::vector<std::uint64_t> binomial = ranked_binomials();
    const auto entries = ranked_entries(plan, arith);
    const std::size_t words = static_cast<std::size_t>(plan.peak_states) * Arith::lanes;
    gpu::device_buffer<double> first(words), second(words);
    gpu::device_buffer<std::uint64_t> binomial_table(binomial.size());
    gpu::device_buffer<typename Arith::entry> entry_table(std::max<std::size_t>(entries.size(), 1));
    binomial_table.upload(binomial.data(), binomial.size());
    entry_table.upload(entries.data(), entries.size());
    std::vector<double> lanes(Arith::lanes);
    Arith::one(lanes.data());
    first.upload(lanes.data(), lanes.size());
    double* old_values = first.data();
    double* new_values = second.data();
    constexpr int block = 256;
    const std::uint64_t most_blocks = static_cast<std::uint64_t>(properties.multiProcessorCount) * 16;
    gpu::event_timer timer;
    timer.start();
    unsigned widest = 1;
    for (const ranked_dp_step& s : plan.steps) {
      const auto blocks =
          static_cast<unsigned>(std::min<std::uint64_t>((s.new_states + block - 1) / block, most_blocks));
      widest = std::max(widest, blocks);
      ranked_dp_kernel<Arith>
          <<<blocks, block>>>(s, binomial_table.data(), arith, entry_table.data(), old_values, new_values);
      gpu::check(cudaGetLastError(), "launching the dense dp kernel");
      std::swap(old_values, new_values);
    }
    const double seconds = timer.stop_seconds();
    gpu::check(cudaDeviceSynchronize(), "running the dense dp kernels");
    gpu::check(cudaMemcpy(lanes.data(), old_values, lanes.size() * sizeof(double), cudaMemcpyDeviceToHost),
               "cudaMemcpy from the device");
    if (device_seconds) *device_seconds += seconds;
    if (threads) *threads = static_cast<int>(widest) * block;
    if (where)
      *where = "; " + gpu::device_description(properties) + ", " + std::to_string(plan.steps.size()) + " launches of " +
               std::to_string(block) + " threads a block";
    return lanes;
  }
};

}  // namespace detail

}  // namespace sparseperm
