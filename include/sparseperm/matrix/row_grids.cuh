#pragma once
// Row sums and row grids: the matrix's side of the error bounds of numeric/error_bound.cuh.
//
// A floating run that rounds each value to its row's grid (a power of two at least the row's
// Σ_j |a_ij|) keeps every partial row sum exact, so its bound needs only the products' roundings
// and what the rounding to the grids changed. The run-time matrices (sparse_matrix) and the
// compile-time ones (matrix types, pattern.cuh) have the same grids.
//
//   row_abs_sums, row_l1_sums      per row Σ_j |a_ij| (the modulus) and Σ_j (|re| + |im|)
//   row_grids_of<T>(matrix)        the run-time grids, T the floating type (long double for `reference`)
//   perturbation_builder(m, rho)   what changing row i by rho(i) relatively does to the permanent
//   split_row_grids_of(matrix)     two grids a row: values held exactly as coarse + fine (split_value)
//   row_grid_refusal(matrix)       why no run on row grids can certify this matrix, or nothing
//   grid_exponents_of, grid_value, grid_facts_of    the same for a matrix type, in constant evaluation
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../numeric/complex.cuh"
#include "../numeric/error_bound.cuh"
#include "pattern.cuh"
#include "sparse_matrix.cuh"

namespace sparseperm::detail {

// Per row Σ_j |a_ij|, |a| the modulus for complex matrices (bounds for perm(|A|)).
inline std::vector<double> row_abs_sums(const sparse_matrix& matrix) {
  std::vector<double> sums(static_cast<std::size_t>(matrix.n()), 0.0);
  for (int i = 0; i < matrix.n(); ++i) {
    const auto re = matrix.row_values(i);
    const auto im = matrix.row_imag(i);
    for (std::size_t k = 0; k < re.size(); ++k) sums[i] += im.empty() ? std::fabs(re[k]) : std::hypot(re[k], im[k]);
  }
  return sums;
}

// Per row Σ_j (|re a_ij| + |im a_ij|): bounds each part's row sum, and the modulus's.
inline std::vector<double> row_l1_sums(const sparse_matrix& matrix) {
  std::vector<double> sums(static_cast<std::size_t>(matrix.n()), 0.0);
  for (int i = 0; i < matrix.n(); ++i) {
    for (double v : matrix.row_values(i)) sums[i] += std::fabs(v);
    for (double v : matrix.row_imag(i)) sums[i] += std::fabs(v);
  }
  return sums;
}

// The row grids of a run-time matrix and what rounding to them changes (grid_facts_of,
// below, for the run-time engines). T: the floating type (long double for `reference`).
template <class T = double>
struct row_grids {
  std::vector<int> exponent;  // per row
  bool representable = true;
  grid_rounding_facts facts;
  T value(int row, double v) const {
    return representable ? round_to_grid<T>(static_cast<T>(v), exponent[row]) : static_cast<T>(v);
  }
  complex_number<T> value(int row, double re, double im) const { return {value(row, re), value(row, im)}; }
};

// What changing row i of `matrix` by at most rho(i) relatively does to its permanent (error_bound.cuh's
// grid_rounding_builder, fed the row and column sums of |a_ij|): the row grids' rounding here, the
// rounding of a file's values on reading in compute.cuh. `widen` (≥ 1) scales the sums where they
// must bound values other than the ones held.
template <class Rho>
grid_rounding_builder perturbation_builder(const sparse_matrix& matrix, const Rho& rho, double widen = 1) {
  grid_rounding_builder b;
  const bool complex = matrix.is_complex();  // |a| the modulus; never "nonnegative"
  for (int i = 0; i < matrix.n(); ++i) {
    double sum = 0;
    bool negative = complex;
    const auto im = matrix.row_imag(i);
    const auto re = matrix.row_values(i);
    for (std::size_t k = 0; k < re.size(); ++k) {
      sum += complex ? std::hypot(re[k], im[k]) : std::fabs(re[k]);
      negative = negative || re[k] < 0;
    }
    b.row(rho(i), sum * widen * (complex ? bound_margin : 1), negative);
  }
  for (int j = 0; j < matrix.n(); ++j) {
    double sum = 0;
    const auto im = matrix.column_imag(j);
    const auto re = matrix.column_values(j);
    for (std::size_t k = 0; k < re.size(); ++k) sum += complex ? std::hypot(re[k], im[k]) : std::fabs(re[k]);
    b.column(sum * widen * (complex ? bound_margin : 1));
  }
  return b;
}

template <class T = double>
row_grids<T> row_grids_of(const sparse_matrix& matrix) {
  const int n = matrix.n();
  row_grids<T> g;
  g.exponent.resize(n);
  const std::vector<double> sums = row_l1_sums(matrix);  // real matrices: Σ|a_ij|
  for (int i = 0; i < n; ++i) {
    g.exponent[i] = grid_exponent(sums[i]);
    g.representable = g.representable && g.exponent[i] <= max_grid_exponent;
  }
  grid_rounding_builder b = perturbation_builder(matrix, [&](int i) {
    double rho = 0;
    const auto re = matrix.row_values(i);
    const auto im = matrix.row_imag(i);
    for (std::size_t k = 0; k < re.size(); ++k) {
      if (im.empty()) {
        rho = std::max(rho, relative_change<T>(static_cast<T>(re[k]), g.value(i, re[k])));
      } else {  // relative to the modulus: a part near 0 may move far relative to itself
        rho = std::max(rho, relative_change_complex<T>(re[k], im[k], g.value(i, re[k]), g.value(i, im[k])));
      }
    }
    return rho;
  });
  if (!g.representable) b.unrepresentable();
  g.facts = b.facts();
  return g;
}

// Whether the row grids round a value of a matrix that has negative or complex ones (its grids' facts,
// or the matrix): then the change is
// bounded a priori through perm(|A|), far above a cancelling permanent, and a walk on the grids' values
// that keeps its fine parts' sums bounds it from the terms (error_bound.cuh's fine_parts_bound).
inline bool grids_round_signed_values(const grid_rounding_facts& f) {
  return f.representable && f.change > 0 && !f.nonnegative;
}
inline bool grids_round_signed_values(const sparse_matrix& matrix) {
  return grids_round_signed_values(row_grids_of<double>(matrix).facts);
}

// Split row sums (numeric/double_double.cuh's split_value): each value a as coarse + fine, coarse on
// its row's grid and fine = a − coarse (exact) on a second grid of the row's Σ_j |fine_ij|, so that both
// parts' partial sums are exact and x = coarse + fine is the row sum of the values themselves. The
// second grid rounds only values more than about 2^90 below their row's Σ|a_ij| (facts.change is 0
// for every value above that); facts bound what it changes, as for row_grids.
struct split_row_grids {
  row_grids<double> coarse;
  std::vector<int> fine_exponent;  // per row
  grid_rounding_facts facts;
  // (coarse, fine) of a value of row `row`
  std::pair<double, double> split(int row, double v) const {
    const double c = coarse.value(row, v);
    return {c, round_to_grid<double>(v - c, fine_exponent[row])};
  }
};

inline split_row_grids split_row_grids_of(const sparse_matrix& matrix) {
  const int n = matrix.n();
  split_row_grids g;
  g.coarse = row_grids_of<double>(matrix);
  g.fine_exponent.assign(n, -1021);
  for (int i = 0; i < n; ++i) {
    double fine_sum = 0;
    for (double v : matrix.row_values(i)) fine_sum += std::fabs(v - g.coarse.value(i, v));
    for (double v : matrix.row_imag(i)) fine_sum += std::fabs(v - g.coarse.value(i, v));
    g.fine_exponent[i] = grid_exponent(fine_sum);
  }
  grid_rounding_builder b = perturbation_builder(matrix, [&](int i) {
    double rho = 0;
    const auto re = matrix.row_values(i);
    const auto im = matrix.row_imag(i);
    const auto dropped = [&](double v) {  // what the fine grid rounds away (exact: both are close)
      const auto [c, f] = g.split(i, v);
      return std::fabs(f - (v - c));
    };
    for (std::size_t k = 0; k < re.size(); ++k) {
      const double d = im.empty() ? dropped(re[k]) : std::hypot(dropped(re[k]), dropped(im[k])) * (1 + 0x1p-50);
      const double a = im.empty() ? std::fabs(re[k]) : std::hypot(re[k], im[k]);
      if (d > 0) rho = std::max(rho, d / a * bound_margin);
    }
    return rho;
  });
  if (!g.coarse.representable) b.unrepresentable();
  g.facts = b.facts();
  return g;
}

// Why a floating run on row grids (the Ryser engines) could not certify `matrix`, or nothing: rounding the values to
// their row grids must change each row by less than 100% (a row whose values span more than about
// 2^50 loses its small ones: (1e20, 2) rounds 2 to 0), and the row sums must stay in range. The
// planner leaves such matrices to dp and reference, whose bounds need no grids.
inline std::optional<std::string> row_grid_refusal(const sparse_matrix& matrix) {
  if (matrix.has_integer_values()) return std::nullopt;  // exact, or integers on any grid
  const grid_rounding_facts f = row_grids_of<double>(matrix).facts;
  if (!f.representable) return std::string("a row's sum of |a_ij| is beyond 2^1021");
  if (!(f.change < 1))
    return std::string("the values of a row span too many binary orders for a certified double result");
  return std::nullopt;
}

}  // namespace sparseperm::detail

namespace sparseperm {

// The row grids of a matrix's values (numeric/error_bound.cuh), in the matrix's own row numbering:
// double arithmetic rounds each value to its row's grid once, so that every x is exact.
template <int N>
struct row_grid_exponents {
  int e[N > 0 ? N : 1]{};
  bool representable = true;  // every row's Σ|a_ij| below 2^1021
};

template <int N, int NNZ>
constexpr row_grid_exponents<N> grid_exponents_of(const pattern_arrays<N, NNZ>& a) {
  double sums[N > 0 ? N : 1]{};
  for (int k = 0; k < NNZ; ++k) sums[a.rows[k]] += a.l1(k);  // Σ(|re| + |im|): a grid for both parts
  row_grid_exponents<N> g;
  for (int i = 0; i < N; ++i) {
    g.e[i] = detail::grid_exponent(sums[i]);
    if (g.e[i] > detail::max_grid_exponent) g.representable = false;
  }
  return g;
}

// A value as double arithmetic uses it: on its row's grid.
template <int N>
constexpr double grid_value(const row_grid_exponents<N>& g, int row, double v) {
  return g.representable ? detail::round_to_grid(v, g.e[row]) : v;
}

// Two grids a row (split_value): the row's grid, and a second one sized by the row's Σ of what the
// first rounds away (both parts of complex values), on which that remainder is kept.
template <int N>
struct split_grid_exponents {
  row_grid_exponents<N> coarse;
  int fine[N > 0 ? N : 1]{};
};

template <int N, int NNZ>
constexpr split_grid_exponents<N> split_grid_exponents_of(const pattern_arrays<N, NNZ>& a) {
  split_grid_exponents<N> g;
  g.coarse = grid_exponents_of(a);
  double sums[N > 0 ? N : 1]{};
  const auto remainder = [&](int row, double v) {  // exact: v and its grid value are close
    const double r = v - grid_value(g.coarse, row, v);
    return r < 0 ? -r : r;
  };
  for (int k = 0; k < NNZ; ++k) sums[a.rows[k]] += remainder(a.rows[k], a.values[k]) + remainder(a.rows[k], a.imag[k]);
  for (int i = 0; i < N; ++i) g.fine[i] = detail::grid_exponent(sums[i]);
  return g;
}

// A value as coarse + fine on its row's two grids: the value itself unless the row's values span
// more than about 100 binary orders (then the fine grid rounds too, which split_grid_facts_of counts).
template <int N>
constexpr detail::split_value<double> split_grid_value(const split_grid_exponents<N>& g, int row, double v) {
  const double coarse = grid_value(g.coarse, row, v);
  return {coarse, g.coarse.representable ? detail::round_to_grid(v - coarse, g.fine[row]) : 0};
}

namespace detail {

// What moving each value (each part) by `moved(row, v)` (≥ 0, exact) changed, and the magnitudes the
// error bound needs (for a complex matrix the sums are of |re| + |im| ≥ |a|, and no row counts as
// nonnegative). A complex value's change: |Δ| ≤ |Δre| + |Δim| against |a| ≥ max(|re|, |im|).
template <int N, int NNZ, class Moved>
constexpr grid_rounding_facts rounding_facts_of(const pattern_arrays<N, NNZ>& a, bool representable, Moved moved) {
  double rho[N > 0 ? N : 1]{}, sums[N > 0 ? N : 1]{};
  bool negative[N > 0 ? N : 1]{};
  const auto abs = [](double v) { return v < 0 ? -v : v; };
  for (int k = 0; k < NNZ; ++k) {
    const int i = a.rows[k];
    const double v = a.values[k], w = a.imag[k];
    const double larger = a.complex && abs(w) > abs(v) ? abs(w) : abs(v);
    const double difference = a.complex ? moved(i, v) + moved(i, w) : moved(i, v);
    const double change = difference == 0 ? 0 : difference / larger * bound_margin;
    if (change > rho[i]) rho[i] = change;
    sums[i] += a.l1(k);
    negative[i] = negative[i] || v < 0 || a.complex;
  }
  const double widen = a.complex ? bound_margin : 1;  // as the run-time engines' complex sums
  grid_rounding_builder b;
  for (int i = 0; i < N; ++i) b.row(rho[i], sums[i] * widen, negative[i]);
  for (int j = 0; j < N; ++j) {
    double sum = 0;
    for (int k = a.start[j]; k < a.start[j + 1]; ++k) sum += a.l1(k);
    b.column(sum * widen);
  }
  if (!representable) b.unrepresentable();
  return b.facts();
}

}  // namespace detail

// What the row grids change, and the magnitudes the error bound needs.
template <int N, int NNZ>
constexpr detail::grid_rounding_facts grid_facts_of(const pattern_arrays<N, NNZ>& a) {
  const row_grid_exponents<N> g = grid_exponents_of(a);
  return detail::rounding_facts_of(a, g.representable, [&](int row, double v) {
    const double d = grid_value(g, row, v) - v;  // exact: both are close
    return d < 0 ? -d : d;
  });
}

// The same for split values: a change only where the fine grid rounds (what the values are changed
// by is the remainder's rounding: |fine − (v − coarse)|, computed exactly, as a relative change of v).
template <int N, int NNZ>
constexpr detail::grid_rounding_facts split_grid_facts_of(const pattern_arrays<N, NNZ>& a) {
  const split_grid_exponents<N> g = split_grid_exponents_of(a);
  return detail::rounding_facts_of(a, g.coarse.representable, [&](int row, double v) {
    const detail::split_value<double> s = split_grid_value(g, row, v);
    const double d = s.fine - (v - s.coarse);  // exact: the remainder and its rounding are close
    return d < 0 ? -d : d;
  });
}

}  // namespace sparseperm
