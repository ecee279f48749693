#pragma once
// The `gpu-glynn` engine: the glynn engine's sum (Glynn's formula over distinct rows and their
// multiplicities, a reflected mixed-radix Gray code) on a GPU. A run-time engine, not a generated
// one: its loop depends on the matrix only through small tables (the classes' values, counts and
// binomials) that every step reads, and the walk's digits change at run time, so nothing is gained
// by specialising the code to the matrix while each matrix would pay a compile.
//
// One GPU thread a task: the first digits (most values) fix the task, the others walk the Gray code
// (engines/glynn.cuh's glynn_task, the same code as the host's). The classes, the arithmetic, the
// grids and the bound are glynn's (detail::run_glynn); the per-thread sums are merged on the host
// as the Ryser engines' are. Exact runs in 128-bit integers and Gaussian integers; beyond them the
// glynn engine's big integers (this engine refuses).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/big_integer.cuh"
#include "../numeric/complex.cuh"
#if defined(__CUDACC__)
#  include "../gpu/cuda_support.cuh"
#endif
#include "engine.cuh"
#include "glynn.cuh"

namespace sparseperm {

namespace engines {

struct gpu_glynn {
  static constexpr std::string_view name = "gpu-glynn";
  static constexpr std::string_view summary =
      "glynn's sum on the GPU: a thread a task of the mixed-radix Gray code, for repeated rows or columns";
  static constexpr engine_placement placement = engine_placement::gpu;
  static constexpr bool complex_values = true;
  static constexpr int max_n = 1 << 20;
  static constexpr exact_reach exact = exact_reach::within_128_bits;
  static constexpr bool rounds_to_grids = false;  // glynn's column grids
  static constexpr int max_classes = 64;          // distinct rows and distinct columns a thread holds
  // context, tables and launch; per term and class on an H100 (two photons in each of 17 to 21 modes:
  // real doubles 1.4e-12 s, complex 2.1x, exact 128-bit integers 2.0x)
  static constexpr double setup_seconds = 0.25, term_seconds = 1.4e-12, complex_factor = 2.1, exact_factor = 2.0;
  static std::optional<std::string> unavailable(const compute_options& options);
  // Planned where glynn is, within 128 bits and max_classes.
  static void estimate(const planner_block& block, engine_estimate& e) {
    const auto w = detail::glynn_work_of(block, e);
    if (!w) return;
    if (w->big) {
      e.why = "exact beyond 128 bits";
    } else if (w->setup.rows > max_classes || w->setup.columns > max_classes) {
      e.why = "more than " + std::to_string(max_classes) + " distinct rows or columns";
    } else {
      e.seconds = setup_seconds +
                  w->units * term_seconds * (w->setup.complex ? complex_factor : 1) * (w->exact ? exact_factor : 1);
    }
  }
  static std::string plan_note(const engine_task& task) { return glynn::plan_note(task); }
  static permanent_result run(const engine_task& task, const compute_options& options);
};

}  // namespace engines

#if defined(__CUDACC__)
namespace detail {

// `threads` sums, one per thread of the launch's first `threads` (the last block's others idle:
// partial has no place for them); thread i takes the tasks i, i + threads, ...
template <class V, class P, class Sum>
__global__ void gpu_glynn_kernel(glynn_tables<V, P> t, std::int64_t tasks, std::int64_t threads, Sum* partial) {
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first >= threads) return;
  const std::int64_t stride = threads;
  int m[engines::gpu_glynn::max_classes], direction[engines::gpu_glynn::max_classes];
  V v[engines::gpu_glynn::max_classes];
  Sum local = partial[first];
  for (std::int64_t task = first; task < tasks; task += stride) glynn_task(t, task, m, direction, v, local);
  partial[first] = local;
}

// Sums a run on the GPU: the tables uploaded, a thread a task (a grid-stride loop when there are more
// tasks than threads), the per-thread sums merged on the host.
struct glynn_on_gpu {
  int device = 0;

  template <class V, class P, class Sum>
  Sum operator()(const glynn_setup& g, const std::vector<V>& u, glynn_summing& summing) const {
    if constexpr (std::is_same_v<P, big_integer> || std::is_same_v<P, big_gaussian>) {
      throw engine_error(engine_error::kind::refused,
                         "engine 'gpu-glynn' is exact within 128 bits, and this matrix needs more (engine 'glynn' "
                         "goes on in big integers)");
    } else {
      if (g.rows > engines::gpu_glynn::max_classes || g.columns > engines::gpu_glynn::max_classes) {
        throw engine_error(engine_error::kind::too_large,
                           "engine 'gpu-glynn' holds at most " + std::to_string(engines::gpu_glynn::max_classes) +
                               " distinct rows and columns, and this matrix has " + std::to_string(g.rows) + " and " +
                               std::to_string(g.columns));
      }
      const cudaDeviceProp properties = gpu::select_device(device, std::string(engines::gpu_glynn::name));
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
                                 static_cast<int>(plan.walked.size())};
      std::vector<Sum> sums(static_cast<std::size_t>(threads));
      gpu::device_buffer<Sum> partial(sums.size());
      partial.upload(sums.data(), sums.size());
      const auto grid = static_cast<unsigned>((threads + block - 1) / block);
      gpu::event_timer timer;
      timer.start();
      gpu_glynn_kernel<V, P, Sum><<<grid, block>>>(t, plan.tasks, threads, partial.data());
      gpu::check(cudaGetLastError(), "launching the gpu-glynn kernel");
      summing.device_seconds = timer.stop_seconds();
      gpu::check(cudaDeviceSynchronize(), "running the gpu-glynn kernel");
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
#endif  // __CUDACC__

inline std::optional<std::string> engines::gpu_glynn::unavailable(const compute_options&) { return gpu_unavailable(); }

inline permanent_result engines::gpu_glynn::run(const engine_task& task, const compute_options& options) {
#if defined(__CUDACC__)
  return detail::run_glynn(task.matrix, options, name, detail::glynn_on_gpu{options.first_device()});
#else
  (void)task;
  throw engine_error(engine_error::kind::unavailable, "engine 'gpu-glynn' is not available: " + *unavailable(options));
#endif
}

}  // namespace sparseperm
