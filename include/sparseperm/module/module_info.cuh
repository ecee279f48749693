#pragma once
// What a module (kernel_module.cuh, host_module.cuh) tells the program that loads it: plain data, the
// same layout on both sides.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "../core/config.cuh"
#include "../numeric/arithmetic.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/value_types.cuh"
#include "../ryser/arithmetic_types.cuh"
#include "../ryser/ryser_plan.cuh"
#include "../ryser/ryser_result.cuh"

namespace sparseperm {

// The longest engine name a module records (NUL included).
inline constexpr int module_engine_name_bytes = 24;

struct module_info {
  std::int32_t version = 9;
  char engine[module_engine_name_bytes] = {};  // the engine's name (engines/catalog.cuh), NUL-terminated
  std::int32_t precision = 0;                  // the precision it was asked for (numeric/arithmetic.cuh), as an integer
  std::int32_t n = 0;
  std::int32_t nnz = 0;
  std::int32_t arithmetic = 0;        // numeric/arithmetic.cuh's enum, as an integer
  std::int32_t primes = 0;            // residues: how many of detail::modular_primes
  std::int32_t singular = 0;          // 1: no perfect matching (permanent 0)
  std::int32_t global_rows = 0;       // values per thread in global memory: rows of x (gpu-cached: and levels)
  std::int32_t register_rows = 0;     // rows of x in registers
  std::int32_t register_columns = 0;  // Hybrid: columns that touch register rows only
  std::int32_t static_bits = 0;       // the Gray bits unrolled at compile time (gpu-cached's b, the others' u)
  std::int32_t plain_run_bits = 0;    // compensated sums: 2^this terms are summed plainly before each TwoSum
  std::int32_t complex = 0;           // 1: complex values (complex doubles, or Gaussian integers when exact)
  double start_value = 0;             // the step-0 term Π x_0 (double arithmetic)
  std::int64_t start_high = 0;        // ... and its 128-bit integer in exact arithmetic (the real part)
  std::uint64_t start_low = 0;
  std::int64_t start_imag_high = 0;  // ... its imaginary part (Gaussian integers)
  std::uint64_t start_imag_low = 0;
  double start_residues[16] = {};        // ... and its residues modulo the primes
  double start_x[2 * max_ryser_n] = {};  // complex doubles: x_0 (re, im pairs), multiplied out by the loader
  // double-double: x_0's coarse parts in start_x (real: one a row) and its fine parts here
  double start_x_fine[2 * max_ryser_n] = {};
  detail::grid_rounding_facts grid;  // floating point: the row grids' change and magnitudes (error bound)
};

// The matrix a module was compiled from, as it exports it (sparseperm_module_matrix and
// sparseperm_host_module_matrix): the loader compares it with the matrix it meant, entry by entry,
// before it runs anything (module/proof.cuh). 64-bit fields only: the same layout, without
// padding, on both sides and for every n.
template <int N, int NNZ>
struct module_matrix {
  std::int64_t n = N;
  std::int64_t nnz = NNZ;
  std::int64_t start[N + 1]{};
  std::int64_t rows[NNZ > 0 ? NNZ : 1]{};
  double values[NNZ > 0 ? NNZ : 1]{};
  double imag[NNZ > 0 ? NNZ : 1]{};  // the imaginary parts (0 for a real matrix)
};

// Its size in bytes for an n×n matrix of nnz nonzeros.
constexpr std::size_t module_matrix_bytes(std::int64_t n, std::int64_t nnz) {
  return 8 * static_cast<std::size_t>(2 + (n + 1) + 3 * (nnz > 0 ? nnz : 1));
}

inline sparseperm::arithmetic module_arithmetic(const module_info& info) {
  return static_cast<sparseperm::arithmetic>(info.arithmetic);
}

inline bool module_is_exact(const module_info& info) { return is_exact(module_arithmetic(info)); }

// The engine a module names, as a string (at most module_engine_name_bytes − 1 characters).
inline std::string_view module_engine(const module_info& info) {
  std::size_t length = 0;
  while (length < sizeof info.engine && info.engine[length] != 0) ++length;
  return {info.engine, length};
}

#if SPARSEPERM_HAS_INT128
// A 128-bit integer from its two 64-bit halves, and back.
inline __int128 joined_halves(std::int64_t high, std::uint64_t low) {
  return (static_cast<__int128>(high) << 64) | static_cast<__int128>(low);
}
constexpr void split_halves(__int128 v, std::int64_t& high, std::uint64_t& low) {
  high = static_cast<std::int64_t>(v >> 64);
  low = static_cast<std::uint64_t>(v);
}

// The step-0 term of a module in exact arithmetic (its real part for Gaussian integers).
inline __int128 exact_start_term(const module_info& info) { return joined_halves(info.start_high, info.start_low); }
#endif

// The exact 0 of a pattern found singular at compile time (a complex 0 for a complex matrix).
inline void set_compile_time_singular(permanent_result& result, bool complex) {
  set_exact_value(result, 0, "structurally singular (no perfect matching, found at compile time)");
  if (complex) set_imaginary_part(result, 0, "0");
}

// The Gray loop: static blocks of 2^static_bits steps, or one switch a step.
inline std::string gray_loop_text(int static_bits) {
  return static_bits > 0 ? "Gray blocks of 2^" + std::to_string(static_bits) + " steps unrolled at compile time"
                         : "one switch a Gray step";
}

namespace detail {

// The step-0 term a module recorded, in the product type of its arithmetic.
template <class Arith>
typename Arith::product module_start_term(const module_info& info) {
  if constexpr (is_double_double_arithmetic<Arith>) {
    typename Arith::value x0[max_ryser_n];
    for (int i = 0; i < info.n && i < max_ryser_n; ++i) {
      if constexpr (is_complex_arithmetic<Arith>) {
        x0[i] = {{info.start_x[2 * i], info.start_x[2 * i + 1]},
                 {info.start_x_fine[2 * i], info.start_x_fine[2 * i + 1]}};
      } else {
        x0[i] = {info.start_x[i], info.start_x_fine[i]};
      }
    }
    return split_start_product(x0, info.n);
  } else if constexpr (std::is_same_v<typename Arith::product, complex_double>) {
    complex_double x0[max_ryser_n];
    for (int i = 0; i < info.n && i < max_ryser_n; ++i) x0[i] = {info.start_x[2 * i], info.start_x[2 * i + 1]};
    return complex_start_product(x0, info.n);
  } else if constexpr (is_complex_arithmetic<Arith>) {
#if SPARSEPERM_HAS_INT128
    return {exact_start_term(info), joined_halves(info.start_imag_high, info.start_imag_low)};
#endif
  } else if constexpr (is_residue_arithmetic<Arith>) {
    typename Arith::product p;
    for (int k = 0; k < Arith::primes; ++k) p.r[k] = info.start_residues[k];
    return p;
  } else if constexpr (Arith::exact) {
#if SPARSEPERM_HAS_INT128
    return exact_start_term(info);
#endif
  } else {
    return info.start_value;
  }
}

// What a floating module's error bound needs besides its sums: the grid facts it recorded, and the
// terms summed plainly before each TwoSum (accumulators.cuh).
inline floating_run_facts floating_facts_of(const module_info& info) {
  floating_run_facts facts;
  facts.grid = info.grid;
  if (module_arithmetic(info) == arithmetic::compensated)
    facts.block = std::uint64_t{1} << (info.plain_run_bits > 0 ? info.plain_run_bits : 0);
  return facts;
}

// f.template operator()<Arith, Sum>() with the types a module was compiled with.
template <bool SplitSigns, class F>
decltype(auto) visit_module_arithmetic(const module_info& info, F&& f) {
  const arithmetic_choice choice{module_arithmetic(info), info.primes};
  if (choice.kind == arithmetic::double_double) {
    return info.complex ? f.template operator()<complex_double_double_arithmetic, complex_sum<dd_sum>>()
                        : f.template operator()<double_double_arithmetic, dd_sum>();
  }
  if (info.complex) return visit_complex_arithmetic(choice, std::forward<F>(f));
  return visit_arithmetic<SplitSigns>(choice, std::forward<F>(f));
}

}  // namespace detail

}  // namespace sparseperm
