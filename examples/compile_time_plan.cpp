// The compile-time building blocks: a sparsity pattern known to the compiler, its permanent
// ordering (Algorithm 3), register partition (Algorithm 4) and launch plan (Algorithm 2), all
// computed by constexpr functions and checked with static_assert before the program exists.
#include <sparseperm/perm.cuh>

#include <cstdio>
#include <utility>

namespace sp = sparseperm;

// A 6 × 6 pattern: a band with two extra entries. (row, column), 0-based.
constexpr std::pair<int, int> entries[] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 2}, {2, 3},
                                           {3, 3}, {4, 3}, {3, 4}, {4, 4}, {5, 4}, {4, 5}, {5, 5}, {0, 5}, {5, 0}};
constexpr sp::column_masks pattern = sp::make_column_masks(6, entries);
constexpr sp::permanent_ordering_plan ordering = sp::permanent_ordering(pattern);
constexpr sp::column_masks staircase = sp::reorder(pattern, ordering.order);
constexpr sp::register_partition partition = sp::partition_rows(staircase);
constexpr sp::launch_plan launches = sp::generate_launch_parameters(6, 4, 8);

// What the compiler has proved: the first m columns touch exactly rows [0, r(m)) ...
static_assert([] {
  std::uint64_t seen = 0;
  for (int m = 1; m <= 6; ++m) {
    seen |= staircase.rows[m - 1];
    if (seen != sp::detail::low_mask(ordering.rows_touched[m])) return false;
  }
  return true;
}());
// ... the register columns touch register rows only ...
static_assert((staircase.rows[0] & ~sp::detail::low_mask(partition.register_rows)) == 0);
// ... and the launches cover the 2^5 − 1 Gray steps of a 6 × 6 matrix.
static_assert(launches[launches.count - 1].end_step == 32);

int main() {
  std::printf("permanent ordering, columns:");
  for (int j = 0; j < 6; ++j) std::printf(" %d", ordering.order.columns[j]);
  std::printf("\nrows touched by the first m columns:");
  for (int m = 1; m <= 6; ++m) std::printf(" %d", ordering.rows_touched[m]);
  std::printf("\nregister rows k = %d, register columns 0..%d (%.1f%% of the steps)\n", partition.register_rows,
              partition.last_register_column, 100 * partition.register_step_share);
  for (int k = 0; k < launches.count; ++k) {
    std::printf(
        "launch %d: steps [%llu, %llu), chunk %llu, %llu threads\n", k + 1,
        static_cast<unsigned long long>(launches[k].first_step), static_cast<unsigned long long>(launches[k].end_step),
        static_cast<unsigned long long>(launches[k].chunk), static_cast<unsigned long long>(launches[k].threads));
  }
  return 0;
}
