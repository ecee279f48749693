#pragma once
// The `cpu-cached` engine: gpu-cached's chunk loop (ryser/cached_loop.cuh) compiled for the host and
// run on OpenMP threads (module/host_run.cuh). The matrix is a type, so the host compiler unrolls the
// static Gray blocks with the columns, directions and values as constants, as nvcc does for the GPU.
// x is one array (k = n): the cost model chooses b alone (cached_options_on_host).
//
//   permanent_cpu_cached<M>(options)        a generated matrix type, compiled into the caller's
//                                           program (best with -O3 -march=native -fopenmp):
//                                           permanent_cpu.cuh
//   sparseperm compute --engine cpu-cached  the pipeline: a host module compiled for each matrix
//                                           (module/host_module.cuh, module/host_runner.cuh)
//
// Sums (ryser/arithmetic_types.cuh): by default exact 128-bit integers where the matrix's bound
// allows, else double with compensated (TwoSum) sums, one for the terms added and one for those
// subtracted: two dependency chains where one held each step at the adder's latency.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "../detail/threads.cuh"
#include "../module/definition.cuh"
#include "../ryser/cached_loop.cuh"
#include "engine.cuh"

namespace sparseperm {

namespace engines {

struct cpu_cached : ryser_engine {
  static constexpr std::string_view name = "cpu-cached";
  static constexpr std::string_view summary =
      "beyond the paper: gpu-cached's loop compiled for this CPU (g++ -O3 -march=native) and run on OpenMP threads";
  static constexpr engine_placement placement = engine_placement::host_generated;
  static constexpr bool cpu_threads = true;
  static constexpr std::string_view module_type = "sparseperm::engines::cpu_cached";
  static constexpr std::string_view module_header = "sparseperm/engines/cpu_cached.cuh";
  // The planner's rates: modelled cost units per second and core (n = 30, p = 0.1 / 0.3: 4.8e9 /
  // 5.0e9, AMD EPYC with AVX-512).
  static constexpr double cost_rate = 4.8e9;
  static constexpr double complex_factor = 3.2;  // complex values (n = 26, p = 0.1 / 0.3: 2.5× / 4.0× real)
  static constexpr bool double_double = true;
  // its time in double-double against double (n = 20, one thread: complex 6.6×, real 7.3×), and its compile's
  static constexpr double double_double_factor = 8, double_double_compile_factor = 2;
  // Generating and compiling a host module (nothing when the cache holds it: the planner asks,
  // planner.cuh), on one core of the same machine: the headers, then the unrolled block, whose size
  // is the modelled cost of a step times its 2^b steps, 4.3× as slow to compile in complex values.
  // Fitted on n = 20–28, p = 0.3–0.6, b = 6: real 3.8–5.4 s (within 0.5 s), complex 6.5–14.8 s (within
  // 0.9 s); exact residues compiled 1.4× the real model's time, which it leaves out. The headers'
  // 2.5 s then became 1.5 s when the module stopped including permanent_cpu_cached's runner (a 2 × 2
  // module on a 2-core Xeon: 2.2 against 3.6 s; scaled, not refitted).
  static constexpr double compile_seconds = 1.5;  // the headers alone
  static constexpr double compile_seconds_per_cost = 0.082 / 64;
  static constexpr double complex_compile_factor = 4.3;

  template <CompileTimeMatrix M, class Arith>
  using plan = cpu_cached_plan<M, Arith>;
  static constexpr bool split_signs = true;  // two dependency chains on a CPU

  template <class Plan>
  static constexpr void describe(module_info& i) {
    i.global_rows = Plan::global_rows;
    i.register_rows = Plan::k;
    i.static_bits = Plan::b;
    i.plain_run_bits = Plan::b;
  }

  template <class Plan, class Sum>
  SPARSEPERM_HOST_INLINE static void steps(std::uint64_t first, std::uint64_t end, typename Plan::value* global_x,
                                           std::uint64_t stride, Sum& sum) {
    cached_steps<Plan>(first, end, global_x, stride, sum);
  }

  static std::string plan_text(const module_info& info) {
    return "permanent ordering (Algorithm 3); Gray blocks of 2^" + std::to_string(info.static_bits) +
           " steps unrolled at compile time, partial products cached along the staircase; compiled for this CPU";
  }

  static void estimate(const planner_block& block, engine_estimate& e) {
    const column_masks pattern = block.matrix.masks();
    const cached_layout layout =
        plan_cached_layout(reorder(pattern, permanent_ordering(pattern).order), cached_options_on_host);
    const int threads = detail::engine_threads(block.options.threads);
    const bool complex = block.matrix.is_complex();
    const bool dd = block.options.precision == precision::double_double;
    e.seconds = std::ldexp(1.0, block.matrix.n() - 1) * layout.cost / (cost_rate * std::max(1, threads)) *
                (complex ? complex_factor : 1) * (dd ? double_double_factor : 1);
    e.compile_seconds = compile_seconds + compile_seconds_per_cost * std::ldexp(layout.cost, layout.static_bits) *
                                              (complex ? complex_compile_factor : 1) *
                                              (dd ? double_double_compile_factor : 1);
  }
};

}  // namespace engines

}  // namespace sparseperm
