#pragma once
// The arithmetics as types: one vocabulary that every algorithm family (ryser/, dp/, glynn/) writes
// against, so that an arithmetic is added here once, not once a family.
//
//   an arithmetic tag   value     what a family computes in: Ryser's row sums x, Glynn's column
//                                 sums, a matrix entry as the family holds it
//                       product   a product of values (a Ryser term, a dp state, a Glynn term)
//                       exact, name (and primes for residues)
//                       entry(re, im)        a matrix entry as a value (integer arithmetics: the
//                                            caller has checked that the entries are integers)
//                       multiply(p, v)       p · v in products (a dp transition, a Glynn factor)
//
//   double_arithmetic             doubles
//   complex_double_arithmetic     complex doubles
//   exact_arithmetic              int64 values, 128-bit products and sums
//   gaussian_exact_arithmetic     Gaussian integers: int64 parts, 128-bit products
//   double_double_arithmetic, complex_double_double_arithmetic   row sums split exactly
//                                 (split_value), double-double products (generated engines, dp)
//   residue_arithmetic<K>         doubles holding integers below 2^24, products modulo the first K
//                                 primes (numeric/modular.cuh), joined on the host by the CRT
//   big_integer_arithmetic, big_gaussian_arithmetic   integers of any size (host only)
//
//   sum_of<Arith, A, SplitSigns>  a family's accumulator (numeric/accumulators.cuh) for Arith run as
//                                 arithmetic A (numeric/arithmetic.cuh: double_sums, compensated, ...)
//   state_sum<Arith>              an accumulator of products without the error bound's Σ|t| (dp's states)
//   arithmetic_of<Arith, P>()     the arithmetic those types run under precision P
//   visit_arithmetic<SplitSigns, PrimeCounts>(choice, f), visit_complex_arithmetic(choice, f)
//                                 the run-time choice as f.template operator()<Arith, Sum>()
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../core/config.cuh"
#include "../core/engine_error.cuh"
#include "accumulators.cuh"
#include "arithmetic.cuh"
#include "big_integer.cuh"
#include "complex.cuh"
#include "modular.cuh"

namespace sparseperm {

struct double_arithmetic {
  using value = double;
  using product = double;
  static constexpr bool exact = false;
  static constexpr const char* name = "double";
  static value entry(double re, double) { return re; }
  SPARSEPERM_HOST_DEVICE static product multiply(const product& p, const value& v) { return p * v; }
};

#if SPARSEPERM_HAS_INT128
struct exact_arithmetic {
  using value = std::int64_t;
  using product = __int128;
  static constexpr bool exact = true;
  static constexpr const char* name = "exact 128-bit integers";
  static value entry(double re, double) { return static_cast<value>(re); }
  SPARSEPERM_HOST_DEVICE static product multiply(const product& p, const value& v) { return p * v; }
};
#endif

struct complex_double_arithmetic {
  using value = complex_double;
  using product = complex_double;
  static constexpr bool exact = false;
  static constexpr const char* name = "complex double";
  static value entry(double re, double im) { return {re, im}; }
  SPARSEPERM_HOST_DEVICE static product multiply(const product& p, const value& v) { return p * v; }
};

// Double-double products of row sums held exactly as coarse + fine (double_double.cuh): the
// generated engines' precision::double_double, real and complex.
struct double_double_arithmetic {
  using value = detail::split_value<double>;
  using product = double_double;
  static constexpr bool exact = false;
  static constexpr const char* name = "double-double";
  static value entry(double re, double) { return value(re); }
  SPARSEPERM_HOST_DEVICE static product multiply(const product& p, const value& v) {
    return detail::dd_times(p, detail::dd_factor(v));
  }
};

struct complex_double_double_arithmetic {
  using value = detail::split_value<complex_double>;
  using product = complex_double_double;
  static constexpr bool exact = false;
  static constexpr const char* name = "complex double-double";
  static value entry(double re, double im) { return value(complex_double{re, im}); }
  SPARSEPERM_HOST_DEVICE static product multiply(const product& p, const value& v) {
    return detail::dd_times(p, detail::dd_factor(v));
  }
};

#if SPARSEPERM_HAS_INT128
struct gaussian_exact_arithmetic {
  using value = complex_number<std::int64_t>;
  using product = complex_number<__int128>;
  static constexpr bool exact = true;
  static constexpr const char* name = "exact Gaussian integers in 128 bits";
  static value entry(double re, double im) { return {static_cast<std::int64_t>(re), static_cast<std::int64_t>(im)}; }
  SPARSEPERM_HOST_DEVICE static product multiply(const product& p, const value& v) { return p * product(v); }
};
#endif

template <int K>
struct residue_arithmetic {
  using value = double;  // doubled x: integers below 2^24
  using product = detail::residues<K>;
  static constexpr bool exact = true;
  static constexpr int primes = K;
  static constexpr const char* name = "exact: residues modulo primes below 2^25, joined by the CRT";
};

struct big_integer_arithmetic {
  using value = detail::big_integer;
  using product = detail::big_integer;
  static constexpr bool exact = true;
  static constexpr const char* name = "exact big integers";
  static value entry(double re, double) { return value::from_integer_double(re); }
  static product multiply(const product& p, const value& v) { return p * v; }
};

struct big_gaussian_arithmetic {
  using value = detail::big_gaussian;
  using product = detail::big_gaussian;
  static constexpr bool exact = true;
  static constexpr const char* name = "exact big Gaussian integers";
  static value entry(double re, double im) {
    return value(detail::big_integer::from_integer_double(re), detail::big_integer::from_integer_double(im));
  }
  static product multiply(const product& p, const value& v) { return p * v; }
};

namespace detail {

template <class Arith>
inline constexpr bool is_residue_arithmetic = requires {
  Arith::primes;
};
template <class Arith>
inline constexpr bool is_complex_arithmetic =
    is_complex_value<typename Arith::value> || std::is_same_v<typename Arith::value, big_gaussian>;
template <class Arith>
inline constexpr bool is_double_double_arithmetic =
    std::is_same_v<Arith, double_double_arithmetic> || std::is_same_v<Arith, complex_double_double_arithmetic>;

// Big integers' sums (host only): the product type itself.
template <class P>
struct big_sum {
  P sum{};
  big_sum() {}  // user-provided, host only (see big_integer)
  void add(const P& term) { sum += term; }
  void add_signed(const P& term, bool negative) {
    if (negative) {
      sum -= term;
    } else {
      sum += term;
    }
  }
  void merge(const big_sum& other) { sum += other.sum; }
  const P& value() const { return sum; }
  static std::string description() {
    return std::is_same_v<P, big_integer> ? "exact big integers" : "exact big Gaussian integers";
  }
};

// Complex TwoSum, a part each (dp's complex states).
struct complex_two_sum {
  two_sum re, im;
  SPARSEPERM_HOST_DEVICE void add(const complex_double& v) {
    re.add(v.re);
    im.add(v.im);
  }
  SPARSEPERM_HOST_DEVICE complex_double value() const { return {re.value(), im.value()}; }
};

// Double-double sums, a part each for complex ones (dp's states in double-double).
struct dd_state_sum {
  double_double sum{};
  SPARSEPERM_HOST_DEVICE void add(const double_double& v) { sum = detail::dd_plus(sum, v); }
  SPARSEPERM_HOST_DEVICE double_double value() const { return sum; }
};
struct complex_dd_state_sum {
  complex_double_double sum{};
  SPARSEPERM_HOST_DEVICE void add(const complex_double_double& v) {
    sum = {detail::dd_plus(sum.re, v.re), detail::dd_plus(sum.im, v.im)};
  }
  SPARSEPERM_HOST_DEVICE complex_double_double value() const { return sum; }
};

// An accumulator of products that keeps no Σ|t| (a bound found otherwise, as dp's from a run on |A|).
template <class Arith>
struct state_sum_of {
  using type = big_sum<typename Arith::product>;
};
template <>
struct state_sum_of<double_arithmetic> {
  using type = two_sum;
};
template <>
struct state_sum_of<complex_double_arithmetic> {
  using type = complex_two_sum;
};
template <>
struct state_sum_of<double_double_arithmetic> {
  using type = dd_state_sum;
};
template <>
struct state_sum_of<complex_double_double_arithmetic> {
  using type = complex_dd_state_sum;
};
#if SPARSEPERM_HAS_INT128
template <>
struct state_sum_of<exact_arithmetic> {
  using type = exact_sum;
};
template <>
struct state_sum_of<gaussian_exact_arithmetic> {
  using type = exact_complex_sum;
};
#endif
template <class Arith>
using state_sum = typename state_sum_of<Arith>::type;

}  // namespace detail

namespace detail {

// The arithmetic of Arith under precision P (P tells double_sums from compensated).
template <class Arith, precision P>
constexpr arithmetic arithmetic_of() {
  if constexpr (is_residue_arithmetic<Arith>) {
    return arithmetic::residues;
  } else if constexpr (is_double_double_arithmetic<Arith>) {
    return arithmetic::double_double;
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

template <arithmetic A, bool SplitSigns>
struct sum_of_types<double_double_arithmetic, A, SplitSigns> {
  using type = dd_sum;
};
template <arithmetic A, bool SplitSigns>
struct sum_of_types<complex_double_double_arithmetic, A, SplitSigns> {
  using type = complex_sum<dd_sum>;
};

#if SPARSEPERM_HAS_INT128
template <arithmetic A, bool SplitSigns>
struct sum_of_types<gaussian_exact_arithmetic, A, SplitSigns> {
  using type = exact_complex_sum;
};
#endif

template <arithmetic A, bool SplitSigns>
struct sum_of_types<big_integer_arithmetic, A, SplitSigns> {
  using type = big_sum<big_integer>;
};
template <arithmetic A, bool SplitSigns>
struct sum_of_types<big_gaussian_arithmetic, A, SplitSigns> {
  using type = big_sum<big_gaussian>;
};

template <class Arith, arithmetic A, bool SplitSigns>
using sum_of = typename sum_of_types<Arith, A, SplitSigns>::type;

// A generated engine's accumulator for Arith under precision P.
template <class Arith, precision P, bool SplitSigns>
using generated_sum = sum_of<Arith, arithmetic_of<Arith, P>(), SplitSigns>;

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

}  // namespace detail

}  // namespace sparseperm
