#pragma once
// The `gpu-purereg` engine's tag: the paper's CodeGen-PureReg, a kernel generated for each matrix
// with all of x in registers (the loop: ryser/purereg_loop.cuh). Light: a kernel module includes it.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "../numeric/accumulators.cuh"
#include "../ryser/purereg_loop.cuh"
#include "engine.cuh"

namespace sparseperm::engines {

struct gpu_purereg : gpu_generated_engine {
  static constexpr std::string_view name = "gpu-purereg";
  static constexpr std::string_view summary =
      "the paper's CodeGen-PureReg: a program generated for the matrix, all of x in registers";
  static constexpr std::string_view module_type = "sparseperm::engines::gpu_purereg";
  static constexpr std::string_view module_header = "sparseperm/engines/gpu_purereg.cuh";

  template <CompileTimeMatrix M, class Arith>
  using plan = purereg_plan<M, Arith>;
  template <class Sum>
  static constexpr bool partial_in_memory = detail::block_partial<Sum>::separate;

  template <class Plan>
  static constexpr void describe(module_info& i) {
    i.register_rows = Plan::n;
    i.static_bits = Plan::u;
    i.plain_run_bits = std::min(detail::purereg_run_bits, Plan::n - 1);
  }

  template <class Plan, class Sum>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_HOST_INLINE static void steps(std::uint64_t first, std::uint64_t end,
                                                                  typename Plan::value*, std::uint64_t, Sum& sum) {
    purereg_steps<Plan>(first, end, sum);
  }

  static std::string plan_text(const module_info& info) {
    return "columns by ascending degree; x in registers; " + gray_loop_text(info.static_bits);
  }
};

}  // namespace sparseperm::engines
