#pragma once
// The one file that includes Boost.Hana: type-level views of a generated matrix for host code and
// static_asserts. (Hana's algorithms are host objects: device code uses plain packs and folds.)
//
//   pattern_columns<M>   hana::tuple_t<column<Rows...>...>: the columns as types
//   column_sizes<M>      hana::tuple of hana::int_c<size> per column
//   column_rows<C>       hana::tuple of hana::int_c<row> for one column type
#include <boost/hana.hpp>

#include "pattern.cuh"

namespace sparseperm::detail {

namespace hana = boost::hana;

template <int N, class... Columns>
constexpr auto columns_of(pattern<N, Columns...>) {
  return hana::tuple_t<Columns...>;
}

template <CompileTimeMatrix M>
constexpr auto pattern_columns = columns_of(typename M::pattern{});

template <int... Rows>
constexpr auto rows_of(column<Rows...>) {
  return hana::tuple_c<int, Rows...>;
}

template <class Column>
constexpr auto column_rows = rows_of(Column{});

template <CompileTimeMatrix M>
constexpr auto column_sizes = hana::transform(pattern_columns<M>,
                                              [](auto column) { return hana::int_c<decltype(column)::type::size>; });

}  // namespace sparseperm::detail
