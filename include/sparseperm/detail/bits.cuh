#pragma once
// Bit tricks that work at compile time, on the host and on the device.
#include <cstdint>

#include "../core/config.cuh"
#include "precondition.cuh"

namespace sparseperm::detail {

SPARSEPERM_HOST_DEVICE constexpr int popcount(std::uint64_t v) noexcept {
  if (!__builtin_is_constant_evaluated()) {
#if defined(__CUDA_ARCH__)
    return __popcll(v);
#elif defined(__GNUC__)
    return __builtin_popcountll(v);
#endif
  }
  int count = 0;
  for (; v != 0; v &= v - 1) ++count;
  return count;
}

// Index of the lowest set bit; v must not be 0.
SPARSEPERM_HOST_DEVICE constexpr int trailing_zeros(std::uint64_t v) {
  if (!__builtin_is_constant_evaluated()) {
#if defined(__CUDA_ARCH__)
    return __ffsll(static_cast<long long>(v)) - 1;
#elif defined(__GNUC__)
    return __builtin_ctzll(v);
#endif
  }
  expects(v != 0, "trailing_zeros(0) is undefined");
  int count = 0;
  for (; (v & 1u) == 0; v >>= 1) ++count;
  return count;
}

// Index of the lowest set bit of a 32-bit word; v must not be 0.
SPARSEPERM_HOST_DEVICE constexpr int trailing_zeros32(std::uint32_t v) {
  if (!__builtin_is_constant_evaluated()) {
#if defined(__CUDA_ARCH__)
    return __ffs(static_cast<int>(v)) - 1;
#elif defined(__GNUC__)
    return __builtin_ctz(v);
#endif
  }
  return trailing_zeros(v);
}

// Index of the highest set bit; v must not be 0.
SPARSEPERM_HOST_DEVICE constexpr int highest_bit(std::uint64_t v) {
  expects(v != 0, "highest_bit(0) is undefined");
  int index = 0;
  while (v >>= 1) ++index;
  return index;
}

SPARSEPERM_HOST_DEVICE constexpr bool is_power_of_two(std::uint64_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

// Largest power of two <= v (v >= 1).
SPARSEPERM_HOST_DEVICE constexpr std::uint64_t bit_floor(std::uint64_t v) { return std::uint64_t{1} << highest_bit(v); }

// Mask of the rows [0, count).
SPARSEPERM_HOST_DEVICE constexpr std::uint64_t low_mask(int count) noexcept {
  return count >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << count) - 1;
}

}  // namespace sparseperm::detail
