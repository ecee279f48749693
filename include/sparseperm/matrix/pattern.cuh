#pragma once
// The compile-time matrix: a generated header describes a matrix as types and constants.
//
//   column<Rows...>          the 0-based row indices of one column's nonzeros, strictly increasing
//   pattern<N, Columns...>   the N columns of an N×N matrix
//
// and beside the pattern, the values in the same order (column by column), as exact hexadecimal
// literals. A generated header wraps both in a named type (kernels must be templated on named types:
// nvcc's host stubs cannot spell class-type template arguments):
//
//   namespace sparseperm::generated::NAME {
//   struct matrix {
//     static constexpr const char* name = "NAME";
//     using pattern = sparseperm::pattern<3, sparseperm::column<0, 1>, sparseperm::column<2>, ...>;
//     static constexpr double values[] = {0x1.999999999999ap-4, -0x1.8p+1, 0x1.4p+1, ...};
//     static constexpr double imag_values[] = {...};  // complex matrices only: the imaginary parts
//   };
//   }
//
// Row-index packs and a plain array keep nvcc fast (a type per value was three times slower to
// compile). constants_of<M> turns them into constexpr CSC arrays that the orderings, the plans and
// the host code read; kernels read single entries through scalar static members (ryser_plan.cuh),
// which device code may use.
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "column_masks.cuh"

namespace sparseperm {

namespace detail {
template <int... Rows>
constexpr bool rows_strictly_increasing() {
  const int rows[] = {-1, Rows...};
  for (std::size_t k = 1; k < sizeof...(Rows) + 1; ++k) {
    if (rows[k] <= rows[k - 1]) return false;
  }
  return true;
}
}  // namespace detail

template <int... Rows>
struct column {
  static_assert(((Rows >= 0) && ...), "sparseperm::column<Rows...>: row indices must be >= 0");
  static_assert(detail::rows_strictly_increasing<Rows...>(),
                "sparseperm::column<Rows...>: rows must be strictly increasing (sorted, no duplicate entries)");
  static constexpr int size = sizeof...(Rows);
  static constexpr int max_row = [] {
    int top = -1;
    ((top = Rows > top ? Rows : top), ...);
    return top;
  }();
};

namespace detail {
template <class T>
inline constexpr bool is_column = false;
template <int... Rows>
inline constexpr bool is_column<column<Rows...>> = true;
}  // namespace detail

template <int N, class... Columns>
struct pattern {
  static_assert(N >= 0, "sparseperm::pattern<N, Columns...>: N must be >= 0");
  static_assert(sizeof...(Columns) == static_cast<std::size_t>(N),
                "sparseperm::pattern<N, Columns...>: a square matrix needs exactly N columns");
  static_assert((detail::is_column<Columns> && ...),
                "sparseperm::pattern<N, Columns...>: every column must be a sparseperm::column");
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

namespace detail {
// A complex matrix type has `imag_values` beside `values`, the imaginary parts in the same order.
template <class M>
inline constexpr bool has_imag_values = requires {
  { M::imag_values[0] } -> std::convertible_to<double>;
};
template <class M>
constexpr bool imag_values_match() {
  if constexpr (has_imag_values<M>) {
    return sizeof(M::imag_values) / sizeof(M::imag_values[0]) == sizeof(M::values) / sizeof(M::values[0]);
  } else {
    return true;
  }
}
}  // namespace detail

// A generated matrix: a named type with a `pattern` and its `values`, one per nonzero (an array of
// one unused value when there are none); a complex one also has `imag_values`, as many.
template <class M>
concept CompileTimeMatrix = requires {
  typename M::pattern;
}
&&detail::is_pattern<typename M::pattern>&& requires {
  { M::values[0] } -> std::convertible_to<double>;
}
&&sizeof(M::values) / sizeof(M::values[0]) == static_cast<std::size_t>(M::pattern::nnz > 0 ? M::pattern::nnz : 1) &&
    detail::imag_values_match<M>();

// Is a generated matrix complex (it has imaginary parts)?
template <CompileTimeMatrix M>
inline constexpr bool is_complex_matrix = detail::has_imag_values<M>;

// The pattern as constexpr CSC arrays (sizes at least 1, so that empty matrices still compile).
template <int N, int NNZ>
struct pattern_arrays {
  int n = N;
  int nnz = NNZ;
  int start[N + 1]{};
  int rows[NNZ > 0 ? NNZ : 1]{};
  double values[NNZ > 0 ? NNZ : 1]{};
  double imag[NNZ > 0 ? NNZ : 1]{};  // the imaginary parts (all 0 for a real matrix)
  bool complex = false;

  // Integers (Gaussian integers for a complex matrix), each part at most 2^53.
  constexpr bool integer_values() const {
    const auto integer = [](double v) {
      return v <= max_exact_integer_double && v >= -max_exact_integer_double &&
             static_cast<double>(static_cast<std::int64_t>(v)) == v;
    };
    for (int k = 0; k < NNZ; ++k) {
      if (!integer(values[k]) || !integer(imag[k])) return false;
    }
    return true;
  }

  // |re| + |im| of entry k: bounds its modulus and each part.
  constexpr double l1(int k) const {
    return (values[k] < 0 ? -values[k] : values[k]) + (imag[k] < 0 ? -imag[k] : imag[k]);
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

namespace detail {
// (Plain function templates: nvcc's front end does not take template lambdas with non-type packs.)
template <class M, class Arrays, int... Rows>
constexpr void add_column(Arrays& a, int& at, int& j, column<Rows...>) {
  a.start[j++] = at;
  if constexpr (has_imag_values<M>) {
    ((a.rows[at] = Rows, a.values[at] = M::values[at], a.imag[at] = M::imag_values[at], ++at), ...);
  } else {
    ((a.rows[at] = Rows, a.values[at] = M::values[at], ++at), ...);
  }
}

template <class M, int N, class... Columns>
constexpr pattern_arrays<N, pattern<N, Columns...>::nnz> make_constants(pattern<N, Columns...>) {
  pattern_arrays<N, pattern<N, Columns...>::nnz> a;
  a.complex = has_imag_values<M>;
  int at = 0;
  int j = 0;
  (add_column<M>(a, at, j, Columns{}), ...);
  a.start[N] = at;
  return a;
}

template <int N, int NNZ>
constexpr bool finite_nonzero_values(const pattern_arrays<N, NNZ>& a) {
  for (int k = 0; k < NNZ; ++k) {
    const double v = a.values[k], w = a.imag[k];
    if ((v == 0 && w == 0) || v != v || v - v != 0 || w != w || w - w != 0) return false;
  }
  return true;
}
}  // namespace detail

// The arrays of a matrix type: rows from the pattern, values from M::values and M::imag_values
// (checked: finite, not both parts 0).
template <CompileTimeMatrix M>
struct matrix_constants {
  static constexpr auto value = detail::make_constants<M>(typename M::pattern{});
  static_assert(detail::finite_nonzero_values(value),
                "sparseperm: a matrix's values must be finite and nonzero (a stored zero is not a nonzero)");
};

template <CompileTimeMatrix M>
inline constexpr const auto& constants_of = matrix_constants<M>::value;

}  // namespace sparseperm
