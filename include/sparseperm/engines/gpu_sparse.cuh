#pragma once
// The `gpu-sparse` engine's tag: the paper's GPU-SparsePerman, the run-time GPU baseline (the kernel:
// gpu/sparse_ryser_kernel.cuh). The tag compiles everywhere; the engine itself where nvcc compiles the
// program (elsewhere the tag says it is unavailable).
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../matrix/sparse_matrix.cuh"
#if defined(__CUDACC__)
#  include "../gpu/ryser_launcher.cuh"
#  include "../gpu/sparse_ryser_kernel.cuh"
#endif
#include "engine.cuh"

namespace sparseperm {

namespace engines {

// The paper's GPU-SparsePerman: the run-time GPU baseline.
struct gpu_sparse : ryser_engine {
  static constexpr std::string_view name = "gpu-sparse";
  static constexpr std::string_view summary =
      "the paper's GPU-SparsePerman: sparse Ryser with the matrix and x in shared memory";
  static constexpr engine_placement placement = engine_placement::gpu;
  static constexpr bool double_double = true;
  static constexpr double double_double_factor = 8;  // its time in double-double against double
  static constexpr double setup_seconds = gpu_setup_seconds;
  // per Gray step on an H100, and per nonzero of the average column (n = 40, p = 0.1 and 0.5: 6.1 s
  // and 12.6 s for 2^39 steps); complex values 2.2× (measured 1.9–2.2× at n = 36, 40)
  static constexpr double step_seconds = 8e-12, step_per_degree_seconds = 7.5e-13, complex_factor = 2.2;
  // A batch's dense matrices a warp each (gpu/dense_batch_kernel.cuh), fitted to an H100 host
  // (tools/benchmarks.md, "Batches"): a matrix's share of the host's preparation (conversion, grids,
  // columns, results) and its lanes' steps, the warps running in waves of about 1000 (132 SMs) at a
  // lane step per row much slower than a whole-GPU engine's.
  static constexpr double batch_setup_seconds = 2e-4, batch_prepare_per_entry_seconds = 7e-8,
                          batch_lane_step_per_row_seconds = 1.2e-7, batch_resident_warps = 1024;

  static std::optional<std::string> unavailable(const compute_options&) { return gpu_unavailable(); }
  static permanent_result run(const engine_task& task, const compute_options& options);
  static void estimate(const planner_block& block, engine_estimate& e) {
    const double degree = static_cast<double>(block.matrix.nnz()) / block.matrix.n();
    e.seconds = setup_seconds + std::ldexp(1.0, block.matrix.n() - 1) *
                                    (step_seconds + degree * step_per_degree_seconds) *
                                    (block.matrix.is_complex() ? complex_factor : 1) *
                                    (block.options.precision == precision::double_double ? double_double_factor : 1);
  }
};

}  // namespace engines

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result engines::gpu_sparse::run([[maybe_unused]] const engine_task& task,
                                                                [[maybe_unused]] const compute_options& options) {
#  if defined(__CUDACC__)
  return detail::run_gpu_sparse(task.matrix,
                                {.devices = options.devices,
                                 .progress = options.progress,
                                 .precision = options.precision,
                                 .digits = options.digits,
                                 .sharing = options.sharing()},
                                name);
#  else
  gpu_unavailable_run(name);
#  endif
}
#endif

#if defined(__CUDACC__)
inline permanent_result permanent_gpu_sparse(const sparse_matrix& matrix, const gpu::launch_options& options = {}) {
  return detail::run_gpu_sparse(matrix, options, engines::gpu_sparse::name);
}
#endif

}  // namespace sparseperm
