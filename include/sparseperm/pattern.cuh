#pragma once
// The compile-time matrix: a generated header describes a matrix as types.
//
//   entry<Row, Value>               one nonzero: its 0-based row and its value (a double NTTP,
//                                   written as an exact hexadecimal literal by sparseperm-gen)
//   column<Entries...>              a column's nonzeros, rows strictly increasing
//   pattern<N, Columns...>          N columns of an N×N matrix
//
// A generated header wraps the pattern in a named type (kernels must be templated on named types:
// nvcc's host stubs cannot spell class-type template arguments):
//
//   namespace sparseperm::generated::NAME {
//   struct matrix { static constexpr const char* name = "NAME"; using pattern = sparseperm::pattern<...>; };
//   }
//
// pattern_constants<Pattern> turns the types into constexpr arrays (CSC) that the orderings, the
// plans and the host code read; the kernels read single entries through scalar static members
// (plan_access.cuh), which device code may use.
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "column_masks.cuh"
#include "config.cuh"
#include "detail/bits.cuh"

namespace sparseperm {

template <int Row, double Value>
struct entry {
  static_assert(Row >= 0, "sparseperm::entry<Row, Value>: Row must be >= 0");
  static_assert(Value != 0, "sparseperm::entry<Row, Value>: a stored zero is not a nonzero; leave it out");
  static_assert(Value == Value && Value - Value == 0, "sparseperm::entry<Row, Value>: Value must be finite");
  static constexpr int row = Row;
  static constexpr double value = Value;
};

namespace detail {
template <class T>
inline constexpr bool is_entry = false;
template <int Row, double Value>
inline constexpr bool is_entry<entry<Row, Value>> = true;

template <class... Entries>
constexpr bool rows_strictly_increasing() {
  const int rows[] = {-1, Entries::row...};
  for (std::size_t k = 1; k < sizeof...(Entries) + 1; ++k) {
    if (rows[k] <= rows[k - 1]) return false;
  }
  return true;
}
}  // namespace detail

template <class... Entries>
struct column {
  static_assert((detail::is_entry<Entries> && ...), "sparseperm::column<Entries...>: every argument must be a sparseperm::entry");
  static_assert(detail::rows_strictly_increasing<Entries...>(),
                "sparseperm::column<Entries...>: rows must be strictly increasing (sorted, no duplicate entries)");
  static constexpr int size = sizeof...(Entries);
  static constexpr int max_row = [] {
    int top = -1;
    ((top = Entries::row > top ? Entries::row : top), ...);
    return top;
  }();
};

namespace detail {
template <class T>
inline constexpr bool is_column = false;
template <class... Entries>
inline constexpr bool is_column<column<Entries...>> = true;
}  // namespace detail

template <int N, class... Columns>
struct pattern {
  static_assert(N >= 0, "sparseperm::pattern<N, Columns...>: N must be >= 0");
  static_assert(sizeof...(Columns) == static_cast<std::size_t>(N),
                "sparseperm::pattern<N, Columns...>: a square matrix needs exactly N columns");
  static_assert((detail::is_column<Columns> && ...), "sparseperm::pattern<N, Columns...>: every column must be a sparseperm::column");
  static_assert(((Columns::max_row < N) && ...), "sparseperm::pattern<N, Columns...>: a row index is not below N");
  static constexpr int n = N;
  static constexpr int nnz = (0 + ... + Columns::size);
};

namespace detail {
template <class T>
inline constexpr bool is_pattern = false;
template <int N, class... Columns>
inline constexpr bool is_pattern<pattern<N, Columns...>> = true;
}  // namespace detail

// A generated matrix: a named type with a `pattern`.
template <class M>
concept CompileTimeMatrix = requires { typename M::pattern; } && detail::is_pattern<typename M::pattern>;

// The pattern as constexpr CSC arrays (sizes at least 1, so that empty matrices still compile).
template <int N, int NNZ>
struct pattern_arrays {
  int n = N;
  int nnz = NNZ;
  int start[N + 1]{};
  int rows[NNZ > 0 ? NNZ : 1]{};
  double values[NNZ > 0 ? NNZ : 1]{};

  constexpr bool integer_values() const {
    for (int k = 0; k < NNZ; ++k) {
      const double v = values[k];
      if (v > max_exact_integer_double || v < -max_exact_integer_double) return false;
      if (static_cast<double>(static_cast<std::int64_t>(v)) != v) return false;
    }
    return true;
  }

  // Row bitmasks of the pattern (n ≤ 64).
  constexpr column_masks masks() const {
    column_masks m;
    m.n = N;
    for (int j = 0; j < N; ++j) {
      for (int k = start[j]; k < start[j + 1]; ++k) m.rows[j] |= std::uint64_t{1} << rows[k];
    }
    return m;
  }

  static constexpr double max_exact_integer_double = 9007199254740992.0;  // 2^53
};

template <class Pattern>
struct pattern_constants;

template <int N, class... Columns>
struct pattern_constants<pattern<N, Columns...>> {
  using arrays = pattern_arrays<N, pattern<N, Columns...>::nnz>;
  static constexpr arrays value = [] {
    arrays a;
    int at = 0;
    int j = 0;
    auto add_column = [&]<class... Entries>(column<Entries...>) {
      a.start[j++] = at;
      ((a.rows[at] = Entries::row, a.values[at] = Entries::value, ++at), ...);
    };
    (add_column(Columns{}), ...);
    a.start[N] = at;
    return a;
  }();
};

template <CompileTimeMatrix M>
inline constexpr const auto& constants_of = pattern_constants<typename M::pattern>::value;

}  // namespace sparseperm
