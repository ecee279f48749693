#pragma once
// The type-level view of a generated matrix in Boost.Hana: the one header of the library that needs
// Boost (link sparseperm::hana, which brings it); a program that never includes it needs no Boost.
//
// sparseperm-gen writes a matrix as types (sparseperm::generated::NAME::matrix: a pattern of
// column<Rows...> packs and the values); these views turn them into Hana sequences for host code and
// static_asserts, so that facts about a matrix are checked by the compiler:
//
//   hana_view::columns<M>         hana::tuple_t<column<Rows...>...>: the columns as types
//   hana_view::column_sizes<M>    hana::tuple of hana::int_c<size>, one per column
//   hana_view::column_rows<C>     hana::tuple_c<int, Rows...> of one column type
//   hana_view::row_degrees<M>     hana::tuple of hana::int_c<degree>, one per row
//
//   #include <sparseperm/hana.cuh>
//   #include "domino.cuh"                          // sparseperm_add_matrix(my_program domino.mtx)
//   using M = sparseperm::generated::domino::matrix;
//   static_assert(boost::hana::sum<>(sparseperm::hana_view::column_sizes<M>) == boost::hana::int_c<82>);
//
// (Hana's algorithms and integral constants are host objects: device code uses the packs themselves
// with folds, as the generated kernels do.) examples/matrix_as_types.cpp is a compiled example.
#include <boost/hana.hpp>
#include <utility>

#include "matrix/pattern.cuh"

namespace sparseperm::hana_view {

namespace hana = boost::hana;

namespace detail {

template <int N, class... Columns>
constexpr auto columns_of(pattern<N, Columns...>) {
  return hana::tuple_t<Columns...>;
}

template <int... Rows>
constexpr auto rows_of(column<Rows...>) {
  return hana::tuple_c<int, Rows...>;
}

// How many of the columns hold row `Row`.
template <int Row, int N, int... Rows>
constexpr int count_row(column<Rows...>) {
  return ((Rows == Row ? 1 : 0) + ... + 0);
}
template <int Row, int N, class... Columns>
constexpr int row_degree(pattern<N, Columns...>) {
  return (count_row<Row, N>(Columns{}) + ... + 0);
}
template <class Pattern, int... Row>
constexpr auto row_degrees_of(std::integer_sequence<int, Row...>) {
  return hana::make_tuple(hana::int_c<row_degree<Row>(Pattern{})>...);
}

}  // namespace detail

template <CompileTimeMatrix M>
constexpr auto columns = detail::columns_of(typename M::pattern{});

template <class Column>
constexpr auto column_rows = detail::rows_of(Column{});

template <CompileTimeMatrix M>
constexpr auto column_sizes = hana::transform(columns<M>,
                                              [](auto column) { return hana::int_c<decltype(column)::type::size>; });

template <CompileTimeMatrix M>
constexpr auto row_degrees =
    detail::row_degrees_of<typename M::pattern>(std::make_integer_sequence<int, M::pattern::n>{});

}  // namespace sparseperm::hana_view
