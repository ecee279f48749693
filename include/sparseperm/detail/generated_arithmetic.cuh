#pragma once
// The arithmetic and the accumulator of a generated engine for a matrix type and a precision, and
// the way back from a module's description (module_info) to those types on the host.
//
//   generated_arithmetic<M, P>          automatic: exact 128-bit integers where the bound fits, else
//                                       double; double/compensated: double; exact: residues modulo
//                                       enough primes where they hold the matrix, else 128 bits
//   generated_sum<Arith, P, OnHost>     exact_sum, residue_sum<K>, or for doubles: plain (double) or
//                                       TwoSum (compensated, automatic) sums; on the host split by
//                                       sign into two chains
//   module_arithmetic_code<Arith, P>    what module_info::arithmetic says of them
//   visit_module_arithmetic<OnHost>(info, f)   f.template operator()<Arith, Sum>() for a module
//   module_start_term<Arith>(info)      the step-0 term in the arithmetic's product type
//   floating_facts_of(info)             what a floating module's error bound needs (error_bound.cuh)
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "../engine_error.cuh"
#include "../module_info.cuh"
#include "../precision.cuh"
#include "../ryser_plan.cuh"
#include "accumulators.cuh"
#include "modular.cuh"
#include "ryser_result.cuh"

namespace sparseperm::detail {

template <CompileTimeMatrix M, precision P>
struct generated_arithmetic_of {
  using type = std::conditional_t<P == precision::automatic, automatic_arithmetic<M>, double_arithmetic>;
};

template <CompileTimeMatrix M>
struct generated_arithmetic_of<M, precision::exact> {
  using type = exact_arithmetic_of<M>;
  static_assert(!std::is_void_v<type>,
                "precision::exact needs an integer matrix whose row sums of |a_ij| are at most 2^24 (check with "
                "sparseperm::exact_arithmetic_of<M> before asking for it)");
};

template <CompileTimeMatrix M, precision P>
using generated_arithmetic = typename generated_arithmetic_of<M, P>::type;

template <class Arith, precision P, bool OnHost>
struct generated_sum_of {
  using one_chain = std::conditional_t<P == precision::double_sums, plain_sum, compensated_sum>;
  using type = std::conditional_t<OnHost, sign_split_sum<one_chain>, one_chain>;
};

#if SPARSEPERM_HAS_INT128
template <precision P, bool OnHost>
struct generated_sum_of<exact_arithmetic, P, OnHost> {
  using type = exact_sum;
};
#endif

template <int K, precision P, bool OnHost>
struct generated_sum_of<residue_arithmetic<K>, P, OnHost> {
  using type = residue_sum<K>;
};

template <class Arith, precision P, bool OnHost>
using generated_sum = typename generated_sum_of<Arith, P, OnHost>::type;

template <class Arith, precision P>
constexpr std::int32_t module_arithmetic_code() {
  if constexpr (is_residue_arithmetic<Arith>) {
    return module_residues;
  } else if constexpr (Arith::exact) {
    return module_exact128;
  } else {
    return P == precision::double_sums ? module_double : module_compensated;
  }
}

// The step-0 term a module recorded, in the product type of its arithmetic.
template <class Arith>
typename Arith::product module_start_term(const module_info& info) {
  if constexpr (is_residue_arithmetic<Arith>) {
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
// terms summed plainly before each TwoSum (accumulators.cuh): the cached loops' unrolled blocks;
// gpu-hybrid's runs between flips of a column above c, 2^(c+1) steps; gpu-purereg's runs of
// 2^purereg_run_bits steps; a whole chunk (at most 2^(n−1) steps) where no column ends a run.
inline floating_run_facts floating_facts_of(const module_info& info) {
  floating_run_facts facts;
  facts.grid = info.grid;
  if (info.arithmetic == module_compensated) {
    const bool cached = info.engine == 2 || info.engine == 3;
    const bool hybrid = info.engine == 1;
    const int bits = cached ? info.static_bits : std::min(hybrid ? info.register_columns : purereg_run_bits, info.n - 1);
    facts.block = std::uint64_t{1} << (bits > 0 ? bits : 0);
  }
  return facts;
}

template <int K, class F>
decltype(auto) visit_residues(int primes, F&& f) {
  if constexpr (K < modular_prime_count) {
    if (primes != K) return visit_residues<K + 1>(primes, std::forward<F>(f));
  } else if (primes != K) {
    throw engine_error(engine_error::kind::failed, "a module asks for " + std::to_string(primes) + " primes (1 to " +
                                                       std::to_string(modular_prime_count) + ")");
  }
  return f.template operator()<residue_arithmetic<K>, residue_sum<K>>();
}

// Calls f.template operator()<Arith, Sum>() with the types a module was compiled with.
template <bool OnHost, class F>
decltype(auto) visit_module_arithmetic(const module_info& info, F&& f) {
  switch (info.arithmetic) {
#if SPARSEPERM_HAS_INT128
    case module_exact128:
      return f.template operator()<exact_arithmetic, exact_sum>();
#endif
    case module_residues:
      return visit_residues<1>(info.primes, std::forward<F>(f));
    case module_double:
      return f.template operator()<double_arithmetic, generated_sum<double_arithmetic, precision::double_sums, OnHost>>();
    default:
      return f.template operator()<double_arithmetic, generated_sum<double_arithmetic, precision::compensated, OnHost>>();
  }
}

}  // namespace sparseperm::detail

namespace sparseperm {

// cpu-cached's accumulator (engines/cpu_cached.cuh): split by sign, two dependency chains on a CPU.
template <class Arith, precision P = precision::automatic>
using cpu_cached_sum = detail::generated_sum<Arith, P, true>;

}  // namespace sparseperm
