#pragma once
// What the module pipeline (pipeline.cuh) builds and where: light enough for every engine's options.
#include <string>

#include "../numeric/arithmetic.cuh"

namespace sparseperm {

// The module of a generated engine, from the engine's traits (engine_description::target(),
// engines/engine.cuh): compile-time constants of the library, never text from an input.
struct module_target {
  std::string name;    // the engine: cache entries, messages
  bool host = false;   // a host module (shared library), not a kernel (cubin)
  std::string type;    // the engine's tag in C++, for the module's source
  std::string header;  // the header that defines it
};

struct pipeline_options {
  module_target target;     // the engine whose module this is
  std::string arch;         // "sm_90"; the kernel's GPU architecture
  std::string cache_dir;    // empty: module_cache.cuh's default_cache_dir()
  std::string nvcc;         // empty: $SPARSEPERM_NVCC, nvcc on PATH, /usr/local/cuda/bin/nvcc
  std::string cxx;          // cpu-cached's compiler; empty: $SPARSEPERM_CXX, g++ or c++ on PATH
  std::string include_dir;  // empty: $SPARSEPERM_INCLUDE_DIR, beside the executable, this header's tree
  sparseperm::precision precision = sparseperm::precision::automatic;  // the module's arithmetic
};

}  // namespace sparseperm
