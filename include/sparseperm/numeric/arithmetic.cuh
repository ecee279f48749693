#pragma once
// Arithmetic, one concept: what a caller asks of an engine (precision) and what the engine runs
// (arithmetic). The CLI's --precision, the planner, module_info and the kernels all speak these two
// enums; the accumulator and product types of each arithmetic are ryser/arithmetic_types.cuh's.
//
//   precision (asked)  automatic    exact where it costs nothing extra (integer matrices within the
//                                   128-bit bound; dp), otherwise double with compensated sums: the default
//                      double_sums  double, plain per-thread sums: the fastest, with an error bound
//                      compensated  double, TwoSum per-thread sums and an exact host reduction, with a bound
//                      exact        integer matrices only: 128-bit integers where the bound fits, otherwise
//                                   residues modulo several primes joined by the Chinese remainder theorem
//   arithmetic (run)   double_sums | compensated | exact128 | residues (with a prime count)
//
//   with_value<V...>(v, f)   the one run-time → compile-time dispatcher: f.template operator()<V>()
//                            for the V equal to v (std::out_of_range when none is)
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace sparseperm {

enum class precision { automatic, double_sums, compensated, exact };

inline constexpr std::string_view precision_name(precision p) {
  switch (p) {
    case precision::double_sums:
      return "double";
    case precision::compensated:
      return "compensated";
    case precision::exact:
      return "exact";
    default:
      return "auto";
  }
}

inline std::optional<precision> parse_precision(std::string_view name) {
  for (precision p : {precision::automatic, precision::double_sums, precision::compensated, precision::exact}) {
    if (precision_name(p) == name) return p;
  }
  return std::nullopt;
}

// What an engine runs. The values are module_info's encoding: keep them.
enum class arithmetic : std::int32_t { double_sums = 0, compensated = 1, exact128 = 2, residues = 3 };

inline constexpr bool is_exact(arithmetic a) { return a == arithmetic::exact128 || a == arithmetic::residues; }

// Which integer matrices an engine computes exactly (an engine's trait; --precision exact refuses the rest).
enum class exact_reach {
  any_integer,                  // dp: big integers beyond 128 bits
  within_128_bits,              // reference
  within_128_bits_or_residues,  // the Ryser engines: 128 bits, or residues where every row's sum of |a_ij| ≤ 2^24
};

struct arithmetic_choice {
  arithmetic kind = arithmetic::compensated;
  int primes = 0;  // residues: how many primes
};

namespace detail {

template <auto First, auto... Rest, class V, class F>
decltype(auto) with_value_from(const V& v, F& f) {
  if constexpr (sizeof...(Rest) == 0) {
    if (!(v == First)) throw std::out_of_range("sparseperm: a run-time value outside the compiled ones");
    return f.template operator()<First>();
  } else {
    if (v == First) return f.template operator()<First>();
    return with_value_from<Rest...>(v, f);
  }
}

template <class Sequence>
struct with_sequence;
template <class T, T... Values>
struct with_sequence<std::integer_sequence<T, Values...>> {
  template <class V, class F>
  static decltype(auto) call(const V& v, F& f) {
    return with_value_from<Values...>(v, f);
  }
};

}  // namespace detail

template <auto... Values, class V, class F>
decltype(auto) with_value(const V& v, F&& f) {
  return detail::with_value_from<Values...>(v, f);
}

// with_value over the values of a std::integer_sequence.
template <class Sequence, class V, class F>
decltype(auto) with_value_in(const V& v, F&& f) {
  return detail::with_sequence<Sequence>::call(v, f);
}

}  // namespace sparseperm
