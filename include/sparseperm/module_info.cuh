#pragma once
// The generated engines' tags, and what a kernel module (module.cuh) tells its host: plain data, the
// same layout on both sides.
#include <cstdint>

namespace sparseperm {

// The generated engines as tags (permanent<M, Engine>(), SPARSEPERM_MODULE).
struct purereg_engine {
  static constexpr const char* name = "gpu-purereg";
};
struct hybrid_engine {
  static constexpr const char* name = "gpu-hybrid";
};

struct module_info {
  std::int32_t version = 1;
  std::int32_t engine = 0;            // 0 gpu-purereg, 1 gpu-hybrid
  std::int32_t n = 0;
  std::int32_t nnz = 0;
  std::int32_t exact = 0;             // 1: 128-bit integer sums of doubled row sums
  std::int32_t singular = 0;          // 1: no perfect matching (permanent 0)
  std::int32_t global_rows = 0;       // Hybrid: rows of x in global memory per thread
  std::int32_t register_rows = 0;     // rows of x in registers
  std::int32_t register_columns = 0;  // Hybrid: columns that touch register rows only
  std::int32_t padding = 0;
  double start_value = 0;             // the step-0 term Π x_0 (double arithmetic)
  std::int64_t start_high = 0;        // ... and its 128-bit integer in exact arithmetic
  std::uint64_t start_low = 0;
};

}  // namespace sparseperm
