#pragma once
// The Gray-code step loop of the Ryser engines: for every step g of [first, end) it tells the body
// which column flips (ctz(g)), in which direction (bit ctz(g)+1 of g is 0: inclusion, Theorem 1),
// and the sign of the term ((−1)^g).
//
// Most steps are counted in 32 bits. Write g = base + l with base a multiple of P = 2^p (the lowest
// set bit of base, at most 2^30) and 0 < l < P: then ctz(g) = ctz(l) < p, and bit ctz(g)+1 of g is
// that bit of L = l + (base mod 2P), a 32-bit counter. A thread's chunk of Algorithm 2,
// [a·C + 1, (a + 1)·C] with C ≤ 2^30, is one such run, but for its last step when a is odd (then
// P = C); that step, and any other g no run covers, takes the 64-bit path. The plain 64-bit loop
// spent about 20 instructions a step on ctz, shifts and compares of 64-bit words (H100 SASS, n = 40
// generated kernels): more than the FP64 work of a sparse step.
//
// Static Gray blocks (for_each_gray_block): Algorithm 2's chunks are aligned, so a block of B = 2^Bits
// steps [q·B, (q + 1)·B) flips column Bits + ctz(q) at its step 0 and column ctz(s) < Bits at its step
// s = 1..B − 1, in a direction known at compile time but for s = B/2 (bit Bits of g, the block's
// parity). The generated engines unroll steps 1..B − 1, with no ctz, no switch and no branch; only
// step 0 is picked at run time.
#include <cstdint>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "gray_code.cuh"

namespace sparseperm::detail {

// body(column, inclusion, odd) for g = first .. end − 1 (first ≥ 1).
template <class Body>
SPARSEPERM_HOST_DEVICE inline void for_each_gray_step(std::uint64_t first, std::uint64_t end, Body&& body) {
  constexpr std::uint64_t max_run = std::uint64_t{1} << 30;  // so that L < 2^31 never wraps
  std::uint64_t g = first;
  while (g < end) {
    const std::uint64_t base = g - 1;
    const std::uint64_t lowest = base & (~base + 1);
    const std::uint64_t run = lowest == 0 || lowest > max_run ? max_run : lowest;   // P
    const std::uint64_t run_end = end - base < run ? end : base + run;              // steps l < P
    const std::uint32_t offset = static_cast<std::uint32_t>(base & (2 * run - 1));  // base mod 2P
    const std::uint32_t stop = offset + static_cast<std::uint32_t>(run_end - base);
    for (std::uint32_t l = offset + 1; l != stop; ++l) {
      const int column = trailing_zeros32(l);
      body(column, ((l >> column) & 2u) == 0, (l & 1u) != 0);
    }
    g = run_end;
    if (g < end) {  // the step at l = P: its column may lie above the run's bits
      const int column = trailing_zeros(g);
      body(column, ((g >> (column + 1)) & 1u) == 0, (g & 1u) != 0);
      ++g;
    }
  }
}

// The sign of the update at step S (1 ≤ S < 2^Bits) of a static block: +1 for an inclusion.
template <int Bits, int S, class Value>
SPARSEPERM_HOST_DEVICE inline constexpr Value static_step_sign([[maybe_unused]] bool odd_block) {
  static_assert(S >= 1 && S < (1 << Bits), "static_step_sign: a step 1..2^Bits − 1 of a block");
  if constexpr (changed_column(S) == Bits - 1) {
    return odd_block ? Value{-1} : Value{1};
  } else {
    return is_inclusion(S) ? Value{1} : Value{-1};  // bit ctz(S) + 1 < Bits: S's own bit, as g's
  }
}

// Every step of [first, end) (first ≥ 1): block(odd_block) for steps 1..2^Bits − 1 of each whole
// block, step(column, inclusion, odd) for the others (the blocks' steps 0, and ranges that do not
// start on a block). Bits = 0: for_each_gray_step. Always inlined: its callers' state (x) lives in
// registers only if it is (gpu-cached in double-double went to a 664-byte stack frame without).
template <int Bits, class Block, class Step>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void for_each_gray_block(std::uint64_t first, std::uint64_t end,
                                                                         Block&& block, Step&& step) {
  if constexpr (Bits == 0) {
    for_each_gray_step(first, end, step);
  } else {
    constexpr std::uint64_t size = std::uint64_t{1} << Bits;
    std::uint64_t g = first;
    while (g < end) {
      if ((g & (size - 1)) == 1 && end - g >= size - 1) {
        block(((g >> Bits) & 1u) != 0);
        g += size - 1;
        continue;
      }
      const int column = trailing_zeros(g);
      step(column, ((g >> (column + 1)) & 1u) == 0, (g & 1u) != 0);
      ++g;
    }
  }
}

}  // namespace sparseperm::detail
