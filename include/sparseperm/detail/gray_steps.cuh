#pragma once
// The Gray-code step loop of the Ryser engines: for every step g of [first, end) it tells the body
// which column flips (ctz(g)), in which direction (bit ctz(g)+1 of g is 0: inclusion, Theorem 1),
// and the sign of the term ((−1)^g).
//
// On the device the loop counts in 32 bits (a range longer than 2^31 steps is walked in pieces of
// 2^31) and reads the column and direction off the low 32 bits of g, which hold them for every g whose low 31 bits
// are not all zero; the others (one step in 2^31) take the 64-bit path. On a GPU this trims the
// integer work of a step (64-bit shifts and find-first-set are several instructions each), a large
// share of a step for the sparser matrices. A 64-bit CPU has all of it natively: the host loop is plain.
#include <cstdint>

#include "../config.cuh"
#include "bits.cuh"

namespace sparseperm::detail {

// body(column, inclusion, odd) for g = first .. end − 1 (first ≥ 1).
template <class Body>
SPARSEPERM_HOST_DEVICE inline void for_each_gray_step(std::uint64_t first, std::uint64_t end, Body&& body) {
#if !defined(__CUDA_ARCH__)
  for (std::uint64_t g = first; g < end; ++g) {
    const int column = trailing_zeros(g);
    body(column, ((g >> (column + 1)) & 1u) == 0, (g & 1u) != 0);
  }
#else
  constexpr std::uint64_t piece = std::uint64_t{1} << 31;
  for (std::uint64_t start = first; start < end; start += piece) {
    const std::uint32_t count = static_cast<std::uint32_t>(end - start < piece ? end - start : piece);
    std::uint32_t low = static_cast<std::uint32_t>(start);
    for (std::uint32_t i = 0; i < count; ++i, ++low) {
      int column;
      bool inclusion;
      if ((low & 0x7fffffffu) != 0) {
        column = trailing_zeros32(low);
        inclusion = ((low >> (column + 1)) & 1u) == 0;
      } else {
        const std::uint64_t g = start + i;
        column = trailing_zeros(g);
        inclusion = ((g >> (column + 1)) & 1u) == 0;
      }
      body(column, inclusion, (low & 1u) != 0);
    }
  }
#endif
}

}  // namespace sparseperm::detail
