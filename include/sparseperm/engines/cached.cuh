#pragma once
// The `gpu-cached` engine (DESIGN §3), beyond the paper: static Gray blocks and cached partial
// products, all decided at compile time from the matrix type.
//
//   block of B = 2^b steps [q·B, (q+1)·B):
//     step 0          column b + ctz(q), picked at run time (warp-uniform): flip, rebuild Q_b..Q_0
//     steps s = 1..B−1 column j = ctz(s) < b and its direction are constants, but for s = B/2, whose
//                     direction is the parity of q; fully unrolled: no switch, no ctz, no branch.
//                     Flip column j, then Q_j = Q_{j+1}·Π x[r(j), r(j+1)), .., Q_0: r(j+1) products
//   term of a step  Q_0 = Π x,  sign (−1)^s
//
// Rows are in the permanent ordering (Algorithm 3), so the columns [0, m) touch only the rows
// [0, r(m)) and Q_m = Π_{i ≥ r(m)} x[i] cannot change while only columns below m flip. Rows [0, k)
// live in registers, rows [k, n) (k ≥ r(b): touched on run-time steps only) in global memory like
// CodeGen-Hybrid's. b and k come from plan_cached_layout's cost model (ordering.cuh).
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../config.cuh"
#include "../detail/accumulators.cuh"
#include "../detail/bits.cuh"
#include "../detail/register_steps.cuh"
#include "../detail/ryser_thread.cuh"
#include "../detail/split_rows.cuh"
#include "../detail/unroll.cuh"
#include "../gray_code.cuh"
#include "../launch_parameters.cuh"
#include "../ordering.cuh"
#include "../ryser_plan.cuh"

namespace sparseperm {

// StaticBits / RegisterRows ≥ 0 force b and k (clamped to what is valid); −1: the cost model's.
// OnHost: the plan of cpu-cached (engines/cpu_cached.cuh), every row in one array.
template <CompileTimeMatrix M, class Arith, int StaticBits = -1, int RegisterRows = -1, bool OnHost = false>
struct cached_plan : ryser_plan<M, Arith, permanent_order> {
  // Every cached product is K doubles in residue arithmetic, four in 128 bits: fewer levels fit.
  static constexpr int static_bits_limit() {
    if constexpr (requires { Arith::primes; }) {
      return Arith::primes <= 2 ? 3 : 2;
    } else {
      return Arith::exact ? 3 : 6;
    }
  }
  using base = ryser_plan<M, Arith, permanent_order>;
  // On the GPU 128-bit products take four registers each and many instructions: smaller blocks
  // (measured: n = 24, p = 0.5, exact, b = 6 spilled 5 KB at 255 registers).
  static constexpr cached_options options =
      OnHost ? cached_options_on_host : cached_options{.max_static_bits = static_bits_limit(), .registers_per_value = 2};
  static constexpr cached_layout layout = plan_cached_layout(base::ordered_masks, options, StaticBits, RegisterRows);
  static constexpr int b = layout.static_bits;
  static constexpr int k = layout.register_rows;
  static constexpr int global_rows = base::n - k;
  static constexpr std::uint64_t block = std::uint64_t{1} << b;
  static_assert(b >= 0 && b <= 10, "cached_plan: the static block must fit in Algorithm 2's smallest chunk (1024 steps)");
  static_assert(layout.level_rows[b] <= k, "cached_plan: the static steps must touch register rows only");
};

// cpu-cached's plan (engines/cpu_cached.cuh); its accumulators are generated_arithmetic.cuh's.
template <CompileTimeMatrix M, class Arith, int StaticBits = -1>
using cpu_cached_plan = cached_plan<M, Arith, StaticBits, -1, true>;

template <class Plan, int M>
struct cached_level {
  static constexpr int rows = Plan::layout.level_rows[M];  // r(m)
};

namespace detail {

// Q_b = Π x[r(b), n): the register rows above r(b) times the global rows.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product top_level(const typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                               const typename Plan::value* gx, std::uint64_t stride) {
  using product = typename Plan::product;
  return product_tree<product, cached_level<Plan, Plan::b>::rows, Plan::k>(reg) *
         global_product<Plan, 0, Plan::global_rows>(gx, stride);
}

// Q_J, Q_{J−1}, .., Q_Low from Q_{J+1}: after a flip of column J < b.
template <class Plan, int J, int Low = 0>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void rebuild_levels(const typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                  typename Plan::product (&q)[Plan::b + 1]) {
  using product = typename Plan::product;
  q[J] = q[J + 1] * product_tree<product, cached_level<Plan, J>::rows, cached_level<Plan, J + 1>::rows>(reg);
  if constexpr (J > Low) rebuild_levels<Plan, J - 1, Low>(reg, q);
}

// The product of level 0's rows, the rows column 0 touches.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product level_zero(const typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1]) {
  return product_tree<typename Plan::product, cached_level<Plan, 0>::rows, cached_level<Plan, 1>::rows>(reg);
}

// Every level, from the rows themselves: after a run-time step.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void rebuild_all_levels(const typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                      const typename Plan::value* gx, std::uint64_t stride,
                                                      typename Plan::product (&q)[Plan::b + 1]) {
  q[Plan::b] = top_level<Plan>(reg, gx, stride);
  if constexpr (Plan::b > 0) rebuild_levels<Plan, Plan::b - 1>(reg, q);
}

// Step s (1 ≤ s < B) of a block: everything but the middle step's direction is a constant.
template <class Plan, int S, class Sum>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void static_step(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                               typename Plan::product (&q)[Plan::b + 1], bool odd_block, Sum& sum) {
  using value = typename Plan::value;
  constexpr int j = trailing_zeros(static_cast<std::uint64_t>(S));
  if constexpr (j == Plan::b - 1) {
    flip_registers<Plan, j>(reg, odd_block ? value{-1} : value{1});  // bit b of g: the block's parity
  } else {
    flip_registers<Plan, j>(reg, ((S >> (j + 1)) & 1) == 0 ? value{1} : value{-1});
  }
  rebuild_levels<Plan, j>(reg, q);
  sum.add_signed(q[0], (S & 1) != 0);
}

// Steps S and S + 1 (S even, b ≥ 2) of a block in floating point: both terms are Q_1 times the
// product of level 0 (step S + 1 flips column 0, whose rows are level 0's), so the pair adds
// Q_1·(P_S − P_(S+1)) and, for the error bound, |Q_1|·(|P_S| + |P_(S+1)|): the multiplication saved
// pays for the magnitudes (the bound's γ_n·Σ|t| covers the rounding of the difference).
template <class Plan, int S, class Sum>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void static_pair(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                               typename Plan::product (&q)[Plan::b + 1], bool odd_block, Sum& sum) {
  using value = typename Plan::value;
  constexpr int j = trailing_zeros(static_cast<std::uint64_t>(S));
  static_assert(S % 2 == 0 && j >= 1 && Plan::b >= 2, "static_pair: an even step S of a block of at least 4 steps");
  if constexpr (j == Plan::b - 1) {
    flip_registers<Plan, j>(reg, odd_block ? value{-1} : value{1});
  } else {
    flip_registers<Plan, j>(reg, ((S >> (j + 1)) & 1) == 0 ? value{1} : value{-1});
  }
  rebuild_levels<Plan, j, 1>(reg, q);
  const auto even = level_zero<Plan>(reg);
  flip_registers<Plan, 0>(reg, (((S + 1) >> 1) & 1) == 0 ? value{1} : value{-1});
  const auto odd = level_zero<Plan>(reg);
  sum.add_factored(q[1], even - odd, std::fabs(even) + std::fabs(odd));
}

// Steps 2..B−1 as the pairs (2, 3), (4, 5), .., (B−2, B−1).
template <class Plan, class Sum, int... I>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void static_pairs(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                typename Plan::product (&q)[Plan::b + 1], bool odd_block, Sum& sum,
                                                std::integer_sequence<int, I...>) {
  (static_pair<Plan, 2 * I + 2>(reg, q, odd_block, sum), ...);
}

template <class Plan, class Sum, int... S>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void static_block(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                typename Plan::product (&q)[Plan::b + 1], bool odd_block, Sum& sum,
                                                std::integer_sequence<int, S...>) {
  if constexpr (std::is_floating_point_v<typename Plan::product> && Plan::b >= 2) {
    static_step<Plan, 1>(reg, q, odd_block, sum);
    static_pairs<Plan>(reg, q, odd_block, sum, std::make_integer_sequence<int, (static_cast<int>(sizeof...(S)) - 1) / 2>{});
  } else {
    (static_step<Plan, S + 1>(reg, q, odd_block, sum), ...);
  }
}

}  // namespace detail

// Adds the terms of the steps [first, end) (first ≥ 1) to `sum`; gx points at this thread's first
// global row, the next rows `stride` entries apart. Whole blocks run unrolled; any other step (the
// blocks' first steps, and ranges that do not start on a block) takes the run-time path.
template <class Plan, class Sum>
SPARSEPERM_HOST_DEVICE void cached_steps(std::uint64_t first, std::uint64_t end, typename Plan::value* gx,
                                         std::uint64_t stride, Sum& sum) {
  constexpr int n = Plan::n;
  constexpr int k = Plan::k;
  constexpr int b = Plan::b;
  constexpr std::uint64_t block = Plan::block;
  using value = typename Plan::value;
  using product = typename Plan::product;
  value reg[k > 0 ? k : 1];
  detail::start_split_state<Plan>(reg, gx, stride, first);
  product q[b + 1];
  detail::rebuild_all_levels<Plan>(reg, gx, stride, q);
  std::uint64_t g = first;
  while (g < end) {
    if constexpr (block > 1) {
      if ((g & (block - 1)) == 1 && end - g >= block - 1) {  // steps 1..B−1 of a block
        using partial = detail::block_partial<Sum>;
        if constexpr (partial::separate) {  // compensated sums: plain within the block, TwoSum once
          typename partial::type part;
          detail::static_block<Plan>(reg, q, ((g >> b) & 1u) != 0, part, std::make_integer_sequence<int, static_cast<int>(block) - 1>{});
          partial::absorb(sum, part);
        } else {
          detail::static_block<Plan>(reg, q, ((g >> b) & 1u) != 0, sum, std::make_integer_sequence<int, static_cast<int>(block) - 1>{});
        }
        g += block - 1;
        continue;
      }
    }
    const int j = detail::trailing_zeros(g);
    const value sign = ((g >> (j + 1)) & 1u) == 0 ? value{1} : value{-1};
    detail::static_dispatch<n - 1>(j, [&](auto column) { detail::flip_split<Plan, decltype(column)::value>(reg, gx, stride, sign); });
    detail::rebuild_all_levels<Plan>(reg, gx, detail::unhoisted(stride), q);
    sum.add_signed(q[0], (g & 1u) != 0);
    ++g;
  }
}

}  // namespace sparseperm
