#pragma once
// The `gpu-hybrid` engine: the paper's CodeGen-Hybrid.
//
// The permanent ordering (Algorithm 3) makes the first columns, which flip most often, touch a
// prefix of the rows; the partitioning (Algorithm 4) keeps the first k rows of x in registers and
// the rest in global memory, laid out [(row − k)·stride + thread] so that a warp's accesses coalesce.
// Columns 0..c touch register rows only; the product of the global rows is cached and recomputed
// (n − k loads) only after a column above c flips, a 2^−(c+1) share of the steps. All of it is
// decided at compile time from the matrix type.
#include <cstdint>
#include <utility>

#include "../config.cuh"
#include "../detail/accumulators.cuh"
#include "../detail/bits.cuh"
#include "../detail/gray_steps.cuh"
#include "../detail/register_steps.cuh"
#include "../detail/ryser_thread.cuh"
#include "../detail/split_rows.cuh"
#include "../detail/unroll.cuh"
#include "../gray_code.cuh"
#include "../launch_parameters.cuh"
#include "../ordering.cuh"
#include "../ryser_plan.cuh"

namespace sparseperm {

template <CompileTimeMatrix M, class Arith>
struct hybrid_plan : ryser_plan<M, Arith, permanent_order> {
  using base = ryser_plan<M, Arith, permanent_order>;
  static constexpr register_partition partition = partition_rows(base::ordered_masks);
  static constexpr int k = partition.register_rows;            // rows [0, k) in registers
  static constexpr int c = partition.last_register_column;     // columns [0, c] touch register rows only
  static constexpr int global_rows = base::n - k;
};


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
  detail::with_run_sums(sum, [&](auto add, auto flush) {
    detail::for_each_gray_step(first, end, [&](int j, bool inclusion, bool odd) {
      const value sign = inclusion ? value{1} : value{-1};
      detail::static_dispatch<n - 1>(j, [&](auto column) { detail::flip_split<Plan, decltype(column)::value>(reg, gx, stride, sign); });
      // One copy of the reload, after the dispatch, rather than one in every branch above c.
      if (j > c) {
        cached = detail::global_rows_product<Plan, 0, g>(gx, detail::unhoisted(stride));
        flush();
      }
      add(detail::register_product<Plan, 0, k>(reg) * cached, odd);
    });
  });
}

}  // namespace sparseperm
