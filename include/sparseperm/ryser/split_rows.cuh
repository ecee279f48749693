#pragma once
// x split by rows for the generated engines that keep only some rows in registers (CodeGen-Hybrid,
// gpu-cached): rows [0, Plan::k) in a register array, rows [k, n) in global memory at
// gx[(row − k)·stride] (stride = the thread count, so that a warp's accesses coalesce).
#include <cstdint>
#include <utility>

#include "../core/config.cuh"
#include "../detail/unroll.cuh"
#include "gray_code.cuh"
#include "register_steps.cuh"
#include "ryser_plan.cuh"

namespace sparseperm::detail {

// `stride` hidden from the optimiser: the global rows' addresses gx + (row − k)·stride are loop
// invariants, and hoisted out of the step loop they held 2(n − k) registers for paths taken on a
// 2^−(c+1) share of the steps (124 registers at n = 40, k = 10). Passed through an empty asm
// statement on those paths, they are recomputed there, a multiply-add each.
SPARSEPERM_HOST_DEVICE inline std::uint64_t unhoisted(std::uint64_t stride) {
#if defined(__CUDA_ARCH__)
  asm volatile("" : "+l"(stride));
#endif
  return stride;
}

// A column's entries [Begin, Begin + |E|) on global rows (rows ≥ k): gx[(row − k)·stride] += sign·a.
template <class Plan, int Begin, int... E>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void flip_global_rows([[maybe_unused]] typename Plan::value* gx,
                                                                      [[maybe_unused]] std::uint64_t stride,
                                                                      [[maybe_unused]] plan_sign<Plan> sign,
                                                                      std::integer_sequence<int, E...>) {
  using value = typename Plan::value;
  if constexpr (is_split_value<value> && is_complex_value<value>) {
    ((gx[static_cast<std::uint64_t>(nonzero_row<Plan, Begin + E> - Plan::k) * stride] +=
      sign * value{complex_double{nonzero_re<Plan, Begin + E>, nonzero_im<Plan, Begin + E>},
                   complex_double{nonzero_fine_re<Plan, Begin + E>, nonzero_fine_im<Plan, Begin + E>}}),
     ...);
  } else if constexpr (is_split_value<value>) {
    ((gx[static_cast<std::uint64_t>(nonzero_row<Plan, Begin + E> - Plan::k) * stride] +=
      sign * value{nonzero_re<Plan, Begin + E>, nonzero_fine_re<Plan, Begin + E>}),
     ...);
  } else if constexpr (is_complex_number<value>) {
    ((gx[static_cast<std::uint64_t>(nonzero_row<Plan, Begin + E> - Plan::k) * stride] +=
      sign * value{nonzero_re<Plan, Begin + E>, nonzero_im<Plan, Begin + E>}),
     ...);
  } else {
    ((gx[static_cast<std::uint64_t>(nonzero_row<Plan, Begin + E> - Plan::k) * stride] +=
      sign * nonzero_re<Plan, Begin + E>),
     ...);
  }
}

// Column J's update, x[row] + sign·a (sign = ±1: see flip_registers): its register rows in `reg`,
// then (rows ascend in a column) its global rows at gx[(row − k)·stride].
template <class Plan, int J>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE void flip_split(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                                typename Plan::value* gx, std::uint64_t stride,
                                                                plan_sign<Plan> sign) {
  using column = plan_column<Plan, J>;
  constexpr int split = column::template first_at_or_above<Plan::k>;
  if constexpr (column::top_row >= Plan::k) stride = unhoisted(stride);
  flip_registers_impl<Plan, column::begin>(reg, sign, std::make_integer_sequence<int, split - column::begin>{});
  flip_global_rows<Plan, split>(gx, stride, sign, std::make_integer_sequence<int, column::end - split>{});
}

// Π of the global rows [Lo, Hi) as a balanced tree, so that the n − k loads are all in flight at once
// and the multiplications form a short dependency chain.
template <class Plan, int Lo, int Hi>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE typename Plan::product global_product(
    [[maybe_unused]] const typename Plan::value* gx, [[maybe_unused]] std::uint64_t stride) {
  using product = typename Plan::product;
  if constexpr (Hi - Lo <= 0) {
    return product{1};
  } else if constexpr (Hi - Lo == 1) {
    return as_factor<product>(gx[static_cast<std::uint64_t>(Lo) * stride]);
  } else {
    constexpr int mid = Lo + (Hi - Lo) / 2;
    return multiply_products(global_product<Plan, Lo, mid>(gx, stride), global_product<Plan, mid, Hi>(gx, stride));
  }
}

// Π of the global rows [Lo, Hi) in a plan's arithmetic: residues run by run (residue_products.cuh),
// the others as global_product.
template <class Plan, int Lo, int Hi>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE typename Plan::product global_rows_product(
    const typename Plan::value* gx, std::uint64_t stride) {
  if constexpr (is_residue_arithmetic<typename Plan::arithmetic>) {
    return residue_rows_product<Plan, Plan::k + Lo, Plan::k + Hi>(
        [&](auto i) { return gx[static_cast<std::uint64_t>(decltype(i)::value - Plan::k) * stride]; });
  } else {
    return global_product<Plan, Lo, Hi>(gx, stride);
  }
}

template <class Plan, int K, int... I>
SPARSEPERM_HOST_DEVICE inline void store_start_globals([[maybe_unused]] typename Plan::value* gx,
                                                       [[maybe_unused]] std::uint64_t stride,
                                                       std::integer_sequence<int, I...>) {
  ((gx[static_cast<std::uint64_t>(I) * stride] = start_value<Plan, K + I>()), ...);
}

// x_{first−1}: x_0 with the columns of gray(first − 1) added, split into `reg` and the global rows.
template <class Plan>
SPARSEPERM_HOST_DEVICE inline void start_split_state(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                     typename Plan::value* gx, std::uint64_t stride,
                                                     std::uint64_t first) {
  load_start_registers<Plan>(reg);
  store_start_globals<Plan, Plan::k>(gx, stride, std::make_integer_sequence<int, Plan::n - Plan::k>{});
  const std::uint64_t included = gray(first - 1);
  static_for<0, Plan::n - 1>([&](auto j) {
    if ((included >> decltype(j)::value) & 1u)
      flip_split<Plan, decltype(j)::value>(reg, gx, stride, plan_sign<Plan>{1});
  });
}

}  // namespace sparseperm::detail
