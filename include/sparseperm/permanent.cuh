#pragma once
// sparseperm::permanent<M>(options): the permanent of a generated matrix type, on the GPU.
//
//   #include <sparseperm/perm.cuh>
//   #include "my_matrix.cuh"                       // written by sparseperm-gen
//   auto r = sparseperm::permanent<sparseperm::generated::my_matrix::matrix>({.engine = "gpu-cached"});
//
// Engines: gpu-cached (the default; `auto` means it), gpu-hybrid and gpu-purereg. By default integer
// matrices whose 128-bit bound holds are computed exactly, others in double with compensated sums;
// permanent<M, Engine, precision::exact>() computes integer matrices exactly beyond it (residues). A pattern without a perfect matching (checked at compile
// time) gives an exact 0 without a launch. permanent<M, purereg_engine>() instantiates one engine
// only, which halves the compile time of a program that needs one.
#if !defined(__CUDACC__)
#  error "sparseperm/permanent.cuh runs kernels: compile it with nvcc"
#endif

#include <chrono>
#include <string>
#include <type_traits>

#include "engine_error.cuh"
#include "gpu/ryser_launcher.cuh"
#include "module.cuh"
#include "module_info.cuh"
#include "pattern.cuh"
#include "progress.cuh"
#include "result.cuh"
#include "ryser_plan.cuh"
#include "structure.cuh"

namespace sparseperm {

struct gpu_options {
  std::string engine = "gpu-cached";     // gpu-cached | gpu-hybrid | gpu-purereg
  int device = 0;
  progress_counter* progress = nullptr;
};

template <class Engine, CompileTimeMatrix M, precision P = precision::automatic>
permanent_result run_generated_engine(const gpu_options& options) {
  constexpr int n = M::pattern::n;
  permanent_result result;
  result.engine = Engine::name;
  result.n = n;
  result.nnz = M::pattern::nnz;
  if constexpr (n == 0 || n > max_ryser_n) {
    static_assert(n <= max_ryser_n, "sparseperm::permanent<M>: the generated Ryser engines need n <= 64");
    set_exact_value(result, 1, "the 0 x 0 matrix: permanent 1 by convention");
    return result;
  } else {
    if constexpr (structural_rank(constants_of<M>.masks()) < n) {
      set_exact_value(result, 0, "structurally singular (no perfect matching, found at compile time)");
      return result;
    } else {
      // The same definition as a kernel module's (module.cuh): plan, accumulator, plan line.
      using definition = detail::device_module<Engine, M, P>;
      using plan = typename definition::plan;
      constexpr module_info info = definition::info();
      result.plan = generated_plan_text(info) + "; " + definition::sum::description();
      gpu::run_ryser_kernel<typename definition::sum, typename definition::value>(
          result, plan::start_term, reinterpret_cast<const void*>(&generated_kernel<Engine, M, P>), info.global_rows,
          {options.device, options.progress}, detail::floating_facts_of(info));
      return result;
    }
  }
}

// Engine = void: the engine named in options.engine (all three are compiled in). P: the arithmetic
// (precision.cuh; precision::exact needs exact_arithmetic_of<M> to be non-void).
template <CompileTimeMatrix M, class Engine = void, precision P = precision::automatic>
permanent_result permanent(const gpu_options& options = {}) {
  const auto start = std::chrono::steady_clock::now();
  permanent_result result;
  if constexpr (!std::is_void_v<Engine>) {
    result = run_generated_engine<Engine, M, P>(options);
  } else if (options.engine == purereg_engine::name) {
    result = run_generated_engine<purereg_engine, M, P>(options);
  } else if (options.engine == hybrid_engine::name) {
    result = run_generated_engine<hybrid_engine, M, P>(options);
  } else if (options.engine == cached_engine::name || options.engine == "auto") {
    result = run_generated_engine<cached_engine, M, P>(options);
  } else {
    throw engine_error(engine_error::kind::unknown_engine, "unknown engine '" + options.engine +
                                                               "' for a generated matrix (engines: gpu-cached, gpu-hybrid, gpu-purereg)");
  }
  result.seconds.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace sparseperm
