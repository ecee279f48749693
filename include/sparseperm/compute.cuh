#pragma once
// The host entry point: check the structure, choose an engine, run it, time it.
//
// Every call returns the same record (result.cuh). A 0×0 matrix has permanent 1; a matrix without a
// perfect matching (structural rank < n) has permanent 0, found by matching before any engine runs.
//
// Engines: cpu-sparse and reference everywhere; gpu-sparse where this translation unit is compiled
// by nvcc and a CUDA device is present; gpu-purereg and gpu-hybrid through the pipeline (a program
// kernel generated and compiled for the matrix), which also needs nvcc at run time. `auto` takes a GPU
// engine for n ≥ 28 when it can (gpu-hybrid, else gpu-sparse), and cpu-sparse otherwise.
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "engine_error.cuh"
#include "engines/cpu_sparse.cuh"
#include "engines/reference.cuh"
#include "progress.cuh"
#include "result.cuh"
#include "runtime/matching.cuh"
#include "runtime/pipeline.cuh"
#include "runtime/sparse_matrix.cuh"
#if defined(__CUDACC__)
#  include "engines/gpu_sparse.cuh"
#  include "gpu/module_runner.cuh"
#endif

namespace sparseperm {

enum class engine_kind { host, gpu_runtime, gpu_generated };

struct engine_description {
  std::string_view name;
  std::string_view summary;
  int max_n;
  engine_kind kind;
};

inline constexpr engine_description all_engines[] = {
    {"gpu-hybrid", "the paper's CodeGen-Hybrid: a program generated for the matrix, the most used rows of x in registers",
     max_ryser_n, engine_kind::gpu_generated},
    {"gpu-purereg", "the paper's CodeGen-PureReg: a program generated for the matrix, all of x in registers", max_ryser_n,
     engine_kind::gpu_generated},
    {"gpu-sparse", "the paper's GPU-SparsePerman: sparse Ryser with the matrix and x in shared memory", max_ryser_n,
     engine_kind::gpu_runtime},
    {"cpu-sparse", "the paper's CPU-SparsePerman: sparse Ryser over CSC, degree-sorted columns, zero tracking, OpenMP",
     cpu_sparse_max_n, engine_kind::host},
    {"reference", "brute force (n <= 10) or dense Ryser (n <= 26); long double, exact for integer matrices",
     reference_ryser_max_n, engine_kind::host},
};

struct compute_options {
  std::string engine = "auto";
  int threads = 0;                       // CPU threads; 0: all that OpenMP offers
  int device = 0;                        // CUDA device of the GPU engines
  progress_counter* progress = nullptr;
  std::string source_name = "matrix";    // what generated headers say they came from
  pipeline_options pipeline;             // where the generated engines compile (defaults: see pipeline.cuh)
};

inline std::string engine_names() {
  std::string names = "auto";
  for (const auto& e : all_engines) names += ", " + std::string(e.name);
  return names;
}

inline const engine_description* find_engine(std::string_view name) {
  for (const auto& e : all_engines) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

// CUDA devices this program can use (0 where it was compiled without nvcc).
inline int cuda_devices() {
#if defined(__CUDACC__)
  return gpu::device_count();
#else
  return 0;
#endif
}

// Why an engine cannot run on this machine with this build, or nothing when it can.
inline std::optional<std::string> engine_unavailable(const engine_description& engine, const compute_options& options = {}) {
  if (engine.kind == engine_kind::host) return std::nullopt;
#if !defined(__CUDACC__)
  (void)options;
  return "this build of sparseperm has no CUDA support (it was compiled without nvcc)";
#else
  if (cuda_devices() == 0) return "there is no CUDA device on this machine";
  if (engine.kind == engine_kind::gpu_generated && pipeline_compiler(options.pipeline).empty()) {
    return "it compiles a program for each matrix and needs nvcc, which was not found (put it on PATH or set "
           "SPARSEPERM_NVCC to its path)";
  }
  return std::nullopt;
#endif
}

// The engine that `name` means for an n×n matrix; throws engine_error when there is none.
inline const engine_description& resolve_engine(const std::string& name, int n, const compute_options& options = {}) {
  if (name == "auto") {
    const auto usable = [&](std::string_view engine) {
      const engine_description* e = find_engine(engine);
      return n <= e->max_n && !engine_unavailable(*e, options);
    };
    if (n >= 28 && usable("gpu-hybrid")) return *find_engine("gpu-hybrid");
    if (n >= 28 && usable("gpu-sparse")) return *find_engine("gpu-sparse");
    if (usable("cpu-sparse")) return *find_engine("cpu-sparse");
    throw engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) +
                                                          " exceeds the limit of every engine in this build (the largest is "
                                                          "cpu-sparse, n <= " + std::to_string(cpu_sparse_max_n) + ")");
  }
  const engine_description* engine = find_engine(name);
  if (engine == nullptr) {
    throw engine_error(engine_error::kind::unknown_engine, "unknown engine '" + name + "' (engines: " + engine_names() + ")");
  }
  if (n > engine->max_n) {
    throw engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) + " exceeds the limit of engine '" +
                                                          name + "' (n <= " + std::to_string(engine->max_n) + ")");
  }
  if (const auto why = engine_unavailable(*engine, options)) {
    throw engine_error(engine_error::kind::unavailable, "engine '" + name + "' is not available: " + *why);
  }
  return *engine;
}

inline permanent_result compute_permanent(const sparse_matrix& matrix, const compute_options& options = {}) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const int n = matrix.n();
  const engine_description& engine = resolve_engine(options.engine, n, options);

  const bipartite_matching matching = maximum_matching(matrix);
  const double plan_seconds = std::chrono::duration<double>(clock::now() - start).count();
  permanent_result result;
  if (n == 0 || matching.size < n) {
    result.engine = "structure";
    result.n = n;
    result.nnz = matrix.nnz();
    set_exact_value(result, n == 0 ? 1 : 0,
                    n == 0 ? "the 0 x 0 matrix: permanent 1 by convention"
                           : "structurally singular: a maximum matching covers " + std::to_string(matching.size) + " of " +
                                 std::to_string(n) + " rows, so every term has a zero factor");
  } else if (engine.name == "cpu-sparse") {
    result = permanent_cpu_sparse(matrix, {.threads = options.threads, .progress = options.progress});
  } else if (engine.name == "reference") {
    result = permanent_reference(matrix);
  } else {
#if defined(__CUDACC__)
    if (engine.kind == engine_kind::gpu_generated) {
      pipeline_options pipeline = options.pipeline;
      pipeline.engine = std::string(engine.name);
      if (pipeline.arch.empty()) {
        const cudaDeviceProp device = gpu::select_device(options.device, pipeline.engine);
        pipeline.arch = "sm_" + std::to_string(device.major) + std::to_string(device.minor);
      }
      const compiled_module kernel = compile_module(matrix, options.source_name, pipeline);
      result = gpu::run_module(kernel.cubin, pipeline.engine, {.device = options.device, .progress = options.progress});
      result.seconds.codegen = kernel.codegen_seconds;
      result.seconds.compile = kernel.compile_seconds;
      result.plan += kernel.cached ? "; kernel from the cache " + kernel.directory : "; kernel compiled into " + kernel.directory;
    } else {
      result = permanent_gpu_sparse(matrix, {.device = options.device, .progress = options.progress});
    }
#endif
  }
  result.seconds.plan = plan_seconds;
  result.seconds.total = std::chrono::duration<double>(clock::now() - start).count();
  return result;
}

}  // namespace sparseperm
