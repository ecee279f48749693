#pragma once
// The types behind each arithmetic (numeric/arithmetic.cuh) in the Ryser engines: x's type and the
// product (double_arithmetic, exact_arithmetic, residue_arithmetic<K>: ryser_plan.cuh) and the
// per-thread accumulator (numeric/accumulators.cuh), both ways between them and the enum.
//
//   generated_arithmetic<M, P>        a generated engine's arithmetic for a matrix type and a precision:
//                                     automatic: an integer matrix's cheapest exact arithmetic (as
//                                     exact), else double; double/compensated: double; exact: residues
//                                     modulo enough primes where they hold the matrix, else 128 bits
//   sum_of<Arith, A, SplitSigns>      exact_sum, residue_sum<K>, or for doubles plain (double_sums) or
//                                     TwoSum (compensated) sums, split by sign into two chains where asked
//                                     (cpu-cached: two dependency chains on a CPU); complex_sum of those
//                                     or exact_complex_sum for the complex arithmetics
//   arithmetic_of<Arith, P>()         the arithmetic those types run
//   product_type_of<Arith>                 the product of x a run-time engine takes (sparse_ryser.cuh)
//   visit_arithmetic<SplitSigns, PrimeCounts>(choice, f)
//                                     f.template operator()<Arith, Sum>() for a choice; residues for the
//                                     prime counts PrimeCounts lists (a std::integer_sequence)
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../core/engine_error.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/arithmetic.cuh"
#include "../numeric/modular.cuh"
#include "ryser_plan.cuh"
#include "sparse_ryser.cuh"

namespace sparseperm::detail {

template <CompileTimeMatrix M, precision P>
struct generated_arithmetic_of {
  using type = std::conditional_t<P == precision::automatic, automatic_arithmetic<M>, floating_arithmetic_of<M>>;
};

template <CompileTimeMatrix M>
struct generated_arithmetic_of<M, precision::exact> {
  using type = exact_arithmetic_of<M>;
  static_assert(!std::is_void_v<type>,
                "precision::exact needs an integer matrix whose row sums of |a_ij| are at most 2^24, or whose "
                "permanent 128-bit integers hold (Gaussian integers for a complex matrix; check with "
                "sparseperm::exact_arithmetic_of<M> before asking for it)");
};

template <CompileTimeMatrix M, precision P>
using generated_arithmetic = typename generated_arithmetic_of<M, P>::type;

// The arithmetic of Arith under precision P (P tells double_sums from compensated).
template <class Arith, precision P>
constexpr arithmetic arithmetic_of() {
  if constexpr (is_residue_arithmetic<Arith>) {
    return arithmetic::residues;
  } else if constexpr (Arith::exact) {
    return arithmetic::exact128;
  } else {
    return P == precision::double_sums ? arithmetic::double_sums : arithmetic::compensated;
  }
}

template <class Arith, arithmetic A, bool SplitSigns>
struct sum_of_types {
  using one_chain = std::conditional_t<A == arithmetic::double_sums, plain_sum, compensated_sum>;
  using type = std::conditional_t<SplitSigns, sign_split_sum<one_chain>, one_chain>;
};

#if SPARSEPERM_HAS_INT128
template <arithmetic A, bool SplitSigns>
struct sum_of_types<exact_arithmetic, A, SplitSigns> {
  using type = exact_sum;
};
#endif

template <int K, arithmetic A, bool SplitSigns>
struct sum_of_types<residue_arithmetic<K>, A, SplitSigns> {
  using type = residue_sum<K>;
};

// Complex sums are never split by sign: their two parts are two chains already.
template <arithmetic A, bool SplitSigns>
struct sum_of_types<complex_double_arithmetic, A, SplitSigns> {
  using type = complex_sum<std::conditional_t<A == arithmetic::double_sums, plain_sum, compensated_sum>>;
};

#if SPARSEPERM_HAS_INT128
template <arithmetic A, bool SplitSigns>
struct sum_of_types<gaussian_exact_arithmetic, A, SplitSigns> {
  using type = exact_complex_sum;
};
#endif

template <class Arith, arithmetic A, bool SplitSigns>
using sum_of = typename sum_of_types<Arith, A, SplitSigns>::type;

// A generated engine's accumulator for Arith under precision P.
template <class Arith, precision P, bool SplitSigns>
using generated_sum = sum_of<Arith, arithmetic_of<Arith, P>(), SplitSigns>;

template <class Arith>
struct product_type_of_types {
  using type = plain_product;
};
template <int K>
struct product_type_of_types<residue_arithmetic<K>> {
  using type = residue_product<K>;
};
template <class Arith>
using product_type_of = typename product_type_of_types<Arith>::type;

template <int... K>
std::integer_sequence<int, (K + 1)...> one_based(std::integer_sequence<int, K...>);

// Every prime count a module may carry: 1 .. modular_prime_count.
using all_prime_counts = decltype(one_based(std::make_integer_sequence<int, modular_prime_count>{}));

template <bool SplitSigns, class PrimeCounts = all_prime_counts, class F>
decltype(auto) visit_arithmetic(const arithmetic_choice& choice, F&& f) {
  return with_value<arithmetic::double_sums, arithmetic::compensated, arithmetic::exact128, arithmetic::residues>(
      choice.kind, [&]<arithmetic A>() -> decltype(auto) {
        if constexpr (A == arithmetic::residues) {
          if (choice.primes < 1 || choice.primes > modular_prime_count) {
            throw engine_error(engine_error::kind::failed, "residue arithmetic with " + std::to_string(choice.primes) +
                                                               " primes (1 to " + std::to_string(modular_prime_count) +
                                                               ")");
          }
          return with_value_in<PrimeCounts>(choice.primes, [&]<int K>() -> decltype(auto) {
            return f.template operator()<residue_arithmetic<K>, residue_sum<K>>();
          });
        } else if constexpr (A == arithmetic::exact128) {
#if SPARSEPERM_HAS_INT128
          return f.template operator()<exact_arithmetic, exact_sum>();
#else
          throw engine_error(engine_error::kind::unavailable, "this compiler has no 128-bit integers");
          return f.template operator()<double_arithmetic, compensated_sum>();
#endif
        } else {
          return f.template operator()<double_arithmetic, sum_of<double_arithmetic, A, SplitSigns>>();
        }
      });
}

// The complex counterpart: f.template operator()<Arith, Sum>() with complex_double_arithmetic and
// plain or compensated sums, or gaussian_exact_arithmetic (doubled x, int64 parts) in 128 bits.
// Residues are real only: a complex choice never asks for them.
template <class F>
decltype(auto) visit_complex_arithmetic(const arithmetic_choice& choice, F&& f) {
  return with_value<arithmetic::double_sums, arithmetic::compensated, arithmetic::exact128, arithmetic::residues>(
      choice.kind, [&]<arithmetic A>() -> decltype(auto) {
        if constexpr (A == arithmetic::double_sums || A == arithmetic::compensated) {
          return f.template operator()<complex_double_arithmetic, sum_of<complex_double_arithmetic, A, false>>();
        } else {
#if SPARSEPERM_HAS_INT128
          if constexpr (A == arithmetic::exact128) {
            return f.template operator()<gaussian_exact_arithmetic, exact_complex_sum>();
          }
#endif
          throw engine_error(engine_error::kind::refused,
                             "complex matrices are exact in 128-bit Gaussian integers only (the dp engine goes on "
                             "beyond)");
          return f.template operator()<complex_double_arithmetic, complex_sum<compensated_sum>>();
        }
      });
}

}  // namespace sparseperm::detail
