#pragma once
// Exact integer arithmetic for integer matrices: 128-bit accumulation with a proven bound.
//
// The bound itself is int128_bound.cuh, shared with the generated kernels.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../core/config.cuh"
#include "int128_bound.cuh"

namespace sparseperm::detail {

#if SPARSEPERM_HAS_INT128
using int128 = __int128;

inline std::string to_decimal(int128 value) {
  if (value == 0) return "0";
  const bool negative = value < 0;
  // Work on the magnitude as unsigned so that the most negative value is handled too.
  unsigned __int128 magnitude =
      negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  while (magnitude != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}
#endif

}  // namespace sparseperm::detail
