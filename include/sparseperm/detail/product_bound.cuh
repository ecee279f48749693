#pragma once
// The error bound of the planner's product (compute.cuh, run_plan): perm = F · Π_k p_k, where F is
// the exact factor of the 1×1 blocks and degree-1 reductions, whose double F̂ took at most 2n
// multiplications (relative γ_2n), and each block's p_k lies within β_k of its value v̂_k (β_k = 0
// for exact blocks). The value F̂ · Π v̂_k rounds once a block more. Then
//
//   |perm − F̂Πv̂| ≤ |F̂|·[(1 + γ_2n)·Π(|v̂_k| + β_k) − Π|v̂_k|],
//
// kept in relative form (Π(1 + β_k/|v̂_k|) − 1) while no v̂_k is 0, absolute otherwise. Values so
// small that a product may have underflowed (below 2^−1000) give no bound: run_plan reports that as
// an error instead of a number it cannot vouch for.
#include <cmath>
#include <limits>

#include "error_bound.cuh"

namespace sparseperm::detail {

class product_bound {
 public:
  explicit product_bound(int n) : n_(n) {}

  // One block's value and bound.
  void factor(double value, double bound) {
    ++blocks_;
    const double a = std::fabs(value);
    upper_ *= a + bound;
    if (a == 0) {
      zero_ = true;
    } else {
      const double r = bound / a * bound_margin;
      relative_ = relative_ + r + relative_ * r;
    }
  }

  // The bound on |perm − value|, value = fl(factor_value · Π v̂_k).
  double of(double factor_value, double value) const {
    constexpr double tiny = 0x1p-1000;
    const double f = std::fabs(factor_value);
    const double g_factor = gamma_of(2.0 * n_ + 2, 0x1p-53);
    const double g_blocks = gamma_of(blocks_ + 1.0, 0x1p-53);
    if (f < tiny || (!zero_ && std::fabs(value) < tiny)) return std::numeric_limits<double>::infinity();
    if (zero_) return f * (1 + g_factor) * upper_ * bound_margin;
    const double product = std::fabs(value) / (1 - g_blocks);
    return product * (relative_ + g_factor * (1 + relative_) + g_blocks) * bound_margin;
  }

 private:
  int n_;
  int blocks_ = 0;
  bool zero_ = false;
  double upper_ = 1;     // Π(|v̂_k| + β_k)
  double relative_ = 0;  // Π(1 + β_k/|v̂_k|) − 1
};

}  // namespace sparseperm::detail
