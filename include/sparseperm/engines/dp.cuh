#pragma once
// The `dp` engine's tag: the column-frontier dynamic program (the algorithm: dp/dp.cuh, its dense
// ranked steps dp/ranked_dp.cuh). Its cost is set by the frontier of a column order, not by n.
#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>

#include "../detail/format.cuh"
#include "../detail/threads.cuh"
#include "../dp/dp.cuh"
#include "../dp/dp_value.cuh"
#include "../dp/ranked_dp.cuh"
#include "../matrix/exactness.cuh"
#include "engine.cuh"

namespace sparseperm {

namespace engines {

// The column-frontier dynamic program: its cost is set by the frontier of a column order, not by n.
struct dp {
  static constexpr std::string_view name = "dp";
  static constexpr std::string_view summary =
      "column-frontier dynamic program: cost set by the frontier under the best column order found, not by n";
  static constexpr engine_placement placement = engine_placement::host;
  static constexpr bool complex_values = true;
  static constexpr int max_n = 1 << 20;
  static constexpr exact_reach exact = exact_reach::any_integer;
  static constexpr bool cpu_threads = true;
  static constexpr bool rounds_to_grids = false;      // its bound needs no grids
  static constexpr double transition_seconds = 2e-8;  // per predicted transition, 2 cores (mesh1e1: 2.3e7 in 0.47 s)
  static constexpr double big_integer_factor = 4;     // big-integer states cost more
  static constexpr double complex_factor = 3;         // complex states: two sums and a complex product
  // dense ranked steps: per unit of work (a new state times its union's rows), 2 cores (bcsstk01:
  // 2.3e10 in 38 s); complex states and a pass of four residues cost more
  static constexpr double dense_work_seconds = 1.7e-9, dense_complex_factor = 1.5, dense_residue_pass_factor = 2;
  static constexpr bool double_double = true;
  static constexpr bool a_priori_bound = true;  // γ·perm(|A|): dp sums partial matchings, not cancelling terms
  // non-integer matrices in double-double against double (complex bands, one thread: 1.2–1.6x)
  static constexpr double double_double_factor = 1.6;

  static permanent_result run(const engine_task& task, const compute_options& options);
  static void estimate(const planner_block& block, engine_estimate& e);
  static std::string plan_note(const engine_task& task) { return detail::frontier_note(task.order); }
};

}  // namespace engines

// The dp engine on a matrix, in the column order `order` (frontier_orders).
inline permanent_result permanent_dp(const sparse_matrix& matrix, const frontier_order& order, int threads = 0,
                                     const progress_counter* progress = nullptr, precision p = precision::automatic) {
  const auto start = std::chrono::steady_clock::now();
  permanent_result result = dp_result(engines::dp::name, matrix, order,
                                      permanent_dp_value(matrix, order, threads, dp_states::automatic, progress, p));
  result.threads = detail::engine_threads(threads);
  result.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// The dp engine on the whole matrix, with the best column order it finds.
inline permanent_result permanent_dp(const sparse_matrix& matrix, int threads = 0) {
  return permanent_dp(matrix, frontier_orders(matrix).front(), threads);
}

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result engines::dp::run(const engine_task& task, const compute_options& options) {
  return permanent_dp(task.matrix, task.order ? *task.order : frontier_orders(task.matrix).front(), options.threads,
                      options.progress, options.precision);
}
#endif

inline void engines::dp::estimate(const planner_block& block, engine_estimate& e) {
  const sparse_matrix& m = block.matrix;
  const frontier_order& order = block.order;
  const int threads = detail::engine_threads(block.options.threads);
  const bool dd = block.options.precision == precision::double_double && !m.has_integer_values();
  if (dd) e.arithmetic = arithmetic_choice{arithmetic::double_double};
  if (detail::dense_dp_fits(m, order, block.options.precision)) {  // what permanent_dp_value runs
    const detail::ranked_dp_plan plan = detail::make_ranked_dp_plan(m, order);
    const int primes = detail::ranked_dp_primes(m, precision::automatic);
    e.memory_bytes = detail::ranked_dp_bytes(static_cast<double>(plan.peak_states),
                                             detail::ranked_dp_lanes(m, primes, block.options.precision));
    if (e.memory_bytes <= block.memory_limit) {
      const double factor = (primes > 0       ? detail::ranked_dp_passes(primes) * dense_residue_pass_factor
                             : m.is_complex() ? dense_complex_factor
                                              : 1) *
                            (dd ? double_double_factor : 1);
      e.seconds = plan.work * dense_work_seconds * factor * 2 / std::max(1, std::min(threads, 2));
      return;
    }
  }
  const bool big = m.has_integer_values() && !detail::fits_int128(m, 0);
  const double words = order.frontier <= 64 ? 1 : order.frontier <= 128 ? 2 : order.frontier <= 256 ? 4 : 8;
  const double state_bytes = 8 * words + (big ? 64 : 16) * (m.is_complex() ? 2 : 1);  // double-double: 16 too
  e.memory_bytes = order.peak_states * state_bytes * 4;  // states, a table at half load, the next states
  if (order.frontier > dp_max_frontier) {
    e.why = "frontier " + std::to_string(order.frontier) + " > " + std::to_string(dp_max_frontier);
  } else if (e.memory_bytes > block.memory_limit) {
    e.why = "needs about " + detail::format_bytes(e.memory_bytes) + " for " + detail::format_count(order.peak_states) +
            " states, more than the " + detail::format_bytes(block.memory_limit) + " it may use";
  } else {
    e.seconds = order.transitions * transition_seconds * (big ? big_integer_factor : 1) *
                (m.is_complex() ? complex_factor : 1) * (dd ? double_double_factor : 1) * 2 /
                std::max(1, std::min(threads, 2));
  }
}

}  // namespace sparseperm
