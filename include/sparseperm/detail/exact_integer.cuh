#pragma once
// Exact integer arithmetic for integer matrices: 128-bit accumulation with a proven bound.
//
// For an integer matrix, |perm(A)| ≤ Σ_σ Π_i |a_iσ(i)| ≤ Π_i R_i with R_i = Σ_j |a_ij|, and every
// doubled Ryser row sum 2·x_i is an integer of magnitude ≤ R_i. So an engine that multiplies n such
// numbers and adds 2^(n−1) such products never leaves [−2^(n−1)·Π R_i, 2^(n−1)·Π R_i]: when that
// fits in 127 bits, 128-bit integers are exact.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../config.cuh"
#include "../runtime/sparse_matrix.cuh"

namespace sparseperm::detail {

#if SPARSEPERM_HAS_INT128
using int128 = __int128;

inline std::string to_decimal(int128 value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  // Work on the magnitude as unsigned so that the most negative value is handled too.
  unsigned __int128 magnitude = negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  while (magnitude != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}
#endif

// log2 of Π_i R_i (−∞ when a row is empty: then the permanent is 0).
inline long double log2_row_sum_product(const sparse_matrix& matrix) {
  long double bits = 0;
  for (int i = 0; i < matrix.n(); ++i) {
    long double row_sum = 0;
    for (double v : matrix.row_values(i)) row_sum += std::fabs(static_cast<long double>(v));
    if (row_sum == 0) return -INFINITY;
    bits += std::log2(row_sum);
  }
  return bits;
}

// True when 128-bit integers hold every intermediate value of an exact engine whose partial sums are
// bounded by 2^extra_bits · Π R_i (Ryser: extra_bits = n − 1; a sum over permutations: 0).
inline bool fits_int128(const sparse_matrix& matrix, long double extra_bits) {
#if SPARSEPERM_HAS_INT128
  if (!matrix.has_integer_values()) return false;
  return log2_row_sum_product(matrix) + extra_bits < 125.5L;  // a bit of margin below 127
#else
  (void)matrix;
  (void)extra_bits;
  return false;
#endif
}

}  // namespace sparseperm::detail
