#pragma once
// Glynn's sum (glynn/glynn.cuh) on a GPU, the `gpu-glynn` engine's summer: one thread a task, the
// first digits (most values) fix the task, the others walk the Gray code (glynn_task, the same code as
// the host's); the per-thread sums merged on the host as the Ryser engines' are. Exact in 128-bit
// integers and Gaussian integers; beyond them the glynn engine's big integers (this one refuses).
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/glynn_kernel.cuh needs nvcc"
#endif

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/engine_error.cuh"
#include "../glynn/glynn.cuh"
#include "../glynn/glynn_run.cuh"
#include "../numeric/big_integer.cuh"
#include "cuda_support.cuh"

namespace sparseperm {

namespace detail {

// `threads` sums, one per thread of the launch's first `threads` (the last block's others idle:
// partial has no place for them); thread i takes the tasks i, i + threads, ...
template <class V, class P, class Sum>
__global__ void gpu_glynn_kernel(glynn_tables<V, P> t, std::int64_t tasks, std::int64_t threads, Sum* partial) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first >= threads) return;
  const std::int64_t stride = threads;
  int m[glynn_gpu_max_classes], direction[glynn_gpu_max_classes];
  V v[glynn_gpu_max_classes];
  Sum local = partial[first];
  for (std::int64_t task = first; task < tasks; task += stride) glynn_task(t, task, m, direction, v, local);
  partial[first] = local;
}

// Sums a run on the GPU: the tables uploaded, a thread a task (a grid-stride loop when there are more
// tasks than threads), the per-thread sums merged on the host.
struct glynn_on_gpu {
  int device = 0;
  std::string_view engine;  // what messages call it

  template <class Arith, class Sum>
  Sum operator()(const glynn_setup& g, const std::vector<typename Arith::value>& u, glynn_summing& summing) const {
    using V = typename Arith::value;
    using P = typename Arith::product;
    if constexpr (std::is_same_v<P, big_integer> || std::is_same_v<P, big_gaussian>) {
      throw engine_error(engine_error::kind::refused,
                         "engine '" + std::string(engine) +
                             "' is exact within 128 bits, and this matrix needs more (engine 'glynn' goes on in "
                             "big integers)");
    } else {
      if (g.rows > glynn_gpu_max_classes || g.columns > glynn_gpu_max_classes) {
        throw engine_error(engine_error::kind::too_large, "engine '" + std::string(engine) + "' holds at most " +
                                                              std::to_string(glynn_gpu_max_classes) +
                                                              " distinct rows and columns, and this matrix has " +
                                                              std::to_string(g.rows) + " and " +
                                                              std::to_string(g.columns));
      }
      const cudaDeviceProp properties = gpu::select_device(device, std::string(engine));
      constexpr int block = 128;
      // enough tasks for every resident thread several times over, each a walk of many terms
      const std::int64_t resident = static_cast<std::int64_t>(properties.multiProcessorCount) * 2048;
      const glynn_plan<V, P> plan(g, 4 * resident);
      const std::int64_t threads = std::min<std::int64_t>(plan.tasks, resident);
      gpu::device_buffer<int> free(g.free.size()), row_count(g.row_count.size()), column_count(g.column_count.size()),
          digits(std::max<std::size_t>(plan.digits.size(), 1)), walked(std::max<std::size_t>(plan.walked.size(), 1));
      gpu::device_buffer<V> values(std::max<std::size_t>(u.size(), 1));
      gpu::device_buffer<part_type<P>> binomial(plan.binomial.size());
      free.upload(g.free.data(), g.free.size());
      row_count.upload(g.row_count.data(), g.row_count.size());
      column_count.upload(g.column_count.data(), g.column_count.size());
      digits.upload(plan.digits.data(), plan.digits.size());
      walked.upload(plan.walked.data(), plan.walked.size());
      values.upload(u.data(), u.size());
      binomial.upload(plan.binomial.data(), plan.binomial.size());
      const glynn_tables<V, P> t{g.rows,
                                 g.columns,
                                 free.data(),
                                 row_count.data(),
                                 column_count.data(),
                                 values.data(),
                                 binomial.data(),
                                 plan.binomial_stride,
                                 digits.data(),
                                 plan.split,
                                 walked.data(),
                                 static_cast<int>(plan.walked.size()),
                                 plan.small_binomials};
      std::vector<Sum> sums(static_cast<std::size_t>(threads));
      gpu::device_buffer<Sum> partial(sums.size());
      partial.upload(sums.data(), sums.size());
      const auto grid = static_cast<unsigned>((threads + block - 1) / block);
      gpu::event_timer timer;
      timer.start();
      gpu_glynn_kernel<V, P, Sum><<<grid, block>>>(t, plan.tasks, threads, partial.data());
      gpu::check(cudaGetLastError(), "launching the Glynn kernel");
      summing.device_seconds = timer.stop_seconds();
      gpu::check(cudaDeviceSynchronize(), "running the Glynn kernel");
      partial.download(sums.data(), sums.size());
      const std::int64_t tasks_per_thread = (plan.tasks + threads - 1) / threads;
      summing.longest_chain = static_cast<std::uint64_t>(tasks_per_thread) * plan.walk_terms + sums.size();
      summing.threads = static_cast<int>(threads);
      summing.where = "; " + gpu::device_description(properties) + ", " + std::to_string(plan.tasks) + " tasks on " +
                      std::to_string(threads) + " threads, " + std::to_string(block) + " per block";
      Sum total;
      for (const Sum& s : sums) total.merge(s);
      return total;
    }
  }
};

}  // namespace detail

}  // namespace sparseperm
