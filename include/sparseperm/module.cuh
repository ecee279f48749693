#pragma once
// A kernel module: the device code of one generated engine for one matrix, compiled alone
// (nvcc -cubin) and loaded by a host program that was compiled once (gpu/module_runner.cuh). The
// pipeline compiles only this, which is a few seconds where a whole program is several more.
//
//   #include <sparseperm/module.cuh>
//   #include "matrix.cuh"
//   SPARSEPERM_MODULE(sparseperm::hybrid_engine, sparseperm::generated::input::matrix)
//
// exports, with C linkage:
//   sparseperm_module_kernel(launch, Sum* partial, Value* global_x, uint64_t stride)
//   sparseperm_module        a module_info with what the host needs: n, the arithmetic, the step-0
//                            term, Hybrid's partition, whether the pattern is structurally singular
#if !defined(__CUDACC__)
#  error "sparseperm/module.cuh is device code: compile it with nvcc"
#endif

#include <cstdint>
#include <type_traits>

#include "detail/accumulators.cuh"
#include "detail/ryser_thread.cuh"
#include "engines/cached.cuh"
#include "engines/hybrid.cuh"
#include "engines/purereg.cuh"
#include "module_info.cuh"
#include "pattern.cuh"
#include "ryser_plan.cuh"
#include "structure.cuh"

namespace sparseperm::detail {

template <class Engine, CompileTimeMatrix M>
struct module_definition {
  using arithmetic = automatic_arithmetic<M>;
  static constexpr bool hybrid = std::is_same_v<Engine, hybrid_engine>;
  static constexpr bool cached = std::is_same_v<Engine, cached_engine>;
  using plan = std::conditional_t<cached, cached_plan<M, arithmetic>,
                                  std::conditional_t<hybrid, hybrid_plan<M, arithmetic>, purereg_plan<M, arithmetic>>>;
  using sum = std::conditional_t<arithmetic::exact, exact_sum, plain_sum>;
  using value = typename plan::value;

  static constexpr module_info info() {
    module_info i;
    i.engine = cached ? 2 : hybrid ? 1 : 0;
    i.n = plan::n;
    i.nnz = M::pattern::nnz;
    i.exact = arithmetic::exact ? 1 : 0;
    i.singular = structural_rank(constants_of<M>.masks()) < plan::n ? 1 : 0;
    if constexpr (hybrid) {
      i.global_rows = plan::global_rows;
      i.register_rows = plan::k;
      i.register_columns = plan::c + 1;
    } else if constexpr (cached) {
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

  __device__ static void thread(launch work, sum* partial, value* global_x, std::uint64_t stride) {
    ryser_thread(work, partial, [&](std::uint64_t first, std::uint64_t end, std::uint64_t t, sum& s) {
      if constexpr (hybrid) {
        hybrid_steps<plan>(first, end, global_x + t, stride, s);
      } else if constexpr (cached) {
        cached_steps<plan>(first, end, global_x + t, stride, s);
      } else {
        purereg_steps<plan>(first, end, s);
      }
    });
  }
};

}  // namespace sparseperm::detail

#define SPARSEPERM_MODULE(ENGINE, MATRIX)                                                                          \
  using sparseperm_module_definition = ::sparseperm::detail::module_definition<ENGINE, MATRIX>;                   \
  extern "C" __global__ void sparseperm_module_kernel(::sparseperm::launch work,                                  \
                                                      sparseperm_module_definition::sum* partial,                 \
                                                      sparseperm_module_definition::value* global_x,              \
                                                      std::uint64_t stride) {                                      \
    sparseperm_module_definition::thread(work, partial, global_x, stride);                                        \
  }                                                                                                                \
  extern "C" __device__ const ::sparseperm::module_info sparseperm_module = sparseperm_module_definition::info();
