#pragma once
// The bound under which 128-bit integers are exact for an integer matrix: one rule for the run-time
// engines and the generated kernels, so that they agree on which matrices they compute exactly.
//
// With R_i = Σ_j |a_ij|: every doubled Ryser row sum satisfies |2x_i| ≤ R_i, so a product of them is
// at most Π R_i and a sum of 2^extra such products at most 2^extra · Π R_i (Ryser: extra = n − 1; a
// sum over permutations: 0). Require log2(Π R_i) + extra < 125.5, a bit and a half below int128's
// 127. Empty rows (R_i = 0) keep x_i = 0, so every product they enter is 0: they add nothing.
namespace sparseperm::detail {

constexpr bool int128_bound_holds(const double* row_sums, int rows, int extra_bits) {
  // Π R_i as mantissa · 2^exponent, the mantissa kept in [1, 2) by exact halvings (no overflow).
  double mantissa = 1;
  int exponent = extra_bits;
  for (int i = 0; i < rows; ++i) {
    if (row_sums[i] == 0) continue;
    mantissa *= row_sums[i];
    while (mantissa >= 2) {
      mantissa /= 2;
      ++exponent;
    }
  }
  constexpr double sqrt2 = 1.4142135623730951;  // log2(mantissa) < 0.5
  return exponent < 125 || (exponent == 125 && mantissa < sqrt2);
}

}  // namespace sparseperm::detail
