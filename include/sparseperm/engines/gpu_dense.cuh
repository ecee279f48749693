#pragma once
// The `gpu-dense` engine's tag: Ryser on the whole matrix with x and the lowest Gray columns in
// registers (the kernel: gpu/dense_ryser_kernel.cuh), for dense matrices such as the amplitudes of
// a deep interferometer, where gpu-sparse's shared-memory x and zero tracking cost more than the
// zeros save. Floating values; double-double up to n = 40 on its own loop (x split exactly into
// coarse and fine parts, so that its bound is a running one), beyond that gpu-sparse's; an exact run
// is gpu-sparse's. The tag compiles everywhere; the engine itself where nvcc compiles the program.
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../matrix/exactness.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../ryser/dense_ryser.cuh"
#if defined(__CUDACC__)
#  include "../gpu/dense_ryser_kernel.cuh"
#endif
#include "engine.cuh"

namespace sparseperm {

namespace engines {

struct gpu_dense : ryser_engine {
  static constexpr std::string_view name = "gpu-dense";
  static constexpr std::string_view summary =
      "dense Ryser: x and the lowest Gray columns in registers, every entry counted (zeros too)";
  static constexpr engine_placement placement = engine_placement::gpu;
  static constexpr int max_n = detail::dense_max_n;
  static constexpr double setup_seconds = gpu_setup_seconds;
  // per Gray step and row of the compiled size (N ≥ n) on an H100, fitted to dense n = 32 to 40
  // (1.8e-13 to 2.0e-13 s real, 2.8 to 2.9 times that complex: 6 floating operations a row, not 2)
  static constexpr double row_step_seconds = 1.9e-13, complex_factor = 2.8;
  // double-double (split row sums, double-double products; n ≤ 40, beyond that gpu-sparse's): its
  // time a row step against double's (one H100, dense n = 28 to 36: real 7.0 to 8.9×, complex 7.6 to 8.5×)
  static constexpr bool double_double = true;
  static constexpr double double_double_factor = 9, complex_double_double_factor = 8.5;
  // A batch's matrix run on the whole GPU (batch.cuh): its run's fixed cost, the device's
  // preparation, launches and the sums' copies and reduction, the context being up (one H200 host,
  // runs one after another: 0.9 to 1.1 ms real, 1.5 to 2.7 ms complex at n = 20 to 28, where it was
  // 5 to 10 ms before the launcher kept its pinned buffers and reduced only the used threads' sums)
  static constexpr double batch_run_seconds = 2.5e-3;

  static std::optional<std::string> unavailable(const compute_options&) { return gpu_unavailable(); }
  static permanent_result run(const engine_task& task, const compute_options& options);
  static void estimate(const planner_block& block, engine_estimate& e) {
    const sparse_matrix& a = block.matrix;
    const exact_candidates candidates = detail::exact_candidates_of(a, true);
    if (is_exact(detail::arithmetic_for(block.options.precision, candidates, arithmetic_site::gpu_runtime).kind)) {
      e.why = "exact arithmetic: it would run gpu-sparse's kernel";
      return;
    }
    const bool complex = a.is_complex();
    if (block.options.precision == precision::double_double) {
      const int rows = detail::dense_dd_rows_for(a.n(), complex);
      if (rows == 0) {
        e.why =
            "double-double beyond n = " + std::to_string(detail::dense_dd_max_n) + ": it would run gpu-sparse's kernel";
        return;
      }
      e.seconds = setup_seconds + std::ldexp(1.0, a.n() - 1) * rows * row_step_seconds *
                                      (complex ? complex_factor * complex_double_double_factor : double_double_factor);
      return;
    }
    e.seconds = setup_seconds + std::ldexp(1.0, a.n() - 1) * detail::dense_rows_for(a.n(), complex) * row_step_seconds *
                                    (complex ? complex_factor : 1);
  }
};

}  // namespace engines

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result engines::gpu_dense::run([[maybe_unused]] const engine_task& task,
                                                               [[maybe_unused]] const compute_options& options) {
#  if defined(__CUDACC__)
  return detail::run_gpu_dense(task.matrix,
                               {.devices = options.devices,
                                .progress = options.progress,
                                .precision = options.precision,
                                .sharing = options.sharing()},
                               name);
#  else
  gpu_unavailable_run(name);
#  endif
}
#endif

#if defined(__CUDACC__)
inline permanent_result permanent_gpu_dense(const sparse_matrix& matrix, const gpu::launch_options& options = {}) {
  return detail::run_gpu_dense(matrix, options, engines::gpu_dense::name);
}
#endif

}  // namespace sparseperm
