#pragma once
// Arithmetic, one concept: what a caller asks of an engine (precision) and what the engine runs
// (arithmetic). The CLI's --precision, the planner, module_info and the kernels all speak these two
// enums; the types of each arithmetic (values, products, sums) are numeric/value_types.cuh's.
//
//   precision (asked)  automatic    the default: integer matrices exact in the cheapest exact arithmetic
//                                   that holds them (below), otherwise double with compensated sums
//                      double_sums  double, plain per-thread sums: the fastest, with an error bound
//                      compensated  double, TwoSum per-thread sums and an exact host reduction, with a bound
//                      exact        integer matrices only: 128-bit integers where the bound fits, or
//                                   residues modulo several primes joined by the Chinese remainder theorem
//                      double_double  double-double products and sums of exact row sums (engines with
//                                   the double_double trait): about 30 digits a term, for sums that cancel
//   arithmetic (run)   double_sums | compensated | exact128 | residues (with a prime count) | double_double
//
//   arithmetic_site, relative_time   what an exact arithmetic costs against double where it runs
//   cheapest_exact(candidates, site) the exact arithmetic an engine runs (exact_choice_reason: why)
//
//   with_value<V...>(v, f)   the one run-time → compile-time dispatcher: f.template operator()<V>()
//                            for the V equal to v (std::out_of_range when none is)
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace sparseperm {

enum class precision { automatic, double_sums, compensated, exact, double_double };

inline constexpr std::string_view precision_name(precision p) {
  switch (p) {
    case precision::double_sums:
      return "double";
    case precision::compensated:
      return "compensated";
    case precision::exact:
      return "exact";
    case precision::double_double:
      return "double-double";
    default:
      return "auto";
  }
}

inline std::optional<precision> parse_precision(std::string_view name) {
  for (precision p : {precision::automatic, precision::double_sums, precision::compensated, precision::exact,
                      precision::double_double}) {
    if (precision_name(p) == name) return p;
  }
  return std::nullopt;
}

// What an engine runs. The values are module_info's encoding: keep them.
enum class arithmetic : std::int32_t {
  double_sums = 0,
  compensated = 1,
  exact128 = 2,
  residues = 3,
  double_double = 4
};

inline constexpr bool is_exact(arithmetic a) { return a == arithmetic::exact128 || a == arithmetic::residues; }

// Which integer matrices an engine computes exactly (an engine's trait; --precision exact refuses the rest).
enum class exact_reach {
  any_integer,                  // dp: big integers beyond 128 bits
  within_128_bits,              // reference
  within_128_bits_or_residues,  // the Ryser engines: 128 bits, or residues where every row's sum of |a_ij| ≤ 2^24
  within_residue_primes,        // gpu-dp: real matrices whose permanent's bound the 16 primes of residues hold
};

struct arithmetic_choice {
  arithmetic kind = arithmetic::compensated;
  int primes = 0;  // residues: how many primes
};

// A few words for an arithmetic choice (`inspect`).
inline std::string arithmetic_words(const arithmetic_choice& c) {
  switch (c.kind) {
    case arithmetic::double_sums:
      return "double";
    case arithmetic::compensated:
      return "compensated double";
    case arithmetic::exact128:
      return "exact, 128-bit integers";
    case arithmetic::double_double:
      return "double-double";
    default:
      return "exact, residues modulo " + std::to_string(c.primes) + " prime" + (c.primes == 1 ? "" : "s");
  }
}

// Where a Ryser engine's arithmetic runs: its prices differ (an engine's placement decides it).
enum class arithmetic_site { host_runtime, host_generated, gpu_runtime, gpu_generated };

// Run-time engines round their prime counts up to the ones they are compiled for.
constexpr bool is_runtime(arithmetic_site s) {
  return s == arithmetic_site::host_runtime || s == arithmetic_site::gpu_runtime;
}

// The prime counts a run-time Ryser engine is compiled for: five instantiations instead of sixteen.
using runtime_prime_counts = std::integer_sequence<int, 1, 2, 4, 8, 16>;

// The time of a Ryser engine in an exact arithmetic relative to its time in double on the same
// matrix, as measured (tools/benchmarks.md, "Counting: 0/1 matrices"): the planner's price of exactness.
// 128-bit integers: a product is many integer instructions (the GPU emulates 64-bit multiplication:
// gpu-cached 0/1 n = 40, p = 0.1, 19x; cpu-cached dense n = 24 integers 2.6x; cpu-sparse, whose time
// is its loads, 1.0x). Residues: four FP64 operations a product per prime, shared runs of exact FP64
// products in the generated kernels (gpu-cached n = 40 0/1: 0.98x with 2 primes, 1.72x with 4, 2.61x
// with 5; cpu-cached 1.2-1.7x with 3-5), a product per prime in the run-time engines (cpu-sparse 2.9x
// with 4 primes, gpu-sparse 3.9x).
struct exact_prices {
  double int128;             // 128-bit integers
  double residue_base;       // residues with K primes: residue_base + residue_per_prime · K
  double residue_per_prime;  //
};

constexpr exact_prices exact_prices_of(arithmetic_site site) {
  switch (site) {
    case arithmetic_site::host_runtime:
      return {1.0, 1.0, 0.45};
    case arithmetic_site::host_generated:
      return {2.6, 1.0, 0.12};
    case arithmetic_site::gpu_runtime:
      return {8.0, 1.0, 0.7};
    case arithmetic_site::gpu_generated:
    default:
      return {15.0, 0.65, 0.35};
  }
}

// An arithmetic's time relative to double at a site (double and compensated sums: 1).
constexpr double relative_time(const arithmetic_choice& c, arithmetic_site site) {
  const exact_prices p = exact_prices_of(site);
  switch (c.kind) {
    case arithmetic::exact128:
      return p.int128;
    case arithmetic::residues:
      return p.residue_base + p.residue_per_prime * c.primes;
    default:
      return 1.0;
  }
}

// The exact arithmetics that hold a matrix: 128-bit integers or not, residues with `primes` primes
// (0: they do not hold it).
struct exact_candidates {
  bool int128 = false;
  int primes = 0;
};

// The cheapest exact arithmetic of the candidates at a site; nothing when neither holds.
constexpr std::optional<arithmetic_choice> cheapest_exact(const exact_candidates& c, arithmetic_site site) {
  std::optional<arithmetic_choice> best;
  if (c.int128) best = arithmetic_choice{arithmetic::exact128, 0};
  if (c.primes > 0) {
    const arithmetic_choice residues{arithmetic::residues, c.primes};
    if (!best || relative_time(residues, site) < relative_time(*best, site)) best = residues;
  }
  return best;
}

// The generated kernels choose their arithmetic at compile time without knowing their site: residues
// first. The prices agree at both sites wherever 128 bits hold a matrix (then at most 6 primes).
static_assert(relative_time({arithmetic::residues, 6}, arithmetic_site::host_generated) <
                  exact_prices_of(arithmetic_site::host_generated).int128 &&
              relative_time({arithmetic::residues, 6}, arithmetic_site::gpu_generated) <
                  exact_prices_of(arithmetic_site::gpu_generated).int128);

// Why the cheapest exact arithmetic is the one it is, for `inspect` (c: the candidates it chose from).
inline std::string exact_choice_reason(const exact_candidates& c, arithmetic_site site) {
  const auto best = cheapest_exact(c, site);
  if (!best) return "no exact arithmetic holds this matrix";
  const auto times = [&](const arithmetic_choice& a) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1fx double", relative_time(a, site));
    return std::string(text);
  };
  const arithmetic_choice residues{arithmetic::residues, c.primes};
  const arithmetic_choice int128{arithmetic::exact128, 0};
  std::string s = best->kind == arithmetic::residues ? "residues modulo " + std::to_string(c.primes) + " prime" +
                                                           (c.primes == 1 ? "" : "s") + " (" + times(residues) + ")"
                                                     : "128-bit integers (" + times(int128) + ")";
  if (best->kind == arithmetic::residues) {
    s += c.int128 ? "; 128-bit integers hold it too but cost " + times(int128)
                  : "; 128-bit integers do not hold its bound";
  } else {
    s += c.primes > 0 ? "; residues cost " + times(residues)
                      : "; residues do not hold it (a row's sum of |a_ij| above 2^24, or beyond 16 primes)";
  }
  return s;
}

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
