#pragma once
// A kernel module: the device code of one generated engine for one matrix, compiled alone
// (nvcc -cubin) and loaded by a host program that was compiled once (module/gpu_runner.cuh). The
// pipeline compiles only this, which is a few seconds where a whole program is several more.
//
//   #include <sparseperm/module/kernel_module.cuh>
//   #include <sparseperm/engines/gpu_hybrid.cuh>
//   #include "matrix.cuh"
//   SPARSEPERM_MODULE(sparseperm::engines::gpu_hybrid, sparseperm::generated::input::matrix)
//   SPARSEPERM_MODULE_PRECISION(sparseperm::engines::gpu_cached, ..., sparseperm::precision::exact)
//
// exports, with C linkage:
//   sparseperm_module_kernel(launch, Sum* partial, Value* global_x, uint64_t stride)
//   sparseperm_module        a module_info with what the host needs: n, the arithmetic, the step-0
//                            term, Hybrid's partition, whether the pattern is structurally singular
//   sparseperm_module_matrix the matrix it was built from (module_matrix), which the loader checks
// (SPARSEPERM_MODULE_KERNEL(NAME, ENGINE, MATRIX, PRECISION): the kernel alone, named NAME)
#if !defined(__CUDACC__)
#  error "sparseperm/module/kernel_module.cuh is device code: compile it with nvcc"
#endif

#include <cstdint>

#include "../ryser/ryser_thread.cuh"
#include "definition.cuh"

namespace sparseperm::detail {

// A GPU engine's module for matrix type M: the definition (plan, accumulator, module_info) and one
// thread's work. Engine (engines/engine.cuh) supplies steps<Plan>(first, end, global_x, stride, sum)
// and partial_in_memory<Sum> (the thread keeps its total in memory rather than in registers).
template <class Engine, CompileTimeMatrix M, precision P = precision::automatic>
struct device_module : module_definition<Engine, M, P> {
  using base = module_definition<Engine, M, P>;
  using typename base::plan;
  using typename base::sum;
  using typename base::value;
  static_assert(!Engine::split_signs,
                "SPARSEPERM_MODULE: this engine builds host modules (SPARSEPERM_HOST_MODULE, host_module.cuh)");

  __device__ static void thread(launch work, sum* partial, value* global_x, std::uint64_t stride) {
    const auto steps = [&](std::uint64_t first, std::uint64_t end, std::uint64_t t, sum& s) {
      Engine::template steps<plan>(first, end, global_x + t, stride, s);
    };
    if constexpr (Engine::template partial_in_memory<sum>) {
      ryser_thread_in_memory(work, partial, steps);
    } else {
      ryser_thread(work, partial, steps);
    }
  }
};

}  // namespace sparseperm::detail

namespace sparseperm {

// The kernel of a generated GPU engine for matrix type M: one thread, one chunk of the launch
// (Algorithm 2); per-thread sums persist across launches in `partial`. permanent<M>() launches it
// compiled into the program, SPARSEPERM_MODULE exports it from a module.
template <class Engine, CompileTimeMatrix M, precision P = precision::automatic>
__global__ void generated_kernel(launch work, typename detail::device_module<Engine, M, P>::sum* partial,
                                 typename detail::device_module<Engine, M, P>::value* global_x, std::uint64_t stride) {
  detail::device_module<Engine, M, P>::thread(work, partial, global_x, stride);
}

}  // namespace sparseperm

#define SPARSEPERM_MODULE(ENGINE, MATRIX) \
  SPARSEPERM_MODULE_PRECISION(ENGINE, MATRIX, ::sparseperm::precision::automatic)

#define SPARSEPERM_MODULE_PRECISION(ENGINE, MATRIX, PRECISION)                                                    \
  using sparseperm_module_definition = ::sparseperm::detail::device_module<ENGINE, MATRIX, PRECISION>;            \
  SPARSEPERM_MODULE_KERNEL(sparseperm_module_kernel, ENGINE, MATRIX, PRECISION)                                   \
  extern "C" __device__ const ::sparseperm::module_info sparseperm_module = sparseperm_module_definition::info(); \
  extern "C" __device__ const decltype(sparseperm_module_definition::matrix()) sparseperm_module_matrix =         \
      sparseperm_module_definition::matrix();

// The module's kernel alone, under the C name NAME: several engines' kernels in one unit (the
// register checks of tests/codegen compile a matrix's three in one nvcc run).
#define SPARSEPERM_MODULE_KERNEL(NAME, ENGINE, MATRIX, PRECISION)                                              \
  extern "C" __global__ void NAME(                                                                             \
      ::sparseperm::launch work, ::sparseperm::detail::device_module<ENGINE, MATRIX, PRECISION>::sum* partial, \
      ::sparseperm::detail::device_module<ENGINE, MATRIX, PRECISION>::value* global_x, std::uint64_t stride) { \
    ::sparseperm::detail::device_module<ENGINE, MATRIX, PRECISION>::thread(work, partial, global_x, stride);   \
  }
