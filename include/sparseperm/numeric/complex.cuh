#pragma once
// Complex numbers for the engines, on the host and the device: plain components, no NaN recovery
// (inputs are finite, and a result that is not is refused where it is set), so a multiplication is
// exactly four multiplications and two additions (std::complex's operator* checks for infinities).
//
//   complex_number<T>        T: double, long double (reference), or an integer (exact Gaussian
//                            integers: int64 row sums, __int128 products)
//   l1_norm(z)               |re| + |im|: bounds |z| and each component, and is what the complex
//                            error bounds sum (error_bound.cuh)
//   Rounding of one product: each component a_r·b_r − a_i·b_i is off by at most 2u(1+u) of
//   |a_r·b_r| + |a_i·b_i| (two roundings, or one product and an FMA where the compiler contracts),
//   so the error's modulus is at most 2u(1+u)·l1(a)·l1(b) ≤ 4u(1+u)·|a||b|: four units of
//   roundoff (Higham's √2·γ_2 assumes no FMA). An n-factor product is off by at most γ_(4(n−1)+1)
//   of Π|x| (complex_product_roundings).
#include <cmath>

#include "../core/config.cuh"

namespace sparseperm {

template <class T>
struct complex_number {
  T re{};
  T im{};

  constexpr complex_number() = default;
  SPARSEPERM_HOST_DEVICE constexpr complex_number(T real) : re(real), im() {}
  SPARSEPERM_HOST_DEVICE constexpr complex_number(T real, T imaginary) : re(real), im(imaginary) {}
  template <class U>
  SPARSEPERM_HOST_DEVICE constexpr explicit complex_number(const complex_number<U>& z)
      : re(static_cast<T>(z.re)), im(static_cast<T>(z.im)) {}

  SPARSEPERM_HOST_DEVICE constexpr complex_number& operator+=(const complex_number& b) {
    re += b.re;
    im += b.im;
    return *this;
  }
  SPARSEPERM_HOST_DEVICE constexpr complex_number& operator-=(const complex_number& b) {
    re -= b.re;
    im -= b.im;
    return *this;
  }
  SPARSEPERM_HOST_DEVICE constexpr complex_number& operator*=(const complex_number& b) { return *this = *this * b; }

  SPARSEPERM_HOST_DEVICE friend constexpr complex_number operator+(complex_number a, const complex_number& b) {
    return a += b;
  }
  SPARSEPERM_HOST_DEVICE friend constexpr complex_number operator-(complex_number a, const complex_number& b) {
    return a -= b;
  }
  SPARSEPERM_HOST_DEVICE friend constexpr complex_number operator-(const complex_number& a) { return {-a.re, -a.im}; }
  SPARSEPERM_HOST_DEVICE friend constexpr complex_number operator*(const complex_number& a, const complex_number& b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  SPARSEPERM_HOST_DEVICE friend constexpr complex_number operator*(const complex_number& a, T s) {
    return {a.re * s, a.im * s};
  }
  SPARSEPERM_HOST_DEVICE friend constexpr complex_number operator*(T s, const complex_number& a) {
    return {s * a.re, s * a.im};
  }
  SPARSEPERM_HOST_DEVICE friend constexpr complex_number operator/(const complex_number& a, T s) {
    return {a.re / s, a.im / s};
  }
  SPARSEPERM_HOST_DEVICE friend constexpr bool operator==(const complex_number& a, const complex_number& b) {
    return a.re == b.re && a.im == b.im;
  }
  SPARSEPERM_HOST_DEVICE friend constexpr bool operator!=(const complex_number& a, const complex_number& b) {
    return !(a == b);
  }
};

using complex_double = complex_number<double>;

template <class T>
SPARSEPERM_HOST_DEVICE constexpr complex_number<T> conjugate(const complex_number<T>& z) {
  return {z.re, -z.im};
}

template <class T>
SPARSEPERM_HOST_DEVICE constexpr T l1_norm(const complex_number<T>& z) {
  return (z.re < 0 ? -z.re : z.re) + (z.im < 0 ? -z.im : z.im);
}

template <class T>
inline T modulus(const complex_number<T>& z) {
  return std::hypot(z.re, z.im);
}

// |re + i·im| ≤ max + k·min of |re| and |im| with k = 0.41421356237309515 (k² + 2k ≥ 1 exactly), at
// most 8.3 % above it: a bound on the modulus without a square root. Rounded (one FMA, or a product
// and a sum), it is at most two ulps below max + k·min.
inline constexpr double modulus_bound_slope = 0x1.a827999fcef34p-2;
SPARSEPERM_HOST_DEVICE inline double modulus_bound(double re, double im) {
  const double a = std::fabs(re), b = std::fabs(im);
  return std::fmax(a, b) + modulus_bound_slope * std::fmin(a, b);
}

// The type of a number's parts: T for complex_number<T>, the type itself for real ones.
template <class T>
struct part_of {
  using type = T;
};
template <class T>
struct part_of<complex_number<T>> {
  using type = T;
};
template <class T>
using part_type = typename part_of<T>::type;

template <class T>
inline constexpr bool is_complex_number = false;
template <class T>
inline constexpr bool is_complex_number<complex_number<T>> = true;

// The roundings a product of `factors` complex numbers counts as (see the head of this file).
constexpr double complex_product_roundings(double factors) { return 4 * (factors > 1 ? factors - 1 : 0) + 1; }

}  // namespace sparseperm
