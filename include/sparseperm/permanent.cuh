#pragma once
// sparseperm::permanent<M>(options): the permanent of a generated matrix type, on the GPU.
//
//   #include <sparseperm/perm.cuh>
//   #include "my_matrix.cuh"                       // written by sparseperm-gen
//   auto r = sparseperm::permanent<sparseperm::generated::my_matrix::matrix>();                     // gpu-cached
//   auto h = sparseperm::permanent<sparseperm::generated::my_matrix::matrix, sparseperm::engines::gpu_hybrid>();
//
// Engines: a GPU-generated engine's tag (engines::gpu_cached, the default; engines::gpu_hybrid;
// engines::gpu_purereg); only the one named is compiled. By default integer matrices whose 128-bit
// bound holds are computed exactly, others in double with compensated sums;
// permanent<M, Engine, precision::exact>() computes integer matrices exactly beyond it (residues).
// A pattern without a perfect matching (checked at compile time) gives an exact 0 without a launch.
#if !defined(__CUDACC__)
#  error "sparseperm/permanent.cuh runs kernels: compile it with nvcc"
#endif

#include <chrono>
#include <string>
#include <vector>

#include "core/progress.cuh"
#include "core/result.cuh"
#include "engines/gpu_cached.cuh"
#include "engines/gpu_hybrid.cuh"
#include "engines/gpu_purereg.cuh"
#include "gpu/ryser_launcher.cuh"
#include "matrix/pattern.cuh"
#include "module/kernel_module.cuh"
#include "module/module_info.cuh"
#include "ryser/ryser_plan.cuh"
#include "structure/structural_rank.cuh"

namespace sparseperm {

struct gpu_options {
  std::vector<int> devices = {0};  // the CUDA devices to share the chunks over
  progress_counter* progress = nullptr;
};

// Engine: a GPU-generated engine's tag; P: the arithmetic asked for (numeric/arithmetic.cuh;
// precision::exact needs exact_arithmetic_of<M> to be non-void).
template <CompileTimeMatrix M, class Engine = engines::gpu_cached, precision P = precision::automatic>
permanent_result permanent(const gpu_options& options = {}) {
  static_assert(Engine::placement == engine_placement::gpu_generated,
                "sparseperm::permanent<M, Engine>: Engine must be a GPU-generated engine (engines::gpu_cached, "
                "gpu_hybrid, gpu_purereg)");
  const auto start = std::chrono::steady_clock::now();
  constexpr int n = M::pattern::n;
  permanent_result result;
  result.engine = std::string(Engine::name);
  result.n = n;
  result.nnz = M::pattern::nnz;
  if constexpr (n == 0 || n > max_ryser_n) {
    static_assert(n <= max_ryser_n, "sparseperm::permanent<M>: the generated Ryser engines need n <= 64");
    set_exact_value(result, 1, "the 0 x 0 matrix: permanent 1 by convention");
  } else if constexpr (structural_rank(constants_of<M>.masks()) < n) {
    set_compile_time_singular(result, is_complex_matrix<M>);
  } else {
    // The same definition as a kernel module's (module/kernel_module.cuh): plan, accumulator, plan line.
    using definition = detail::device_module<Engine, M, P>;
    using plan = typename definition::plan;
    constexpr module_info info = definition::info();
    result.plan = Engine::plan_text(info) + "; " + definition::sum::description();
    gpu::run_ryser_kernel<typename definition::sum, typename definition::value>(
        result, start_term_of<plan>(), reinterpret_cast<const void*>(&generated_kernel<Engine, M, P>), info.global_rows,
        {.devices = options.devices, .progress = options.progress}, detail::floating_facts_of(info));
  }
  result.seconds.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace sparseperm
