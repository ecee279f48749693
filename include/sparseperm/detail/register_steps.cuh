#pragma once
// Building blocks of the generated kernels: a column's update and the product of x, expanded at
// compile time from a plan (ryser_plan.cuh), so that x is indexed by constants only and lives in
// registers.
#include "../config.cuh"
#include "../ryser_plan.cuh"
#include "unroll.cuh"

namespace sparseperm::detail {

// x[row] ± a(row, J) for the nonzeros of column J, every row < K held in `x` (registers).
template <class Plan, int J, bool Inclusion, int K>
SPARSEPERM_HOST_DEVICE inline void flip_registers(typename Plan::value (&x)[K]) {
  static_for<plan_column<Plan, J>::begin, plan_column<Plan, J>::end>([&](auto e) {
    using nz = plan_nonzero<Plan, decltype(e)::value>;
    static_assert(nz::row < K, "flip_registers: a row outside the register rows");
    if constexpr (Inclusion) {
      x[nz::row] += nz::value;
    } else {
      x[nz::row] -= nz::value;
    }
  });
}

// Π x[Lo..Hi) as a balanced tree: depth log2(Hi − Lo) instead of a chain of Hi − Lo dependent
// multiplications.
template <class Product, int Lo, int Hi, class Value, int K>
SPARSEPERM_HOST_DEVICE inline Product product_tree(const Value (&x)[K]) {
  if constexpr (Hi - Lo <= 0) {
    return Product{1};
  } else if constexpr (Hi - Lo == 1) {
    return static_cast<Product>(x[Lo]);
  } else {
    constexpr int mid = Lo + (Hi - Lo) / 2;
    return product_tree<Product, Lo, mid>(x) * product_tree<Product, mid, Hi>(x);
  }
}

// x[0..K) = x_0[0..K).
template <class Plan, int K>
SPARSEPERM_HOST_DEVICE inline void load_start_registers(typename Plan::value (&x)[K]) {
  static_for<0, K>([&](auto i) { x[decltype(i)::value] = plan_start<Plan, decltype(i)::value>::value; });
}

}  // namespace sparseperm::detail
