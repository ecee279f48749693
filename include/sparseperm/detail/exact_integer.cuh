#pragma once
// Exact integer arithmetic for integer matrices: 128-bit accumulation with a proven bound.
//
// The bound itself is int128_bound.cuh, shared with the generated kernels.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config.cuh"
#include "../runtime/sparse_matrix.cuh"
#include "int128_bound.cuh"

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

// True when 128-bit integers hold every intermediate value of an exact engine whose partial sums are
// bounded by 2^extra_bits · Π R_i (Ryser: extra_bits = n − 1; a sum over permutations: 0).
inline bool fits_int128(const sparse_matrix& matrix, int extra_bits) {
#if SPARSEPERM_HAS_INT128
  if (!matrix.has_integer_values()) return false;
  std::vector<double> row_sums(static_cast<std::size_t>(matrix.n()), 0.0);
  for (int i = 0; i < matrix.n(); ++i) {
    for (double v : matrix.row_values(i)) row_sums[i] += std::fabs(v);  // integers ≤ 64·2^53: exact
  }
  return int128_bound_holds(row_sums.data(), matrix.n(), extra_bits);
#else
  (void)matrix;
  (void)extra_bits;
  return false;
#endif
}

}  // namespace sparseperm::detail
