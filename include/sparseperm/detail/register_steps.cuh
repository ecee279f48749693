#pragma once
// Building blocks of the generated kernels: a column's update and the product of x, expanded at
// compile time from a plan (ryser_plan.cuh), so that x is indexed by constants only and lives in
// registers.
#include "../config.cuh"
#include "../ryser_plan.cuh"
#include "residue_products.cuh"
#include "unroll.cuh"

#include <utility>

namespace sparseperm::detail {

// x[row] + sign·a(row, J) for the nonzeros of column J (sign = ±1), every row < K held in `x`
// (registers). One code per column for both directions: sign·a is exact, so on the GPU each update is
// a single fused multiply-add with the value as an operand, where separate inclusion and exclusion
// code made the compiler select the signed constant at run time. A fold over the column's entries,
// not a loop of lambdas: one instantiation per column keeps nvcc fast.
template <class Plan, int Begin, int K, int... E>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void flip_registers_impl(typename Plan::value (&x)[K], [[maybe_unused]] typename Plan::value sign,
                                                       std::integer_sequence<int, E...>) {
  static_assert(((plan_nonzero<Plan, Begin + E>::row < K) && ...), "flip_registers: a row outside the register rows");
  ((x[plan_nonzero<Plan, Begin + E>::row] += sign * plan_nonzero<Plan, Begin + E>::value), ...);
}

template <class Plan, int J, int K>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void flip_registers(typename Plan::value (&x)[K], typename Plan::value sign) {
  using column = plan_column<Plan, J>;
  flip_registers_impl<Plan, column::begin>(x, sign, std::make_integer_sequence<int, column::end - column::begin>{});
}

// Π x[Lo..Hi) as a balanced tree: depth log2(Hi − Lo) instead of a chain of Hi − Lo dependent
// multiplications.
template <class Product, int Lo, int Hi, class Value, int K>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE Product product_tree(const Value (&x)[K]) {
  if constexpr (Hi - Lo <= 0) {
    return Product{1};
  } else if constexpr (Hi - Lo == 1) {
    return static_cast<Product>(x[Lo]);
  } else {
    constexpr int mid = Lo + (Hi - Lo) / 2;
    return product_tree<Product, Lo, mid>(x) * product_tree<Product, mid, Hi>(x);
  }
}

// Π x[Lo..Hi) of register rows in a plan's arithmetic: residues run by run (residue_products.cuh),
// the others as product_tree.
template <class Plan, int Lo, int Hi, int K>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product register_product(const typename Plan::value (&x)[K]) {
  if constexpr (is_residue_arithmetic<typename Plan::arithmetic>) {
    return residue_rows_product<Plan, Lo, Hi>([&](auto i) { return x[decltype(i)::value]; });
  } else {
    return product_tree<typename Plan::product, Lo, Hi>(x);
  }
}

// x[0..K) = x_0[0..K).
template <class Plan, int K, int... I>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void load_start_registers_impl(typename Plan::value (&x)[K], std::integer_sequence<int, I...>) {
  ((x[I] = plan_start<Plan, I>::value), ...);
}

template <class Plan, int K>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE void load_start_registers(typename Plan::value (&x)[K]) {
  load_start_registers_impl<Plan>(x, std::make_integer_sequence<int, K>{});
}

}  // namespace sparseperm::detail
