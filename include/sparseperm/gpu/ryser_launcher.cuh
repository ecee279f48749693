#pragma once
// Runs a Ryser kernel over all Gray steps: thread count from the CUDA occupancy API, launches from
// Algorithm 2, GPU time from CUDA events, per-thread sums kept on the device across launches and
// reduced on the host exactly (an expansion of doubles; integers; residues), with the error bound of
// floating runs (numeric/error_bound.cuh).
//
// The kernel's signature is (launch, Sum* partial, Value* global_x, uint64_t stride); global_x has
// `global_rows` values per thread, laid out [row·stride + thread] with stride = the thread count.
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/ryser_launcher.cuh needs nvcc"
#endif

#include <string>
#include <type_traits>
#include <vector>

#include "../core/progress.cuh"
#include "../core/result.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/arithmetic.cuh"
#include "../ryser/launch_parameters.cuh"
#include "../ryser/ryser_result.cuh"
#include "cuda_support.cuh"

namespace sparseperm::gpu {

struct launch_options {
  int device = 0;
  progress_counter* progress = nullptr;
  sparseperm::precision precision = sparseperm::precision::automatic;  // gpu-sparse's arithmetic
};

// What the occupancy API says of a kernel without dynamic shared memory: the block size that
// maximises occupancy, how many such blocks an SM keeps, the threads the whole GPU keeps, registers.
struct kernel_occupancy {
  int block = 0;
  int blocks_per_sm = 0;
  std::uint64_t threads = 0;
  int registers = 0;
};

inline kernel_occupancy occupancy_of(const void* kernel, const cudaDeviceProp& device) {
  kernel_occupancy o;
  int min_grid = 0;
  check(cudaOccupancyMaxPotentialBlockSize(&min_grid, &o.block, kernel, 0, 0), "cudaOccupancyMaxPotentialBlockSize");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.blocks_per_sm, kernel, o.block, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
  o.registers = attributes.numRegs;
  o.threads = static_cast<std::uint64_t>(device.multiProcessorCount) * o.blocks_per_sm * o.block;
  return o;
}

// Launches Algorithm 2's plan for `threads` threads, `block` per block: launch_one(grid, work) starts
// one kernel. Fills the value, the thread count and the compute seconds of `result`.
template <class Sum, class Product, class LaunchOne>
void run_ryser_launches(permanent_result& result, int n, Product start_term, std::uint64_t threads, int block,
                        device_buffer<Sum>& partial, LaunchOne launch_one, const launch_options& options,
                        const detail::floating_run_facts& facts) {
  const launch_plan plan = generate_launch_parameters(n, threads);
  result.threads = static_cast<int>(threads);
  partial.zero();
  if (options.progress) options.progress->total.store(plan.end_step - plan.first_step);

  event_timer timer;
  timer.start();
  for (int l = 0; l < plan.count; ++l) {
    const launch& work = plan[l];
    launch_one(static_cast<unsigned>((work.threads + block - 1) / block), work);
    check(cudaGetLastError(), "the kernel launch");
    if (options.progress) {
      check(cudaDeviceSynchronize(), "the kernel");
      options.progress->done.fetch_add(work.steps());
    }
  }
  result.seconds.compute = timer.stop_seconds();
  check(cudaDeviceSynchronize(), "the kernel");

  std::vector<Sum> sums(threads);
  partial.download(sums.data(), sums.size());
  detail::set_ryser_thread_sums(result, n, start_term, sums, longest_thread_steps(plan), facts);
  result.plan += std::to_string(plan.count) + " launch" + (plan.count == 1 ? "" : "es") + " of up to " +
                 std::to_string(threads) + " threads, " + std::to_string(block) + " per block";
}

// A generated kernel (static shared memory only), compiled in or loaded from a module: occupancy
// from the CUDA API, then the launches. Its signature is (launch, Sum*, Value*, uint64_t stride).
// Appends the device and the launches to result.plan.
template <class Sum, class Value, class Product>
void run_ryser_kernel(permanent_result& result, Product start_term, const void* kernel, int global_rows,
                      const launch_options& options, const detail::floating_run_facts& facts) {
  const cudaDeviceProp device = select_device(options.device, result.engine);
  const kernel_occupancy occupancy = occupancy_of(kernel, device);
  const int block = occupancy.block;
  std::uint64_t threads = occupancy.threads;
  result.registers_per_thread = occupancy.registers;
  device_buffer<Sum> partial(threads);
  device_buffer<Value> global(static_cast<std::size_t>(global_rows) * threads);
  result.plan += "; " + device_description(device) + ", " + std::to_string(occupancy.registers) + " registers; ";
  Sum* partial_data = partial.data();
  Value* global_data = global.data();
  run_ryser_launches(
      result, result.n, start_term, threads, block, partial,
      [&](unsigned grid, const launch& work) {
        launch w = work;
        void* arguments[] = {&w, &partial_data, &global_data, &threads};
        check(cudaLaunchKernel(kernel, dim3(grid), dim3(block), arguments, 0, nullptr), "cudaLaunchKernel");
      },
      options, facts);
}

}  // namespace sparseperm::gpu
