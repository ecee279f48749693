#pragma once
// Gray-code facts of Ryser's formula in the Nijenhuis–Wilf form.
//
//   perm(A) = (4·(n mod 2) − 2) · Σ_{g=0}^{2^(n−1)−1} (−1)^g · Π_i x_g[i]
//   x_0[i]  = a[i][n−1] − (Σ_j a[i][j]) / 2,   x_g = x_0 + Σ { column j < n−1 : bit j of gray(g) }
//
// Step g ≥ 1 flips exactly one column:  j = ctz(g),  included iff bit j+1 of g is 0
// (the paper's Theorem 1). Column j flips in a 2^−(j+1) share of all steps.
//
// Aligned chunks: the steps s ∈ [1, C) of a chunk [t·C, (t+1)·C) (C a power of two) flip the same
// column for every t, in the same direction except the middle step s = C/2, whose direction is the
// parity of t. Threads that own aligned chunks therefore never diverge (the paper's lemma).
#include <cstdint>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/precondition.cuh"

namespace sparseperm {

// gray(g): the set of columns included in x_g.
SPARSEPERM_HOST_DEVICE constexpr std::uint64_t gray(std::uint64_t g) noexcept { return g ^ (g >> 1); }

// The column flipped by step g (g ≥ 1).
SPARSEPERM_HOST_DEVICE constexpr int changed_column(std::uint64_t g) {
  detail::expects(g != 0, "changed_column(g): step 0 is the start state x_0 and flips no column");
  return detail::trailing_zeros(g);
}

// True when step g adds its column to x (inclusion), false when it subtracts it (exclusion).
SPARSEPERM_HOST_DEVICE constexpr bool is_inclusion(std::uint64_t g) {
  return ((g >> (changed_column(g) + 1)) & 1u) == 0;
}

// +1 or −1: the direction of step g as a factor.
SPARSEPERM_HOST_DEVICE constexpr int direction(std::uint64_t g) { return is_inclusion(g) ? 1 : -1; }

// (−1)^g: the sign of the term of step g.
SPARSEPERM_HOST_DEVICE constexpr int term_sign(std::uint64_t g) noexcept { return (g & 1u) ? -1 : 1; }

// 2^(n−1): the number of terms (steps 0 .. 2^(n−1)−1) for an n×n matrix, n ≥ 1.
SPARSEPERM_HOST_DEVICE constexpr std::uint64_t step_count(int n) {
  detail::expects(n >= 1 && n <= max_ryser_n, "step_count(n): n must be in [1, 64]");
  return std::uint64_t{1} << (n - 1);
}

// 4·(n mod 2) − 2: the factor in front of the Nijenhuis–Wilf sum.
SPARSEPERM_HOST_DEVICE constexpr int nw_factor(int n) noexcept { return 4 * (n % 2) - 2; }

// The type-level view of one step, for compile-time unrolled code.
template <std::uint64_t G>
struct step {
  static_assert(G >= 1, "sparseperm::step<G>: G must be >= 1 (step 0 is the start state x_0 and flips no column)");
  static constexpr int column = changed_column(G);
  static constexpr bool inclusion = is_inclusion(G);
  static constexpr int sign = term_sign(G);
};

}  // namespace sparseperm
