#pragma once
// The `reference` engine's tag: brute force (n <= 10) or dense Ryser (n <= 26) in long double, exact
// for integer matrices within 128 bits; independent of the other engines, for checking them, and run
// only when asked for (the algorithms: reference/reference.cuh).
#include <string_view>

#include "../matrix/sparse_matrix.cuh"
#include "../reference/reference.cuh"
#include "engine.cuh"

namespace sparseperm {

namespace engines {

struct reference {
  static constexpr std::string_view name = "reference";
  static constexpr std::string_view summary =
      "brute force (n <= 10) or dense Ryser (n <= 26); long double, exact for integer matrices";
  static constexpr engine_placement placement = engine_placement::host;
  static constexpr bool complex_values = true;
  static constexpr int max_n = reference_ryser_max_n;
  static constexpr exact_reach exact = exact_reach::within_128_bits;
  static constexpr bool rounds_to_grids = false;  // its bound needs no grids
  static permanent_result run(const engine_task& task, const compute_options&);
};

}  // namespace engines

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result engines::reference::run(const engine_task& task,
                                                               const compute_options& options) {
  return detail::run_reference(task.matrix, name, options.progress);
}
#endif

inline permanent_result permanent_reference(const sparse_matrix& matrix) {
  return detail::run_reference(matrix, engines::reference::name);
}

}  // namespace sparseperm
