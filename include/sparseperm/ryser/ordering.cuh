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
//   plan_cached_layout    gpu-cached (ryser/cached_loop.cuh): how many low Gray bits are unrolled at compile
//                         time, the cached partial products along the staircase, which rows stay
//                         in registers
//
// Column n−1 of the result is the one Nijenhuis–Wilf never flips (it is folded into x_0).
#include <cstdint>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/precondition.cuh"
#include "../matrix/column_masks.cuh"
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
  int register_rows = 0;           // k: rows [0, k) of x in registers, rows [k, n) in global memory
  int last_register_column = -1;   // c: the columns [0, c] touch register rows only
  double register_step_share = 0;  // share of Gray steps that flip a column ≤ c
  int registers_per_thread = 0;    // the estimate behind threads_per_sm
  int threads_per_sm = 0;
  double score = 0;  // threads_per_sm / estimated cost of a step: higher is better
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

// gpu-cached's plan. Inside an aligned block of B = 2^b Gray steps every step but the first flips a
// column j < b known at compile time, and those columns touch only the rows [0, r(j+1)) of the
// staircase. With Q_m = Π_{i ≥ r(m)} x[i] kept for m = 0..b, a flip of column j < b changes no row
// at or above r(j+1), so Q_j, .., Q_0 are rebuilt from Q_{j+1} with r(j+1) multiplications, and Q_0 is
// the term. The block's first step (a column ≥ b, picked at run time) rebuilds them all: n
// multiplications per B steps. Rows at or above r(b) change only on those steps, so the rows
// [k, n), k ≥ r(b), may live in global memory for the price of loading them there. With upper levels
// Q_(b+1), .., Q_(b+U) kept in global memory too, the first step of a block, a flip of column j ≥ b,
// rebuilds Q_min(j, b+U), .., Q_b from the level above it: r(j + 1) multiplications where it took n,
// and only the global rows below r(j + 1) loaded (half of those steps flip column b).
struct cached_options {
  int max_static_bits = 6;  // B ≤ 64 unrolled steps: code size and compile time stay small
  int registers_per_value = 2;
  int base_registers = 28;       // counters, addresses, the sum, the dispatch
  int saturating_threads = 512;  // resident threads per SM beyond which FP64 throughput no longer grows
  double step_overhead = 2;      // a static step besides its FP64 work: the term's sign and sum
  double dispatch_cost = 30;     // a run-time step: Gray arithmetic, the switch, the branch back
  double global_cost = 4;        // one global load or update, in FP64 operations
  device_model device = h100_sxm;
  bool split_rows = true;    // false (cpu-cached): x is one array, k = n, and the best layout is
                             // the cheapest (no registers or occupancy to count)
  int max_upper_levels = 0;  // U at most: levels above b kept in global memory (split rows only)
};

// cpu-cached's model: the same cost per step, all rows in one array.
inline constexpr cached_options cached_options_on_host{.split_rows = false};

struct cached_layout {
  int static_bits = 0;                // b
  int register_rows = 0;              // k: rows [0, k) of x in registers, [k, n) in global memory
  int upper_levels = 0;               // U: Q_(b+1), .., Q_(b+U) kept in global memory, r(b + U) < n
  int level_rows[max_ryser_n + 1]{};  // r(m), m = 0..n: the columns [0, m) touch only the rows [0, r(m))
  double multiplications = 0;         // predicted FP64 multiplications per Gray step
  double additions = 0;               // predicted FP64 additions per Gray step (updates and the sum)
  double global_accesses = 0;         // predicted global loads and updates per Gray step
  double cost = 0;                    // the model's cost of a step, in FP64 operations
  int registers_per_thread = 0;       // estimate
  int threads_per_sm = 0;
};

namespace detail {
// r(m) for m = 0..n: one past the highest row the first m columns touch.
SPARSEPERM_HOST_DEVICE constexpr void staircase_rows(const column_masks& ordered, int (&rows)[max_ryser_n + 1]) {
  rows[0] = 0;
  for (int m = 0; m < ordered.n; ++m) {
    const int top = ordered.rows[m] != 0 ? highest_bit(ordered.rows[m]) + 1 : 0;
    rows[m + 1] = top > rows[m] ? top : rows[m];
  }
}

// The same as a value, for a plan's constants.
struct staircase {
  int rows[max_ryser_n + 1]{};
};

SPARSEPERM_HOST_DEVICE constexpr staircase staircase_of(const column_masks& ordered) {
  staircase s;
  staircase_rows(ordered, s.rows);
  return s;
}

// The register estimate: k rows of x, b + 1 cached levels, the rest.
SPARSEPERM_HOST_DEVICE constexpr int cached_registers(const cached_options& options, int b, int k) {
  return options.registers_per_value * (k + b + 1) + options.base_registers;
}

SPARSEPERM_HOST_DEVICE constexpr cached_layout evaluate_cached_layout(const column_masks& ordered,
                                                                      const int (&staircase)[max_ryser_n + 1], int b,
                                                                      int k, const cached_options& options) {
  const int n = ordered.n;
  cached_layout layout;
  layout.static_bits = b;
  layout.register_rows = k;
  for (int m = 0; m <= n; ++m) layout.level_rows[m] = staircase[m];
  if (options.split_rows) {
    while (layout.upper_levels < options.max_upper_levels && b + layout.upper_levels + 1 < n &&
           staircase[b + layout.upper_levels + 1] < n) {
      ++layout.upper_levels;
    }
  }
  const int top = b + layout.upper_levels;  // the highest level a run-time step may rebuild
  double multiplications = 0, additions = 1, global = 0, overhead = 0;
  double share = 1;
  for (int j = 0; j < b; ++j) {  // static steps: column j on a 2^−(j+1) share
    share /= 2;
    multiplications += share * staircase[j + 1];
    additions += share * ordered.degree(j);
    overhead += share * options.step_overhead;
  }
  const double dynamic_share = share;  // 2^−b: the block's first step, column b + ctz(block)
  double column_share = 1, below_top = 0;
  for (int j = b; j + 1 < n; ++j) {
    column_share /= 2;
    const int in_global = k < n ? popcount(ordered.rows[j] >> k) : 0;
    additions += dynamic_share * column_share * (ordered.degree(j) - in_global);
    global += dynamic_share * column_share * 2 * in_global;  // load and store
    if (j < top) {  // the rows [r(b), r(j + 1)) times Q_(j+1) (loaded); Q_j, .., Q_(b+1) stored
      const int low = staircase[b] > k ? staircase[b] : k;
      const int rows_in_global = staircase[j + 1] > low ? staircase[j + 1] - low : 0;
      multiplications += dynamic_share * column_share * (staircase[j + 1] - staircase[b] + 1);
      global += dynamic_share * column_share * (rows_in_global + 1 + (j - b));
      below_top += column_share;
    }
  }
  // the other run-time steps: every row at or above r(b), Q_top, .., Q_(b+1) stored; every one: the
  // levels below b
  multiplications += dynamic_share * ((1 - below_top) * (n - staircase[b]) + staircase[b]);
  global += dynamic_share * (1 - below_top) * (n - k + (top - b));
  overhead += dynamic_share * options.dispatch_cost;
  layout.multiplications = multiplications;
  layout.additions = additions;
  layout.global_accesses = global;
  layout.cost = multiplications + additions + overhead + global * options.global_cost;
  layout.registers_per_thread = cached_registers(options, b, k);
  layout.threads_per_sm = resident_threads_per_sm(options.device, layout.registers_per_thread);
  return layout;
}

SPARSEPERM_HOST_DEVICE constexpr double cached_score(const cached_layout& layout, const cached_options& options) {
  if (!options.split_rows) return 1 / positive_cost(layout.cost);
  const int threads =
      layout.threads_per_sm < options.saturating_threads ? layout.threads_per_sm : options.saturating_threads;
  return threads / positive_cost(layout.cost);
}
}  // namespace detail

// The layout with the best modelled throughput over b = 0..min(n − 1, max_static_bits) and, for each
// b, k = n or the largest k ≥ r(b) that keeps saturating_threads resident. Forced values (≥ 0)
// replace the search (tests use them to cover every shape).
SPARSEPERM_HOST_DEVICE constexpr cached_layout plan_cached_layout(const column_masks& ordered,
                                                                  const cached_options& options = {},
                                                                  int forced_static_bits = -1,
                                                                  int forced_register_rows = -1) {
  const int n = ordered.n;
  detail::expects(n >= 0 && n <= max_ryser_n, "plan_cached_layout: n must be in [0, 64]");
  int staircase[max_ryser_n + 1]{};
  detail::staircase_rows(ordered, staircase);
  const int max_bits = n > 0 ? (n - 1 < options.max_static_bits ? n - 1 : options.max_static_bits) : 0;
  cached_layout best;
  double best_score = -1;
  for (int b = 0; b <= max_bits; ++b) {
    if (forced_static_bits >= 0 && b != (forced_static_bits < max_bits ? forced_static_bits : max_bits)) continue;
    int candidates[2] = {n, staircase[b]};
    int candidate_count = 2;
    if (!options.split_rows) {
      candidate_count = 1;
    } else if (forced_register_rows >= 0) {
      candidates[0] =
          forced_register_rows < staircase[b] ? staircase[b] : (forced_register_rows > n ? n : forced_register_rows);
      candidate_count = 1;
    } else {
      for (int k = n; k > staircase[b]; --k) {  // the most register rows that keep the saturating occupancy
        if (resident_threads_per_sm(options.device, detail::cached_registers(options, b, k)) >=
            options.saturating_threads) {
          candidates[1] = k;
          break;
        }
      }
    }
    for (int c = 0; c < candidate_count; ++c) {
      const int k = candidates[c];
      const cached_layout layout = detail::evaluate_cached_layout(ordered, staircase, b, k, options);
      if (options.split_rows && layout.threads_per_sm == 0 && k > staircase[b]) continue;
      const double score = detail::cached_score(layout, options);
      if (score > best_score) {
        best = layout;
        best_score = score;
      }
    }
  }
  return best;
}

}  // namespace sparseperm
