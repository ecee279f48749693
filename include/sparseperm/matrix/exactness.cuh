#pragma once
// The question every engine asks before it promises an exact result: can this matrix stay exact,
// and in what? For run-time matrices (sparse_matrix) and for matrix types (pattern.cuh) alike.
//
//   exact_refusal(matrix, engine, reach)   why engine `engine`, which holds `reach` exactly
//                                          (numeric/arithmetic.cuh's exact_reach), cannot keep
//                                          --precision exact for this matrix, or nothing
//   fits_int128(matrix, extra_bits)        128-bit integers hold every partial sum
//   permanent_bound_bits(matrix)           a proven bound on log2 |perm| of an integer matrix
//   fits_residues(matrix)                  residues modulo primes hold it (every row's Σ|a_ij| ≤ 2^24)
//   exact_candidates_of(matrix, runtime)   the exact arithmetics that hold it: 128 bits, K primes
//   arithmetic_for(precision, candidates, site)
//                                          what a precision runs at an engine's site: the cheapest
//                                          exact arithmetic (numeric/arithmetic.cuh's prices), or double
//   for a matrix type M: fits_exact_arithmetic<M>, permanent_bound_bits_of<M>, fits_residue_arithmetic<M>,
//   exact_arithmetic_of<M> and automatic_arithmetic<M> (tags of numeric/value_types.cuh; void where
//   none holds), generated_arithmetic<M, P> (a generated engine's, refusing exact where none holds)
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/engine_error.cuh"
#include "../numeric/arithmetic.cuh"
#include "../numeric/int128_bound.cuh"
#include "../numeric/modular.cuh"
#include "../numeric/value_types.cuh"
#include "pattern.cuh"
#include "row_grids.cuh"
#include "sparse_matrix.cuh"

namespace sparseperm::detail {

// True when 128-bit integers hold every intermediate value of an exact engine whose partial sums are
// bounded by 2^extra_bits · Π R_i (Ryser: extra_bits = n − 1; a sum over permutations: 0).
inline bool fits_int128(const sparse_matrix& matrix, int extra_bits) {
#if SPARSEPERM_HAS_INT128
  if (!matrix.has_integer_values()) return false;
  // integers ≤ 128·2^53: exact; for Gaussian integers |re| + |im| bounds both parts of every product
  const std::vector<double> row_sums = row_l1_sums(matrix);
  return int128_bound_holds(row_sums.data(), matrix.n(), extra_bits);
#else
  (void)matrix;
  (void)extra_bits;
  return false;
#endif
}

// A proven bound on log2 |perm| of an integer matrix (modular.cuh's rule).
inline double permanent_bound_bits(const sparse_matrix& matrix) {
  const int n = matrix.n();
  std::vector<double> row_sums(n, 0.0), column_sums(n, 0.0);
  std::vector<int> row_degrees(n, 0), column_degrees(n, 0);
  bool zero_one = true;
  for (int j = 0; j < n; ++j) {
    const auto rows = matrix.column_rows(j);
    const auto values = matrix.column_values(j);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const double v = std::fabs(values[k]);
      zero_one = zero_one && v == 1;
      row_sums[rows[k]] += v;
      column_sums[j] += v;
      ++row_degrees[rows[k]];
      ++column_degrees[j];
    }
  }
  return permanent_bound_bits(row_sums.data(), row_degrees.data(), column_sums.data(), column_degrees.data(), n,
                              zero_one);
}

// Residue arithmetic holds the matrix: integers, and modular.cuh's rule (as for generated kernels).
inline bool fits_residues(const sparse_matrix& matrix) {
  if (!matrix.has_integer_values() || matrix.is_complex()) return false;  // residues are real
  std::vector<double> row_sums(matrix.n(), 0.0);
  for (int i = 0; i < matrix.n(); ++i) {
    for (double v : matrix.row_values(i)) row_sums[i] += std::fabs(v);
  }
  return residues_hold(row_sums.data(), matrix.n(), permanent_bound_bits(matrix));
}

// Why an engine named `engine` that holds `reach` exactly cannot keep --precision exact on this
// matrix, or nothing: every engine needs integer values; dp (and the planner, which can hand any block
// to dp) holds any integer matrix, `reference` only within 128 bits, the Ryser engines within 128 bits
// or residues, gpu-dp real matrices within the residues' 16 primes.
inline std::optional<std::string> exact_refusal(const sparse_matrix& matrix, std::string_view engine,
                                                exact_reach reach) {
  const std::string name(engine);
  if (!matrix.has_integer_values()) {
    return "--precision exact needs an integer matrix (Gaussian integers for a complex one), and this one has "
           "non-integer values (engine '" +
           name + "')";
  }
  if (reach == exact_reach::any_integer) return std::nullopt;
  if (reach == exact_reach::within_residue_primes) {
    if (matrix.is_complex()) {
      return "--precision exact: engine '" + name + "' has no exact complex arithmetic; the dp engine has";
    }
    if (primes_for_bits(permanent_bound_bits(matrix)) > modular_prime_count) {
      return "--precision exact: engine '" + name + "' holds permanents below 2^" +
             std::to_string(static_cast<int>(modular_prime_count * modular_bits_per_prime) - 2) +
             " exactly, and this one's bound is larger; the dp engine computes any integer matrix exactly";
    }
    return std::nullopt;
  }
  if (matrix.is_complex()) reach = exact_reach::within_128_bits;  // no complex residues
  const bool int128 = fits_int128(matrix, matrix.n() > 0 ? matrix.n() - 1 : 0);
  if (reach == exact_reach::within_128_bits) {
    if (int128) return std::nullopt;
    return "--precision exact: engine '" + name +
           "' is exact only within 128 bits; the dp engine computes any integer matrix exactly";
  }
  if (!int128 && !fits_residues(matrix)) {
    return "--precision exact: the entries are too large for engine '" + name +
           "' (beyond 128 bits it needs every row's sum of |a_ij| at most 2^24); the dp engine computes any integer "
           "matrix exactly";
  }
  return std::nullopt;
}

// The exact arithmetics that hold `matrix` (none for non-integer values; residues are real). A
// run-time engine rounds the primes up to runtime_prime_counts.
inline exact_candidates exact_candidates_of(const sparse_matrix& matrix, bool runtime_primes) {
  exact_candidates c;
  if (!matrix.has_integer_values() || matrix.n() == 0) return c;
  c.int128 = fits_int128(matrix, matrix.n() - 1);
  if (fits_residues(matrix)) {
    c.primes = primes_for_bits(permanent_bound_bits(matrix));
    if (runtime_primes) {
      int primes = 1;
      while (primes < c.primes) primes *= 2;
      c.primes = std::min(primes, modular_prime_count);
    }
  }
  return c;
}

// What precision p runs at a site, given the exact arithmetics that hold the matrix: double or
// compensated sums as asked; exact in the cheapest exact arithmetic (the caller has refused a matrix
// none holds: exact_refusal); the default: that exact arithmetic for an integer matrix, compensated
// sums for the others and where none holds.
inline arithmetic_choice arithmetic_for(precision p, const exact_candidates& candidates, arithmetic_site site) {
  switch (p) {
    case precision::double_sums:
      return {arithmetic::double_sums};
    case precision::compensated:
      return {arithmetic::compensated};
    case precision::double_double:
      return {arithmetic::double_double};
    case precision::exact:
      if (const auto best = cheapest_exact(candidates, site)) return *best;
      throw engine_error(engine_error::kind::failed, "--precision exact: no exact arithmetic holds this matrix");
    default:
      return cheapest_exact(candidates, site).value_or(arithmetic_choice{});
  }
}

}  // namespace sparseperm::detail

namespace sparseperm {

// For integer matrices: do 128-bit integers hold every value of an exact run? (int128_bound.cuh)
template <CompileTimeMatrix M>
constexpr bool fits_exact_arithmetic() {
#if SPARSEPERM_HAS_INT128
  constexpr const auto& a = constants_of<M>;
  if (!a.integer_values()) return false;
  double row_sums[M::pattern::n > 0 ? M::pattern::n : 1]{};  // Gaussian integers: |re| + |im| bounds both parts
  for (int k = 0; k < a.nnz; ++k) row_sums[a.rows[k]] += a.l1(k);
  return detail::int128_bound_holds(row_sums, M::pattern::n, M::pattern::n - 1);
#else
  return false;
#endif
}

// For integer matrices beyond the 128-bit bound: a proven bound on log2 |perm| (modular.cuh), and
// whether residue arithmetic holds the matrix (every Σ_j |a_ij| ≤ 2^24, so doubled x stay below it).
template <CompileTimeMatrix M>
constexpr double permanent_bound_bits_of() {
  constexpr int n = M::pattern::n;
  constexpr const auto& a = constants_of<M>;
  double row_sums[n > 0 ? n : 1]{}, column_sums[n > 0 ? n : 1]{};
  int row_degrees[n > 0 ? n : 1]{}, column_degrees[n > 0 ? n : 1]{};
  bool zero_one = true;
  for (int j = 0; j < n; ++j) {
    for (int k = a.start[j]; k < a.start[j + 1]; ++k) {
      const double v = a.values[k] < 0 ? -a.values[k] : a.values[k];
      zero_one = zero_one && v == 1;
      row_sums[a.rows[k]] += v;
      column_sums[j] += v;
      ++row_degrees[a.rows[k]];
      ++column_degrees[j];
    }
  }
  return detail::permanent_bound_bits(row_sums, row_degrees, column_sums, column_degrees, n, zero_one);
}

template <CompileTimeMatrix M>
constexpr bool fits_residue_arithmetic() {
  constexpr const auto& a = constants_of<M>;
  if (!a.integer_values() || a.complex) return false;  // residues are real
  double row_sums[M::pattern::n > 0 ? M::pattern::n : 1]{};
  for (int k = 0; k < a.nnz; ++k) row_sums[a.rows[k]] += a.values[k] < 0 ? -a.values[k] : a.values[k];
  return detail::residues_hold(row_sums, M::pattern::n, permanent_bound_bits_of<M>());
}

// Double, or complex doubles for a complex matrix: what a generated engine runs without exactness.
template <CompileTimeMatrix M>
using floating_arithmetic_of = std::conditional_t<is_complex_matrix<M>, complex_double_arithmetic, double_arithmetic>;

#if SPARSEPERM_HAS_INT128
template <CompileTimeMatrix M>
using integer_arithmetic_of = std::conditional_t<is_complex_matrix<M>, gaussian_exact_arithmetic, exact_arithmetic>;
#endif

// What --precision exact runs in a generated engine, the cheapest exact arithmetic that holds the
// matrix (numeric/arithmetic.cuh's prices, which put residues first at every prime count where 128
// bits hold a matrix: gpu-cached 0/1 n = 40, p = 0.1, 128-bit integers 19x the time of double, two
// primes' residues 0.98x): residues modulo enough primes where they hold the matrix, else 128-bit
// integers where they fit; void for a matrix neither holds, which callers refuse.
template <CompileTimeMatrix M>
using modular_arithmetic_of = residue_arithmetic<detail::primes_for_bits(permanent_bound_bits_of<M>())>;

namespace detail {
// (if constexpr, not std::conditional_t: modular_arithmetic_of's bound is computed only where residues hold)
template <CompileTimeMatrix M>
constexpr auto exact_arithmetic_choice() {
  if constexpr (fits_residue_arithmetic<M>()) {
    return std::type_identity<modular_arithmetic_of<M>>{};
#if SPARSEPERM_HAS_INT128
  } else if constexpr (fits_exact_arithmetic<M>()) {
    return std::type_identity<integer_arithmetic_of<M>>{};
#endif
  } else {
    return std::type_identity<void>{};
  }
}

template <CompileTimeMatrix M>
constexpr auto automatic_arithmetic_choice() {
  using exact = typename decltype(exact_arithmetic_choice<M>())::type;
  if constexpr (std::is_void_v<exact>) {
    return std::type_identity<floating_arithmetic_of<M>>{};
  } else {
    return std::type_identity<exact>{};
  }
}
}  // namespace detail

template <CompileTimeMatrix M>
using exact_arithmetic_of = typename decltype(detail::exact_arithmetic_choice<M>())::type;

// The default (precision::automatic): exact for an integer matrix in its cheapest exact arithmetic
// (exact_arithmetic_of), double for the others and for integer matrices no exact arithmetic holds.
template <CompileTimeMatrix M>
using automatic_arithmetic = typename decltype(detail::automatic_arithmetic_choice<M>())::type;

namespace detail {

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

template <CompileTimeMatrix M>
struct generated_arithmetic_of<M, precision::double_double> {
  using type = std::conditional_t<is_complex_matrix<M>, complex_double_double_arithmetic, double_double_arithmetic>;
};

template <CompileTimeMatrix M, precision P>
using generated_arithmetic = typename generated_arithmetic_of<M, P>::type;

}  // namespace detail

}  // namespace sparseperm
