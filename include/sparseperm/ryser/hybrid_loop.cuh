#pragma once
// The `gpu-hybrid` engine: the paper's CodeGen-Hybrid.
//
// The permanent ordering (Algorithm 3) makes the first columns, which flip most often, touch a
// prefix of the rows; the partitioning (Algorithm 4) keeps the first k rows of x in registers and
// the rest in global memory, laid out [(row − k)·stride + thread] so that a warp's accesses coalesce.
// Columns 0..c touch register rows only; the product of the global rows is cached and recomputed
// (n − k loads) only after a column above c flips, a 2^−(c+1) share of the steps. All of it is
// decided at compile time from the matrix type.
//
// Beyond the paper: the Gray code runs in static blocks of 2^u steps, u ≤ c + 1 (gray_steps.cuh):
// steps 1..2^u − 1 of a block flip register-only columns known at compile time, unrolled with no
// ctz, switch or branch; only each block's first step goes through the switch. The paper's loop,
// one switch a step, spent about 26 of a step's 38 instructions on the Gray code and the dispatch at
// n = 40, p = 0.1 (H100 SASS), where an SM issues FP64 at half its instruction rate. The register
// rows' product is nested along the ordering's staircase (hybrid_term), so that a static step
// re-multiplies only the rows its column touches. On the H100, 1.9–4.8× faster than the paper's loop
// at n = 36 and 40 (tools/benchmarks.md).
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/unroll.cuh"
#include "../numeric/accumulators.cuh"
#include "gray_code.cuh"
#include "gray_steps.cuh"
#include "launch_parameters.cuh"
#include "ordering.cuh"
#include "register_steps.cuh"
#include "ryser_plan.cuh"
#include "ryser_thread.cuh"
#include "split_rows.cuh"

namespace sparseperm {

// StaticBits ≥ 0 forces u (clamped to what is valid); −1: the largest (unrolled_gray_bits).
template <CompileTimeMatrix M, class Arith, int StaticBits = -1>
struct hybrid_plan : ryser_plan<M, Arith, permanent_order> {
  using base = ryser_plan<M, Arith, permanent_order>;
  static constexpr register_partition partition =
      partition_rows(base::ordered_masks, detail::partition_options_for<typename base::value>());
  static constexpr int k = partition.register_rows;         // rows [0, k) in registers
  static constexpr int c = partition.last_register_column;  // columns [0, c] touch register rows only
  static constexpr int global_rows = base::n - k;
  static constexpr int u = detail::unrolled_gray_bits<Arith>(base::n, c + 1, StaticBits,
                                                             detail::hybrid_complex_bits(partition));  // blocks of 2^u
  // r(m), m = 0..u: one past the highest row the columns [0, m) touch (a row prefix, Algorithm 3)
  static constexpr detail::staircase staircase = detail::staircase_of(base::ordered_masks);
  static_assert(staircase.rows[u] <= k, "hybrid_plan: the static blocks' columns must touch register rows only");
};

namespace detail {

// The term Π x[0, k) · cached in floating point, nested along the staircase: L_0·(L_1·(…·(L_(u−1)·
// (Π x[r(u), k)·cached)))), L_m = Π x[r(m), r(m + 1)). In a static block a flip of column j changes
// L_0..L_j only, so every factor above them is the expression the step before computed, and the
// compiler reuses it: the step multiplies about r(j + 1) rows where a balanced tree over the k
// register rows took k − 1 multiplications (the permanent ordering at work). Exact arithmetic keeps
// one product (residues multiply in exact runs across the levels, residue_products.cuh); complex
// doubles nest as doubles do.
template <class Plan, int M = 0>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product hybrid_term(
    const typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1], typename Plan::product cached) {
  constexpr int k = Plan::k;
  if constexpr (Plan::arithmetic::exact) {
    return register_product<Plan, 0, k>(reg) * cached;
  } else if constexpr (M == Plan::u) {
    return register_product<Plan, Plan::staircase.rows[M], k>(reg) * cached;
  } else if constexpr (Plan::staircase.rows[M] == Plan::staircase.rows[M + 1]) {
    return hybrid_term<Plan, M + 1>(reg, cached);
  } else {
    return register_product<Plan, Plan::staircase.rows[M], Plan::staircase.rows[M + 1]>(reg) *
           hybrid_term<Plan, M + 1>(reg, cached);
  }
}

// Π x[0, r(1)): the rows column 0 touches.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product hybrid_level_zero(
    const typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1]) {
  return register_product<Plan, 0, Plan::staircase.rows[1]>(reg);
}

// Steps 1..2^u − 1 of a static block. Floating point with u ≥ 2: step 1, then the pairs (S, S + 1),
// S even, as gpu-cached's static_pair: step S + 1 flips column 0, whose rows are L_0's, so the pair
// adds (L_1·…·cached)·(L_0(S) − L_0(S + 1)) with magnitude |L_1·…|·(|L_0(S)| + |L_0(S + 1)|): a
// multiplication and an addition saved a pair (the error bound's γ_n·Σ|t| covers the difference).
template <class Plan, class Acc>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void hybrid_static_block(
    typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1], typename Plan::product cached, bool odd_block, Acc& acc) {
  constexpr int u = Plan::u;
  if constexpr (std::is_floating_point_v<typename Plan::product> && u >= 2) {
    static_flip<Plan, u, 1>(reg, odd_block);
    acc.add_signed(hybrid_term<Plan>(reg, cached), true);
    static_for<1, (1 << (u - 1))>([&](auto i) {
      constexpr int S = 2 * decltype(i)::value;
      static_flip<Plan, u, S>(reg, odd_block);
      const auto even = hybrid_level_zero<Plan>(reg);
      const auto rest = hybrid_term<Plan, 1>(reg, cached);
      static_flip<Plan, u, S + 1>(reg, odd_block);
      const auto odd = hybrid_level_zero<Plan>(reg);
      acc.add_factored(rest, even - odd, std::fabs(even) + std::fabs(odd));
    });
  } else {
    static_register_block<Plan, u>(
        reg, odd_block, [&](auto s) { acc.add_signed(hybrid_term<Plan>(reg, cached), (decltype(s)::value & 1) != 0); });
  }
}

}  // namespace detail

// Adds the terms of the steps [first, end) (first ≥ 1) to `sum`; gx points at this thread's first
// global row, the next rows `stride` entries apart.
template <class Plan, class Sum>
SPARSEPERM_HOST_DEVICE void hybrid_steps(std::uint64_t first, std::uint64_t end, typename Plan::value* gx,
                                         std::uint64_t stride, Sum& sum) {
  constexpr int n = Plan::n;
  constexpr int k = Plan::k;
  constexpr int c = Plan::c;
  using value = typename Plan::value;
  using product = typename Plan::product;
  value reg[k > 0 ? k : 1];
  detail::start_split_state<Plan>(reg, gx, stride, first);
  constexpr int g = Plan::global_rows;
  product cached = detail::global_rows_product<Plan, 0, g>(gx, stride);
  detail::with_run_sums(sum, [&](auto& acc, auto flush) {
    detail::for_each_gray_block<Plan::u>(
        first, end, [&](bool odd_block) { detail::hybrid_static_block<Plan>(reg, cached, odd_block, acc); },
        [&](int j, bool inclusion, bool odd) {
          const detail::plan_sign<Plan> sign = inclusion ? 1 : -1;
          detail::static_dispatch<n - 1>(
              j, [&](auto column) { detail::flip_split<Plan, decltype(column)::value>(reg, gx, stride, sign); });
          // One copy of the reload, after the dispatch, rather than one in every branch above c.
          if (j > c) {
            cached = detail::global_rows_product<Plan, 0, g>(gx, detail::unhoisted(stride));
            flush();
          }
          acc.add_signed(detail::hybrid_term<Plan>(reg, cached), odd);
        });
  });
}

}  // namespace sparseperm
