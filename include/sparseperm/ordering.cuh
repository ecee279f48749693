#pragma once
// Row and column orders for the Ryser engines, and the register partition of x (constexpr).
//
//   degree_sorted_order   columns by ascending degree: the most often flipped columns touch the
//                         fewest rows (CPU-/GPU-SparsePerman)
//   permanent_ordering    Algorithm 3: take next the column that touches the fewest rows not yet
//                         numbered, and number its new rows next. Afterwards the first m columns
//                         touch exactly the rows [0, r(m)): a staircase that keeps the most often
//                         updated rows of x together at the top
//   partition_rows        Algorithm 4: how many of those top rows live in registers (CodeGen-Hybrid)
//
// Column n−1 of the result is the one Nijenhuis–Wilf never flips (it is folded into x_0).
#include <cstdint>

#include "column_masks.cuh"
#include "config.cuh"
#include "detail/bits.cuh"
#include "detail/precondition.cuh"
#include "gray_code.cuh"
#include "occupancy.cuh"

namespace sparseperm {

// A row and a column permutation, each as position → original index.
struct matrix_order {
  int n = 0;
  int columns[max_ryser_n]{};
  int rows[max_ryser_n]{};
};

SPARSEPERM_HOST_DEVICE constexpr matrix_order identity_order(int n) {
  detail::expects(n >= 0 && n <= max_ryser_n, "identity_order: n must be in [0, 64]");
  matrix_order order;
  order.n = n;
  for (int i = 0; i < n; ++i) order.columns[i] = order.rows[i] = i;
  return order;
}

// The pattern with its rows and columns moved to their new positions.
SPARSEPERM_HOST_DEVICE constexpr column_masks reorder(const column_masks& pattern, const matrix_order& order) {
  detail::expects(pattern.n == order.n, "reorder: the order is for another size");
  int position_of_row[max_ryser_n]{};
  for (int i = 0; i < order.n; ++i) position_of_row[order.rows[i]] = i;
  column_masks result;
  result.n = pattern.n;
  for (int j = 0; j < order.n; ++j) {
    for (std::uint64_t old_rows = pattern.rows[order.columns[j]]; old_rows != 0; old_rows &= old_rows - 1) {
      result.rows[j] |= std::uint64_t{1} << position_of_row[detail::trailing_zeros(old_rows)];
    }
  }
  return result;
}

// Columns by ascending degree, ties by original index; rows unchanged.
SPARSEPERM_HOST_DEVICE constexpr matrix_order degree_sorted_order(const column_masks& pattern) {
  matrix_order order = identity_order(pattern.n);
  for (int i = 1; i < pattern.n; ++i) {  // insertion sort: stable, and n ≤ 64
    const int column = order.columns[i];
    int k = i;
    for (; k > 0 && pattern.degree(order.columns[k - 1]) > pattern.degree(column); --k) {
      order.columns[k] = order.columns[k - 1];
    }
    order.columns[k] = column;
  }
  return order;
}

struct permanent_ordering_plan {
  matrix_order order;
  // rows_touched[m] = r(m): the first m columns of the new order touch exactly the rows [0, r(m)).
  int rows_touched[max_ryser_n + 1]{};
};

// Algorithm 3, the permanent ordering. Ties go to the lower original index.
SPARSEPERM_HOST_DEVICE constexpr permanent_ordering_plan permanent_ordering(const column_masks& pattern) {
  const int n = pattern.n;
  detail::expects(n >= 0 && n <= max_ryser_n, "permanent_ordering: n must be in [0, 64]");
  permanent_ordering_plan plan;
  plan.order.n = n;
  std::uint64_t numbered_rows = 0;
  std::uint64_t chosen_columns = 0;
  int next_row = 0;
  for (int step = 0; step < n; ++step) {
    int best = -1;
    int best_new_rows = max_ryser_n + 1;
    for (int j = 0; j < n; ++j) {
      if ((chosen_columns >> j) & 1u) continue;
      const int new_rows = detail::popcount(pattern.rows[j] & ~numbered_rows);
      if (new_rows < best_new_rows) {
        best = j;
        best_new_rows = new_rows;
      }
    }
    chosen_columns |= std::uint64_t{1} << best;
    plan.order.columns[step] = best;
    for (std::uint64_t fresh = pattern.rows[best] & ~numbered_rows; fresh != 0; fresh &= fresh - 1) {
      plan.order.rows[next_row++] = detail::trailing_zeros(fresh);
    }
    numbered_rows |= pattern.rows[best];
    plan.rows_touched[step + 1] = next_row;
  }
  for (int i = 0; i < n; ++i) {  // empty rows (structurally singular matrices) go last
    if (((numbered_rows >> i) & 1u) == 0) plan.order.rows[next_row++] = i;
  }
  return plan;
}

namespace detail {
// A step never costs nothing: free global memory (GRratio 0) or n = 0 must not divide by zero.
SPARSEPERM_HOST_DEVICE constexpr double positive_cost(double cost) { return cost > 1e-12 ? cost : 1e-12; }
}  // namespace detail

struct partition_options {
  double global_register_ratio = 16;  // GRratio: one global access costs as much as 16 register accesses
  int registers_per_value = 2;        // a double takes two 32-bit registers
  int base_registers = 20;            // registers besides x: step counters, product, sum, addresses
  device_model device = h100_sxm;
};

struct register_partition {
  int register_rows = 0;              // k: rows [0, k) of x in registers, rows [k, n) in global memory
  int last_register_column = -1;      // c: the columns [0, c] touch register rows only
  double register_step_share = 0;     // share of Gray steps that flip a column ≤ c
  int registers_per_thread = 0;       // the estimate behind threads_per_sm
  int threads_per_sm = 0;
  double score = 0;                   // threads_per_sm / estimated cost of a step: higher is better
};

// Algorithm 4: for each prefix [0, c] of the flipped columns, keep in registers the rows that prefix
// touches (k = highest such row + 1, a row prefix after permanent_ordering). A step then costs k
// register multiplications, plus, when a column after c flips (a 2^−(c+1) share of the steps),
// n − k global loads at GRratio each to refresh the cached product of the global rows. The estimate
// of resident threads per SM comes from the registers per thread. The prefix with the most threads
// per unit of cost wins; ties go to the longer prefix. "No row in registers" is the fallback.
SPARSEPERM_HOST_DEVICE constexpr register_partition partition_rows(const column_masks& ordered,
                                                                   const partition_options& options = {}) {
  const int n = ordered.n;
  detail::expects(n >= 0 && n <= max_ryser_n, "partition_rows: n must be in [0, 64]");
  register_partition best;
  best.registers_per_thread = options.base_registers;
  best.threads_per_sm = resident_threads_per_sm(options.device, best.registers_per_thread);
  best.score = best.threads_per_sm / detail::positive_cost(n * options.global_register_ratio);
  int rows_needed = 0;
  double step_share = 0;
  double unflipped_share = 1;  // 2^−(c+1)
  for (int c = 0; c + 1 < n; ++c) {
    if (ordered.rows[c] != 0) {
      const int top = detail::highest_bit(ordered.rows[c]) + 1;
      rows_needed = top > rows_needed ? top : rows_needed;
    }
    unflipped_share /= 2;
    step_share = 1 - unflipped_share;
    const int registers = options.registers_per_value * rows_needed + options.base_registers;
    const int threads = resident_threads_per_sm(options.device, registers);
    if (threads == 0) break;  // longer prefixes need even more registers
    const double cost = rows_needed + unflipped_share * (n - rows_needed) * options.global_register_ratio;
    const double score = threads / detail::positive_cost(cost);
    if (score >= best.score) {
      best = register_partition{rows_needed, c, step_share, registers, threads, score};
    }
  }
  return best;
}

}  // namespace sparseperm
