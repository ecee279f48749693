#pragma once
// The engines this library has, and which of them can run here (DESIGN §2).
#include <optional>
#include <string>
#include <string_view>

#include "engines/cpu_sparse.cuh"
#include "engines/reference.cuh"
#include "precision.cuh"
#include "progress.cuh"
#include "runtime/pipeline.cuh"
#if defined(__CUDACC__)
#  include "gpu/cuda_support.cuh"
#endif

namespace sparseperm {

// The largest n the dp engine accepts (its cost is set by the frontier, not by n).
inline constexpr int dp_max_n = 1 << 20;

enum class engine_kind { host, host_generated, gpu_runtime, gpu_generated };

struct engine_description {
  std::string_view name;
  std::string_view summary;
  int max_n;
  engine_kind kind;
};

inline constexpr engine_description all_engines[] = {
    {"gpu-cached", "beyond the paper: a program generated for the matrix, Gray blocks unrolled at compile time, partial products cached",
     max_ryser_n, engine_kind::gpu_generated},
    {"gpu-hybrid", "the paper's CodeGen-Hybrid: a program generated for the matrix, the most used rows of x in registers; Gray blocks unrolled",
     max_ryser_n, engine_kind::gpu_generated},
    {"gpu-purereg", "the paper's CodeGen-PureReg: a program generated for the matrix, all of x in registers", max_ryser_n,
     engine_kind::gpu_generated},
    {"gpu-sparse", "the paper's GPU-SparsePerman: sparse Ryser with the matrix and x in shared memory", max_ryser_n,
     engine_kind::gpu_runtime},
    {"cpu-cached", "beyond the paper: gpu-cached's loop compiled for this CPU (g++ -O3 -march=native) and run on OpenMP threads",
     max_ryser_n, engine_kind::host_generated},
    {"cpu-sparse", "the paper's CPU-SparsePerman: sparse Ryser over CSC, degree-sorted columns, zero tracking, OpenMP",
     cpu_sparse_max_n, engine_kind::host},
    {"dp", "column-frontier dynamic program: cost set by the frontier under the best column order found, not by n",
     dp_max_n, engine_kind::host},
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
  sparseperm::precision precision = sparseperm::precision::automatic;  // the arithmetic (precision.cuh)
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
  if (engine.kind == engine_kind::host_generated) {
    pipeline_options pipeline = options.pipeline;
    pipeline.engine = std::string(engine.name);
    if (pipeline_compiler(pipeline).empty()) {
      return "it compiles a module for each matrix and needs a C++20 compiler, which was not found (put g++ on PATH or set "
             "SPARSEPERM_CXX to its path)";
    }
    return std::nullopt;
  }
#if !defined(__CUDACC__)
  (void)options;
  return "this build of sparseperm has no CUDA support (it was compiled without nvcc)";
#else
  if (cuda_devices() == 0) return "there is no CUDA device on this machine";
  if (engine.kind == engine_kind::gpu_generated && detail::find_nvcc(options.pipeline.nvcc).empty()) {
    return "it compiles a program for each matrix and needs nvcc, which was not found (put it on PATH or set "
           "SPARSEPERM_NVCC to its path)";
  }
  return std::nullopt;
#endif
}

}  // namespace sparseperm
