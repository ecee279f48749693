#pragma once
// The error bound of the planner's product (compute.cuh, run_plan): perm = F · Π_k p_k, where F is
// the exact factor of the 1×1 blocks and degree-1 reductions, whose F̂ took at most 2n
// multiplications (relative γ_2n), and each block's p_k lies within β_k of its value v̂_k (β_k = 0
// for exact blocks). The value F̂ · Π v̂_k rounds once a block more. Then
//
//   |perm − F̂Πv̂| ≤ |F̂|·[(1 + γ_2n)·Π(|v̂_k| + β_k) − Π|v̂_k|],
//
// kept in relative form (Π(1 + β_k/|v̂_k|) − 1) while no v̂_k is 0, absolute otherwise. F̂ and the
// product are scaled doubles (scaled_double.cuh): they neither underflow nor overflow, so the bound
// holds for values of any size; converting the product to double adds its own rounding (at most
// 2^−1075 into the subnormals), which run_plan adds (scaled_double::conversion_error_up).
#include <cmath>
#include <limits>

#include "error_bound.cuh"
#include "scaled_double.cuh"

namespace sparseperm::detail {

class product_bound {
 public:
  // roundings: a multiplication's, in units of roundoff (1 real, 4 complex: numeric/complex.cuh);
  // complex values enter as their moduli
  // factor_is_one: F̂ = 1 exactly (no 1×1 block, no reduction): it and F̂·v̂_1 round nothing
  explicit product_bound(int n, int roundings = 1, bool factor_is_one = false)
      : n_(n), roundings_(roundings), factor_is_one_(factor_is_one) {}

  // One block's value and bound.
  void factor(double value, double bound) {
    ++blocks_;
    const double a = std::fabs(value);
    upper_ *= (a + bound) * bound_margin;
    if (a == 0) {
      zero_ = true;
    } else {
      const double r = bound / a * bound_margin;
      relative_ = relative_ + r + relative_ * r;
    }
  }

  // A bound on |perm − value| (rounded up to a double), value = F̂ · Π v̂_k as a scaled double.
  double of(const scaled_double& factor, const scaled_double& value) const {
    const double g_factor = factor_is_one_ ? 0 : gamma_of(roundings_ * (2.0 * n_ + 2), 0x1p-53);
    const double g_blocks = gamma_of(roundings_ * (blocks_ + (factor_is_one_ ? 0.0 : 1.0)), 0x1p-53);
    if (zero_ || !std::isfinite(relative_)) {
      scaled_double b(std::fabs(factor.mantissa()) * (1 + g_factor) * bound_margin);
      b.scale(factor.exponent());
      b *= upper_;
      return b.magnitude_up();
    }
    scaled_double b(std::fabs(value.mantissa()) / (1 - g_blocks) * (relative_ + g_factor * (1 + relative_) + g_blocks) *
                    bound_margin);
    b.scale(value.exponent());
    return b.magnitude_up();
  }

 private:
  int n_;
  int roundings_;
  bool factor_is_one_;
  int blocks_ = 0;
  bool zero_ = false;
  scaled_double upper_;  // Π(|v̂_k| + β_k)
  double relative_ = 0;  // Π(1 + β_k/|v̂_k|) − 1
};

}  // namespace sparseperm::detail
