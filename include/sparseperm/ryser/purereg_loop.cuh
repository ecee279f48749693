#pragma once
// The `gpu-purereg` engine: the paper's CodeGen-PureReg.
//
// Specialised to one matrix type at compile time: the columns sorted by ascending degree, every
// entry of x in a register, each column's update expanded from its nonzeros with the values as
// constants (x + sign·a: one fused multiply-add per nonzero for both directions), and an unrolled
// product (a balanced tree). Each thread owns an aligned power-of-two chunk of Gray steps
// (Algorithm 2), so all lanes of a warp take the same column at the same step; the column's code is
// picked by a `switch` (static_dispatch), uniform across the warp.
//
// It stays the paper's kernel, the baseline gpu-hybrid is measured against: one switch a step (u = 0).
// purereg_plan<M, Arith, u> with u > 0 runs the Gray code in static blocks of 2^u steps as gpu-hybrid
// does (gray_steps.cuh); the tests run it, and the README measures what it would give PureReg.
//
// purereg_steps is the whole per-thread loop, callable on the host too (the tests run it there).
#include <cstdint>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/unroll.cuh"
#include "../numeric/accumulators.cuh"
#include "gray_code.cuh"
#include "gray_steps.cuh"
#include "launch_parameters.cuh"
#include "register_steps.cuh"
#include "ryser_plan.cuh"
#include "ryser_thread.cuh"

namespace sparseperm {

// StaticBits: u, the static blocks' Gray bits (clamped to what is valid; −1: the largest,
// unrolled_gray_bits), at most purereg_run_bits (a compensated run ends only on a switch step).
template <CompileTimeMatrix M, class Arith, int StaticBits = 0>
struct purereg_plan : ryser_plan<M, Arith, degree_order> {
  using base = ryser_plan<M, Arith, degree_order>;
  static constexpr int u = detail::unrolled_gray_bits<Arith>(base::n, detail::purereg_run_bits, StaticBits);
};

// Adds the terms of the steps [first, end) (first ≥ 1) to `sum`.
template <class Plan, class Sum>
SPARSEPERM_HOST_DEVICE void purereg_steps(std::uint64_t first, std::uint64_t end, Sum& sum) {
  constexpr int n = Plan::n;
  using value = typename Plan::value;
  value x[n];
  detail::load_start_registers<Plan>(x);
  const std::uint64_t included = gray(first - 1);
  detail::static_for<0, n - 1>([&](auto j) {
    if ((included >> decltype(j)::value) & 1u)
      detail::flip_registers<Plan, decltype(j)::value>(x, detail::plan_sign<Plan>{1});
  });
  detail::with_run_sums(sum, [&](auto& acc, auto flush) {
    detail::for_each_gray_block<Plan::u>(
        first, end,
        [&](bool odd_block) {
          detail::static_register_block<Plan, Plan::u>(x, odd_block, [&](auto s) {
            acc.add_signed(detail::register_product<Plan, 0, n>(x), (decltype(s)::value & 1) != 0);
          });
        },
        [&](int j, bool inclusion, bool odd) {
          const detail::plan_sign<Plan> sign = inclusion ? 1 : -1;
          detail::static_dispatch<n - 1>(j, [&](auto column) {
            detail::flip_registers<Plan, decltype(column)::value>(x, sign);
            if constexpr (decltype(column)::value >= detail::purereg_run_bits) flush();
          });
          acc.add_signed(detail::register_product<Plan, 0, n>(x), odd);
        });
  });
}

}  // namespace sparseperm
