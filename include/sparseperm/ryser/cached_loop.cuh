#pragma once
// The loop of the `gpu-cached` and `cpu-cached` engines, beyond the paper: static Gray blocks and cached partial
// products, all decided at compile time from the matrix type.
//
//   block of B = 2^b steps [q·B, (q+1)·B):
//     step 0          column b + ctz(q), picked at run time (warp-uniform): flip, rebuild Q_b..Q_0
//     steps s = 1..B−1 column j = ctz(s) < b and its direction are constants, but for s = B/2, whose
//                     direction is the parity of q; fully unrolled: no switch, no ctz, no branch.
//                     Flip column j, then Q_j = Q_{j+1}·Π x[r(j), r(j+1)), .., Q_0: r(j+1) products
//   term of a step  Q_0 = Π x,  sign (−1)^s
//
//   exact mode    residues (modular.cuh): the levels below c are exact FP64 integers e_j shared by
//                 the primes, and each sub-block of 2^c steps adds Q_c·(Σ ±e_0 mod p) per prime
//                 (residue_block); the levels from c up are residues, their rows multiplied in exact
//                 runs (residue_products.cuh)
//
// Rows are in the permanent ordering (Algorithm 3), so the columns [0, m) touch only the rows
// [0, r(m)) and Q_m = Π_{i ≥ r(m)} x[i] cannot change while only columns below m flip. Rows [0, k)
// live in registers, rows [k, n) (k ≥ r(b): touched on run-time steps only) in global memory like
// CodeGen-Hybrid's. b and k come from plan_cached_layout's cost model (ordering.cuh).
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../core/config.cuh"
#include "../numeric/accumulators.cuh"
#include "../detail/bits.cuh"
#include "gray_steps.cuh"
#include "register_steps.cuh"
#include "../numeric/residue_products.cuh"
#include "ryser_thread.cuh"
#include "split_rows.cuh"
#include "../detail/unroll.cuh"
#include "gray_code.cuh"
#include "launch_parameters.cuh"
#include "ordering.cuh"
#include "ryser_plan.cuh"

namespace sparseperm {

// StaticBits / RegisterRows ≥ 0 force b and k (clamped to what is valid); −1: the cost model's.
// OnHost: the plan of cpu-cached (engines/cpu_cached.cuh), every row in one array.
template <CompileTimeMatrix M, class Arith, int StaticBits = -1, int RegisterRows = -1, bool OnHost = false>
struct cached_plan : ryser_plan<M, Arith, permanent_order> {
  using base = ryser_plan<M, Arith, permanent_order>;
  // Residue arithmetic: does level 0 (the rows [0, r(1)) column 0 touches) multiply exactly in FP64?
  static constexpr bool level_zero_exact() {
    return detail::rows_bound<base>(0, detail::staircase_of(base::ordered_masks).rows[1]) < detail::modular_exact_limit;
  }
  // The largest static block. Double: 2^6. 128 bits (four registers and many instructions a
  // product): 2^3 (measured: n = 24, p = 0.5, b = 6 spilled 5 KB at 255 registers). Residues: 2^6
  // where level 0 is exact, the block then running in sub-blocks of exact terms (residue_block;
  // measured on the H100 at n = 40, p = 0.1 / 0.3 / 0.5: 0.165 / 1.11 / 2.79 s with 2^6, 0.650 /
  // 1.58 / 3.11 s with 2^3), else 2^3 or 2^2: every step then takes modular products of K doubles
  // per level, and 2^6 such steps left nvcc's inliner behind (an 800-byte stack frame at n = 48, p = 0.5).
  static constexpr int static_bits_limit() {
    if constexpr (detail::is_residue_arithmetic<Arith>) {
      return level_zero_exact() ? 6 : Arith::primes <= 2 ? 3 : 2;
    } else {
      return Arith::exact ? 3 : 6;
    }
  }
  static constexpr cached_options options =
      OnHost ? cached_options_on_host : cached_options{.max_static_bits = static_bits_limit(), .registers_per_value = 2};
  static constexpr cached_layout layout = plan_cached_layout(base::ordered_masks, options, StaticBits, RegisterRows);
  static constexpr int b = layout.static_bits;
  static constexpr int k = layout.register_rows;
  static constexpr int global_rows = base::n - k;
  static_assert(b >= 0 && b <= 10, "cached_plan: the static block must fit in Algorithm 2's smallest chunk (1024 steps)");
  static_assert(layout.level_rows[b] <= k, "cached_plan: the static steps must touch register rows only");
  // Residue arithmetic: the levels below c multiply exactly in plain FP64, c the largest ≤ b with
  // 2^(c−1)·Π_{i<r(c)} R_i < 2^53 − 2^27, so that half of a sub-block's 2^c terms sums exactly too
  // (detail::residue_block); 0 for the other arithmetics, and where no level fits.
  static constexpr int exact_levels = [] {
    if constexpr (!detail::is_residue_arithmetic<Arith>) {
      return 0;
    } else {
      int c = 0;
      while (c < b && static_cast<double>(std::uint64_t{1} << c) * detail::rows_bound<base>(0, layout.level_rows[c + 1]) <
                          detail::modular_exact_limit) {
        ++c;
      }
      return c;
    }
  }();
};

// cpu-cached's plan (engines/cpu_cached.cuh); its accumulators are ryser/arithmetic_types.cuh's.
template <CompileTimeMatrix M, class Arith, int StaticBits = -1>
using cpu_cached_plan = cached_plan<M, Arith, StaticBits, -1, true>;

template <class Plan, int M>
struct cached_level {
  static constexpr int rows = Plan::layout.level_rows[M];  // r(m)
};

namespace detail {

template <class Plan>
using register_x = typename Plan::value[Plan::k > 0 ? Plan::k : 1];

// The exact levels' doubles of residue arithmetic (e[j] = Π x[r(j), r(c)), j < c); unused otherwise.
template <class Plan>
using exact_level_values = double[Plan::exact_levels > 0 ? Plan::exact_levels : 1];

// Q_b = Π x[r(b), n): the register rows above r(b) times the global rows.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product top_level(const register_x<Plan>& reg,
                                                                                      const typename Plan::value* gx, std::uint64_t stride) {
  return register_product<Plan, cached_level<Plan, Plan::b>::rows, Plan::k>(reg) * global_rows_product<Plan, 0, Plan::global_rows>(gx, stride);
}

// Q_J, Q_{J−1}, .., Q_Low from Q_{J+1}: after a flip of column J < b.
template <class Plan, int J, int Low = 0>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void rebuild_levels(const register_x<Plan>& reg, typename Plan::product (&q)[Plan::b + 1]) {
  if constexpr (J >= Low) {
    q[J] = q[J + 1] * register_product<Plan, cached_level<Plan, J>::rows, cached_level<Plan, J + 1>::rows>(reg);
    if constexpr (J > Low) rebuild_levels<Plan, J - 1, Low>(reg, q);
  }
}

// Π x over level J's rows [r(J), r(J + 1)) in plain FP64: exact for the levels below c.
template <class Plan, int J>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE double exact_level(const register_x<Plan>& reg) {
  return exact_rows_product<Plan, cached_level<Plan, J>::rows, cached_level<Plan, J + 1>::rows>([&](auto i) { return reg[decltype(i)::value]; });
}

// Residue arithmetic's exact levels e[J], .., e[Low] (e[j] = Π x[r(j), r(c)), exact in FP64), from
// e[J + 1] (1 for J = c − 1): after a flip of column J < c.
template <class Plan, int J, int Low = 0>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void rebuild_exact_levels(const register_x<Plan>& reg, exact_level_values<Plan>& e) {
  const double level = exact_level<Plan, J>(reg);
  if constexpr (J + 1 < Plan::exact_levels) {
    e[J] = e[J + 1] * level;
  } else {
    e[J] = level;
  }
  if constexpr (J > Low) rebuild_exact_levels<Plan, J - 1, Low>(reg, e);
}

// The product of level 0's rows, the rows column 0 touches.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product level_zero(const register_x<Plan>& reg) {
  return product_tree<typename Plan::product, cached_level<Plan, 0>::rows, cached_level<Plan, 1>::rows>(reg);
}

// Every level, from the rows themselves: after a run-time step.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void rebuild_all_levels(const register_x<Plan>& reg, const typename Plan::value* gx,
                                                                             std::uint64_t stride, typename Plan::product (&q)[Plan::b + 1],
                                                                             exact_level_values<Plan>& e) {
  constexpr int c = Plan::exact_levels;
  q[Plan::b] = top_level<Plan>(reg, gx, stride);
  rebuild_levels<Plan, Plan::b - 1, c>(reg, q);
  if constexpr (c > 0) rebuild_exact_levels<Plan, c - 1>(reg, e);
}

// The term Π x of the current step: Q_0, or Q_c·e[0] with exact levels.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product current_term(const typename Plan::product (&q)[Plan::b + 1],
                                                                                         const exact_level_values<Plan>& e) {
  constexpr int c = Plan::exact_levels;
  if constexpr (c > 0) {
    return q[c] * to_residues<Plan::arithmetic::primes, row_bound<Plan, 0, cached_level<Plan, c>::rows>>(e[0]);
  } else {
    return q[0];
  }
}

// Step s (1 ≤ s < B) of a block: everything but the middle step's direction is a constant.
template <class Plan, int S, class Sum>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void static_step(register_x<Plan>& reg, typename Plan::product (&q)[Plan::b + 1],
                                                                      bool odd_block, Sum& sum) {
  static_flip<Plan, Plan::b, S>(reg, odd_block);
  rebuild_levels<Plan, trailing_zeros(static_cast<std::uint64_t>(S))>(reg, q);
  sum.add_signed(q[0], (S & 1) != 0);
}

// Steps S and S + 1 (S even, b ≥ 2) of a block in floating point: both terms are Q_1 times the
// product of level 0 (step S + 1 flips column 0, whose rows are level 0's), so the pair adds
// Q_1·(P_S − P_(S+1)) and, for the error bound, |Q_1|·(|P_S| + |P_(S+1)|): the multiplication saved
// pays for the magnitudes (the bound's γ_n·Σ|t| covers the rounding of the difference).
template <class Plan, int S, class Sum>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void static_pair(register_x<Plan>& reg, typename Plan::product (&q)[Plan::b + 1],
                                                                      bool odd_block, Sum& sum) {
  static_assert(S % 2 == 0 && S >= 2 && Plan::b >= 2, "static_pair: an even step S of a block of at least 4 steps");
  static_flip<Plan, Plan::b, S>(reg, odd_block);
  rebuild_levels<Plan, trailing_zeros(static_cast<std::uint64_t>(S)), 1>(reg, q);
  const auto even = level_zero<Plan>(reg);
  static_flip<Plan, Plan::b, S + 1>(reg, odd_block);
  const auto odd = level_zero<Plan>(reg);
  sum.add_factored(q[1], even - odd, std::fabs(even) + std::fabs(odd));
}

// Steps 2..B−1 as the pairs (2, 3), (4, 5), .., (B−2, B−1).
template <class Plan, class Sum, int... I>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void static_pairs(register_x<Plan>& reg, typename Plan::product (&q)[Plan::b + 1],
                                                                       bool odd_block, Sum& sum, std::integer_sequence<int, I...>) {
  (static_pair<Plan, 2 * I + 2>(reg, q, odd_block, sum), ...);
}

template <class Plan, class Sum, int... S>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void static_block(register_x<Plan>& reg, typename Plan::product (&q)[Plan::b + 1],
                                                                       bool odd_block, Sum& sum, std::integer_sequence<int, S...>) {
  if constexpr (std::is_floating_point_v<typename Plan::product> && Plan::b >= 2) {
    static_step<Plan, 1>(reg, q, odd_block, sum);
    static_pairs<Plan>(reg, q, odd_block, sum, std::make_integer_sequence<int, (static_cast<int>(sizeof...(S)) - 1) / 2>{});
  } else {
    (static_step<Plan, S + 1>(reg, q, odd_block, sum), ...);
  }
}

// Residue arithmetic with c = exact_levels ≥ 1: the block's steps in sub-blocks of 2^c that share
// Q_c. A sub-block's terms ±e[0] sum exactly in FP64, in two halves (each below 2^53), and the
// sub-block adds Q_c·(its sum mod p) per prime: one reduction and one multiply-add a prime per 2^c
// steps, where each step took a modular product per level and prime.
//
// Steps T, T + 1 (T even ≥ 2) of the sub-block starting at step First: e[1]·(P_T − P_(T+1)), as
// static_pair does in floating point.
template <class Plan, int First, int T>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void exact_pair(register_x<Plan>& reg, exact_level_values<Plan>& e, bool odd_block,
                                                                     double (&half)[2]) {
  static_assert(Plan::exact_levels >= 2 && T % 2 == 0 && T >= 2, "exact_pair: steps T, T + 1 with T even, past the first two");
  static_flip<Plan, Plan::b, First + T>(reg, odd_block);
  rebuild_exact_levels<Plan, trailing_zeros(static_cast<std::uint64_t>(T)), 1>(reg, e);
  const double even = exact_level<Plan, 0>(reg);
  static_flip<Plan, Plan::b, First + T + 1>(reg, odd_block);
  const double odd = exact_level<Plan, 0>(reg);
  half[T < (1 << (Plan::exact_levels - 1)) ? 0 : 1] += e[1] * (even - odd);
}

template <class Plan, int First, int... I>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void exact_pairs(register_x<Plan>& reg, exact_level_values<Plan>& e, bool odd_block,
                                                                      double (&half)[2], std::integer_sequence<int, I...>) {
  (exact_pair<Plan, First, 2 * I + 2>(reg, e, odd_block, half), ...);
}

// Sub-block U of a block: steps [U·2^c, (U + 1)·2^c), without step 0 (the run-time step) for U = 0.
template <class Plan, int U>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void residue_sub_block(register_x<Plan>& reg, typename Plan::product (&q)[Plan::b + 1],
                                                                            exact_level_values<Plan>& e, bool odd_block,
                                                                            residue_dot<Plan::arithmetic::primes>& part) {
  constexpr int c = Plan::exact_levels;
  constexpr int first = U << c;
  double half[2] = {0, 0};  // the terms of steps [first, first + 2^(c−1)) and of the rest
  if constexpr (U > 0) {
    static_flip<Plan, Plan::b, first>(reg, odd_block);
    rebuild_levels<Plan, trailing_zeros(static_cast<std::uint64_t>(first)), c>(reg, q);
    rebuild_exact_levels<Plan, c - 1>(reg, e);
    half[0] = e[0];
  }
  static_flip<Plan, Plan::b, first + 1>(reg, odd_block);
  rebuild_exact_levels<Plan, 0>(reg, e);
  half[c == 1 ? 1 : 0] -= e[0];
  if constexpr (c >= 2) exact_pairs<Plan, first>(reg, e, odd_block, half, std::make_integer_sequence<int, (1 << (c - 1)) - 1>{});
  part.add(q[c], residues_of_pair<Plan::arithmetic::primes>(half[0], half[1]));
}

// Sub-block U, then the products gathered into the sum when `part` is full or the block ends.
template <class Plan, int U, class Sum>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void residue_sub_block_into(register_x<Plan>& reg, typename Plan::product (&q)[Plan::b + 1],
                                                                                 exact_level_values<Plan>& e, bool odd_block,
                                                                                 residue_dot<Plan::arithmetic::primes>& part, Sum& sum) {
  using dot = residue_dot<Plan::arithmetic::primes>;
  residue_sub_block<Plan, U>(reg, q, e, odd_block, part);
  if constexpr ((U + 1) % dot::capacity == 0 || U + 1 == (1 << (Plan::b - Plan::exact_levels))) {
    sum.add(part.value());
    part = dot{};
  }
}

template <class Plan, class Sum, int... U>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void residue_block(register_x<Plan>& reg, typename Plan::product (&q)[Plan::b + 1],
                                                                        exact_level_values<Plan>& e, bool odd_block, Sum& sum,
                                                                        std::integer_sequence<int, U...>) {
  residue_dot<Plan::arithmetic::primes> part;
  (residue_sub_block_into<Plan, U>(reg, q, e, odd_block, part, sum), ...);
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
  using value = typename Plan::value;
  using product = typename Plan::product;
  value reg[k > 0 ? k : 1];
  detail::start_split_state<Plan>(reg, gx, stride, first);
  product q[b + 1];
  detail::exact_level_values<Plan> e;
  detail::rebuild_all_levels<Plan>(reg, gx, stride, q, e);
  detail::for_each_gray_block<b>(
      first, end,
      [&](bool odd_block) {  // steps 1..B−1 of a block
        using partial = detail::block_partial<Sum>;
        if constexpr (Plan::exact_levels > 0) {
          detail::residue_block<Plan>(reg, q, e, odd_block, sum, std::make_integer_sequence<int, (1 << (b - Plan::exact_levels))>{});
        } else if constexpr (partial::separate) {  // compensated sums: plain within the block, TwoSum once
          typename partial::type part;
          detail::static_block<Plan>(reg, q, odd_block, part, std::make_integer_sequence<int, (1 << b) - 1>{});
          partial::absorb(sum, part);
        } else {
          detail::static_block<Plan>(reg, q, odd_block, sum, std::make_integer_sequence<int, (1 << b) - 1>{});
        }
      },
      [&](int j, bool inclusion, bool odd) {
        const value sign = inclusion ? value{1} : value{-1};
        detail::static_dispatch<n - 1>(j, [&](auto column) { detail::flip_split<Plan, decltype(column)::value>(reg, gx, stride, sign); });
        detail::rebuild_all_levels<Plan>(reg, gx, detail::unhoisted(stride), q, e);
        sum.add_signed(detail::current_term<Plan>(q, e), odd);
      });
}

}  // namespace sparseperm
