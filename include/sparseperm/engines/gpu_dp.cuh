#pragma once
// The `gpu-dp` engine's tag: the dp engine's column-frontier program on a GPU, with every subset of
// the active rows a slot in a dense array (dp/ranked_dp.cuh) and a thread a new state
// (gpu/ranked_dp_kernel.cuh). A run-time
// engine: a step is a launch whose only matrix-dependent inputs are its column's entries and masks.
//
// Its cost is dp's (set by the frontier of the column order, not by n) without the hash tables: the
// states of a step are C(active, matched) doubles a lane, read by gathers and written in order. It
// takes frontiers up to 63 rows where the arrays fit in the device's memory. Arithmetic: integer real
// matrices exactly in residues (four primes a pass), other matrices in doubles with fused
// multiply-adds (or in double-double) and a bound from a lane on |A|; complex matrices too.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../detail/format.cuh"
#include "../dp/dp.cuh"
#include "../dp/dp_value.cuh"
#include "../dp/ranked_dp.cuh"
#include "../matrix/sparse_matrix.cuh"
#if defined(__CUDACC__)
#  include "../gpu/cuda_support.cuh"
#  include "../gpu/ranked_dp_kernel.cuh"
#endif
#include "engine.cuh"

namespace sparseperm {

namespace engines {

struct gpu_dp {
  static constexpr std::string_view name = "gpu-dp";
  static constexpr std::string_view summary =
      "dp's column-frontier program on the GPU: every subset of the active rows a slot, a thread a state (frontier "
      "<= 63 rows)";
  static constexpr engine_placement placement = engine_placement::gpu;
  static constexpr bool complex_values = true;
  static constexpr int max_n = 1 << 20;
  static constexpr exact_reach exact = exact_reach::within_residue_primes;
  static constexpr bool rounds_to_grids = false;  // its bound is dp's, from a lane on |A|
  // the run's fixed cost (gpu_setup_seconds); per unit of work (a new state times its union's rows) on an H100, real
  // doubles (bcsstk01: 2.3e10 units in 0.045 s); complex states and residues (a pass of four primes)
  // cost more
  static constexpr double setup_seconds = gpu_setup_seconds, work_seconds = 2e-12, complex_factor = 1.5,
                          residue_pass_factor = 2;
  static constexpr bool double_double = true;
  static constexpr bool a_priori_bound = true;  // γ·perm(|A|): dp sums partial matchings, not cancelling terms
  // its time in double-double against double (H200: complex ER n = 36, p = 0.3, 0.52 s against 0.40 s)
  static constexpr double double_double_factor = 1.3;
  static std::optional<std::string> unavailable(const compute_options& options);
  static void estimate(const planner_block& block, engine_estimate& e);
  static std::string plan_note(const engine_task& task) { return detail::frontier_note(task.order); }
  static permanent_result run(const engine_task& task, const compute_options& options);
};

}  // namespace engines

inline std::optional<std::string> engines::gpu_dp::unavailable(const compute_options&) { return gpu_unavailable(); }

inline void engines::gpu_dp::estimate(const planner_block& block, engine_estimate& e) {
  const sparse_matrix& m = block.matrix;
  if (block.order.frontier > ranked_dp_max_frontier) {
    e.why = "frontier " + std::to_string(block.order.frontier) + " > " + std::to_string(ranked_dp_max_frontier);
    return;
  }
  const detail::ranked_dp_plan plan = detail::make_ranked_dp_plan(m, block.order);
  const int primes = detail::ranked_dp_primes(m, block.options.precision);
  const int passes = detail::ranked_dp_passes(primes);
  const bool dd = primes == 0 && block.options.precision == precision::double_double;
  e.memory_bytes = detail::ranked_dp_bytes(static_cast<double>(plan.peak_states),
                                           detail::ranked_dp_lanes(m, primes, block.options.precision));
  e.arithmetic = primes > 0 ? arithmetic_choice{arithmetic::residues, primes}
                 : dd       ? arithmetic_choice{arithmetic::double_double}
                            : arithmetic_choice{arithmetic::double_sums};
  if (primes > 0) {
    e.arithmetic_why = "gpu-dp's exact arithmetic, " + std::to_string(passes) + (passes == 1 ? " pass" : " passes") +
                       " of four primes (about 1.2x its double time)";
  }
  double device_bytes = 0;
#if defined(__CUDACC__)
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, block.options.first_device()) == cudaSuccess) {
    device_bytes = static_cast<double>(properties.totalGlobalMem);
  } else {
    cudaGetLastError();
  }
#endif
  if (e.memory_bytes > 0.85 * device_bytes) {
    e.why = "needs about " + detail::format_bytes(e.memory_bytes) + " of device memory for " +
            detail::format_count(static_cast<double>(plan.peak_states)) + " states";
    return;
  }
  e.seconds = setup_seconds + plan.work * work_seconds *
                                  (primes > 0       ? passes * residue_pass_factor
                                   : m.is_complex() ? complex_factor
                                                    : 1) *
                                  (dd ? double_double_factor : 1);
}

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result engines::gpu_dp::run([[maybe_unused]] const engine_task& task,
                                                            [[maybe_unused]] const compute_options& options) {
#  if defined(__CUDACC__)
  const frontier_order order = task.order ? *task.order : frontier_orders(task.matrix).front();
  double device_seconds = 0;
  std::string where;
  int threads = 0;
  const dp_value v = detail::ranked_dp_value(
      task.matrix, order, options.precision, name,
      detail::ranked_dp_on_gpu{options.first_device(), name, &device_seconds, &where, &threads});
  permanent_result result = dp_result(name, task.matrix, order, v, where);
  result.seconds.compute = device_seconds;  // the kernels' time, CUDA events
  result.threads = threads;
  return result;
#  else
  gpu_unavailable_run(name);
#  endif
}
#endif

}  // namespace sparseperm
