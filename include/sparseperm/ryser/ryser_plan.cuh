#pragma once
// What a generated Ryser kernel is specialised to, all decided at compile time from the matrix type:
// the column and row order, the values in the kernel's arithmetic (numeric/value_types.cuh), the
// start state x_0, and (for CodeGen-Hybrid) the register partition.
//
//   double_arithmetic  x and the values in double, each value rounded once to its row's grid so
//                      that every x is exact (matrix/row_grids.cuh)
//   exact_arithmetic   x doubled to integers (2·x_0 = a(:, n−1) − Σ_{j<n−1} a(:, j), updates ±2a),
//                      products and sums in 128 bits; for integer matrices whose bound fits
//   residue_arithmetic<K>  x doubled as above, in doubles; products and sums modulo the first K
//                      primes of numeric/modular.cuh, joined on the host (the CRT): for integer
//                      matrices beyond the 128-bit bound
//   complex_double_arithmetic   complex matrices: both parts on the row's grid (sized by the row's
//                      Σ (|re| + |im|)), complex products
//   double_double_arithmetic, complex_double_double_arithmetic   x split exactly as coarse + fine
//                      (row_grids.cuh's split_grid_exponents_of), double-double products and sums
//   gaussian_exact_arithmetic   Gaussian-integer matrices: doubled x as int64 parts, products and
//                      sums in 128-bit parts
//   (which of them a matrix type runs: matrix/exactness.cuh's automatic_arithmetic<M> and
//   exact_arithmetic_of<M>)
//
//   ryser_plan<M, Arith, Order>   the plan of matrix type M; Order is degree_order (columns by
//                                 ascending degree) or permanent_order (Algorithm 3)
//
// Kernels read the plan through scalar variable templates (nonzero_row<Plan, E>, ...), which device
// code may use; the arrays themselves are host objects to nvcc.
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../core/config.cuh"
#include "../matrix/column_masks.cuh"
#include "../matrix/pattern.cuh"
#include "../matrix/row_grids.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/modular.cuh"
#include "../numeric/value_types.cuh"
#include "ordering.cuh"

namespace sparseperm {

template <int N, int NNZ, class Value>
struct ryser_arrays {
  int n = N;
  int nnz = NNZ;
  int start[N + 1]{};             // column j of the order: entries [start[j], start[j+1])
  int rows[NNZ > 0 ? NNZ : 1]{};  // rows in the order's numbering
  Value values[NNZ > 0 ? NNZ : 1]{};
  Value x0[N > 0 ? N : 1]{};
  double x_bound[N > 0 ? N : 1]{};  // |x_i| ≤ Σ_j |a_ij| / 2 in the arithmetic's scale (doubled x: Σ_j |a_ij|)
  matrix_order order;               // position → original index
};

// An entry in the arithmetic's values: doubled integers for exact arithmetic, the value on its
// row's grid for floating point (each part, for complex values), the value itself as coarse + fine
// on its row's two grids for double-double (split_value).
template <class Arith, int N, int NNZ>
constexpr typename Arith::value arithmetic_value(const pattern_arrays<N, NNZ>& a, const split_grid_exponents<N>& grids,
                                                 int k) {
  using value = typename Arith::value;
  const row_grid_exponents<N>& grid = grids.coarse;
  if constexpr (detail::is_split_value<value>) {  // the value itself, as coarse + fine
    const detail::split_value<double> re = split_grid_value(grids, a.rows[k], a.values[k]);
    if constexpr (detail::is_complex_value<value>) {
      const detail::split_value<double> im = split_grid_value(grids, a.rows[k], a.imag[k]);
      return value{complex_double{re.coarse, im.coarse}, complex_double{re.fine, im.fine}};
    } else {
      return re;
    }
  } else if constexpr (detail::is_complex_arithmetic<Arith>) {
    using part = part_type<value>;
    if constexpr (Arith::exact) {
      return value{static_cast<part>(2 * a.values[k]), static_cast<part>(2 * a.imag[k])};
    } else {
      return value{grid_value(grid, a.rows[k], a.values[k]), grid_value(grid, a.rows[k], a.imag[k])};
    }
  } else {
    return Arith::exact ? static_cast<value>(2 * a.values[k])
                        : static_cast<value>(grid_value(grid, a.rows[k], a.values[k]));
  }
}

// |v| bounded: the modulus of a real value, |re| + |im| of a complex one.
template <class Value>
constexpr double magnitude_bound(const Value& v) {
  if constexpr (detail::is_split_value<Value>) {
    return magnitude_bound(v.coarse) + magnitude_bound(v.fine);
  } else if constexpr (is_complex_number<Value>) {
    return static_cast<double>(l1_norm(v));
  } else {
    return static_cast<double>(v < 0 ? -v : v);
  }
}

// The constants reordered (rows and columns) and converted to the arithmetic's values
// (arithmetic_value).
template <class Arith, int N, int NNZ>
constexpr ryser_arrays<N, NNZ, typename Arith::value> make_ryser_arrays(const pattern_arrays<N, NNZ>& a,
                                                                        const matrix_order& order) {
  using value = typename Arith::value;
  ryser_arrays<N, NNZ, value> r;
  r.order = order;
  int row_position[N > 0 ? N : 1]{};
  for (int i = 0; i < N; ++i) row_position[order.rows[i]] = i;
  const split_grid_exponents<N> grid = split_grid_exponents_of(a);
  int at = 0;
  for (int position = 0; position < N; ++position) {
    const int j = order.columns[position];
    r.start[position] = at;
    // rows ascend in the new numbering too (insertion sort of this column's entries)
    for (int k = a.start[j]; k < a.start[j + 1]; ++k) {
      const int row = row_position[a.rows[k]];
      const value v = arithmetic_value<Arith>(a, grid, k);
      int slot = at++;
      for (; slot > r.start[position] && r.rows[slot - 1] > row; --slot) {
        r.rows[slot] = r.rows[slot - 1];
        r.values[slot] = r.values[slot - 1];
      }
      r.rows[slot] = row;
      r.values[slot] = v;
      r.x0[row] += position == N - 1 ? v / 2 : -v / 2;  // a(i, n−1) − Σ_j a(i, j)/2, in the arithmetic's scale
      r.x_bound[row] += magnitude_bound(v) / 2;
    }
  }
  r.start[N] = at;
  return r;
}

namespace detail {

// Π factors[i] in double, in constant evaluation, which takes no floating-point exception: nvcc's
// front end refuses a product that underflows to 0, g++ one that overflows. The product is kept as a
// mantissa in [1, 2) and an exponent (the factors split exactly, the mantissas rounded once a factor,
// as a kernel's product is), and converted once: ±Inf beyond double's range (the run then reports the
// overflow), or rounded once into the subnormals or to ±0 as a multiplication would round it.
constexpr double exception_free_product(const double* factors, int n) {
  double mantissa = 1;
  int exponent = 0;
  const auto normalize = [&](double& m, int& e) {
    const bool negative = m < 0;
    if (negative) m = -m;
    while (m >= 2) m /= 2, ++e;
    while (m < 1) m *= 2, --e;
    if (negative) m = -m;
  };
  for (int i = 0; i < n; ++i) {
    double m = factors[i];
    if (m == 0) return 0;
    int e = 0;
    normalize(m, e);
    mantissa *= m;
    exponent += e;
    normalize(mantissa, exponent);
  }
  const double sign = mantissa < 0 ? -1 : 1;
  if (exponent > 1023) return sign * std::numeric_limits<double>::infinity();
  if (exponent < -1075) return sign * 0.0;  // below half the least subnormal: rounds to 0
  if (exponent == -1075)
    return sign * (sign * mantissa > 1 ? std::numeric_limits<double>::denorm_min() : 0.0);  // ties to even
  return mantissa * power_of_two<double>(exponent);  // exact, or one rounding into the subnormals
}

}  // namespace detail

// The step-0 term Π x_0, in the arithmetic's product type. Complex doubles: NaN, as a product
// of complex parts may underflow where constant evaluation refuses it; complex_start_product
// computes it at run time (start_term_of).
template <class Arith, int N, int NNZ>
constexpr typename Arith::product start_product(const ryser_arrays<N, NNZ, typename Arith::value>& r) {
  if constexpr (std::is_same_v<typename Arith::product, double>) {
    return detail::exception_free_product(r.x0, N);
  } else if constexpr (detail::is_double_double_arithmetic<Arith>) {
    return {};  // computed at run time (split_start_product)
  } else if constexpr (std::is_same_v<typename Arith::product, complex_double>) {
    return complex_double{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  } else {
    typename Arith::product p = 1;
    for (int i = 0; i < N; ++i) {
      if constexpr (detail::is_residue_arithmetic<Arith>) {
        p = p.times_constexpr(r.x0[i]);  // in integers: constant evaluation
      } else {
        p *= static_cast<typename Arith::product>(r.x0[i]);
      }
    }
    return p;
  }
}

struct degree_order {
  static constexpr const char* name = "columns by ascending degree";
  static constexpr matrix_order of(const column_masks& m) { return degree_sorted_order(m); }
};

struct permanent_order {
  static constexpr const char* name = "permanent ordering (Algorithm 3)";
  static constexpr matrix_order of(const column_masks& m) { return permanent_ordering(m).order; }
};

template <CompileTimeMatrix M, class Arith, class Order>
struct ryser_plan {
  using matrix = M;
  using arithmetic = Arith;
  using value = typename Arith::value;
  using product = typename Arith::product;
  static constexpr int n = M::pattern::n;
  static_assert(n >= 1 && n <= max_ryser_n, "sparseperm::ryser_plan<M, ...>: the Ryser engines need 1 <= n <= 64");
  static constexpr const auto& source = constants_of<M>;
  static constexpr matrix_order order = Order::of(source.masks());
  static constexpr auto data = make_ryser_arrays<Arith>(source, order);
  static constexpr column_masks ordered_masks = reorder(source.masks(), order);
  static constexpr product start_term = start_product<Arith>(data);  // read it with start_term_of
  static constexpr detail::grid_rounding_facts grid = [] {
    if constexpr (Arith::exact) {
      return detail::grid_rounding_facts{};
    } else if constexpr (detail::is_split_value<value>) {
      return split_grid_facts_of(source);
    } else {
      return grid_facts_of(source);
    }
  }();
};

// Π x_0 in complex doubles at run time: n − 1 multiplications in a row, as a term counts them.
inline complex_double complex_start_product(const complex_double* x0, int n) {
  complex_double p{1, 0};
  for (int i = 0; i < n; ++i) p = p * x0[i];
  return p;
}

// Π x_0 in double-double from split row sums: n − 1 multiplications in a row, as a term counts them.
template <class V>
auto split_start_product(const detail::split_value<V>* x0, int n) {
  auto p = detail::dd_factor(x0[0]);
  for (int i = 1; i < n; ++i) p = detail::dd_times(p, detail::dd_factor(x0[i]));
  return p;
}

// A plan's step-0 term Π x_0 (host code).
template <class Plan>
typename Plan::product start_term_of() {
  if constexpr (detail::is_split_value<typename Plan::value>) {
    return split_start_product(Plan::data.x0, Plan::n);
  } else if constexpr (std::is_same_v<typename Plan::product, complex_double>) {
    return complex_start_product(Plan::data.x0, Plan::n);
  } else {
    return Plan::start_term;
  }
}

// Scalar views of a plan for device code (which may read constexpr scalars, not class objects:
// complex values are read as their parts, through nonzero_value and start_value).
template <class Plan, int J>
struct plan_column {
  static constexpr int begin = Plan::data.start[J];
  static constexpr int end = Plan::data.start[J + 1];
  static constexpr int top_row = end > begin ? Plan::data.rows[end - 1] : -1;  // rows ascend
  // The first of its entries on a row ≥ Row (end where none is).
  template <int Row>
  static constexpr int first_at_or_above = [] {
    int e = begin;
    while (e < end && Plan::data.rows[e] < Row) ++e;
    return e;
  }();
};

template <class Value>
struct value_parts {
  static constexpr Value re(const Value& v) { return v; }
};
template <class T>
struct value_parts<complex_number<T>> {
  static constexpr T re(const complex_number<T>& v) { return v.re; }
  static constexpr T im(const complex_number<T>& v) { return v.im; }
};
// split values: re and im are the coarse parts; fine_re and fine_im the fine ones
template <>
struct value_parts<detail::split_value<double>> {
  static constexpr double re(const detail::split_value<double>& v) { return v.coarse; }
  static constexpr double fine_re(const detail::split_value<double>& v) { return v.fine; }
};
template <>
struct value_parts<detail::split_value<complex_double>> {
  static constexpr double re(const detail::split_value<complex_double>& v) { return v.coarse.re; }
  static constexpr double im(const detail::split_value<complex_double>& v) { return v.coarse.im; }
  static constexpr double fine_re(const detail::split_value<complex_double>& v) { return v.fine.re; }
  static constexpr double fine_im(const detail::split_value<complex_double>& v) { return v.fine.im; }
};

// Nonzero E of a plan (in its order) and x_0[I]: rows and parts as scalar variable templates, which
// device code may read. Folds over a column's entries use them directly: a class or a function per
// entry made g++ spend 374 of 395 s of a test's front end instantiating them (hundreds of entries a
// plan, dozens of plans a matrix); variable templates took 50 s.
template <class Plan, int E>
inline constexpr int nonzero_row = Plan::data.rows[E];
template <class Plan, int E>
inline constexpr part_type<typename Plan::value> nonzero_re =
    value_parts<typename Plan::value>::re(Plan::data.values[E]);
template <class Plan, int E>
inline constexpr part_type<typename Plan::value> nonzero_im =
    value_parts<typename Plan::value>::im(Plan::data.values[E]);
template <class Plan, int I>
inline constexpr part_type<typename Plan::value> start_re = value_parts<typename Plan::value>::re(Plan::data.x0[I]);
template <class Plan, int I>
inline constexpr part_type<typename Plan::value> start_im = value_parts<typename Plan::value>::im(Plan::data.x0[I]);
template <class Plan, int E>
inline constexpr double nonzero_fine_re = value_parts<typename Plan::value>::fine_re(Plan::data.values[E]);
template <class Plan, int E>
inline constexpr double nonzero_fine_im = value_parts<typename Plan::value>::fine_im(Plan::data.values[E]);
template <class Plan, int I>
inline constexpr double start_fine_re = value_parts<typename Plan::value>::fine_re(Plan::data.x0[I]);
template <class Plan, int I>
inline constexpr double start_fine_im = value_parts<typename Plan::value>::fine_im(Plan::data.x0[I]);

// x_0[I] of a plan as a value of its arithmetic.
template <class Plan, int I>
SPARSEPERM_HOST_DEVICE constexpr typename Plan::value start_value() {
  using value = typename Plan::value;
  if constexpr (detail::is_split_value<value> && detail::is_complex_value<value>) {
    return {complex_double{start_re<Plan, I>, start_im<Plan, I>},
            complex_double{start_fine_re<Plan, I>, start_fine_im<Plan, I>}};
  } else if constexpr (detail::is_split_value<value>) {
    return {start_re<Plan, I>, start_fine_re<Plan, I>};
  } else if constexpr (is_complex_number<value>) {
    return {start_re<Plan, I>, start_im<Plan, I>};
  } else {
    return start_re<Plan, I>;
  }
}

}  // namespace sparseperm
