// Static tests of the orderings (Algorithm 3), the partition (Algorithm 4) and the occupancy model.
#include <sparseperm/ryser/ordering.cuh>

#include <array>
#include <cstdint>
#include <utility>

namespace sp = sparseperm;

// col 0: rows {0,1,2}; col 1: {1}; col 2: {1,3}; col 3: {0,2,3}
constexpr std::pair<int, int> small_entries[] = {{0, 0}, {1, 0}, {2, 0}, {1, 1}, {1, 2},
                                                 {3, 2}, {0, 3}, {2, 3}, {3, 3}};
constexpr sp::column_masks small = sp::make_column_masks(4, small_entries);
static_assert(small.degree(0) == 3 && small.degree(1) == 1 && small.degree(2) == 2 && small.nnz() == 9);
static_assert(small.row_degree(1) == 3 && small.contains(3, 2) && !small.contains(0, 1));

// Degree sort: 1 (degree 1), 2 (degree 2), 0 and 3 (degree 3, index order).
constexpr sp::matrix_order by_degree = sp::degree_sorted_order(small);
static_assert(by_degree.columns[0] == 1 && by_degree.columns[1] == 2 && by_degree.columns[2] == 0 &&
              by_degree.columns[3] == 3);

// Algorithm 3 by hand: column 1 brings row 1; column 2 brings row 3; columns 0 and 3 each bring
// rows {0, 2}: the tie goes to 0; column 3 brings nothing new.
constexpr sp::permanent_ordering_plan ordered = sp::permanent_ordering(small);
static_assert(ordered.order.columns[0] == 1 && ordered.order.columns[1] == 2 && ordered.order.columns[2] == 0 &&
              ordered.order.columns[3] == 3);
static_assert(ordered.order.rows[0] == 1 && ordered.order.rows[1] == 3 && ordered.order.rows[2] == 0 &&
              ordered.order.rows[3] == 2);
static_assert(ordered.rows_touched[0] == 0 && ordered.rows_touched[1] == 1 && ordered.rows_touched[2] == 2 &&
              ordered.rows_touched[3] == 4 && ordered.rows_touched[4] == 4);

constexpr sp::column_masks staircase = sp::reorder(small, ordered.order);
static_assert(staircase.rows[0] == 0b0001 && staircase.rows[1] == 0b0011 && staircase.rows[2] == 0b1101 &&
              staircase.rows[3] == 0b1110);

// The staircase property: the first m columns touch exactly the rows [0, r(m)).
constexpr bool is_staircase(const sp::column_masks& pattern) {
  const sp::permanent_ordering_plan plan = sp::permanent_ordering(pattern);
  const sp::column_masks reordered = sp::reorder(pattern, plan.order);
  std::uint64_t seen = 0;
  for (int m = 1; m <= pattern.n; ++m) {
    seen |= reordered.rows[m - 1];
    if (seen != sp::detail::low_mask(plan.rows_touched[m])) return false;
  }
  return reordered.nnz() == pattern.nnz();
}
static_assert(is_staircase(small));

// A deterministic pseudo-random 40×40 pattern (about 20% dense) for property checks.
constexpr sp::column_masks pseudo_random_pattern(int n, std::uint64_t seed, int percent) {
  sp::column_masks pattern;
  pattern.n = n;
  std::uint64_t state = seed;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      if ((state >> 33) % 100 < static_cast<std::uint64_t>(percent)) pattern.rows[j] |= std::uint64_t{1} << i;
    }
  }
  return pattern;
}
static_assert(is_staircase(pseudo_random_pattern(40, 7, 20)));
static_assert(is_staircase(pseudo_random_pattern(64, 11, 10)));

// Occupancy: 32 registers fill the SM, 64 halve it, 255 leave 8 warps; more than 255 do not fit.
static_assert(sp::resident_threads_per_sm(sp::h100_sxm, 32) == 2048);
static_assert(sp::resident_threads_per_sm(sp::h100_sxm, 64) == 1024);
static_assert(sp::resident_threads_per_sm(sp::h100_sxm, 255) == 256);
static_assert(sp::resident_threads_per_sm(sp::h100_sxm, 256) == 0);

// Algorithm 4: the register columns touch register rows only, and the estimate fits the device.
constexpr bool partition_is_consistent(const sp::column_masks& pattern, double ratio) {
  const sp::column_masks reordered = sp::reorder(pattern, sp::permanent_ordering(pattern).order);
  sp::partition_options options;
  options.global_register_ratio = ratio;
  const sp::register_partition p = sp::partition_rows(reordered, options);
  if (p.register_rows < 0 || p.register_rows > pattern.n) return false;
  if (p.last_register_column < -1 || p.last_register_column > pattern.n - 2) return false;
  for (int j = 0; j <= p.last_register_column; ++j) {
    if ((reordered.rows[j] & ~sp::detail::low_mask(p.register_rows)) != 0) return false;
  }
  return p.threads_per_sm > 0 && p.registers_per_thread <= 255;
}
static_assert(partition_is_consistent(pseudo_random_pattern(40, 7, 20), 16));
static_assert(partition_is_consistent(pseudo_random_pattern(48, 3, 50), 16));
static_assert(partition_is_consistent(small, 16));

// When global memory is free, keeping no row in registers maximises threads; when it is very
// expensive, every row that fits goes to registers.
static_assert(sp::partition_rows(pseudo_random_pattern(40, 7, 20), {.global_register_ratio = 0}).register_rows == 0);
constexpr sp::column_masks ordered40 =
    sp::reorder(pseudo_random_pattern(40, 7, 20), sp::permanent_ordering(pseudo_random_pattern(40, 7, 20)).order);
static_assert(sp::partition_rows(ordered40, {.global_register_ratio = 1e12}).last_register_column == 38);

// gpu-cached's layout: on the 4 x 4 identity (r(m) = m) with b = 2 forced and every row in
// registers, a step costs Σ_{j<2} 2^−(j+1)·r(j+1) + 2^−2·n = 0.5 + 0.5 + 1 multiplications and
// 1 (the sum) + 0.5 + 0.25 + 2^−2·(1/2·1) additions.
constexpr sp::column_masks diagonal4 =
    sp::make_column_masks(4, std::array<std::pair<int, int>, 4>{{{0, 0}, {1, 1}, {2, 2}, {3, 3}}});
constexpr sp::cached_layout diagonal_layout = sp::plan_cached_layout(diagonal4, {}, 2, 4);
static_assert(diagonal_layout.static_bits == 2 && diagonal_layout.register_rows == 4);
static_assert(diagonal_layout.level_rows[0] == 0 && diagonal_layout.level_rows[1] == 1 &&
              diagonal_layout.level_rows[2] == 2);
static_assert(diagonal_layout.multiplications == 2.0 && diagonal_layout.additions == 1.875);
// Forced values are clamped: b ≤ n − 1, k ≥ r(b).
static_assert(sp::plan_cached_layout(diagonal4, {}, 9, 0).static_bits == 3);
static_assert(sp::plan_cached_layout(diagonal4, {}, 9, 0).register_rows == 3);
// The model's own choice keeps the static steps on register rows and fits the device.
constexpr bool cached_layout_is_consistent(const sp::column_masks& pattern) {
  const sp::column_masks ordered = sp::reorder(pattern, sp::permanent_ordering(pattern).order);
  const sp::cached_layout l = sp::plan_cached_layout(ordered);
  if (l.static_bits < 0 || l.static_bits > 6 || l.static_bits > pattern.n - 1) return false;
  for (int j = 0; j < l.static_bits; ++j) {
    if ((ordered.rows[j] & ~sp::detail::low_mask(l.register_rows)) != 0) return false;
  }
  return l.level_rows[l.static_bits] <= l.register_rows && l.threads_per_sm > 0;
}
static_assert(cached_layout_is_consistent(pseudo_random_pattern(40, 7, 20)));
static_assert(cached_layout_is_consistent(pseudo_random_pattern(48, 3, 50)));
static_assert(cached_layout_is_consistent(small));
// cpu-cached's model: every row in one array (k = n, even where a k is forced), and the cheapest b,
// which no other b undercuts.
constexpr bool host_layout_is_cheapest(const sp::column_masks& pattern) {
  const sp::column_masks ordered = sp::reorder(pattern, sp::permanent_ordering(pattern).order);
  const sp::cached_layout l = sp::plan_cached_layout(ordered, sp::cached_options_on_host);
  if (l.register_rows != pattern.n || l.global_accesses != 0) return false;
  for (int b = 0; b <= 6 && b < pattern.n; ++b) {
    const sp::cached_layout other = sp::plan_cached_layout(ordered, sp::cached_options_on_host, b, 0);
    if (other.register_rows != pattern.n || other.cost < l.cost) return false;
  }
  return true;
}
static_assert(host_layout_is_cheapest(pseudo_random_pattern(40, 7, 20)));
static_assert(host_layout_is_cheapest(pseudo_random_pattern(48, 3, 50)));
static_assert(host_layout_is_cheapest(small));
