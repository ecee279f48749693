#pragma once
// A double with an exponent of its own: mantissa · 2^exponent, the mantissa 0 or of magnitude in
// [0.5, 1). Products of many factors (the planner's blocks and degree-1 factors) neither overflow nor
// underflow on the way; a multiplication rounds once, as a double's does, and only the conversion
// back to double may leave double's range.
#include <cmath>
#include <cstdint>
#include <limits>

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

}  // namespace sparseperm::detail
