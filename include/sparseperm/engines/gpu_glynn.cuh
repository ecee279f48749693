#pragma once
// The `gpu-glynn` engine's tag: the glynn engine's sum on a GPU, a thread a task of the mixed-radix
// Gray code (the summer: gpu/glynn_kernel.cuh; the classes, arithmetic, grids and bound are glynn's,
// glynn/glynn_run.cuh). A run-time engine, not a generated one: its loop depends on the matrix only
// through small tables that every step reads, and the walk's digits change at run time, so nothing
// is gained by specialising the code to the matrix while each matrix would pay a compile.
#include <optional>
#include <string>
#include <string_view>

#include "../core/engine_error.cuh"
#include "../glynn/glynn_run.cuh"
#include "../matrix/sparse_matrix.cuh"
#if defined(__CUDACC__)
#  include "../gpu/glynn_kernel.cuh"
#endif
#include "engine.cuh"

namespace sparseperm::engines {

struct gpu_glynn {
  static constexpr std::string_view name = "gpu-glynn";
  static constexpr std::string_view summary =
      "glynn's sum on the GPU: a thread a task of the mixed-radix Gray code, for repeated rows or columns";
  static constexpr engine_placement placement = engine_placement::gpu;
  static constexpr bool complex_values = true;
  static constexpr int max_n = 1 << 20;
  static constexpr exact_reach exact = exact_reach::within_128_bits;
  static constexpr bool rounds_to_grids = false;  // glynn's column grids
  // the run's fixed cost (gpu_setup_seconds); per term and class on an H100 (two photons in each of 17 to 21 modes:
  // real doubles 1.4e-12 s, complex 2.1x, exact 128-bit integers 2.0x)
  static constexpr double setup_seconds = gpu_setup_seconds, term_seconds = 1.4e-12, complex_factor = 2.1,
                          exact_factor = 2.0;
  // double-double against double (H200, 15 and 20 doubly occupied modes: 2.0-4.0x real, 2.3-2.6x complex)
  static constexpr bool double_double = true;
  static constexpr double double_double_factor = 3;

  static std::optional<std::string> unavailable(const compute_options&) { return gpu_unavailable(); }
  // Planned where glynn is, within 128 bits and the classes a thread holds.
  static void estimate(const planner_block& block, engine_estimate& e) {
    const auto w = detail::glynn_work_of(block.matrix, block.options.precision, e.why);
    if (!w) return;
    if (w->big) {
      e.why = "exact beyond 128 bits";
    } else if (w->setup.rows > detail::glynn_gpu_max_classes || w->setup.columns > detail::glynn_gpu_max_classes) {
      e.why = "more than " + std::to_string(detail::glynn_gpu_max_classes) + " distinct rows or columns";
    } else {
      const bool dd = !w->exact && block.options.precision == precision::double_double;
      if (dd) e.arithmetic = arithmetic_choice{arithmetic::double_double};
      e.seconds = setup_seconds + w->units * term_seconds * (w->setup.complex ? complex_factor : 1) *
                                      (w->exact ? exact_factor
                                       : dd     ? double_double_factor
                                                : 1);
    }
  }
  static std::string plan_note(const engine_task& task) { return detail::glynn_note(task.matrix); }
  static permanent_result run(const engine_task& task, const compute_options& options);
};

}  // namespace sparseperm::engines

namespace sparseperm {

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result engines::gpu_glynn::run([[maybe_unused]] const engine_task& task,
                                                               [[maybe_unused]] const compute_options& options) {
#  if defined(__CUDACC__)
  return detail::run_glynn(task.matrix,
                           {.precision = options.precision, .threads = options.threads, .progress = options.progress},
                           name, detail::glynn_on_gpu{options.first_device(), name});
#  else
  gpu_unavailable_run(name);
#  endif
}
#endif

}  // namespace sparseperm
