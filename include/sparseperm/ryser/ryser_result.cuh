#pragma once
// From the Nijenhuis–Wilf sum S = Σ_g (−1)^g Π x_g to the permanent, in either arithmetic:
//   double:  perm = (4(n mod 2) − 2) · S, with its error bound (error_bound.cuh)
//   exact:   S is over doubled row sums, so perm = ±S / 2^(n−1); S must be divisible by 2^(n−1),
//            which is checked (a failure would be an engine bug, never rounded away).
//   residues: the same S modulo K primes; perm mod p = ±S·2^−(n−1), then the CRT (modular.cuh).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/exact_integer.cuh"
#include "../numeric/modular.cuh"
#include "gray_code.cuh"

namespace sparseperm::detail {

// What a floating run's bound needs from its engine besides its sums (error_bound.cuh).
struct floating_run_facts {
  grid_rounding_facts grid;        // what rounding the values to their row grids changed
  std::uint64_t block = 1;         // compensated sums: terms summed plainly before each TwoSum
  bool rounded_factors = false;    // split row sums rounded once a factor (error_bound.cuh)
  fine_parts_totals start_fine{};  // fine_parts_sum: step 0's fine parts' sums (its term is the host's)
};

// The facts without the grids' change: a walk's rounding on the grid values alone.
inline grid_rounding_facts without_change(grid_rounding_facts grid) {
  grid.change = 0;
  return grid;
}

// A floating result's numbers: the value ±2Σ̂ and its error bound (rounding, then the grid's change).
inline floating_numbers ryser_numbers(int n, const floating_sum_report& report, const grid_rounding_facts& grid) {
  floating_numbers v;
  v.value = nw_factor(n) * report.sum;
  const double rounding = 2 * ryser_sum_bound(n, report, grid);
  v.bound = rounding + grid_perturbation_bound(grid, v.value, rounding);
  return v;
}

// A complex one's: ±2Σ̂ and the bound on the modulus of its error.
inline floating_numbers ryser_numbers(int n, const complex_double& sum, floating_sum_report report,
                                      const grid_rounding_facts& grid) {
  floating_numbers v;
  v.complex = true;
  v.value = nw_factor(n) * sum.re;
  v.imag = nw_factor(n) * sum.im;
  report.complex = true;
  report.sum = l1_norm(sum);
  const double rounding = 2 * ryser_sum_bound(n, report, grid);
  v.bound = rounding + grid_perturbation_bound(grid, std::hypot(v.value, v.imag), rounding);
  return v;
}

// The numbers of a walk on values rounded to their row grids that kept its fine parts' sums
// (fine_parts_sum): `on_grids` bounds the rounding of the walk on the grid values alone (its facts'
// change 0); what the grids' rounding changed is bounded a priori and from the fine parts' sums, and
// the smaller is added. real_base: Σ|t̂|, a real term's P̂0.
inline floating_numbers with_fine_parts(int n, floating_numbers on_grids, const grid_rounding_facts& grid,
                                        const fine_parts_totals& fine, double real_base, std::uint64_t chain) {
  const double rounding = on_grids.bound;
  const double a_priori = grid_perturbation_bound(grid, std::hypot(on_grids.value, on_grids.imag), rounding);
  const double base = on_grids.complex ? fine.base : real_base;
  on_grids.bound =
      rounding + std::min(a_priori, fine_parts_bound(n, on_grids.complex, fine.excess, base, chain, grid.underflow));
  return on_grids;
}

// The same as a result's fields; a value or a bound that is not finite is an overflow error.
inline void set_ryser_value(permanent_result& result, int n, const floating_sum_report& report,
                            const grid_rounding_facts& grid) {
  set_floating_numbers(result, ryser_numbers(n, report, grid));
}
inline void set_ryser_value(permanent_result& result, int n, const complex_double& sum,
                            const floating_sum_report& report, const grid_rounding_facts& grid) {
  set_floating_numbers(result, ryser_numbers(n, sum, report, grid));
}

#if SPARSEPERM_HAS_INT128
// The exact permanent ±S/2^(n−1) of an exact Nijenhuis–Wilf sum S (doubled row sums).
inline int128 exact_ryser_permanent(const permanent_result& result, int n, int128 sum) {
  const int128 scale = int128{1} << (n - 1);
  if (sum % scale != 0) {
    throw engine_error(engine_error::kind::failed,
                       result.engine + ": the exact Nijenhuis-Wilf sum is not divisible by 2^(n-1) (an engine bug)");
  }
  return (n % 2 == 1 ? 1 : -1) * (sum / scale);
}

inline void set_ryser_value(permanent_result& result, int n, const complex_number<int128>& sum) {
  const int128 re = exact_ryser_permanent(result, n, sum.re);
  const int128 im = exact_ryser_permanent(result, n, sum.im);
  result.value = static_cast<double>(re);
  result.permanent = to_decimal(re);
  result.exact = true;
  set_imaginary_part(result, static_cast<double>(im), to_decimal(im));
}

inline void set_ryser_value(permanent_result& result, int n, int128 sum) {
  const int128 permanent = exact_ryser_permanent(result, n, sum);
  result.value = static_cast<double>(permanent);
  result.permanent = to_decimal(permanent);
  result.exact = true;
}
#endif

// Residues of the doubled sum modulo the first K primes: the CRT gives the permanent.
template <int K>
void set_ryser_value(permanent_result& result, int n, const residues<K>& sum) {
  const big_integer permanent = permanent_from_residues(std::vector<double>(sum.r, sum.r + K), n);
  result.value = permanent.to_double();
  result.permanent = permanent.to_decimal();
  result.exact = true;
}

// How a run with floating accumulators of type Sum summed: its reduced sum and Σ|t|, its chains.
template <class Sum>
floating_sum_report sum_report(double sum, double magnitude, std::uint64_t chain, const floating_run_facts& facts) {
  floating_sum_report report;
  report.sum = sum;
  report.magnitude = magnitude;
  report.chain = chain;
  report.block = facts.block;
  report.compensated = Sum::compensated;
  report.rounded_factors = facts.rounded_factors;
  report.double_double = is_double_double_sum<Sum>;
  return report;
}

// A floating accumulator's numbers (Sum: compensated, plain or double-double sums, real or complex).
// chain: the most additions into one accumulator (error_bound.cuh).
template <class Sum>
floating_numbers ryser_sum_numbers(int n, const Sum& sum, std::uint64_t chain, const floating_run_facts& facts) {
  floating_sum_report report = sum_report<Sum>(0, magnitude_of(sum), chain, facts);
  report.partials = partials_of(sum);
  if constexpr (requires { sum.re; }) {
    return ryser_numbers(n, sum.value(), report, facts.grid);
  } else {
    report.sum = sum.value();
    return ryser_numbers(n, report, facts.grid);
  }
}

// A result from a host-reduced accumulator: exact sums give the permanent, floating ones the value
// and its bound.
template <class Sum>
void set_ryser_sum(permanent_result& result, int n, const Sum& sum, std::uint64_t chain,
                   const floating_run_facts& facts) {
  if constexpr (requires { Sum::compensated; }) {
    set_floating_numbers(result, ryser_sum_numbers(n, sum, chain, facts));
  } else {
    set_ryser_value(result, n, sum.value());
  }
}

}  // namespace sparseperm::detail
