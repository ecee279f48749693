#pragma once
// The dense Ryser loop with x in registers (the `gpu-dense` engine's thread, gpu/dense_ryser_kernel.cuh;
// a host thread runs the same code in the tests). Rows = N, a compile-time bound on n: every index
// into x is a constant after unrolling, so x stays in registers whatever the matrix. A dense step
// costs 2n floating operations for real values and 6n for complex ones (n additions of a column,
// n − 1 multiplications), and nothing else may cost as much:
//
//   - the K lowest Gray columns live in registers too where they fit (column 0 flips at every other
//     step, column 1 at every fourth), so only one step in 2^K reads its column from memory;
//   - the walk goes in static blocks of 2^K steps (for_each_gray_block), each step's column known at
//     compile time, and its direction too but for column K − 1's (the block's parity);
//   - the product runs in four independent chains, so a multiplication's latency is hidden.
//
// Rows n .. N − 1 are padding: x = 1 and zero columns, so their multiplications are exact and the
// error bound of n − 1 roundings holds. Values are on their row grids (ryser_columns), so every
// update of x is exact, as in the sparse loop.
//
// Double-double (dense_dd_ryser_steps): x as split row sums (numeric/double_double.cuh: coarse +
// fine, each exact on its grid, so x is the row sum of the values themselves) and the product in
// double-double, each factor joined exactly by TwoSum: the bound of cpu-sparse's and gpu-sparse's
// double-double (n − 1 products of exact factors). The coarse parts stay in registers; the fine
// parts too for real values up to N = 32, else in memory the caller gives each thread (a complex
// split row is four doubles: 30 of them would take 240 registers). The column of every step is
// read from memory (no held columns: a split column takes twice the registers, and a step's
// double-double products cost 6 to 10 times its additions).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/unroll.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/double_double.cuh"
#include "cpu_sparse.cuh"
#include "gray_code.cuh"
#include "gray_steps.cuh"

namespace sparseperm::detail {

// The sizes the dense loop is compiled for: N = 16, 24, 28, ..., 48, and 30 for complex values, a
// matrix of n rows running in the smallest N ≥ n. From n = 21 on, at most 3 rows are padding, whose
// additions and multiplications cost up to 3/n of a step; below, a run takes milliseconds (each N
// and arithmetic is a kernel to compile). Complex n = 29, 30 take N = 30: in N = 32 their padding
// cost 6 % of a run of 10 ms, the last size under 60 % of the FP64 rate.
inline constexpr int dense_max_n = 48;
using dense_row_counts = std::integer_sequence<int, 16, 24, 28, 32, 36, 40, 44, 48>;
using dense_complex_row_counts = std::integer_sequence<int, 16, 24, 28, 30, 32, 36, 40, 44, 48>;
template <int... Rows>
constexpr int smallest_rows_for(int n, std::integer_sequence<int, Rows...>) {
  int rows = 0;
  ((rows = rows == 0 && n <= Rows ? Rows : rows), ...);  // the sizes ascend
  return rows;
}
// n ≤ dense_max_n
constexpr int dense_rows_for(int n, bool complex) {
  return complex ? smallest_rows_for(n, dense_complex_row_counts{}) : smallest_rows_for(n, dense_row_counts{});
}

// The matrix as the dense loop reads it: the Gray columns (the first n − 1 of the engine's order,
// at least K + 1 stored, the extra ones zero) of N rows each, column j's row i at values[j·Stride + i]
// (Stride ≥ N), and the start state x_0 (N rows, 1 in the padding).
template <class X>
struct dense_columns_view {
  const X* values = nullptr;
  const X* x0 = nullptr;
};

// The columns a dense run of N rows keeps in registers besides x, within about 200 of a thread's
// 255 32-bit registers (a double takes two): real values two columns up to N = 36 (3N doubles) and
// one beyond, complex values one column up to N = 24 (4N doubles) and none beyond (at N = 28, one
// spilled).
template <int N, class X>
inline constexpr int dense_held_columns = is_complex_number<X> ? (N <= 24 ? 1 : 0) : (N <= 36 ? 2 : 1);

// The Gray columns of `columns` as `rows` full rows each (zeros and padding included), at least
// `held` of them (and one), and x_0 with 1 in the padding rows: what dense_columns_view points to.
template <class X>
struct dense_columns {
  int stored = 0;
  std::vector<X> values, x0;
  dense_columns(const ryser_columns<X>& columns, int rows, int held)
      : stored(std::max({columns.n - 1, held, 1})),
        values(static_cast<std::size_t>(stored) * rows, X{0}),
        x0(static_cast<std::size_t>(rows), X{1}) {
    for (int j = 0; j + 1 < columns.n; ++j) {
      for (std::int32_t k = columns.start[j]; k < columns.start[j + 1]; ++k) {
        values[static_cast<std::size_t>(j) * rows + columns.rows[k]] = columns.values[k];
      }
    }
    std::copy(columns.x0.begin(), columns.x0.end(), x0.begin());
  }
  dense_columns_view<X> view() const { return {values.data(), x0.data()}; }
};

// Π x over N values in four chains (N even).
template <int N, class X>
SPARSEPERM_HOST_DEVICE inline X dense_product(const X (&x)[N]) {
  static_assert(N % 2 == 0 && N >= 4, "dense_product: N must be even and at least 4");
  X p0 = x[0], p1 = x[1], p2 = x[2], p3 = x[3];
  SPARSEPERM_UNROLL
  for (int i = 4; i + 3 < N; i += 4) {
    p0 = p0 * x[i];
    p1 = p1 * x[i + 1];
    p2 = p2 * x[i + 2];
    p3 = p3 * x[i + 3];
  }
  if constexpr (N % 4 == 2) {
    p2 = p2 * x[N - 2];
    p3 = p3 * x[N - 1];
  }
  return (p0 * p1) * (p2 * p3);
}

// x += sign · column (sign ±1: exact, as the values are on their grids).
template <int N, class X, class Part>
SPARSEPERM_HOST_DEVICE inline void dense_update(X (&x)[N], const X* column, Part sign) {
  SPARSEPERM_UNROLL
  for (int i = 0; i < N; ++i) x[i] = x[i] + column[i] * sign;
}

// Adds the terms of the steps [first, end) (first ≥ 1) to `sum`: static blocks of 2^K steps whose
// steps 1 .. 2^K − 1 flip the held columns, and steps 0 that read their column from memory (column
// j at m.values + j·Stride).
template <int N, int Stride = N, class X, class Sum>
SPARSEPERM_HOST_DEVICE void dense_ryser_steps(const dense_columns_view<X>& m, std::uint64_t first, std::uint64_t end,
                                              Sum& sum) {
  static_assert(Stride >= N, "dense_ryser_steps: columns of N rows");
  using part = part_type<X>;
  constexpr int K = dense_held_columns<N, X>;
  X x[N];
  SPARSEPERM_UNROLL
  for (int i = 0; i < N; ++i) x[i] = m.x0[i];
  for (std::uint64_t included = gray(first - 1); included != 0; included &= included - 1) {
    dense_update<N>(x, m.values + static_cast<std::size_t>(trailing_zeros(included)) * Stride, part{1});
  }
  X held[K > 0 ? K : 1][N];
  SPARSEPERM_UNROLL
  for (int k = 0; k < K; ++k) {
    SPARSEPERM_UNROLL
    for (int i = 0; i < N; ++i) held[k][i] = m.values[k * Stride + i];
  }
  for_each_gray_block<K>(
      first, end,
      [&](bool odd_block) {
        static_for<1, (1 << K)>([&](auto s) {
          constexpr int S = decltype(s)::value;
          constexpr int column = changed_column(S);
          if constexpr (column == K - 1) {  // its direction is the block's parity
            const part sign = odd_block ? part{-1} : part{1};
            SPARSEPERM_UNROLL
            for (int i = 0; i < N; ++i) x[i] = x[i] + held[column][i] * sign;
          } else if constexpr (is_inclusion(S)) {
            SPARSEPERM_UNROLL
            for (int i = 0; i < N; ++i) x[i] = x[i] + held[column][i];
          } else {
            SPARSEPERM_UNROLL
            for (int i = 0; i < N; ++i) x[i] = x[i] - held[column][i];
          }
          sum.add_signed(dense_product<N>(x), (S & 1) != 0);
        });
      },
      [&](int column, bool inclusion, bool odd) {
        dense_update<N>(x, m.values + static_cast<std::size_t>(column) * Stride, inclusion ? part{1} : part{-1});
        sum.add_signed(dense_product<N>(x), odd);
      });
}

// Where a double-double run keeps x's fine parts: registers for real values up to N = 32 (x is then
// 4N registers), else memory of the caller's (complex: 8N registers would not fit beside the rest).
template <int N, class V>
inline constexpr bool dense_fine_in_registers = !is_complex_number<V> && N <= 32;

// The sizes the double-double loop is compiled for: up to 40 (at N = 44 the coarse parts, the
// columns' loads that nvcc hoists and the product chains pass 255 registers and spill; beyond,
// gpu-sparse's double-double runs), from 24 on at most 4 rows of padding, and 30 for complex values
// as in double (a dense complex n = 30 is a boson-sampling size; in N = 32 its padding cost 6 %).
inline constexpr int dense_dd_max_n = 40;
using dense_dd_row_counts = std::integer_sequence<int, 16, 24, 28, 32, 36, 40>;
using dense_dd_complex_row_counts = std::integer_sequence<int, 16, 24, 28, 30, 32, 36, 40>;
constexpr int dense_dd_rows_for(int n, bool complex) {
  if (n > dense_dd_max_n) return 0;
  return complex ? smallest_rows_for(n, dense_dd_complex_row_counts{}) : smallest_rows_for(n, dense_dd_row_counts{});
}

// x's fine parts in registers (an array indexed by constants once unrolled) ...
template <int N, class V>
struct dense_register_fine {
  V part[N];
  SPARSEPERM_HOST_DEVICE V& operator[](int i) { return part[i]; }
};
// ... or in the caller's memory, row i at part[i·stride] (GPU shared memory: a block's threads side
// by side, so a warp's accesses fall in distinct banks).
template <class V>
struct dense_strided_fine {
  V* part = nullptr;
  int stride = 1;
  SPARSEPERM_HOST_DEVICE V& operator[](int i) const { return part[static_cast<std::size_t>(i) * stride]; }
};

// Adds `column`·sign to x (exact on both grids: a sign, then a sum of values on the grid) and returns
// Π (coarse_i + fine_i) in double-double, each factor joined exactly (TwoSum), row by row, so that a
// row's fine part is read, updated, written and used at once (updated first and multiplied after,
// nvcc kept every fine part of a complex x in registers between the two: 255 registers and
// spills), in independent chains (four real, two complex: a complex one is wide enough) that hide
// a product's latency.
template <int N, class V, class Fine, class Part>
SPARSEPERM_HOST_DEVICE SPARSEPERM_ALWAYS_INLINE auto dense_dd_step(V (&coarse)[N], Fine& fine,
                                                                   const split_value<V>* column, Part sign) {
  constexpr int chains = is_complex_number<V> ? 2 : 4;
  static_assert(N % chains == 0 && N >= 2 * chains, "dense_dd_step: N a multiple of the chains");
  using P = decltype(dd_factor(split_value<V>{}));
  P p[chains];
  SPARSEPERM_UNROLL
  for (int i = 0; i < N; ++i) {
    coarse[i] = coarse[i] + column[i].coarse * sign;
    const V f = fine[i] + column[i].fine * sign;
    fine[i] = f;
    const P factor = dd_factor(split_value<V>(coarse[i], f));
    p[i % chains] = i < chains ? factor : multiply_products(p[i % chains], factor);
  }
  if constexpr (chains == 4) {
    return multiply_products(multiply_products(p[0], p[1]), multiply_products(p[2], p[3]));
  } else {
    return multiply_products(p[0], p[1]);
  }
}

// Adds the double-double terms of the steps [first, end) (first ≥ 1) to `sum` (dd_sum, or complex
// sums of it): column j of the split values at m.values + j·Stride, x's fine parts in `fine`
// (dense_register_fine or dense_strided_fine).
template <int N, int Stride = N, class V, class Fine, class Sum>
SPARSEPERM_HOST_DEVICE void dense_dd_ryser_steps(const dense_columns_view<split_value<V>>& m, Fine fine,
                                                 std::uint64_t first, std::uint64_t end, Sum& sum) {
  static_assert(Stride >= N, "dense_dd_ryser_steps: columns of N rows");
  using part = part_type<V>;
  V coarse[N];
  SPARSEPERM_UNROLL
  for (int i = 0; i < N; ++i) {
    coarse[i] = m.x0[i].coarse;
    fine[i] = m.x0[i].fine;
  }
  for (std::uint64_t included = gray(first - 1); included != 0; included &= included - 1) {
    const split_value<V>* column = m.values + static_cast<std::size_t>(trailing_zeros(included)) * Stride;
    SPARSEPERM_UNROLL
    for (int i = 0; i < N; ++i) {
      coarse[i] = coarse[i] + column[i].coarse;
      fine[i] = fine[i] + column[i].fine;
    }
  }
  for_each_gray_step(first, end, [&](int column, bool inclusion, bool odd) {
    sum.add_signed(dense_dd_step<N>(coarse, fine, m.values + static_cast<std::size_t>(column) * Stride,
                                    inclusion ? part{1} : part{-1}),
                   odd);
  });
}

}  // namespace sparseperm::detail
