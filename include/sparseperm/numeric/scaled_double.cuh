#pragma once
// A double with an exponent of its own: mantissa · 2^exponent, the mantissa 0 or of magnitude in
// [0.5, 1). Products of many factors (the planner's blocks and degree-1 factors) neither overflow nor
// underflow on the way; a multiplication rounds once, as a double's does, and only the conversion
// back to double may leave double's range.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "complex.cuh"

namespace sparseperm::detail {

class scaled_double {
 public:
  scaled_double() = default;
  explicit scaled_double(double v) { *this *= v; }

  scaled_double& operator*=(double v) {
    int e = 0;
    const double m = std::frexp(v, &e);
    mantissa_ *= m;
    exponent_ += e;
    normalize();
    return *this;
  }
  scaled_double& operator*=(const scaled_double& other) {
    mantissa_ *= other.mantissa_;
    exponent_ += other.exponent_;
    normalize();
    return *this;
  }

  // Multiplies by 2^k (exact).
  scaled_double& scale(std::int64_t k) {
    if (mantissa_ != 0) exponent_ += k;
    return *this;
  }

  double mantissa() const { return mantissa_; }
  std::int64_t exponent() const { return exponent_; }
  bool is_zero() const { return mantissa_ == 0; }

  // Whether the value is beyond double's range (its double would be infinite).
  bool overflows() const { return mantissa_ != 0 && exponent_ > 1024; }

  // The nearest double (0 or a subnormal for values below double's range; ±Inf above it).
  double to_double() const {
    if (mantissa_ == 0) return mantissa_;
    if (exponent_ > 1024) return std::copysign(std::numeric_limits<double>::infinity(), mantissa_);
    if (exponent_ < -1080) return std::copysign(0.0, mantissa_);
    return std::ldexp(mantissa_, static_cast<int>(exponent_));
  }

  // A double at least |value| (for bounds): rounded away from zero where the conversion rounds.
  double magnitude_up() const {
    const double m = std::fabs(mantissa_);
    if (m == 0) return 0;
    if (exponent_ > 1024) return std::numeric_limits<double>::infinity();
    if (exponent_ < -1073) return std::numeric_limits<double>::denorm_min();
    const double d = std::ldexp(m, static_cast<int>(exponent_));
    if (std::ldexp(d, static_cast<int>(-exponent_)) < m)
      return std::nextafter(d, std::numeric_limits<double>::infinity());
    return d;
  }

  // |to_double() − value|, rounded up: 0 where the conversion is exact, at most 2^−1075 (half the
  // least subnormal) where it rounds into the subnormals or to 0.
  double conversion_error_up() const {
    if (mantissa_ == 0 || exponent_ > 1024) return 0;
    const double d = to_double();
    if (d != 0 && std::ldexp(d, static_cast<int>(-exponent_)) == mantissa_) return 0;
    return std::numeric_limits<double>::denorm_min();
  }

 private:
  void normalize() {
    if (mantissa_ == 0 || !std::isfinite(mantissa_)) return;
    int e = 0;
    mantissa_ = std::frexp(mantissa_, &e);
    exponent_ += e;
  }

  double mantissa_ = 0.5;  // the value 1 = 0.5 · 2^1
  std::int64_t exponent_ = 1;
};

// The complex counterpart: mantissa · 2^exponent with the larger part's magnitude in [0.5, 1) (or
// 0); a multiplication rounds as a complex one does (numeric/complex.cuh).
class scaled_complex {
 public:
  scaled_complex() = default;

  scaled_complex& operator*=(const complex_double& v) {
    scaled_complex factor;
    factor.mantissa_ = v;
    factor.exponent_ = 0;
    factor.normalize();
    mantissa_ = mantissa_ * factor.mantissa_;
    exponent_ += factor.exponent_;
    normalize();
    return *this;
  }

  bool overflows() const { return !(mantissa_ == complex_double{}) && exponent_ > 1024; }
  // The modulus, for bounds (within a few units of roundoff: callers' margins cover them).
  scaled_double modulus() const {
    scaled_double m(std::hypot(mantissa_.re, mantissa_.im));
    m.scale(exponent_);
    return m;
  }
  complex_double to_complex() const { return {part(mantissa_.re), part(mantissa_.im)}; }
  // What converting each part to double rounds, added (0 or at most 2^−1074 each).
  double conversion_error_up() const {
    double e = 0;
    for (double m : {mantissa_.re, mantissa_.im}) {
      if (m == 0 || exponent_ > 1024) continue;
      const double d = part(m);
      if (d == 0 || std::ldexp(d, static_cast<int>(-exponent_)) != m) e += std::numeric_limits<double>::denorm_min();
    }
    return e;
  }

 private:
  double part(double m) const {
    if (m == 0) return m;
    if (exponent_ > 1024) return std::copysign(std::numeric_limits<double>::infinity(), m);
    if (exponent_ < -1080) return std::copysign(0.0, m);
    return std::ldexp(m, static_cast<int>(exponent_));
  }
  void normalize() {
    const double larger = std::max(std::fabs(mantissa_.re), std::fabs(mantissa_.im));
    if (larger == 0 || !std::isfinite(larger)) return;
    int e = 0;
    std::frexp(larger, &e);
    mantissa_ = {std::ldexp(mantissa_.re, -e), std::ldexp(mantissa_.im, -e)};
    exponent_ += e;
  }

  complex_double mantissa_{0.5, 0};  // the value 1
  std::int64_t exponent_ = 1;
};

}  // namespace sparseperm::detail
