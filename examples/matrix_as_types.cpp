// A generated matrix seen as types through Boost.Hana (<sparseperm/hana.cuh>): facts about the
// domino board's matrix checked by the compiler (building this example is the first half of its
// test), then printed. sparseperm_add_matrix() in CMake runs sparseperm-gen on data/domino_8x6.mtx,
// and the program links sparseperm::hana, which brings Boost:
//
//   sparseperm_add_matrix(example_matrix_as_types data/domino_8x6.mtx)
//   target_link_libraries(example_matrix_as_types PRIVATE sparseperm::sparseperm sparseperm::hana)
//
// Exit codes: 0 success, 1 a wrong count.
#include <sparseperm/engines/dp.cuh>
#include <sparseperm/hana.cuh>
#include <sparseperm/module/codegen.cuh>

#include <cstdio>

#include "domino_8x6.cuh"  // written at build time: sparseperm::generated::domino_8x6::matrix

namespace hana = boost::hana;
namespace view = sparseperm::hana_view;
using board = sparseperm::generated::domino_8x6::matrix;

// The 8 x 6 board has 24 black and 24 white squares: a 24 x 24 matrix, a column per white square.
static_assert(hana::length(view::columns<board>) == hana::size_c<24>);
// Each nonzero is a domino's place: 2 · 8 · 6 − 8 − 6 = 82 of them, counted over the columns and the rows.
static_assert(hana::sum<>(view::column_sizes<board>) == hana::int_c<82>);
static_assert(hana::sum<>(view::row_degrees<board>) == hana::int_c<board::pattern::nnz>);
// A square touches 2 to 4 others: corners 2, edges 3, the inside 4.
static_assert(hana::all_of(view::column_sizes<board>,
                           [](auto d) { return d >= hana::int_c<2> && d <= hana::int_c<4>; }));
static_assert(hana::all_of(view::row_degrees<board>,
                           [](auto d) { return d >= hana::int_c<2> && d <= hana::int_c<4>; }));
// The rows of a column are types too: every column's rows ascend (the generator sorts them).
static_assert(hana::all_of(view::columns<board>, [](auto c) {
  using column = typename decltype(c)::type;
  return hana::bool_c < column::size <= 1 ||
         hana::minimum(view::column_rows<column>)<hana::maximum(view::column_rows<column>)>;
}));

int main() {
  std::printf("column sizes:");
  hana::for_each(view::column_sizes<board>, [](auto size) { std::printf(" %d", decltype(size)::value); });
  std::printf("\nrows of the first column:");
  hana::for_each(view::column_rows<decltype(+view::columns<board>[hana::size_c<0>])::type>,
                 [](auto row) { std::printf(" %d", decltype(row)::value); });
  const sparseperm::permanent_result r = sparseperm::permanent_dp(sparseperm::to_sparse_matrix<board>());
  std::printf("\n%s domino tilings of the 8 x 6 board (%s)\n", r.permanent.c_str(), r.engine.c_str());
  return r.permanent == "167089" ? 0 : 1;
}
