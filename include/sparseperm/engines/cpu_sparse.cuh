#pragma once
// The `cpu-sparse` engine's tag: the paper's CPU-SparsePerman (Algorithm 1), with OpenMP over chunks
// (the algorithm: ryser/cpu_sparse.cuh).
#include <algorithm>
#include <cmath>
#include <string_view>

#include "../detail/threads.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../ryser/cpu_sparse.cuh"
#include "../ryser/cpu_sparse_run.cuh"
#include "engine.cuh"

namespace sparseperm {

namespace engines {

// The paper's CPU-SparsePerman.
struct cpu_sparse : ryser_engine {
  static constexpr std::string_view name = "cpu-sparse";
  static constexpr std::string_view summary =
      "the paper's CPU-SparsePerman: sparse Ryser over CSC, degree-sorted columns, zero tracking, OpenMP";
  static constexpr engine_placement placement = engine_placement::host;
  static constexpr bool cpu_threads = true;
  static constexpr bool double_double = true;
  static constexpr double double_double_factor = 6;       // its time in double-double against double (n = 20)
  static constexpr double step_per_row_seconds = 1.2e-9;  // per Gray step and row of x, one core (n = 28: 4.3 s)
  static constexpr double complex_factor = 1.6;           // complex values (n = 26, p = 0.3: 1.40 s vs 0.86 s)
  // A batch's dense floating matrix in the SIMD lanes (batch.cuh, ryser/dense_lanes.cuh), one
  // thread: its grids and result, then its steps (AMD EPYC with AVX2, n = 8–20; tools/benchmarks.md,
  // "Batches"), complex values about 5x as dear.
  static constexpr double batch_matrix_seconds = 1.5e-6, batch_step_per_row_seconds = 1.0e-10;
  static constexpr double batch_complex_factor = 5;
  // the automatic precision's walk on signed or complex values off their grids, with the fine parts'
  // sums (this 2-core host: 1.6–2.2x at n = 12–16)
  static constexpr double batch_fine_factor = 1.9;

  static permanent_result run(const engine_task& task, const compute_options& options);
  static void estimate(const planner_block& block, engine_estimate& e) {
    const int n = block.matrix.n();
    e.seconds = std::ldexp(1.0, n - 1) * (n + 2) * step_per_row_seconds *
                (block.matrix.is_complex() ? complex_factor : 1) *
                (block.options.precision == precision::double_double ? double_double_factor : 1) /
                std::max(1, detail::engine_threads(block.options.threads));
  }
};

}  // namespace engines

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result engines::cpu_sparse::run(const engine_task& task,
                                                                const compute_options& options) {
  return detail::run_cpu_sparse(task.matrix,
                                {.threads = options.threads,
                                 .progress = options.progress,
                                 .precision = options.precision,
                                 .sharing = options.sharing()},
                                name);
}
#endif

inline permanent_result permanent_cpu_sparse(const sparse_matrix& matrix, const cpu_sparse_options& options = {}) {
  return detail::run_cpu_sparse(matrix, options, engines::cpu_sparse::name);
}

}  // namespace sparseperm
