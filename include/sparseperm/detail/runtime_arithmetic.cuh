#pragma once
// The arithmetic a run-time Ryser engine (cpu-sparse, gpu-sparse) uses for a matrix and a
// precision, and the checks every engine shares before it promises an exact result.
//
//   exact_refusal(matrix, engine)   why `engine` cannot keep `--precision exact` (non-integer
//                                   values, entries beyond what it holds exactly), or nothing
//   choose_ryser_arithmetic         double (plain or compensated sums), 128-bit integers, or
//                                   residues modulo K primes (K from the proven bound)
//   with_prime_count<F>(K, f)       f.template operator()<K'>() for the K' in {1, 2, 4, 8, 16} ≥ K:
//                                   five instantiations of a run-time engine instead of sixteen
//   visit_ryser_arithmetic(c, f)    f.template operator()<X, Sum, Product>(scale) for a choice
//   row_grids_of<T>(matrix)         the row grids floating runs round the values to, and what that
//                                   changes (detail/error_bound.cuh)
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "../engine_error.cuh"
#include "../precision.cuh"
#include "../runtime/sparse_matrix.cuh"
#include "accumulators.cuh"
#include "error_bound.cuh"
#include "exact_integer.cuh"
#include "modular.cuh"
#include "sparse_ryser.cuh"

namespace sparseperm::detail {

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
  return permanent_bound_bits(row_sums.data(), row_degrees.data(), column_sums.data(), column_degrees.data(), n, zero_one);
}

// The row grids of a run-time matrix and what rounding to them changes (ryser_plan.cuh's
// grid_facts_of for the run-time engines). T: the floating type (long double for `reference`).
template <class T = double>
struct row_grids {
  std::vector<int> exponent;  // per row
  bool representable = true;
  grid_rounding_facts facts;
  T value(int row, double v) const { return representable ? round_to_grid<T>(static_cast<T>(v), exponent[row]) : static_cast<T>(v); }
};

// What changing row i of `matrix` by at most rho(i) relatively does to its permanent (error_bound.cuh's
// grid_rounding_builder, fed the row and column sums of |a_ij|): the row grids' rounding here, the
// rounding of a file's values on reading in compute.cuh. `widen` (≥ 1) scales the sums where they
// must bound values other than the ones held.
template <class Rho>
grid_rounding_builder perturbation_builder(const sparse_matrix& matrix, const Rho& rho, double widen = 1) {
  grid_rounding_builder b;
  for (int i = 0; i < matrix.n(); ++i) {
    double sum = 0;
    bool negative = false;
    for (const double v : matrix.row_values(i)) sum += std::fabs(v), negative = negative || v < 0;
    b.row(rho(i), sum * widen, negative);
  }
  for (int j = 0; j < matrix.n(); ++j) {
    double sum = 0;
    for (const double v : matrix.column_values(j)) sum += std::fabs(v);
    b.column(sum * widen);
  }
  return b;
}

template <class T = double>
row_grids<T> row_grids_of(const sparse_matrix& matrix) {
  const int n = matrix.n();
  row_grids<T> g;
  g.exponent.resize(n);
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (double v : matrix.row_values(i)) sum += std::fabs(v);
    g.exponent[i] = grid_exponent(sum);
    g.representable = g.representable && g.exponent[i] <= max_grid_exponent;
  }
  grid_rounding_builder b = perturbation_builder(matrix, [&](int i) {
    double rho = 0;
    for (double v : matrix.row_values(i)) rho = std::max(rho, relative_change<T>(static_cast<T>(v), g.value(i, v)));
    return rho;
  });
  if (!g.representable) b.unrepresentable();
  g.facts = b.facts();
  return g;
}

// Why a floating Ryser run of `matrix` could not be certified, or nothing: rounding the values to
// their row grids must change each row by less than 100% (a row whose values span more than about
// 2^50 loses its small ones: (1e20, 2) rounds 2 to 0), and the row sums must stay in range. The
// planner leaves such matrices to dp and reference, whose bounds need no grids.
inline std::optional<std::string> ryser_bound_refusal(const sparse_matrix& matrix) {
  if (matrix.has_integer_values()) return std::nullopt;  // exact, or integers on any grid
  const grid_rounding_facts f = row_grids_of<double>(matrix).facts;
  if (!f.representable) return std::string("a row's sum of |a_ij| is beyond 2^1021");
  if (!(f.change < 1)) return std::string("the values of a row span too many binary orders for a certified double result");
  return std::nullopt;
}

// Residue arithmetic holds the matrix: integers, and modular.cuh's rule (as for generated kernels).
inline bool fits_residues(const sparse_matrix& matrix) {
  if (!matrix.has_integer_values()) return false;
  std::vector<double> row_sums(matrix.n(), 0.0);
  for (int i = 0; i < matrix.n(); ++i) {
    for (double v : matrix.row_values(i)) row_sums[i] += std::fabs(v);
  }
  return residues_hold(row_sums.data(), matrix.n(), permanent_bound_bits(matrix));
}

// Why `engine` cannot keep --precision exact on this matrix, or nothing: every engine needs integer
// values; dp (and auto, which can hand any block to dp) holds any integer matrix, `reference` only
// within 128 bits, the Ryser engines within 128 bits or residues.
inline std::optional<std::string> exact_refusal(const sparse_matrix& matrix, const std::string& engine) {
  if (!matrix.has_integer_values()) {
    return "--precision exact needs an integer matrix, and this one has non-integer values (engine '" + engine + "')";
  }
  if (engine == "dp" || engine == "auto") return std::nullopt;
  const bool int128 = fits_int128(matrix, matrix.n() > 0 ? matrix.n() - 1 : 0);
  if (engine == "reference") {
    if (int128) return std::nullopt;
    return std::string("--precision exact: engine 'reference' is exact only within 128 bits; the dp engine computes any "
                       "integer matrix exactly");
  }
  if (!int128 && !fits_residues(matrix)) {
    return "--precision exact: the entries are too large for engine '" + engine +
           "' (beyond 128 bits it needs every row's sum of |a_ij| at most 2^24); the dp engine computes any integer "
           "matrix exactly";
  }
  return std::nullopt;
}

enum class ryser_arithmetic { double_plain, double_compensated, exact128, residues };

struct ryser_arithmetic_choice {
  ryser_arithmetic kind = ryser_arithmetic::double_compensated;
  int primes = 0;  // residues: how many (rounded up by with_prime_count)
};

// prefer_residues: on the GPU residues beat 128-bit integers even where those fit (ryser_plan.cuh).
inline ryser_arithmetic_choice choose_ryser_arithmetic(const sparse_matrix& matrix, precision p, const std::string& engine,
                                                       bool prefer_residues = false) {
  const bool int128 = fits_int128(matrix, matrix.n() - 1);
  switch (p) {
    case precision::double_sums: return {ryser_arithmetic::double_plain};
    case precision::compensated: return {ryser_arithmetic::double_compensated};
    case precision::exact:
      if (const auto why = exact_refusal(matrix, engine)) throw engine_error(engine_error::kind::refused, *why);
      if (int128 && !(prefer_residues && fits_residues(matrix))) return {ryser_arithmetic::exact128};
      return {ryser_arithmetic::residues, primes_for_bits(permanent_bound_bits(matrix))};
    default: return {int128 ? ryser_arithmetic::exact128 : ryser_arithmetic::double_compensated};
  }
}

template <class F>
decltype(auto) with_prime_count(int primes, F&& f) {
  if (primes <= 1) return f.template operator()<1>();
  if (primes <= 2) return f.template operator()<2>();
  if (primes <= 4) return f.template operator()<4>();
  if (primes <= 8) return f.template operator()<8>();
  return f.template operator()<16>();
}

// f.template operator()<X, Sum, Product>(scale) with the types of a choice: x's type, the
// accumulator, the product of x, and the scale of the values (2: doubled, for exact arithmetic).
// cpu-sparse and gpu-sparse both dispatch through here.
template <class F>
decltype(auto) visit_ryser_arithmetic(const ryser_arithmetic_choice& choice, F&& f) {
  switch (choice.kind) {
#if SPARSEPERM_HAS_INT128
    case ryser_arithmetic::exact128: return f.template operator()<std::int64_t, exact_sum, plain_product>(std::int64_t{2});
#endif
    case ryser_arithmetic::residues:
      return with_prime_count(choice.primes,
                              [&]<int K>() { return f.template operator()<double, residue_sum<K>, residue_product<K>>(2.0); });
    case ryser_arithmetic::double_plain: return f.template operator()<double, plain_sum, plain_product>(1.0);
    default: return f.template operator()<double, compensated_sum, plain_product>(1.0);
  }
}

}  // namespace sparseperm::detail
