#pragma once
// The `gpu-cached` engine's tag: static Gray blocks and cached partial products, a kernel generated
// for each matrix (the loop: ryser/cached_loop.cuh). Light: a kernel module's source includes it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "../ryser/cached_loop.cuh"
#include "engine.cuh"

namespace sparseperm::engines {

struct gpu_cached : gpu_generated_engine {
  static constexpr std::string_view name = "gpu-cached";
  static constexpr std::string_view summary =
      "beyond the paper: a program generated for the matrix, Gray blocks unrolled at compile time, partial products "
      "cached";
  static constexpr std::string_view module_type = "sparseperm::engines::gpu_cached";
  static constexpr std::string_view module_header = "sparseperm/engines/gpu_cached.cuh";
  // The planner's rates (seconds): modelled cost units (cached_layout::cost) per second on an H100
  // (n = 40, p = 0.1 / 0.3 / 0.5: 2.3e13 / 1.9e13 / 1.6e13); the run's fixed cost; generating and
  // compiling a kernel (nothing when the cache holds it: the planner asks, planner.cuh).
  static constexpr double cost_rate = 1.8e13;
  static constexpr double setup_seconds = gpu_setup_seconds;
  static constexpr double compile_seconds = 2.5;
  static constexpr double complex_factor = 3.6;  // complex values (H100, n = 36, 40: 3.1–4.0× real ones)
  static constexpr bool double_double = true;
  // its time in double-double against double (H200, n = 40, p = 0.3: real 11×; complex 14× at n = 36 and
  // 40, with its levels above the blocks in global memory: 20× and 25× before)
  static constexpr double double_double_factor = 11, complex_double_double_factor = 14;

  template <CompileTimeMatrix M, class Arith>
  using plan = cached_plan<M, Arith>;

  template <class Plan>
  static constexpr void describe(module_info& i) {
    i.global_rows = Plan::global_slots;  // the launcher's global buffer: rows and upper levels
    i.register_rows = Plan::k;
    i.static_bits = Plan::b;
    i.plain_run_bits = Plan::b;  // a TwoSum a static block
  }

  template <class Plan, class Sum>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_HOST_INLINE static void steps(std::uint64_t first, std::uint64_t end,
                                                                  typename Plan::value* global_x, std::uint64_t stride,
                                                                  Sum& sum) {
    cached_steps<Plan>(first, end, global_x, stride, sum);
  }

  static std::string plan_text(const module_info& info) {
    const int upper = info.global_rows - (info.n - info.register_rows);
    return "permanent ordering (Algorithm 3); Gray blocks of 2^" + std::to_string(info.static_bits) +
           " steps unrolled at compile time, partial products cached along the staircase; " +
           std::to_string(info.register_rows) + " of " + std::to_string(info.n) + " rows of x in registers" +
           (upper > 0 ? ", " + std::to_string(upper) + " levels above the blocks in global memory" : "");
  }

  static void estimate(const planner_block& block, engine_estimate& e) {
    const column_masks pattern = block.matrix.masks();
    const cached_layout layout = plan_cached_layout(reorder(pattern, permanent_ordering(pattern).order));
    e.seconds = setup_seconds + std::ldexp(1.0, block.matrix.n() - 1) * layout.cost / cost_rate *
                                    (block.matrix.is_complex() ? complex_factor : 1) *
                                    (block.options.precision != precision::double_double ? 1
                                     : block.matrix.is_complex()                         ? complex_double_double_factor
                                                                                         : double_double_factor);
  }
};

}  // namespace sparseperm::engines
