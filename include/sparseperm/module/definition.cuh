#pragma once
// What a generated engine's module is for one matrix, host-compilable: the engine's plan for the
// matrix, its accumulator, and the module_info the program that loads the module reads. The kernel
// module (kernel_module.cuh) adds the kernel, the host module (host_module.cuh) the chunk loop.
//
// Engine: a generated engine's tag (engines/engine.cuh), which supplies
//   template <CompileTimeMatrix M, class Arith> using plan     its plan of M
//   split_signs                                                its sums split by sign (host engines)
//   template <class Plan> describe(module_info&)               the plan's facts for the loader
#include <cstdint>
#include <type_traits>

#include "../matrix/pattern.cuh"
#include "../numeric/accumulators.cuh"
#include "../ryser/arithmetic_types.cuh"
#include "../ryser/ryser_plan.cuh"
#include "../structure/structural_rank.cuh"
#include "module_info.cuh"

namespace sparseperm::detail {

template <class Engine, CompileTimeMatrix M, precision P = precision::automatic>
struct module_definition {
  using arithmetic = generated_arithmetic<M, P>;
  using plan = typename Engine::template plan<M, arithmetic>;
  using sum = generated_sum<arithmetic, P, Engine::split_signs>;
  using value = typename plan::value;

  // The matrix as the module exports it (module_info.cuh's module_matrix).
  static constexpr auto matrix() {
    constexpr const auto& a = constants_of<M>;
    module_matrix<M::pattern::n, M::pattern::nnz> m;
    static_assert(sizeof m == module_matrix_bytes(M::pattern::n, M::pattern::nnz),
                  "module_matrix: padding in the layout");
    for (int j = 0; j <= a.n; ++j) m.start[j] = a.start[j];
    for (int k = 0; k < a.nnz; ++k) m.rows[k] = a.rows[k], m.values[k] = a.values[k], m.imag[k] = a.imag[k];
    return m;
  }

  static constexpr module_info info() {
    module_info i;
    constexpr std::string_view name = Engine::name;
    static_assert(name.size() < module_engine_name_bytes, "module_info: the engine's name is too long");
    for (std::size_t k = 0; k < name.size(); ++k) i.engine[k] = name[k];
    i.precision = static_cast<std::int32_t>(P);
    i.n = plan::n;
    i.nnz = M::pattern::nnz;
    i.arithmetic = static_cast<std::int32_t>(arithmetic_of<arithmetic, P>());
    i.singular = structural_rank(constants_of<M>.masks()) < plan::n ? 1 : 0;
    i.complex = is_complex_arithmetic<arithmetic> ? 1 : 0;
    Engine::template describe<plan>(i);
    if constexpr (is_residue_arithmetic<arithmetic>) {
      i.primes = arithmetic::primes;
      for (int k = 0; k < arithmetic::primes; ++k) i.start_residues[k] = plan::start_term.r[k];
    } else if constexpr (arithmetic::exact && is_complex_arithmetic<arithmetic>) {
      split_halves(plan::start_term.re, i.start_high, i.start_low);
      split_halves(plan::start_term.im, i.start_imag_high, i.start_imag_low);
    } else if constexpr (arithmetic::exact) {
      split_halves(plan::start_term, i.start_high, i.start_low);
    } else if constexpr (is_double_double_arithmetic<arithmetic>) {
      for (int r = 0; r < plan::n; ++r) {
        if constexpr (is_complex_arithmetic<arithmetic>) {
          i.start_x[2 * r] = plan::data.x0[r].coarse.re, i.start_x[2 * r + 1] = plan::data.x0[r].coarse.im;
          i.start_x_fine[2 * r] = plan::data.x0[r].fine.re, i.start_x_fine[2 * r + 1] = plan::data.x0[r].fine.im;
        } else {
          i.start_x[r] = plan::data.x0[r].coarse, i.start_x_fine[r] = plan::data.x0[r].fine;
        }
      }
      i.grid = plan::grid;
    } else if constexpr (is_complex_arithmetic<arithmetic>) {
      for (int r = 0; r < plan::n; ++r)
        i.start_x[2 * r] = plan::data.x0[r].re, i.start_x[2 * r + 1] = plan::data.x0[r].im;
      i.grid = plan::grid;
    } else {
      i.start_value = plan::start_term;
      i.grid = plan::grid;
    }
    return i;
  }
};

}  // namespace sparseperm::detail
