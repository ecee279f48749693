// Static tests of the Gray-code facts (building this file is passing).
#include <sparseperm/ryser/gray_code.cuh>

#include <cstdint>

namespace sp = sparseperm;

// The paper's Theorem 1: step g flips exactly column ctz(g), and includes it iff bit ctz(g)+1 of g is 0.
constexpr bool theorem_1_holds(std::uint64_t steps) {
  for (std::uint64_t g = 1; g < steps; ++g) {
    const std::uint64_t flipped = sp::gray(g) ^ sp::gray(g - 1);
    if (flipped != (std::uint64_t{1} << sp::changed_column(g))) return false;
    const bool now_included = ((sp::gray(g) >> sp::changed_column(g)) & 1u) != 0;
    if (now_included != sp::is_inclusion(g)) return false;
  }
  return true;
}
static_assert(theorem_1_holds(std::uint64_t{1} << 12));

// Column j flips in 2^(n-2-j) of the 2^(n-1) - 1 steps of an n×n matrix: a 2^-(j+1) share.
constexpr bool flip_counts_hold(int n) {
  std::uint64_t counts[64]{};
  for (std::uint64_t g = 1; g < sp::step_count(n); ++g) ++counts[sp::changed_column(g)];
  for (int j = 0; j + 1 < n; ++j) {
    if (counts[j] != (std::uint64_t{1} << (n - 2 - j))) return false;
  }
  return counts[n - 1] == 0;
}
static_assert(flip_counts_hold(11));

// Aligned chunks: every chunk [t·C, (t+1)·C) flips the same column at the same local step; only the
// middle step's direction differs, by the parity of t.
constexpr bool aligned_chunks_agree(std::uint64_t chunk, std::uint64_t chunks) {
  for (std::uint64_t t = 0; t < chunks; ++t) {
    for (std::uint64_t s = 1; s < chunk; ++s) {
      const std::uint64_t g = t * chunk + s;
      if (sp::changed_column(g) != sp::changed_column(s)) return false;
      const int expected = s == chunk / 2 ? (t % 2 == 0 ? 1 : -1) : sp::direction(s);
      if (sp::direction(g) != expected) return false;
    }
  }
  return true;
}
static_assert(aligned_chunks_agree(2, 64));
static_assert(aligned_chunks_agree(16, 64));
static_assert(aligned_chunks_agree(64, 16));

// A chunk's start state is x_0 plus the columns set in gray(t·C): the bits above log2(C) only.
static_assert(sp::gray(5 * 16) == ((sp::gray(5) << 4) | (5 & 1u) << 3));

// Small cases spelled out: gray(1..7) = 1 3 2 6 7 5 4.
static_assert(sp::gray(1) == 1 && sp::gray(2) == 3 && sp::gray(3) == 2 && sp::gray(4) == 6);
static_assert(sp::gray(5) == 7 && sp::gray(6) == 5 && sp::gray(7) == 4);
static_assert(sp::changed_column(1) == 0 && sp::is_inclusion(1));
static_assert(sp::changed_column(2) == 1 && sp::is_inclusion(2));
static_assert(sp::changed_column(3) == 0 && !sp::is_inclusion(3));
static_assert(sp::changed_column(12) == 2 && !sp::is_inclusion(12));
static_assert(sp::changed_column(std::uint64_t{1} << 62) == 62 && sp::is_inclusion(std::uint64_t{1} << 62));

static_assert(sp::term_sign(0) == 1 && sp::term_sign(7) == -1);
static_assert(sp::step_count(1) == 1 && sp::step_count(64) == std::uint64_t{1} << 63);
static_assert(sp::nw_factor(1) == 2 && sp::nw_factor(2) == -2 && sp::nw_factor(41) == 2);

// The type-level view.
static_assert(sp::step<12>::column == 2 && !sp::step<12>::inclusion && sp::step<12>::sign == 1);
static_assert(sp::step<1>::column == 0 && sp::step<1>::inclusion && sp::step<1>::sign == -1);
