#pragma once
// Building blocks of the generated kernels: a column's update and the product of x, expanded at
// compile time from a plan (ryser_plan.cuh), so that x is indexed by constants only and lives in
// registers.
#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/unroll.cuh"
#include "../numeric/residue_products.cuh"
#include "gray_steps.cuh"
#include "ryser_plan.cuh"

#include <utility>

namespace sparseperm::detail {

// x[row] + sign·a(row, J) for the nonzeros of column J (sign = ±1), every row < K held in `x`
// (registers). One code per column for both directions: sign·a is exact, so on the GPU each update is
// a single fused multiply-add with the value as an operand, where separate inclusion and exclusion
// code made the compiler select the signed constant at run time. A fold over the column's entries,
// not a loop of lambdas: one instantiation per column keeps nvcc fast.
//
// The sign is a scalar (plan_sign): for complex values a multiplication of each part, not a complex one.
template <class Plan>
using plan_sign = part_type<typename Plan::value>;

template <class Plan, int Begin, int K, int... E>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void flip_registers_impl(typename Plan::value (&x)[K],
                                                                         [[maybe_unused]] plan_sign<Plan> sign,
                                                                         std::integer_sequence<int, E...>) {
  static_assert(((nonzero_row<Plan, Begin + E> < K) && ...), "flip_registers: a row outside the register rows");
  using value = typename Plan::value;
  if constexpr (is_split_value<value> && is_complex_value<value>) {
    ((x[nonzero_row<Plan, Begin + E>] +=
      sign * value{complex_double{nonzero_re<Plan, Begin + E>, nonzero_im<Plan, Begin + E>},
                   complex_double{nonzero_fine_re<Plan, Begin + E>, nonzero_fine_im<Plan, Begin + E>}}),
     ...);
  } else if constexpr (is_split_value<value>) {
    ((x[nonzero_row<Plan, Begin + E>] += sign * value{nonzero_re<Plan, Begin + E>, nonzero_fine_re<Plan, Begin + E>}),
     ...);
  } else if constexpr (is_complex_number<value>) {
    ((x[nonzero_row<Plan, Begin + E>] += sign * value{nonzero_re<Plan, Begin + E>, nonzero_im<Plan, Begin + E>}), ...);
  } else {
    ((x[nonzero_row<Plan, Begin + E>] += sign * nonzero_re<Plan, Begin + E>), ...);
  }
}

template <class Plan, int J, int K>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void flip_registers(typename Plan::value (&x)[K],
                                                                    plan_sign<Plan> sign) {
  using column = plan_column<Plan, J>;
  flip_registers_impl<Plan, column::begin>(x, sign, std::make_integer_sequence<int, column::end - column::begin>{});
}

// Registers a value of x costs in the register models (ordering.cuh): two for a double or an int64;
// seven for a complex double, whose products hold more temporaries (ptxas at n = 40: with four,
// gpu-cached at p = 0.5 and gpu-hybrid kept x in a stack frame; with seven neither did). Split values
// (double-double): four for a real one, fourteen for a complex one (H200, complex n = 36 and 40,
// p = 0.3: modelled at ten, gpu-cached took b = 3–4 and 17–18 register rows, and x then went to a
// stack frame: 4.5 and 104 s against 3.2 and 54 s at fourteen, b = 2 and 13 rows).
template <class Value>
constexpr int model_registers_per_value() {
  if constexpr (is_split_value<Value>) {
    return is_complex_value<Value> ? 14 : 4;
  } else {
    return is_complex_number<Value> ? 7 : static_cast<int>(sizeof(Value) / 4);
  }
}

// The register models' options for values of type Value: one home for the generated plans and
// `inspect`. Complex doubles saturate the FP64 units with fewer threads: a complex multiplication is
// four independent products, so two warps per SM sub-partition hide what four do for doubles
// (H100: gpu-cached's complex layouts with 256 threads per SM were 1–14% faster than the 512-thread
// ones at n = 32..40, p = 0.1..0.3, and the same at p = 0.5, where both kept 256). gpu-cached's
// complex blocks: 2^6 steps where level 0 (the rows column 0 touches) has at most 8 rows, else 2^5.
// H100: 2^6 was 13–25% faster than 2^5 at n = 32..40, p = 0.1, 0–6% at p = 0.2 (level 0: 1–4 rows); at n = 32,
// p = 0.5 (11 rows) its 64 steps of 11-factor complex products spilled 980 bytes of registers
// (0.0232 s against 0.0145 s for 2^5).
//
// Split values (double-double): blocks of at most 2^5 steps real, 2^4 complex (a complex double-double
// product is some 60 instructions), and up to 8 levels above the blocks kept in global memory: x's
// rows fill the registers, blocks are short (H200, complex n = 40, p = 0.3: 2^2 steps, a run-time step
// every fourth), and a run-time step then rebuilds from the level above its column (53.7 → 30.3 s).
inline constexpr int complex_level_zero_rows_for_64 = 8;
template <class Value>
constexpr cached_options cached_options_for(const column_masks& ordered) {
  cached_options options{.registers_per_value = model_registers_per_value<Value>(),
                         .saturating_threads = is_complex_value<Value> ? 256 : 512};
  if (is_complex_value<Value> && staircase_of(ordered).rows[1] > complex_level_zero_rows_for_64) {
    options.max_static_bits = 5;
  }
  if constexpr (is_split_value<Value>) {
    options.max_static_bits = is_complex_value<Value> ? 4 : 5;
    options.max_upper_levels = 8;
  }
  return options;
}
template <class Value>
constexpr partition_options partition_options_for() {
  return {.registers_per_value = model_registers_per_value<Value>()};
}

// The Gray bits gpu-purereg and gpu-hybrid unroll (blocks of 2^bits steps): at most `allowed` (the
// columns whose rows are all in registers), n − 1 and, forced ≥ 0, `forced`. Double: 2^6 steps.
// Exact arithmetic's steps are several times longer (four registers a 128-bit product; K residues):
// 2^3 and 2^2, as gpu-cached's blocks without exact levels (code size and nvcc's inliner). Complex
// doubles: 2^3, or `complex_bits` where the caller knows the registers leave room (gpu-hybrid,
// hybrid_complex_bits).
template <class Arith>
constexpr int unrolled_gray_bits(int n, int allowed, int forced, int complex_bits = 3) {
  int bits = is_residue_arithmetic<Arith> ? 2 : Arith::exact ? 3 : is_complex_arithmetic<Arith> ? complex_bits : 6;
  if (forced >= 0 && forced < bits) bits = forced;
  if (allowed < bits) bits = allowed;
  if (n - 1 < bits) bits = n - 1;
  return bits > 0 ? bits : 0;
}

// gpu-hybrid's complex blocks: 2^5 steps where Algorithm 4's estimate for the register rows is at
// most 190 registers, else 2^3. H100, complex n = 32..40: 2^5 against 2^3 was 9–31% faster at p = 0.1
// and 0.3 (estimates 76–188); at p = 0.5 (estimates 195–251) 2^4 and 2^5 left x partly in a stack
// frame, 1.4–2× slower, as 2^6 did at n = 40, p = 0.3 under an earlier register model.
inline constexpr int hybrid_complex_register_limit = 190;
constexpr int hybrid_complex_bits(const register_partition& partition) {
  return partition.registers_per_thread <= hybrid_complex_register_limit ? 5 : 3;
}

// Step S's flip (1 ≤ S < 2^Bits) of a static Gray block (gray_steps.cuh): column ctz(S), on rows
// held in `x`, its direction a constant but for S = 2^(Bits−1).
template <class Plan, int Bits, int S, int K>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void static_flip(typename Plan::value (&x)[K], bool odd_block) {
  flip_registers<Plan, trailing_zeros(static_cast<std::uint64_t>(S))>(
      x, static_step_sign<Bits, S, plan_sign<Plan>>(odd_block));
}

// Steps 1..2^Bits − 1 of a static Gray block whose columns touch rows held in `x` only, fully
// unrolled: each flips its column, then on_step(integral_constant S) adds its term (sign (−1)^S).
template <class Plan, int Bits, int K, class OnStep>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void static_register_block(typename Plan::value (&x)[K], bool odd_block,
                                                                           OnStep&& on_step) {
  static_for<1, (1 << Bits)>([&](auto s) {
    static_flip<Plan, Bits, decltype(s)::value>(x, odd_block);
    on_step(s);
  });
}

// Π x[Lo..Hi) as a balanced tree: depth log2(Hi − Lo) instead of a chain of Hi − Lo dependent
// multiplications.
template <class Product, int Lo, int Hi, class Value, int K>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE Product product_tree(const Value (&x)[K]) {
  if constexpr (Hi - Lo <= 0) {
    return Product{1};
  } else if constexpr (Hi - Lo == 1) {
    return as_factor<Product>(x[Lo]);
  } else {
    constexpr int mid = Lo + (Hi - Lo) / 2;
    return multiply_products(product_tree<Product, Lo, mid>(x), product_tree<Product, mid, Hi>(x));
  }
}

// Π x[Lo..Hi) of register rows in a plan's arithmetic: residues run by run (residue_products.cuh),
// the others as product_tree.
template <class Plan, int Lo, int Hi, int K>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE typename Plan::product register_product(
    const typename Plan::value (&x)[K]) {
  if constexpr (is_residue_arithmetic<typename Plan::arithmetic>) {
    return residue_rows_product<Plan, Lo, Hi>([&](auto i) { return x[decltype(i)::value]; });
  } else {
    return product_tree<typename Plan::product, Lo, Hi>(x);
  }
}

// x[0..K) = x_0[0..K).
template <class Plan, int K, int... I>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void load_start_registers_impl(typename Plan::value (&x)[K],
                                                                               std::integer_sequence<int, I...>) {
  ((x[I] = start_value<Plan, I>()), ...);
}

template <class Plan, int K>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void load_start_registers(typename Plan::value (&x)[K]) {
  load_start_registers_impl<Plan>(x, std::make_integer_sequence<int, K>{});
}

}  // namespace sparseperm::detail
