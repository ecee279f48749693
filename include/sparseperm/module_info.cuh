#pragma once
// The generated engines' tags, and what a kernel module (module.cuh) tells its host: plain data, the
// same layout on both sides.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "config.cuh"
#include "detail/error_bound.cuh"

namespace sparseperm {

// The generated engines as tags (permanent<M, Engine>(), SPARSEPERM_MODULE).
struct purereg_engine {
  static constexpr const char* name = "gpu-purereg";
};
struct hybrid_engine {
  static constexpr const char* name = "gpu-hybrid";
};
struct cached_engine {
  static constexpr const char* name = "gpu-cached";
};
struct cpu_cached_engine {
  static constexpr const char* name = "cpu-cached";
};

// module_info::engine of each generated engine (−1: none).
constexpr int module_engine_id(std::string_view engine) {
  return engine == purereg_engine::name  ? 0
         : engine == hybrid_engine::name ? 1
         : engine == cached_engine::name ? 2
         : engine == cpu_cached_engine::name ? 3
                                             : -1;
}

// How a module computes (module_info::arithmetic).
enum module_arithmetic : std::int32_t {
  module_double = 0,       // double x and products, plain per-thread sums
  module_exact128 = 1,     // doubled integer x, 128-bit products and sums
  module_residues = 2,     // doubled integer x, products and sums modulo `primes` primes (modular.cuh)
  module_compensated = 3,  // double x and products, TwoSum per-thread sums
};

struct module_info {
  std::int32_t version = 6;
  std::int32_t engine = 0;            // module_engine_id: 0 gpu-purereg, 1 gpu-hybrid, 2 gpu-cached, 3 cpu-cached
  std::int32_t precision = 0;         // the precision it was asked for (precision.cuh), as an integer
  std::int32_t n = 0;
  std::int32_t nnz = 0;
  std::int32_t arithmetic = module_double;
  std::int32_t primes = 0;            // module_residues: how many of detail::modular_primes
  std::int32_t singular = 0;          // 1: no perfect matching (permanent 0)
  std::int32_t global_rows = 0;       // Hybrid: rows of x in global memory per thread
  std::int32_t register_rows = 0;     // rows of x in registers
  std::int32_t register_columns = 0;  // Hybrid: columns that touch register rows only
  std::int32_t static_bits = 0;       // the Gray bits unrolled at compile time (gpu-cached's b, the others' u)
  double start_value = 0;             // the step-0 term Π x_0 (double arithmetic)
  std::int64_t start_high = 0;        // ... and its 128-bit integer in exact arithmetic
  std::uint64_t start_low = 0;
  double start_residues[16] = {};     // ... and its residues modulo the primes
  detail::grid_rounding_facts grid;   // double arithmetic: the row grids' change and magnitudes (error bound)
};

// The matrix a module was compiled from, as it exports it (sparseperm_module_matrix and
// sparseperm_host_module_matrix): the loader compares it with the matrix it meant, entry by entry,
// before it runs anything (runtime/module_proof.cuh). 64-bit fields only: the same layout, without
// padding, on both sides and for every n.
template <int N, int NNZ>
struct module_matrix {
  std::int64_t n = N;
  std::int64_t nnz = NNZ;
  std::int64_t start[N + 1]{};
  std::int64_t rows[NNZ > 0 ? NNZ : 1]{};
  double values[NNZ > 0 ? NNZ : 1]{};
};

// Its size in bytes for an n×n matrix of nnz nonzeros.
constexpr std::size_t module_matrix_bytes(std::int64_t n, std::int64_t nnz) {
  return 8 * static_cast<std::size_t>(2 + (n + 1) + 2 * (nnz > 0 ? nnz : 1));
}

inline bool module_is_exact(const module_info& info) {
  return info.arithmetic == module_exact128 || info.arithmetic == module_residues;
}

#if SPARSEPERM_HAS_INT128
// The step-0 term of a module in exact arithmetic, from its two 64-bit halves.
inline __int128 exact_start_term(const module_info& info) {
  return (static_cast<__int128>(info.start_high) << 64) | static_cast<__int128>(info.start_low);
}
#endif

// The Gray loop: static blocks of 2^static_bits steps, or one switch a step.
inline std::string gray_loop_text(int static_bits) {
  return static_bits > 0 ? "Gray blocks of 2^" + std::to_string(static_bits) + " steps unrolled at compile time" : "one switch a Gray step";
}

// The plan line of a generated engine's result (the arithmetic is appended by the caller), the same
// whether the kernel was compiled into the program (permanent.cuh) or loaded as a module.
inline std::string purereg_plan_text(int static_bits) { return "columns by ascending degree; x in registers; " + gray_loop_text(static_bits); }

inline std::string hybrid_plan_text(int register_rows, int register_columns, int static_bits) {
  return "permanent ordering (Algorithm 3); " + std::to_string(register_rows) + " rows of x in registers, columns 1.." +
         std::to_string(register_columns) + " register-only, the global rows' product cached; " + gray_loop_text(static_bits) +
         ", products along the staircase";
}

inline std::string cached_plan_text(int static_bits, int register_rows, int n) {
  return "permanent ordering (Algorithm 3); Gray blocks of 2^" + std::to_string(static_bits) +
         " steps unrolled at compile time, partial products cached along the staircase; " + std::to_string(register_rows) +
         " of " + std::to_string(n) + " rows of x in registers";
}

inline std::string cpu_cached_plan_text(int static_bits) {
  return "permanent ordering (Algorithm 3); Gray blocks of 2^" + std::to_string(static_bits) +
         " steps unrolled at compile time, partial products cached along the staircase; compiled for this CPU";
}

inline std::string generated_plan_text(const module_info& info) {
  return info.engine == 3   ? cpu_cached_plan_text(info.static_bits)
         : info.engine == 2   ? cached_plan_text(info.static_bits, info.register_rows, info.n)
         : info.engine == 1 ? hybrid_plan_text(info.register_rows, info.register_columns, info.static_bits)
                            : purereg_plan_text(info.static_bits);
}

}  // namespace sparseperm
