#pragma once
// The module pipeline for the generated engines (gpu-cached, gpu-hybrid, gpu-purereg, cpu-cached): a
// program that includes this header and names it (compute_options::modules = module_pipeline()) runs
// them through compute_permanent, the planner and the CLI.
// It brings the code generation, the private module cache, the compilers (run without a shell), the
// module proof and the loaders (dlopen of a memfd; the CUDA library API where nvcc compiles the
// program): module/pipeline.cuh says how. A program that only computes with the run-time engines
// includes <sparseperm/perm.cuh> alone and has none of that code.
#include <optional>
#include <string>

#include "compute.cuh"
#include "engines/engine.cuh"
#include "module/host_runner.cuh"
#include "module/pipeline.cuh"
#if defined(__CUDACC__)
#  include "gpu/cuda_support.cuh"
#  include "module/gpu_runner.cuh"
#endif

namespace sparseperm {

namespace detail {

// A generated engine's result: its code generation and compilation, and where its module is.
inline void note_module(permanent_result& result, const compiled_module& built) {
  result.seconds.codegen = built.codegen_seconds;
  result.seconds.compile = built.compile_seconds;
  result.plan +=
      built.cached ? "; module from the cache " + built.directory : "; module compiled into " + built.directory;
}

// A generated engine's run: the module compiled or found in the cache, then run(module). A module
// from the cache that proves to be another matrix's (module/proof.cuh) loses its entry and is built
// again, once; a freshly built one that does is our failure, reported as such.
template <class Run>
permanent_result run_module_of(const sparse_matrix& matrix, const pipeline_options& pipeline, const Run& run) {
  for (int attempt = 0;; ++attempt) {
    const compiled_module module = compile_module(matrix, pipeline);
    try {
      permanent_result result = run(module);
      note_module(result, module);
      return result;
    } catch (const module_mismatch_error&) {
      if (!module.cached || attempt > 0) throw;
      remove_cache_path(module.directory);
    }
  }
}

// The pipeline's options for a generated engine: the caller's, with the engine's module and the precision.
inline pipeline_options pipeline_for(const engine_description& engine, const compute_options& options) {
  pipeline_options pipeline = options.pipeline;
  pipeline.target = engine.target();
  pipeline.precision = options.precision;
  return pipeline;
}

inline std::optional<std::string> generated_engine_unavailable(const engine_description& engine,
                                                               const compute_options& options) {
  if (engine.placement == engine_placement::host_generated) {
    if (pipeline_compiler(pipeline_for(engine, options)).empty()) {
      return "it compiles a module for each matrix and needs a C++20 compiler, which was not found (put g++ on PATH or "
             "set SPARSEPERM_CXX to its path)";
    }
    return std::nullopt;
  }
  if (auto why = gpu_unavailable()) return why;
  if (pipeline_compiler(pipeline_for(engine, options)).empty()) {
    return "it compiles a program for each matrix and needs nvcc, which was not found (put it on PATH or set "
           "SPARSEPERM_NVCC to its path)";
  }
  return std::nullopt;
}

#if defined(__CUDACC__)
// A kernel module is compiled for the selected device's architecture, unless the caller named one.
inline void set_device_arch(pipeline_options& pipeline, const compute_options& options) {
  if (pipeline.arch.empty()) {
    const cudaDeviceProp device = gpu::select_device(options.first_device(), pipeline.target.name);
    pipeline.arch = "sm_" + std::to_string(device.major) + std::to_string(device.minor);
  }
}
#endif

// Whether the engine's module for the matrix is in the cache: the module run_generated_engine would
// load, so the planner charges no compile for it. The planner asks only for engines it found
// available (generated_engine_unavailable); anything else that keeps the module from being found
// here (no compiler, no device, an unusable cache folder) answers no.
inline bool generated_module_cached(const engine_description& engine, const sparse_matrix& matrix,
                                    const compute_options& options) {
  try {
    pipeline_options pipeline = pipeline_for(engine, options);
#if defined(__CUDACC__)
    if (engine.placement != engine_placement::host_generated) set_device_arch(pipeline, options);
#endif
    return module_is_cached(matrix, pipeline);
  } catch (const std::exception&) {
    return false;
  }
}

inline permanent_result run_generated_engine(const engine_description& engine, const engine_task& task,
                                             const compute_options& options) {
  pipeline_options pipeline = pipeline_for(engine, options);
  if (engine.placement == engine_placement::host_generated) {
    return run_module_of(task.matrix, pipeline, [&](const compiled_module& module) {
      return run_host_module(module.image, module.path, engine.name, engine.plan_text, task.matrix, options.precision,
                             {.threads = options.threads, .progress = options.progress, .sharing = options.sharing()});
    });
  }
#if defined(__CUDACC__)
  set_device_arch(pipeline, options);
  return run_module_of(task.matrix, pipeline, [&](const compiled_module& kernel) {
    return gpu::run_module(kernel.image, kernel.path, pipeline.target.name, engine.plan_text, task.matrix,
                           options.precision,
                           {.devices = options.devices, .progress = options.progress, .sharing = options.sharing()});
  });
#else
  throw engine_error(engine_error::kind::unavailable, "engine '" + std::string(engine.name) + "' is not available: " +
                                                          *generated_engine_unavailable(engine, options));
#endif
}

inline constexpr module_runner pipeline_module_runner{&generated_engine_unavailable, &run_generated_engine,
                                                      &generated_module_cached};

}  // namespace detail

// The pipeline as a program's way of running generated engines: compute_options::modules.
inline const module_runner* module_pipeline() { return &detail::pipeline_module_runner; }

}  // namespace sparseperm
