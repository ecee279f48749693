#pragma once
// Double-double numbers (an unevaluated sum hi + lo of two doubles, about 106 bits) and the exact
// row sums that the running bounds of the Ryser engines rest on. Host and device.
//
//   sum_with_error(a, b)     TwoSum: s = fl(a + b) and e with s + e = a + b exactly
//   product_with_error(a, b) TwoProd with an FMA: p = fl(a·b) and e with p + e = a·b exactly
//   double_double            hi + lo, |lo| ≤ ulp(hi)/2; dd_times (Joldes, Muller and Popescu 2017,
//                            "Tight and rigorous error bounds for basic building blocks of double-word
//                            arithmetic", Algorithm 12: relative error ≤ 5u²; by a double, Algorithm
//                            9: 2u²) and dd_plus (their Algorithm 6, AccurateDWPlusDW: relative error
//                            ≤ 3u²/(1 − 4u)); the bounds here count 8u² and 4u² (dd_product_unit,
//                            dd_sum_unit)
//   complex_double_double    parts of double_double; a product's part ac ∓ bd in one pass
//                            (dd_two_products): off by at most 34u²(|ac| + |bd|), so the product by
//                            48.1u²·|a||b| in modulus ((|ac| + |bd|)² + (|ad| + |bc|)² ≤ 2|a|²|b|²);
//                            counted as 56u²
//   split_value<V>           a row sum kept exactly as coarse + fine (numeric/error_bound.cuh's row
//                            grids: coarse on the row's grid, fine on a second grid for what the
//                            first rounds away), so no value of the matrix is changed; factor()
//                            rounds it once (relative u), dd_factor() keeps it whole
// All of these bounds hold where nothing underflows; error_bound.cuh adds what underflow can add.
#include <cmath>
#include <type_traits>

#include "../core/config.cuh"
#include "complex.cuh"

namespace sparseperm {

struct double_double {
  double hi = 0;
  double lo = 0;
  constexpr double_double() = default;
  SPARSEPERM_HOST_DEVICE constexpr double_double(double high, double low = 0) : hi(high), lo(low) {}
};

using complex_double_double = complex_number<double_double>;

namespace detail {

inline constexpr double dd_unit = 0x1p-106;                      // u² for u = 2^−53
inline constexpr double dd_product_unit = 8 * dd_unit;           // one dd_times, relative
inline constexpr double dd_sum_unit = 4 * dd_unit;               // one dd_plus, relative to its result
inline constexpr double dd_complex_product_unit = 56 * dd_unit;  // one complex product, relative to |a||b|

SPARSEPERM_HOST_DEVICE inline double_double sum_with_error(double a, double b) {
  const double s = a + b;
  const double b_part = s - a;
  return {s, (a - (s - b_part)) + (b - b_part)};
}

SPARSEPERM_HOST_DEVICE inline double_double fast_sum_with_error(double a, double b) {  // |a| ≥ |b| or a = 0
  const double s = a + b;
  return {s, b - (s - a)};
}

SPARSEPERM_HOST_DEVICE inline double_double product_with_error(double a, double b) {
  const double p = a * b;
  return {p, std::fma(a, b, -p)};
}

SPARSEPERM_HOST_DEVICE inline double_double dd_times(const double_double& x, const double_double& y) {
  const double_double c = product_with_error(x.hi, y.hi);
  const double t = std::fma(x.hi, y.lo, x.lo * y.lo);
  return fast_sum_with_error(c.hi, c.lo + std::fma(x.lo, y.hi, t));
}

// x·y for a double y (their Algorithm 9, DWTimesFP3: relative error ≤ 2u²), counted as
// dd_product_unit like dd_times.
SPARSEPERM_HOST_DEVICE inline double_double dd_times(const double_double& x, double y) {
  const double_double c = product_with_error(x.hi, y);
  return fast_sum_with_error(c.hi, std::fma(x.lo, y, c.lo));
}

SPARSEPERM_HOST_DEVICE inline double_double dd_plus(const double_double& x, const double_double& y) {
  const double_double s = sum_with_error(x.hi, y.hi);
  const double_double t = sum_with_error(x.lo, y.lo);
  const double_double v = fast_sum_with_error(s.hi, s.lo + t.hi);
  return fast_sum_with_error(v.hi, t.lo + v.lo);
}

SPARSEPERM_HOST_DEVICE inline double_double dd_negate(const double_double& x) { return {-x.hi, -x.lo}; }

// x·y ± z·w in one pass (a complex product's part): the high products exactly (TwoProd), their sum
// exactly (TwoSum), every low-order term added plainly, the lo·lo products dropped, then TwoSum. With
// M = |x||y| + |z||w|: eight roundings in the low-order sum, each of at most 4u²M, and the dropped
// products at most u²M(1 + u)²: at most 34u²·M with the O(u³) terms (then 48.1u²·|a||b| for the
// modulus of a complex product).
template <bool Minus>
SPARSEPERM_HOST_DEVICE inline double_double dd_two_products(const double_double& x, const double_double& y,
                                                            const double_double& z, const double_double& w) {
  const double_double p = product_with_error(x.hi, y.hi);
  const double_double q = product_with_error(z.hi, w.hi);
  const double_double s = sum_with_error(p.hi, Minus ? -q.hi : q.hi);
  const double cross_xy = std::fma(x.hi, y.lo, x.lo * y.hi);
  const double cross_zw = std::fma(z.hi, w.lo, z.lo * w.hi);
  const double low = Minus ? ((p.lo - q.lo) + cross_xy) - cross_zw : ((p.lo + q.lo) + cross_xy) + cross_zw;
  return sum_with_error(s.hi, low + s.lo);
}

SPARSEPERM_HOST_DEVICE inline complex_double_double dd_times(const complex_double_double& a,
                                                             const complex_double_double& b) {
  return {dd_two_products<true>(a.re, b.re, a.im, b.im), dd_two_products<false>(a.re, b.im, a.im, b.re)};
}

// dd_two_products for y and w doubles: the roundings of y.lo = w.lo = 0 there, so the same bound.
template <bool Minus>
SPARSEPERM_HOST_DEVICE inline double_double dd_two_products(const double_double& x, double y, const double_double& z,
                                                            double w) {
  const double_double p = product_with_error(x.hi, y);
  const double_double q = product_with_error(z.hi, w);
  const double_double s = sum_with_error(p.hi, Minus ? -q.hi : q.hi);
  const double cross_xy = x.lo * y, cross_zw = z.lo * w;
  const double low = Minus ? ((p.lo - q.lo) + cross_xy) - cross_zw : ((p.lo + q.lo) + cross_xy) + cross_zw;
  return sum_with_error(s.hi, low + s.lo);
}

SPARSEPERM_HOST_DEVICE inline complex_double_double dd_times(const complex_double_double& a, const complex_double& b) {
  return {dd_two_products<true>(a.re, b.re, a.im, b.im), dd_two_products<false>(a.re, b.im, a.im, b.re)};
}

// A row sum held exactly as coarse + fine (see the head of this file). V: double or complex_double.
template <class V>
struct split_value {
  V coarse{};
  V fine{};

  constexpr split_value() = default;
  SPARSEPERM_HOST_DEVICE constexpr split_value(V c) : coarse(c), fine() {}
  SPARSEPERM_HOST_DEVICE constexpr split_value(V c, V f) : coarse(c), fine(f) {}

  SPARSEPERM_HOST_DEVICE constexpr split_value& operator+=(const split_value& b) {
    coarse += b.coarse;
    fine += b.fine;
    return *this;
  }
  SPARSEPERM_HOST_DEVICE constexpr split_value& operator-=(const split_value& b) {
    coarse -= b.coarse;
    fine -= b.fine;
    return *this;
  }
  SPARSEPERM_HOST_DEVICE friend constexpr split_value operator+(split_value a, const split_value& b) { return a += b; }
  SPARSEPERM_HOST_DEVICE friend constexpr split_value operator-(split_value a, const split_value& b) { return a -= b; }
  SPARSEPERM_HOST_DEVICE friend constexpr split_value operator-(const split_value& a) { return {-a.coarse, -a.fine}; }
  // Halving is exact on the grids (x_0's a(i, n−1) − Σ_j a(i, j)/2), and so is a sign (the flips' ±a).
  SPARSEPERM_HOST_DEVICE friend constexpr split_value operator/(const split_value& a, double s) {
    return {a.coarse / s, a.fine / s};
  }
  SPARSEPERM_HOST_DEVICE friend constexpr split_value operator*(double sign, const split_value& a) {
    return {sign * a.coarse, sign * a.fine};
  }
  // fl(coarse + fine) is 0 exactly when the sum is (the zero tracking of the sparse loops).
  SPARSEPERM_HOST_DEVICE friend bool operator==(const split_value& a, const split_value& b) {
    return a.coarse + a.fine == b.coarse + b.fine;
  }

  SPARSEPERM_HOST_DEVICE V factor() const { return coarse + fine; }  // rounded once
};

SPARSEPERM_HOST_DEVICE inline double_double dd_factor(const split_value<double>& x) {
  return sum_with_error(x.coarse, x.fine);
}
SPARSEPERM_HOST_DEVICE inline complex_double_double dd_factor(const split_value<complex_double>& x) {
  return {sum_with_error(x.coarse.re, x.fine.re), sum_with_error(x.coarse.im, x.fine.im)};
}

// A double-double product kept in a split value's slot (gpu-cached's upper levels, in the global
// rows' memory): the same doubles, hi as coarse and lo as fine.
SPARSEPERM_HOST_DEVICE inline split_value<double> upper_level_slot(const double_double& p) { return {p.hi, p.lo}; }
SPARSEPERM_HOST_DEVICE inline split_value<complex_double> upper_level_slot(const complex_double_double& p) {
  return {complex_double{p.re.hi, p.im.hi}, complex_double{p.re.lo, p.im.lo}};
}
SPARSEPERM_HOST_DEVICE inline double_double upper_level_of(const split_value<double>& v) { return {v.coarse, v.fine}; }
SPARSEPERM_HOST_DEVICE inline complex_double_double upper_level_of(const split_value<complex_double>& v) {
  return {double_double{v.coarse.re, v.fine.re}, double_double{v.coarse.im, v.fine.im}};
}

template <class V>
inline constexpr bool is_split_value = false;
template <class V>
inline constexpr bool is_split_value<split_value<V>> = true;

// Complex values, split or not.
template <class V>
inline constexpr bool is_complex_value = is_complex_number<V>;
template <class V>
inline constexpr bool is_complex_value<split_value<V>> = is_complex_number<V>;

// A product of products in the generated kernels' code, whatever the arithmetic: double-double
// ones through dd_times (complex_number's own operator* would take four dd_times and two dd_plus).
template <class P>
SPARSEPERM_HOST_DEVICE constexpr P multiply_products(const P& a, const P& b) {
  return a * b;
}
SPARSEPERM_HOST_DEVICE inline double_double multiply_products(const double_double& a, const double_double& b) {
  return dd_times(a, b);
}
SPARSEPERM_HOST_DEVICE inline complex_double_double multiply_products(const complex_double_double& a,
                                                                      const complex_double_double& b) {
  return dd_times(a, b);
}

// A double-double product times a real one (Glynn's binomials): part by part for a complex product,
// so off by at most dd_product_unit of it.
SPARSEPERM_HOST_DEVICE inline double_double multiply_by_part(const double_double& a, const double_double& b) {
  return dd_times(a, b);
}
SPARSEPERM_HOST_DEVICE inline complex_double_double multiply_by_part(const complex_double_double& a,
                                                                     const double_double& b) {
  return {dd_times(a.re, b), dd_times(a.im, b)};
}
SPARSEPERM_HOST_DEVICE inline double_double multiply_by_part(const double_double& a, double b) {
  return dd_times(a, b);
}
SPARSEPERM_HOST_DEVICE inline complex_double_double multiply_by_part(const complex_double_double& a, double b) {
  return {dd_times(a.re, b), dd_times(a.im, b)};
}

// A row sum as a factor of a product of type P: split row sums exactly (double-double) or rounded
// once (double), the others converted.
template <class P, class V>
SPARSEPERM_HOST_DEVICE constexpr P as_factor(const V& x) {
  if constexpr (is_split_value<V>) {
    if constexpr (std::is_same_v<P, double_double> || std::is_same_v<P, complex_double_double>) {
      return dd_factor(x);
    } else {
      return static_cast<P>(x.factor());
    }
  } else {
    return static_cast<P>(x);
  }
}

}  // namespace detail

template <class V>
struct part_of<detail::split_value<V>> {
  using type = part_type<V>;
};

}  // namespace sparseperm
