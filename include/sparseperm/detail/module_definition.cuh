#pragma once
// What a generated engine's module is for one matrix, host-compilable: the plan of the engine, its
// accumulator, and the module_info the program that loads the module reads. The GPU module
// (module.cuh) adds the kernel; the host module (host_module.cuh) the chunk loop.
#include <cstdint>
#include <type_traits>

#include "../engines/cached.cuh"
#include "../engines/hybrid.cuh"
#include "../engines/purereg.cuh"
#include "../module_info.cuh"
#include "../pattern.cuh"
#include "../ryser_plan.cuh"
#include "../structure.cuh"
#include "accumulators.cuh"

namespace sparseperm::detail {

template <class Engine, CompileTimeMatrix M>
struct module_definition {
  using arithmetic = automatic_arithmetic<M>;
  static constexpr bool hybrid = std::is_same_v<Engine, hybrid_engine>;
  static constexpr bool cached = std::is_same_v<Engine, cached_engine>;
  static constexpr bool on_host = std::is_same_v<Engine, cpu_cached_engine>;
  using plan = std::conditional_t<
      on_host, cpu_cached_plan<M, arithmetic>,
      std::conditional_t<cached, cached_plan<M, arithmetic>,
                         std::conditional_t<hybrid, hybrid_plan<M, arithmetic>, purereg_plan<M, arithmetic>>>>;
  using sum = std::conditional_t<on_host, cpu_cached_sum<arithmetic>,
                                 std::conditional_t<arithmetic::exact, exact_sum, plain_sum>>;
  using value = typename plan::value;

  static constexpr module_info info() {
    module_info i;
    i.engine = on_host ? 3 : cached ? 2 : hybrid ? 1 : 0;
    i.n = plan::n;
    i.nnz = M::pattern::nnz;
    i.exact = arithmetic::exact ? 1 : 0;
    i.singular = structural_rank(constants_of<M>.masks()) < plan::n ? 1 : 0;
    if constexpr (hybrid) {
      i.global_rows = plan::global_rows;
      i.register_rows = plan::k;
      i.register_columns = plan::c + 1;
    } else if constexpr (cached || on_host) {
      i.global_rows = plan::global_rows;
      i.register_rows = plan::k;
      i.static_bits = plan::b;
    } else {
      i.register_rows = plan::n;
    }
    if constexpr (arithmetic::exact) {
      i.start_high = static_cast<std::int64_t>(plan::start_term >> 64);
      i.start_low = static_cast<std::uint64_t>(plan::start_term);
    } else {
      i.start_value = plan::start_term;
    }
    return i;
  }
};

}  // namespace sparseperm::detail
