#pragma once
// The `gpu-hybrid` engine's tag: the paper's CodeGen-Hybrid, a kernel generated for each matrix (the
// loop: ryser/hybrid_loop.cuh). Light: a kernel module's source includes it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "../numeric/accumulators.cuh"
#include "../ryser/hybrid_loop.cuh"
#include "engine.cuh"

namespace sparseperm::engines {

struct gpu_hybrid : gpu_generated_engine {
  static constexpr std::string_view name = "gpu-hybrid";
  static constexpr std::string_view summary =
      "the paper's CodeGen-Hybrid: a program generated for the matrix, the most used rows of x in registers; Gray "
      "blocks unrolled";
  static constexpr std::string_view module_type = "sparseperm::engines::gpu_hybrid";
  static constexpr std::string_view module_header = "sparseperm/engines/gpu_hybrid.cuh";

  template <CompileTimeMatrix M, class Arith>
  using plan = hybrid_plan<M, Arith>;
  // A compensated run touches its total once a run: it stays in memory.
  template <class Sum>
  static constexpr bool partial_in_memory = detail::block_partial<Sum>::separate;

  template <class Plan>
  static constexpr void describe(module_info& i) {
    i.global_rows = Plan::global_rows;
    i.register_rows = Plan::k;
    i.register_columns = Plan::c + 1;
    i.static_bits = Plan::u;
    i.plain_run_bits = std::min(Plan::c + 1, Plan::n - 1);  // runs between flips of a column above c
  }

  template <class Plan, class Sum>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_HOST_INLINE static void steps(std::uint64_t first, std::uint64_t end,
                                                                  typename Plan::value* global_x, std::uint64_t stride,
                                                                  Sum& sum) {
    hybrid_steps<Plan>(first, end, global_x, stride, sum);
  }

  static std::string plan_text(const module_info& info) {
    return "permanent ordering (Algorithm 3); " + std::to_string(info.register_rows) +
           " rows of x in registers, columns 1.." + std::to_string(info.register_columns) +
           " register-only, the global rows' product cached; " + gray_loop_text(info.static_bits) +
           ", products along the staircase";
  }
};

}  // namespace sparseperm::engines
