#pragma once
// What a run of the column-frontier dp gives (the dp engine's hash tables, and the dense ranked
// steps of dp and gpu-dp): its value, exact or with a bound, the bound's helpers, and the result.
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../core/result.cuh"
#include "../detail/format.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/big_integer.cuh"
#include "../numeric/double_double.cuh"
#include "../numeric/error_bound.cuh"
#include "../structure/frontier_order.cuh"

namespace sparseperm {

namespace detail {

// What products that underflow (each rounding at most 2^−1074, times the columns still to come, each
// at most max(1, Σ|a_ij|)) can add to a dp run of `transitions` multiplications.
inline double dp_underflow_allowance(const sparse_matrix& a, double transitions) {
  double log2_growth = 0;
  for (int j = 0; j < a.n(); ++j) {
    double sum = 0;
    for (double v : a.column_values(j)) sum += std::fabs(v);
    log2_growth += std::log2(std::max(1.0, sum));
  }
  const double log2_allowance = std::log2(std::max(transitions, 1.0)) + 2 + log2_growth - 1074;
  return log2_allowance < -1074 ? 0x1p-1074 : std::exp2(log2_allowance);
}

inline bool has_negative_value(const sparse_matrix& a) {
  for (int j = 0; j < a.n(); ++j) {
    for (double v : a.column_values(j)) {
      if (v < 0) return true;
    }
  }
  return false;
}

// |A|, entry by entry; complex moduli rounded up, so that perm of the result bounds perm(|A|).
inline sparse_matrix absolute_values(const sparse_matrix& a) {
  std::vector<matrix_entry> entries = a.entries();
  for (auto& e : entries) {
    e.value = e.imag == 0 ? std::fabs(e.value)
                          : std::nextafter(std::hypot(e.value, e.imag), std::numeric_limits<double>::infinity());
    e.imag = 0;
  }
  return sparse_matrix::from_entries(a.n(), std::move(entries));
}

// The bound of a dp run in double-double (the hash tables' and the dense steps'). A partial
// matching's product passes, a column, one multiplication by the column's entry and at most deg(c)
// additions into its new state: at most n + nnz operations, each off by at most ε relative (8u²
// real, 56u² complex: double_double.cuh), so the sum is off by at most γ_(n+nnz)(ε) · perm(|A|).
// `modulus_permanent` bounds perm(|A|) from above; the value printed, a double, adds u of itself;
// where parts underflow, each operation may lose 2^−1074 more (16 roundings a real transition, 64 a
// complex one, as for the Ryser engines) times `allowance` (dp_underflow_allowance on |A|).
inline double dp_double_double_bound(const sparse_matrix& a, double modulus_permanent, double value_modulus,
                                     double allowance) {
  const double unit = a.is_complex() ? dd_complex_product_unit : dd_product_unit;
  const double g = gamma_of(static_cast<double>(a.n()) + static_cast<double>(a.nnz()), unit);
  const double underflow = (a.is_complex() ? 64 : 16) * allowance;
  return (g * modulus_permanent + 0x1p-53 * value_modulus + underflow) * bound_margin;
}

// The planner's note on a block a dp engine runs: its order and frontier.
inline std::string frontier_note(const frontier_order* order) {
  if (order == nullptr) return "";
  return " (" + order->name + ", frontier " + std::to_string(order->frontier) + ")";
}

}  // namespace detail

// A block's permanent from dp: exact (big integer) for integer matrices, else a double.
struct dp_value {
  bool exact = false;
  detail::big_integer exact_value;
  double value = 0;
  bool complex = false;  // complex matrices: the imaginary part
  detail::big_integer exact_imag;
  double imag = 0;
  double error_bound = 0;  // real matrices: a bound on |value − permanent|
  std::string arithmetic;
  std::size_t peak_states = 0;
  double transitions = 0;
};

// A result from a dp run's value (the dp and gpu-dp engines); the plan names the order and the run.
inline permanent_result dp_result(std::string_view engine, const sparse_matrix& matrix, const frontier_order& order,
                                  const dp_value& v, std::string_view where = "") {
  permanent_result result;
  result.engine = engine;
  result.n = matrix.n();
  result.nnz = matrix.nnz();
  if (v.exact) {
    result.exact = true;
    result.permanent = v.exact_value.to_decimal();
    result.value = v.value;
    if (v.complex) set_imaginary_part(result, v.imag, v.exact_imag.to_decimal());
  } else {
    set_floating_value(result, v.value);
    if (v.complex) set_imaginary_part(result, v.imag);
    set_error_bound(result, v.error_bound);
  }
  result.plan = "columns in " + order.name + " order; frontier " + std::to_string(order.frontier) + " rows; " +
                std::to_string(v.peak_states) + " states at most; " + detail::format_count(v.transitions) +
                " transitions; " + v.arithmetic + std::string(where);
  return result;
}

}  // namespace sparseperm
