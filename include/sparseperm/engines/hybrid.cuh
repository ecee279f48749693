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
#include "../detail/bits.cuh"
#include "../detail/gray_steps.cuh"
#include "../detail/register_steps.cuh"
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

namespace detail {

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

// One nonzero's update, x[row] + sign·a (sign = ±1: see flip_registers): a register row in `reg`,
// a global row at gx[(row − k)·stride].
template <class Plan, int E>
SPARSEPERM_HOST_DEVICE inline void flip_hybrid_entry(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                     [[maybe_unused]] typename Plan::value* gx,
                                                     [[maybe_unused]] std::uint64_t stride, typename Plan::value sign) {
  using nz = plan_nonzero<Plan, E>;
  if constexpr (nz::row < Plan::k) {
    reg[nz::row] += sign * nz::value;
  } else {
    gx[static_cast<std::uint64_t>(nz::row - Plan::k) * stride] += sign * nz::value;
  }
}

template <class Plan, int Begin, int... E>
SPARSEPERM_HOST_DEVICE inline void flip_hybrid_impl(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                                    [[maybe_unused]] typename Plan::value* gx,
                                                    [[maybe_unused]] std::uint64_t stride, [[maybe_unused]] typename Plan::value sign,
                                                    std::integer_sequence<int, E...>) {
  (flip_hybrid_entry<Plan, Begin + E>(reg, gx, stride, sign), ...);
}

// Column J's update.
template <class Plan, int J>
SPARSEPERM_HOST_DEVICE inline void flip_hybrid(typename Plan::value (&reg)[Plan::k > 0 ? Plan::k : 1],
                                               typename Plan::value* gx, std::uint64_t stride, typename Plan::value sign) {
  using column = plan_column<Plan, J>;
  if constexpr (column::top_row >= Plan::k) stride = unhoisted(stride);
  flip_hybrid_impl<Plan, column::begin>(reg, gx, stride, sign, std::make_integer_sequence<int, column::end - column::begin>{});
}

// Π of the global rows [Lo, Hi) as a balanced tree, so that the n − k loads are all in flight at once
// and the multiplications form a short dependency chain.
template <class Plan, int Lo, int Hi>
SPARSEPERM_HOST_DEVICE inline typename Plan::product global_product([[maybe_unused]] const typename Plan::value* gx,
                                                                    [[maybe_unused]] std::uint64_t stride) {
  using product = typename Plan::product;
  if constexpr (Hi - Lo <= 0) {
    return product{1};
  } else if constexpr (Hi - Lo == 1) {
    return static_cast<product>(gx[static_cast<std::uint64_t>(Lo) * stride]);
  } else {
    constexpr int mid = Lo + (Hi - Lo) / 2;
    return global_product<Plan, Lo, mid>(gx, stride) * global_product<Plan, mid, Hi>(gx, stride);
  }
}

template <class Plan, int K, int... I>
SPARSEPERM_HOST_DEVICE inline void store_start_globals([[maybe_unused]] typename Plan::value* gx,
                                                       [[maybe_unused]] std::uint64_t stride, std::integer_sequence<int, I...>) {
  ((gx[static_cast<std::uint64_t>(I) * stride] = plan_start<Plan, K + I>::value), ...);
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
  detail::load_start_registers<Plan>(reg);
  detail::store_start_globals<Plan, k>(gx, stride, std::make_integer_sequence<int, n - k>{});
  const std::uint64_t included = gray(first - 1);
  detail::static_for<0, n - 1>([&](auto j) {
    if ((included >> decltype(j)::value) & 1u) detail::flip_hybrid<Plan, decltype(j)::value>(reg, gx, stride, value{1});
  });
  constexpr int g = Plan::global_rows;
  product cached = detail::global_product<Plan, 0, g>(gx, stride);
  detail::for_each_gray_step(first, end, [&](int j, bool inclusion, bool odd) {
    const value sign = inclusion ? value{1} : value{-1};
    detail::static_dispatch<n - 1>(j, [&](auto column) { detail::flip_hybrid<Plan, decltype(column)::value>(reg, gx, stride, sign); });
    // One copy of the reload, after the dispatch, rather than one in every branch above c.
    if (j > c) cached = detail::global_product<Plan, 0, g>(gx, detail::unhoisted(stride));
    const product p = detail::product_tree<product, 0, k>(reg) * cached;
    sum.add_signed(p, odd);
  });
}

#if defined(__CUDACC__)
template <class Plan, class Sum>
__global__ void hybrid_kernel(launch work, Sum* partial, typename Plan::value* global_x, std::uint64_t stride) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= work.threads) return;
  Sum sum = partial[t];
  hybrid_steps<Plan>(work.thread_first(t), work.thread_end(t), global_x + t, stride, sum);
  partial[t] = sum;
}
#endif

}  // namespace sparseperm
