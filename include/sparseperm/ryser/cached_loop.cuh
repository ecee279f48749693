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
//   zero blocks     Q_b exactly 0 (0/1 matrices: some row of x at or above r(b) is 0): every term of
//                   the block is 0; only column b − 1's net flip is applied (skip_block). On the GPU
//                   where the whole warp agrees (all_in_warp)
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
//
//   upper levels  double-double (blocks of 2^2 steps: a run-time step every fourth) also keeps
//                 Q_(b+1), .., Q_(b+U) in global memory after the rows, so that a run-time flip of
//                 column j rebuilds Q_min(j, b+U), .., Q_b from the level above: rows [r(b), r(j+1))
//                 instead of all n
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/unroll.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/residue_products.cuh"
#include "gray_code.cuh"
#include "gray_steps.cuh"
#include "launch_parameters.cuh"
#include "ordering.cuh"
#include "register_steps.cuh"
#include "ryser_plan.cuh"
#include "ryser_thread.cuh"
#include "split_rows.cuh"

namespace sparseperm {

namespace detail {

// The options gpu-cached (OnHost false) or cpu-cached plans M's layout with.
template <CompileTimeMatrix M, class Arith, bool OnHost>
struct cached_planning {
  using base = ryser_plan<M, Arith, permanent_order>;
  // Residue arithmetic: does level 0 (the rows [0, r(1)) column 0 touches) multiply exactly in FP64?
  static constexpr bool level_zero_exact() {
    return rows_bound<base>(0, staircase_of(base::ordered_masks).rows[1]) < modular_exact_limit;
  }
  // The largest static block. Double: 2^6. 128 bits (four registers and many instructions a
  // product): 2^3 (2^6 spilled at n = 24, p = 0.5). Residues: 2^6 where level 0 is exact, the block
  // then running in sub-blocks of exact terms (residue_block; faster than 2^3 at every density
  // measured), else 2^3 or 2^2: every step then takes modular products of K doubles per level, and
  // 2^6 such steps left nvcc's inliner behind (a stack frame at n = 48, p = 0.5). Double-double:
  // cached_options_for's (split values), with its levels above the blocks.
  static constexpr int static_bits_limit() {
    if constexpr (is_residue_arithmetic<Arith>) {
      return level_zero_exact() ? 6 : Arith::primes <= 2 ? 3 : 2;
    } else {
      return Arith::exact ? 3 : 6;
    }
  }
  static constexpr cached_options options = OnHost ? cached_options_on_host : [] {
    cached_options o = cached_options_for<typename base::value>(base::ordered_masks);
    if (static_bits_limit() < o.max_static_bits) o.max_static_bits = static_bits_limit();
    return o;
  }();
  template <int StaticBits, int RegisterRows>
  static constexpr cached_layout layout = plan_cached_layout(base::ordered_masks, options, StaticBits, RegisterRows);
};

}  // namespace detail

// The plan with b = StaticBits and k = RegisterRows as planned (cached_plan resolves them, so that a
// forced shape equal to the cost model's is one type, compiled once).
template <CompileTimeMatrix M, class Arith, int StaticBits, int RegisterRows, bool OnHost>
struct cached_plan_of : ryser_plan<M, Arith, permanent_order> {
  using base = ryser_plan<M, Arith, permanent_order>;
  using planning = detail::cached_planning<M, Arith, OnHost>;
  static constexpr cached_options options = planning::options;
  static constexpr cached_layout layout = planning::template layout<StaticBits, RegisterRows>;
  static constexpr int b = layout.static_bits;
  static constexpr int k = layout.register_rows;
  static constexpr int global_rows = base::n - k;
  static constexpr int upper = layout.upper_levels;         // Q_(b+1), .., Q_(b+upper) in global memory
  static constexpr int global_slots = global_rows + upper;  // values a thread keeps in global memory
  static_assert(upper == 0 || sizeof(typename base::product) == sizeof(typename base::value),
                "cached_plan: an upper level is kept in one value's slot (upper_level_slot)");
  static_assert(b == StaticBits && k == RegisterRows, "cached_plan_of: b and k must be a planned layout's");
  static_assert(b >= 0 && b <= 10,
                "cached_plan: the static block must fit in Algorithm 2's smallest chunk (1024 steps)");
  static_assert(layout.level_rows[b] <= k, "cached_plan: the static steps must touch register rows only");
  // Residue arithmetic: the levels below c multiply exactly in plain FP64, c the largest ≤ b with
  // 2^(c−1)·Π_{i<r(c)} R_i < 2^53 − 2^27, so that half of a sub-block's 2^c terms sums exactly too
  // (detail::residue_block); 0 for the other arithmetics, and where no level fits.
  static constexpr int exact_levels = [] {
    if constexpr (!detail::is_residue_arithmetic<Arith>) {
      return 0;
    } else {
      int c = 0;
      while (c < b &&
             static_cast<double>(std::uint64_t{1} << c) * detail::rows_bound<base>(0, layout.level_rows[c + 1]) <
                 detail::modular_exact_limit) {
        ++c;
      }
      return c;
    }
  }();
};

// StaticBits / RegisterRows ≥ 0 force b and k (clamped to what is valid); −1: the cost model's.
// OnHost: the plan of cpu-cached (engines/cpu_cached.cuh), every row in one array.
template <CompileTimeMatrix M, class Arith, int StaticBits = -1, int RegisterRows = -1, bool OnHost = false>
using cached_plan = cached_plan_of<
    M, Arith, detail::cached_planning<M, Arith, OnHost>::template layout<StaticBits, RegisterRows>.static_bits,
    detail::cached_planning<M, Arith, OnHost>::template layout<StaticBits, RegisterRows>.register_rows, OnHost>;

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

// Whether `p` holds for every thread of the warp (on the host: p): a branch the warp takes together.
// The cached loops' warps run their blocks in lock-step (aligned chunks of equal size).
SPARSEPERM_HOST_DEVICE inline bool all_in_warp(bool p) {
#if defined(__CUDA_ARCH__)
  return __all_sync(__activemask(), p);
#else
  return p;
#endif
}

// Whether a product is exactly zero (residues: zero mod every prime).
SPARSEPERM_HOST_DEVICE inline bool is_zero_product(double p) { return p == 0; }
#if SPARSEPERM_HAS_INT128
SPARSEPERM_HOST_DEVICE inline bool is_zero_product(__int128 p) { return p == 0; }
#endif
template <class T>
SPARSEPERM_HOST_DEVICE bool is_zero_product(const complex_number<T>& p) {
  return p.re == 0 && p.im == 0;
}
SPARSEPERM_HOST_DEVICE inline bool is_zero_product(const double_double& p) { return p.hi == 0; }
SPARSEPERM_HOST_DEVICE inline bool is_zero_product(const complex_double_double& p) {
  return p.re.hi == 0 && p.im.hi == 0;
}
template <int K>
SPARSEPERM_HOST_DEVICE bool is_zero_product(const residues<K>& p) {
  bool zero = true;
  SPARSEPERM_UNROLL
  for (int k = 0; k < K; ++k) zero = zero && p.r[k] == 0;
  return zero;
}

// The exact levels' doubles of residue arithmetic (e[j] = Π x[r(j), r(c)), j < c); unused otherwise.
template <class Plan>
using exact_level_values = double[Plan::exact_levels > 0 ? Plan::exact_levels : 1];

// One thread's walk through its Gray steps (CUB's agent): the state is x's register rows, the cached
// levels Q_b..Q_0, residue arithmetic's exact levels e, and where the thread's global rows are; the
// steps are members. Everything is inlined into the caller, so the state lives in registers.
template <class Plan, class Sum>
struct cached_agent {
  using value = typename Plan::value;
  using product = typename Plan::product;
  static constexpr int b = Plan::b;
  static constexpr int c = Plan::exact_levels;

  register_x<Plan> reg;
  product q[b + 1];
  exact_level_values<Plan> e;
  value* gx;
  std::uint64_t stride;
  Sum& sum;

  // The state is set by run(): nothing is initialised twice.
  SPARSEPERM_HOST_DEVICE cached_agent(value* global_x, std::uint64_t rows_stride, Sum& s)
      : gx(global_x), stride(rows_stride), sum(s) {}

  // Π x[Lo, Hi): the register rows among them times the global ones (1 where Lo = Hi).
  template <int Lo, int Hi>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE product rows_product(std::uint64_t rows_stride) const {
    constexpr int k = Plan::k;
    constexpr int registers_end = Hi < k ? Hi : k, globals_begin = Lo > k ? Lo : k;
    if constexpr (Lo < registers_end && globals_begin < Hi) {
      return multiply_products(register_product<Plan, Lo, registers_end>(reg),
                               global_rows_product<Plan, globals_begin - k, Hi - k>(gx, rows_stride));
    } else if constexpr (Lo < registers_end) {
      return register_product<Plan, Lo, registers_end>(reg);
    } else {
      return global_rows_product<Plan, globals_begin - k, Hi - k>(gx, rows_stride);
    }
  }

  // Upper level m (b < m ≤ b + upper) in its global slot, after the global rows.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE value& upper_slot(int m, std::uint64_t rows_stride) const {
    return gx[static_cast<std::uint64_t>(Plan::global_rows + m - b - 1) * rows_stride];
  }

  // level · Π x[r(m), r(m + 1)) for level m (b ≤ m < b + upper) picked at run time: a chain of tests,
  // one copy of each level's code (a rebuild unrolled for each top level was 4× the code, and nvcc
  // then kept the agent in a stack frame).
  template <int M>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void multiply_level(int m, product& level,
                                                                      std::uint64_t rows_stride) const {
    if constexpr (M < b + Plan::upper) {
      if (m == M) {
        constexpr int lo = cached_level<Plan, M>::rows, hi = cached_level<Plan, M + 1>::rows;
        if constexpr (lo < hi) level = multiply_products(level, rows_product<lo, hi>(rows_stride));
        return;
      }
      multiply_level<M + 1>(m, level, rows_stride);
    }
  }

  // Q_b after a flip of column j: Q_top, .., Q_b rebuilt for top = min(max(j, b), b + upper), each
  // from the level above (stored), Q_(b+upper) from the rows [r(b + upper), n); the upper ones stored.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE product rebuild_upper(int j, std::uint64_t rows_stride) const {
    constexpr int highest = b + Plan::upper;
    if constexpr (Plan::upper == 0) {
      return rows_product<cached_level<Plan, b>::rows, Plan::n>(rows_stride);
    } else {
      int m = j < b ? b : j < highest ? j : highest;
      product level;
      if (m == highest) {
        level = rows_product<cached_level<Plan, highest>::rows, Plan::n>(rows_stride);
      } else {
        level = upper_level_of(upper_slot(m + 1, rows_stride));
        multiply_level<b>(m, level, rows_stride);
      }
      while (m > b) {
        upper_slot(m, rows_stride) = upper_level_slot(level);
        --m;
        multiply_level<b>(m, level, rows_stride);
      }
      return level;
    }
  }

  // Q_J, Q_{J−1}, .., Q_Low from Q_{J+1}: after a flip of column J < b.
  template <int J, int Low = 0>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void rebuild_levels() {
    if constexpr (J >= Low) {
      q[J] = multiply_products(
          q[J + 1], register_product<Plan, cached_level<Plan, J>::rows, cached_level<Plan, J + 1>::rows>(reg));
      if constexpr (J > Low) rebuild_levels<J - 1, Low>();
    }
  }

  // Π x over level J's rows [r(J), r(J + 1)) in plain FP64: exact for the levels below c.
  template <int J>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE double exact_level() const {
    return exact_rows_product<Plan, cached_level<Plan, J>::rows, cached_level<Plan, J + 1>::rows>(
        [&](auto i) { return reg[decltype(i)::value]; });
  }

  // Residue arithmetic's exact levels e[J], .., e[Low] (e[j] = Π x[r(j), r(c)), exact in FP64), from
  // e[J + 1] (1 for J = c − 1): after a flip of column J < c.
  template <int J, int Low = 0>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void rebuild_exact_levels() {
    const double level = exact_level<J>();
    if constexpr (J + 1 < c) {
      e[J] = e[J + 1] * level;
    } else {
      e[J] = level;
    }
    if constexpr (J > Low) rebuild_exact_levels<J - 1, Low>();
  }

  // The product of level 0's rows, the rows column 0 touches.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE product level_zero() const {
    return product_tree<product, cached_level<Plan, 0>::rows, cached_level<Plan, 1>::rows>(reg);
  }

  // The levels below b from Q_b.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void rebuild_lower_levels() {
    rebuild_levels<b - 1, c>();
    if constexpr (c > 0) rebuild_exact_levels<c - 1>();
  }

  // Every level, from the rows themselves: at the start.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void rebuild_all_levels(std::uint64_t rows_stride) {
    q[b] = rebuild_upper(b + Plan::upper, rows_stride);
    rebuild_lower_levels();
  }

  // The term Π x of the current step: Q_0, or Q_c·e[0] with exact levels.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE product current_term() const {
    if constexpr (c > 0) {
      return q[c] * to_residues<Plan::arithmetic::primes, row_bound<Plan, 0, cached_level<Plan, c>::rows>>(e[0]);
    } else {
      return q[0];
    }
  }

  // Step s (1 ≤ s < B) of a block: everything but the middle step's direction is a constant.
  template <int S, class Acc>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void static_step(bool odd_block, Acc& acc) {
    static_flip<Plan, b, S>(reg, odd_block);
    rebuild_levels<trailing_zeros(static_cast<std::uint64_t>(S))>();
    acc.add_signed(q[0], (S & 1) != 0);
  }

  // Steps S and S + 1 (S even, b ≥ 2) of a block in floating point: both terms are Q_1 times the
  // product of level 0 (step S + 1 flips column 0, whose rows are level 0's), so the pair adds
  // Q_1·(P_S − P_(S+1)) and, for the error bound, |Q_1|·(|P_S| + |P_(S+1)|): the multiplication saved
  // pays for the magnitudes (the bound's γ_n·Σ|t| covers the rounding of the difference).
  template <int S, class Acc>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void static_pair(bool odd_block, Acc& acc) {
    static_assert(S % 2 == 0 && S >= 2 && b >= 2, "static_pair: an even step S of a block of at least 4 steps");
    static_flip<Plan, b, S>(reg, odd_block);
    rebuild_levels<trailing_zeros(static_cast<std::uint64_t>(S)), 1>();
    const auto even = level_zero();
    static_flip<Plan, b, S + 1>(reg, odd_block);
    const auto odd = level_zero();
    acc.add_factored(q[1], even - odd, std::fabs(even) + std::fabs(odd));
  }

  // Steps 1..B−1 of a block; in floating point step 1, then the pairs (2, 3), (4, 5), .., (B−2, B−1).
  template <class Acc, int... S>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void static_block(bool odd_block, Acc& acc,
                                                                    std::integer_sequence<int, S...>) {
    if constexpr (std::is_floating_point_v<product> && b >= 2) {
      static_step<1>(odd_block, acc);
      static_pairs(odd_block, acc, std::make_integer_sequence<int, (static_cast<int>(sizeof...(S)) - 1) / 2>{});
    } else {
      (static_step<S + 1>(odd_block, acc), ...);
    }
  }

  template <class Acc, int... I>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void static_pairs(bool odd_block, Acc& acc,
                                                                    std::integer_sequence<int, I...>) {
    (static_pair<2 * I + 2>(odd_block, acc), ...);
  }

  // Residue arithmetic with c ≥ 1: the block's steps in sub-blocks of 2^c that share Q_c. A
  // sub-block's terms ±e[0] sum exactly in FP64, in two halves (each below 2^53), and the sub-block
  // adds Q_c·(its sum mod p) per prime: one reduction and one multiply-add a prime per 2^c steps,
  // where each step took a modular product per level and prime.
  //
  // Steps T, T + 1 (T even ≥ 2) of the sub-block starting at step First: e[1]·(P_T − P_(T+1)), as
  // static_pair does in floating point.
  template <int First, int T>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void exact_pair(bool odd_block, double (&half)[2]) {
    static_assert(c >= 2 && T % 2 == 0 && T >= 2, "exact_pair: steps T, T + 1 with T even, past the first two");
    static_flip<Plan, b, First + T>(reg, odd_block);
    rebuild_exact_levels<trailing_zeros(static_cast<std::uint64_t>(T)), 1>();
    const double even = exact_level<0>();
    static_flip<Plan, b, First + T + 1>(reg, odd_block);
    const double odd = exact_level<0>();
    half[T < (1 << (c - 1)) ? 0 : 1] += e[1] * (even - odd);
  }

  template <int First, int... I>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void exact_pairs(bool odd_block, double (&half)[2],
                                                                   std::integer_sequence<int, I...>) {
    (exact_pair<First, 2 * I + 2>(odd_block, half), ...);
  }

  // Sub-block U of a block: steps [U·2^c, (U + 1)·2^c), without step 0 (the run-time step) for U = 0.
  template <int U, class Dot>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void residue_sub_block(bool odd_block, Dot& part) {
    constexpr int first = U << c;
    double half[2] = {0, 0};  // the terms of steps [first, first + 2^(c−1)) and of the rest
    if constexpr (U > 0) {
      static_flip<Plan, b, first>(reg, odd_block);
      rebuild_levels<trailing_zeros(static_cast<std::uint64_t>(first)), c>();
      rebuild_exact_levels<c - 1>();
      half[0] = e[0];
    }
    static_flip<Plan, b, first + 1>(reg, odd_block);
    rebuild_exact_levels<0>();
    half[c == 1 ? 1 : 0] -= e[0];
    if constexpr (c >= 2) exact_pairs<first>(odd_block, half, std::make_integer_sequence<int, (1 << (c - 1)) - 1>{});
    part.add(q[c], residues_of_pair<Plan::arithmetic::primes>(half[0], half[1]));
  }

  // Sub-block U, then the products gathered into the sum when `part` is full or the block ends.
  // (Dot: residue_dot of the arithmetic's primes.)
  template <int U, class Dot>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void residue_sub_block_into(bool odd_block, Dot& part) {
    residue_sub_block<U>(odd_block, part);
    if constexpr ((U + 1) % Dot::capacity == 0 || U + 1 == (1 << (b - c))) {
      sum.add(part.value());
      part = Dot{};
    }
  }

  template <int... U>
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void residue_block(bool odd_block, std::integer_sequence<int, U...>) {
    residue_dot<Plan::arithmetic::primes> part;
    (residue_sub_block_into<U>(odd_block, part), ...);
  }

  // Steps 1..B−1 of a block, into the sum.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void block(bool odd_block) {
    using partial = block_partial<Sum>;
    if constexpr (c > 0) {
      residue_block(odd_block, std::make_integer_sequence<int, (1 << (b - c))>{});
    } else if constexpr (partial::separate) {  // compensated sums: plain within the block, TwoSum once
      typename partial::type part;
      static_block(odd_block, part, std::make_integer_sequence<int, (1 << b) - 1>{});
      partial::absorb(sum, part);
    } else {
      static_block(odd_block, sum, std::make_integer_sequence<int, (1 << b) - 1>{});
    }
  }

  // A block whose top level Q_b is exactly zero: every one of its terms is Q_b times rows that do not
  // change in it, so all are zero, and the block only moves x on. Its flips cancel but for column
  // b − 1's (step B/2), which is all it applies; the levels are stale until the next run-time step
  // rebuilds them. Exact in every arithmetic (residues: Q_b ≡ 0 mod every prime makes every term so),
  // and the sums and magnitudes are those of the full block. 0/1 matrices: a row of x is often 0.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void skip_block(bool odd_block) {
    if constexpr (b >= 1) static_flip<Plan, b, (1 << (b - 1))>(reg, odd_block);
  }

  // A run-time step: column j (warp-uniform) in or out, the levels from min(j, b + upper) down
  // rebuilt (a block's first step: j ≥ b; a step outside whole blocks may flip a lower column).
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void runtime_step(int j, bool inclusion, bool odd) {
    const plan_sign<Plan> sign = inclusion ? 1 : -1;
    static_dispatch<Plan::n - 1>(
        j, [&](auto column) { flip_split<Plan, decltype(column)::value>(reg, gx, stride, sign); });
    const std::uint64_t rows_stride = unhoisted(stride);
    q[b] = rebuild_upper(j, rows_stride);
    rebuild_lower_levels();
    sum.add_signed(current_term(), odd);
  }

  // A whole block: skipped where Q_b is zero in the whole warp.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void whole_block(bool odd_block) {
    if (all_in_warp(is_zero_product(q[b]))) {
      skip_block(odd_block);
    } else {
      block(odd_block);
    }
  }

  // for_each_gray_block's callbacks, always inlined: as lambdas, nvcc kept the run-time step out of
  // line once it rebuilt the upper levels, and the agent (x with it) went to a stack frame.
  struct block_callback {
    cached_agent& agent;
    SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void operator()(bool odd_block) const {
      agent.whole_block(odd_block);
    }
  };
  struct step_callback {
    cached_agent& agent;
    SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void operator()(int j, bool inclusion, bool odd) const {
      agent.runtime_step(j, inclusion, odd);
    }
  };

  // The steps [first, end) (first ≥ 1): whole blocks unrolled, any other step at run time.
  SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void run(std::uint64_t first, std::uint64_t end) {
    start_split_state<Plan>(reg, gx, stride, first);
    rebuild_all_levels(stride);
    for_each_gray_block<b>(first, end, block_callback{*this}, step_callback{*this});
  }
};

}  // namespace detail

// Adds the terms of the steps [first, end) (first ≥ 1) to `sum`; gx points at this thread's first
// global row, the next rows `stride` entries apart. Whole blocks run unrolled; any other step (the
// blocks' first steps, and ranges that do not start on a block) takes the run-time path.
template <class Plan, class Sum>
SPARSEPERM_HOST_DEVICE void cached_steps(std::uint64_t first, std::uint64_t end, typename Plan::value* gx,
                                         std::uint64_t stride, Sum& sum) {
  detail::cached_agent<Plan, Sum> agent(gx, stride, sum);
  agent.run(first, end);
}

}  // namespace sparseperm
