#pragma once
// What a generated engine's module is for one matrix, host-compilable: the plan of the engine, its
// accumulator, and the module_info the program that loads the module reads. The GPU module
// (module.cuh) adds the kernel; the host module (host_module.cuh) the chunk loop.
#include <cstdint>
#include <type_traits>

#include "../engines/cached.cuh"
#include "../engines/hybrid.cuh"
#include "../engines/purereg.cuh"
#include "../module_info.cuh"
#include "../pattern.cuh"
#include "../ryser_plan.cuh"
#include "../structure.cuh"
#include "accumulators.cuh"
#include "generated_arithmetic.cuh"

namespace sparseperm::detail {

template <class Engine, CompileTimeMatrix M, precision P = precision::automatic>
struct module_definition {
  using arithmetic = generated_arithmetic<M, P>;
  static constexpr bool hybrid = std::is_same_v<Engine, hybrid_engine>;
  static constexpr bool cached = std::is_same_v<Engine, cached_engine>;
  static constexpr bool on_host = std::is_same_v<Engine, cpu_cached_engine>;
  using plan = std::conditional_t<
      on_host, cpu_cached_plan<M, arithmetic>,
      std::conditional_t<cached, cached_plan<M, arithmetic>,
                         std::conditional_t<hybrid, hybrid_plan<M, arithmetic>, purereg_plan<M, arithmetic>>>>;
  using sum = generated_sum<arithmetic, P, on_host>;
  using value = typename plan::value;

  // The matrix as the module exports it (module_info.cuh's module_matrix).
  static constexpr auto matrix() {
    constexpr const auto& a = constants_of<M>;
    module_matrix<M::pattern::n, M::pattern::nnz> m;
    static_assert(sizeof m == module_matrix_bytes(M::pattern::n, M::pattern::nnz), "module_matrix: padding in the layout");
    for (int j = 0; j <= a.n; ++j) m.start[j] = a.start[j];
    for (int k = 0; k < a.nnz; ++k) m.rows[k] = a.rows[k], m.values[k] = a.values[k];
    return m;
  }

  static constexpr module_info info() {
    module_info i;
    i.engine = module_engine_id(Engine::name);
    i.precision = static_cast<std::int32_t>(P);
    i.n = plan::n;
    i.nnz = M::pattern::nnz;
    i.arithmetic = module_arithmetic_code<arithmetic, P>();
    i.singular = structural_rank(constants_of<M>.masks()) < plan::n ? 1 : 0;
    if constexpr (hybrid) {
      i.global_rows = plan::global_rows;
      i.register_rows = plan::k;
      i.register_columns = plan::c + 1;
      i.static_bits = plan::u;
    } else if constexpr (cached || on_host) {
      i.global_rows = plan::global_rows;
      i.register_rows = plan::k;
      i.static_bits = plan::b;
    } else {
      i.register_rows = plan::n;
      i.static_bits = plan::u;
    }
    if constexpr (is_residue_arithmetic<arithmetic>) {
      i.primes = arithmetic::primes;
      for (int k = 0; k < arithmetic::primes; ++k) i.start_residues[k] = plan::start_term.r[k];
    } else if constexpr (arithmetic::exact) {
      i.start_high = static_cast<std::int64_t>(plan::start_term >> 64);
      i.start_low = static_cast<std::uint64_t>(plan::start_term);
    } else {
      i.start_value = plan::start_term;
      i.grid = plan::grid;
    }
    return i;
  }
};

}  // namespace sparseperm::detail
