#pragma once
// The `glynn` engine's tag: Glynn's formula over the matrix's distinct rows and their multiplicities,
// a mixed-radix Gray code of Π(r_k + 1) terms instead of 2^(n−1), for repeated rows or columns (the
// algorithm: glynn/glynn.cuh, its run: glynn/glynn_run.cuh). Its tasks are chunks: a checkpoint
// journal keeps them and MPI ranks share them.
#include <algorithm>
#include <string>
#include <string_view>

#include "../detail/threads.cuh"
#include "../glynn/glynn_run.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "engine.cuh"

namespace sparseperm {

namespace engines {

struct glynn {
  static constexpr std::string_view name = "glynn";
  static constexpr std::string_view summary =
      "Glynn's formula over distinct rows and their multiplicities (an n-ary Gray code): prod(r_k + 1) terms "
      "instead of 2^(n-1), for repeated rows or columns";
  static constexpr engine_placement placement = engine_placement::host;
  static constexpr bool complex_values = true;
  static constexpr bool cpu_threads = true;
  static constexpr bool journals = true;
  static constexpr int max_n = 1 << 20;
  static constexpr exact_reach exact = exact_reach::any_integer;
  static constexpr bool rounds_to_grids = false;  // its own column grids
  // per term and class, one core (16 cores of the H100 host, two photons in each of 16 to 18 modes:
  // real doubles 2.5e-9 s, complex 1.3x, exact 128-bit integers 1.7x; big integers 27x, measured on
  // 2 cores with 11 and 12 modes)
  static constexpr double term_seconds = 2.5e-9, complex_factor = 1.3, exact_factor = 1.7, big_factor = 27;
  // double-double against double, one thread (15 doubly occupied modes of 30: real 4.5x, complex 8x)
  static constexpr bool double_double = true;
  static constexpr double double_double_factor = 4.5, complex_double_double_factor = 8;

  static permanent_result run(const engine_task& task, const compute_options& options);
  // Planned for matrices with repeated rows or columns only (otherwise the Ryser engines are faster).
  static void estimate(const planner_block& block, engine_estimate& e) {
    if (const auto w = detail::glynn_work_of(block.matrix, block.options.precision, e.why)) {
      const bool dd = !w->exact && block.options.precision == precision::double_double;
      if (dd) e.arithmetic = arithmetic_choice{arithmetic::double_double};
      e.seconds = w->units * term_seconds * (w->setup.complex ? complex_factor : 1) *
                  (w->big     ? big_factor
                   : w->exact ? exact_factor
                   : dd       ? (w->setup.complex ? complex_double_double_factor : double_double_factor)
                              : 1) /
                  std::max(1, detail::engine_threads(block.options.threads));
    }
  }
  static std::string plan_note(const engine_task& task) { return detail::glynn_note(task.matrix); }
};

}  // namespace engines

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result engines::glynn::run(const engine_task& task, const compute_options& options) {
  const detail::chunk_sharing sharing = options.sharing();
  return detail::run_glynn(
      task.matrix,
      {.precision = options.precision, .threads = options.threads, .progress = options.progress, .sharing = sharing},
      name, detail::glynn_on_host{sharing});
}
#endif

inline permanent_result permanent_glynn(const sparse_matrix& matrix, const compute_options& options = {}) {
  return engines::glynn::run({matrix}, options);
}

}  // namespace sparseperm
