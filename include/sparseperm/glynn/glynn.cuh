#pragma once
// Glynn's formula (BB/FG) over the matrix's distinct rows and their multiplicities, for matrices with
// repeated rows or columns (boson sampling with several photons in a mode; an all-equal matrix): the
// `glynn` and `gpu-glynn` engines' algorithm (the run: glynn_run.cuh; the tags: engines/glynn.cuh,
// engines/gpu_glynn.cuh).
//
// With distinct rows u_k repeated r_k times (Σ r_k = N) and distinct columns repeated c_l times,
//
//   perm = 2^−(N−1) Σ_{m_k ∈ 0..f_k} (−1)^(Σ m_k) Π_k C(f_k, m_k) Π_l (Σ_k (r_k − 2 m_k) u_kl)^(c_l)
//
// where one copy of the least repeated row keeps its sign (f_k = r_k − 1 for it, r_k otherwise):
// Π (f_k + 1) terms instead of 2^(N−1) (40 photons in 20 doubly occupied modes: 2.3e9 instead of
// 5.5e11). The m_k walk a reflected mixed-radix Gray code, so each step changes one m_k by ±1 and
// updates the column sums v_l by ∓2 u_kl. Rows or columns, whichever side gives fewer terms.
//
// Arithmetic: integer matrices (Gaussian integers too) exactly, in 128-bit integers where the
// bound 2^(N−1) Π_l (Σ_k r_k |u_kl|)^(c_l) fits, else big integers; real and complex doubles with
// compensated sums and a proven bound: the values rounded to column grids (so every v_l is exact,
// numeric/error_bound.cuh with rows and columns in each other's roles), a term's roundings counted.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/progress.cuh"
#include "../core/result.cuh"
#include "../detail/format.cuh"
#include "../detail/threads.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/big_integer.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/double_double.cuh"
#include "../numeric/error_bound.cuh"
#include "../structure/repeated_lines.cuh"

namespace sparseperm {

namespace detail {

// The matrix as Glynn's sum over row classes sees it (rows: the side whose signs vary).
struct glynn_setup {
  int n = 0;                      // N, the expanded dimension
  bool transposed = false;        // the classes are the matrix's columns
  int rows = 0, columns = 0;      // K distinct rows, L distinct columns
  std::vector<int> row_count;     // r_k
  std::vector<int> free;          // f_k
  std::vector<int> column_count;  // c_l
  std::vector<double> re, im;     // u_kl, K × L row-major (im empty for real matrices)
  double terms = 1;               // Π (f_k + 1)
  bool complex = false;
};

// "13122", or "1.31e+18" beyond what a person counts.
inline std::string glynn_terms_text(double terms) {
  if (terms >= 1e15) return format_count(terms);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.0f", terms);
  return buffer;
}

// The most terms the engine takes (chunk indices and counts stay in 64 bits).
inline constexpr double glynn_max_terms = 0x1p62;

// The distinct rows and distinct columns a GPU thread holds (gpu/glynn_kernel.cuh).
inline constexpr int glynn_gpu_max_classes = 64;

// The classes of both orientations, the one with fewer terms kept; the values (K × L) only where
// the terms are within glynn_max_terms (then K ≤ 63: a class per factor of at least 2).
inline glynn_setup glynn_setup_of(const sparse_matrix& a) {
  glynn_setup best;
  const line_classes row_classes = identical_rows(a), column_classes = identical_columns(a);
  for (const bool transpose : {false, true}) {
    const line_classes& rows = transpose ? column_classes : row_classes;
    const line_classes& columns = transpose ? row_classes : column_classes;
    glynn_setup g;
    g.n = a.n();
    g.transposed = transpose;
    g.complex = a.is_complex();
    g.rows = rows.classes();
    g.columns = columns.classes();
    g.row_count = rows.count;
    g.column_count = columns.count;
    g.free = rows.count;
    const auto least = std::min_element(g.row_count.begin(), g.row_count.end()) - g.row_count.begin();
    if (!g.free.empty()) --g.free[static_cast<std::size_t>(least)];
    for (const int f : g.free) g.terms *= f + 1.0;
    if (transpose && g.terms >= best.terms) continue;
    if (g.terms > glynn_max_terms) {
      best = std::move(g);
      continue;
    }
    g.re.assign(static_cast<std::size_t>(g.rows) * g.columns, 0.0);
    if (g.complex) g.im.assign(g.re.size(), 0.0);
    for (const matrix_entry& e : a.entries()) {
      const int i = transpose ? e.column : e.row, j = transpose ? e.row : e.column;
      if (rows.representative[rows.class_of[i]] != i || columns.representative[columns.class_of[j]] != j) continue;
      const std::size_t at = static_cast<std::size_t>(rows.class_of[i]) * g.columns + columns.class_of[j];
      g.re[at] = e.value;
      if (g.complex) g.im[at] = e.imag;
    }
    best = std::move(g);
  }
  return best;
}

// Per column class: Σ_k r_k |u_kl| (l1 for complex): bounds every |v_l| (and each part's).
inline std::vector<double> glynn_column_sums(const glynn_setup& g) {
  std::vector<double> sums(static_cast<std::size_t>(g.columns), 0.0);
  for (int k = 0; k < g.rows; ++k) {
    for (int l = 0; l < g.columns; ++l) {
      const std::size_t at = static_cast<std::size_t>(k) * g.columns + l;
      sums[l] += g.row_count[k] * (std::fabs(g.re[at]) + (g.complex ? std::fabs(g.im[at]) : 0.0));
    }
  }
  return sums;
}

// The values rounded to column grids (2^e ≥ Σ_k r_k |u_kl| makes every v_l exact: error_bound.cuh's
// argument with rows and columns in each other's roles) and what that changes in the expanded
// matrix; `why` says why no bound can be certified (then nothing else is filled). Split (the
// double-double run): each value exactly as coarse + fine (numeric/double_double.cuh's split_value),
// fine on a second grid of the column's Σ_k r_k |fine_kl|, which rounds only values about 2^90 below
// their column's sum (that change is what the facts count then).
struct glynn_grid {
  std::vector<double> re, im;
  std::vector<double> fine_re, fine_im;  // split grids only
  grid_rounding_facts facts;
  std::string why;
};

inline glynn_grid glynn_grid_of(const glynn_setup& g, bool split = false) {
  glynn_grid grid;
  const std::vector<double> sums = glynn_column_sums(g);
  std::vector<int> exponent(static_cast<std::size_t>(g.columns));
  for (int l = 0; l < g.columns; ++l) {
    exponent[l] = grid_exponent(sums[l]);
    if (exponent[l] > max_grid_exponent) {
      grid.why = "a column's sum of |a_ij| is beyond 2^1021";
      return grid;
    }
  }
  const std::size_t cells = g.re.size();
  grid.re.resize(cells);
  if (g.complex) grid.im.resize(cells);
  if (split) grid.fine_re.resize(cells), grid.fine_im.resize(g.complex ? cells : 0);
  const auto modulus = [&](std::size_t c) {
    return g.complex ? std::hypot(g.re[c], g.im[c]) * bound_margin : std::fabs(g.re[c]);
  };
  grid_rounding_builder builder;  // the expanded matrix, rows and columns in each other's roles
  for (int l = 0; l < g.columns; ++l) {
    double abs_sum = 0, fine_sum = 0;
    bool negative = g.complex;
    for (int k = 0; k < g.rows; ++k) {
      const std::size_t c = static_cast<std::size_t>(k) * g.columns + l;
      grid.re[c] = round_to_grid<double>(g.re[c], exponent[l]);
      if (g.complex) grid.im[c] = round_to_grid<double>(g.im[c], exponent[l]);
      negative = negative || g.re[c] < 0;
      abs_sum += g.row_count[k] * modulus(c);
      fine_sum +=
          g.row_count[k] * (std::fabs(g.re[c] - grid.re[c]) + (g.complex ? std::fabs(g.im[c] - grid.im[c]) : 0));
    }
    const int fine_exponent = grid_exponent(fine_sum);
    double rho = 0;
    for (int k = 0; k < g.rows; ++k) {
      const std::size_t c = static_cast<std::size_t>(k) * g.columns + l;
      if (g.re[c] == 0 && (!g.complex || g.im[c] == 0)) continue;
      if (split) {  // what the fine grid rounds away (exact: both are close)
        const auto dropped = [&](double v, double coarse, double& fine) {
          fine = round_to_grid<double>(v - coarse, fine_exponent);
          return std::fabs(fine - (v - coarse));
        };
        const double d_re = dropped(g.re[c], grid.re[c], grid.fine_re[c]);
        const double d =
            g.complex ? std::hypot(d_re, dropped(g.im[c], grid.im[c], grid.fine_im[c])) * (1 + 0x1p-50) : d_re;
        if (d > 0)
          rho = std::max(rho, d / (g.complex ? std::hypot(g.re[c], g.im[c]) : std::fabs(g.re[c])) * bound_margin);
      } else if (g.complex) {
        rho = std::max(rho, relative_change_complex<double>(g.re[c], g.im[c], grid.re[c], grid.im[c]));
      } else {
        rho = std::max(rho, relative_change<double>(g.re[c], grid.re[c]));
      }
    }
    for (int copy = 0; copy < g.column_count[l]; ++copy) builder.row(rho, abs_sum, negative);
  }
  for (int k = 0; k < g.rows; ++k) {
    double abs_sum = 0;
    for (int l = 0; l < g.columns; ++l)
      abs_sum += g.column_count[l] * modulus(static_cast<std::size_t>(k) * g.columns + l);
    for (int copy = 0; copy < g.row_count[k]; ++copy) builder.column(abs_sum);
  }
  grid.facts = builder.facts();
  if (!(grid.facts.change < 1)) grid.why = "the values of a column span too many binary orders for a certified result";
  return grid;
}

// log2 of 2^(N−1) Π_l (column sum)^(c_l): every partial sum of the exact run is below it.
inline double glynn_exact_bits(const glynn_setup& g) {
  const std::vector<double> sums = glynn_column_sums(g);
  double bits = g.n - 1;
  for (int l = 0; l < g.columns; ++l) bits += g.column_count[l] * std::log2(std::max(sums[l], 1.0));
  return bits;
}

// What one task of the Gray walk reads, as plain arrays (host vectors or device buffers): the
// classes, their values u (K × L), the binomials C(f_k, m) (row k at k·stride; in P's parts, so that
// a term multiplies them as reals and scales once), and the digits: the first `split` of `digits`
// fix a task, the `walked` ones move in the reflected Gray code.
template <class V, class P>
struct glynn_tables {
  int K = 0, L = 0;
  const int* free = nullptr;          // f_k
  const int* row_count = nullptr;     // r_k
  const int* column_count = nullptr;  // c_l
  const V* u = nullptr;
  const part_type<P>* binomial = nullptr;
  int binomial_stride = 0;
  const int* digits = nullptr;  // the split digits, most values first
  int split = 0;
  const int* walked = nullptr;
  int walked_count = 0;
  bool small_binomials = false;  // every product of binomials is an integer below 2^53: exact in double
};

// A task that runs to its end: the device's tasks, and the host's without a stop request to watch.
struct glynn_runs_through {
  SPARSEPERM_HOST_DEVICE void operator()() const {}
};

// Task `index`: its split digits fixed, the walked ones through all their values; the terms into
// `local`. m, direction (K each) and v (L) are the caller's scratch. `watch()` is called every 2^16
// terms: a task costs up to a second on a long run, longer than a stop request may wait, so the host
// passes one that throws when asked to stop (the task's partial sum is never kept).
#if defined(__CUDACC__)
#  pragma nv_exec_check_disable  // instantiated with big integers too, on the host only
#endif
template <class V, class P, class Sum, class Watch = glynn_runs_through>
SPARSEPERM_HOST_DEVICE void glynn_task(const glynn_tables<V, P>& t, std::int64_t index, int* m, int* direction, V* v,
                                       Sum& local, const Watch& watch = {}) {
  for (int k = 0; k < t.K; ++k) m[k] = 0, direction[k] = 1;
  for (int d = 0; d < t.split; ++d) {
    const int k = t.digits[d];
    m[k] = static_cast<int>(index % (t.free[k] + 1));
    index /= t.free[k] + 1;
  }
  for (int l = 0; l < t.L; ++l) v[l] = V{};
  int top_bit = 0;  // of the largest c_l
  for (int l = 0; l < t.L; ++l) {
    while ((t.column_count[l] >> (top_bit + 1)) != 0) ++top_bit;
  }
  // double-double: v split exactly (coarse + fine, each on its grid), products through dd_times
  constexpr bool wide = is_split_value<V>;
  bool negative = false;
  for (int k = 0; k < t.K; ++k) {
    const long long s = t.row_count[k] - 2LL * m[k];
    for (int l = 0; l < t.L; ++l) {
      if constexpr (wide) {
        v[l] += static_cast<double>(s) * t.u[static_cast<std::size_t>(k) * t.L + l];  // exact on the grids
      } else {
        v[l] += V(s) * t.u[static_cast<std::size_t>(k) * t.L + l];
      }
    }
    negative = negative != ((m[k] & 1) != 0);
  }
  std::uint32_t walked_terms = 0;
  for (;;) {
    part_type<P> binomials = part_type<P>(1LL);
    double small = 1;  // the binomials' product where it is exact in double (t.small_binomials)
    for (int k = 0; k < t.K; ++k) {
      if (t.free[k] == 0) continue;
      const part_type<P>& b = t.binomial[static_cast<std::size_t>(k) * t.binomial_stride + m[k]];
      if constexpr (wide) {
        if (t.small_binomials) {
          small *= b.hi;
        } else {
          binomials = dd_times(binomials, b);
        }
      } else {
        binomials = binomials * b;
      }
    }
    // Π_l v_l^(c_l) in binary powers, highest bit first: N − 1 multiplications at most, and
    // (Π_l v_l)^2, L of them, for two photons in every mode
    P term{};
    bool started = false;
    for (int bit = top_bit; bit >= 0; --bit) {
      if (started) {
        if constexpr (wide) {
          term = dd_times(term, term);
        } else {
          term = term * term;
        }
      }
      for (int l = 0; l < t.L; ++l) {
        if (((t.column_count[l] >> bit) & 1) == 0) continue;
        if constexpr (wide) {
          term = started ? dd_times(term, dd_factor(v[l])) : dd_factor(v[l]);
        } else {
          term = started ? term * P(v[l]) : P(v[l]);
        }
        started = true;
      }
    }
    if constexpr (wide) {
      local.add_signed(t.small_binomials ? multiply_by_part(term, small) : multiply_by_part(term, binomials), negative);
    } else {
      local.add_signed(term * binomials, negative);
    }
    // the next m: the first walked digit that can move in its direction moves
    int w = 0;
    for (; w < t.walked_count; ++w) {
      const int k = t.walked[w];
      const int next = m[k] + direction[k];
      if (next >= 0 && next <= t.free[k]) break;
      direction[k] = -direction[k];
    }
    if (w == t.walked_count) break;
    const int k = t.walked[w];
    m[k] += direction[k];
    for (int l = 0; l < t.L; ++l) {  // s_k = r_k − 2 m_k moves by ∓2
      if constexpr (wide) {
        v[l] += (direction[k] > 0 ? -2.0 : 2.0) * t.u[static_cast<std::size_t>(k) * t.L + l];
      } else {
        v[l] += V(direction[k] > 0 ? -2LL : 2LL) * t.u[static_cast<std::size_t>(k) * t.L + l];
      }
    }
    negative = !negative;
    if ((++walked_terms & 0xffff) == 0) watch();
  }
}

// The tables' host storage for a setup: binomials in P's reals (Pascal's triangle: exact in integers; in
// doubles each entry is off by at most f additions' rounding, counted by the bound), the digits with
// f_k > 0 sorted by values, the first ones split into at least `wanted_tasks` tasks.
template <class V, class P>
struct glynn_plan {
  using binomial_type = part_type<P>;
  std::vector<binomial_type> binomial;
  int binomial_stride = 1;
  std::vector<int> digits, walked;
  int split = 0;
  std::int64_t tasks = 1;
  std::uint64_t walk_terms = 1;  // terms of one task
  bool small_binomials = false;  // Π_k max_m C(f_k, m) < 2^53

  glynn_plan(const glynn_setup& g, std::int64_t wanted_tasks) {
    const int K = g.rows;
    for (int k = 0; k < K; ++k) binomial_stride = std::max(binomial_stride, g.free[k] + 1);
    binomial.assign(static_cast<std::size_t>(K) * binomial_stride, binomial_type(0LL));
    for (int k = 0; k < K; ++k) {
      std::vector<binomial_type> row{binomial_type(1LL)};
      for (int f = 1; f <= g.free[k]; ++f) {
        std::vector<binomial_type> next(static_cast<std::size_t>(f) + 1, binomial_type(1LL));
        for (int m = 1; m < f; ++m) {  // integers: exact in double-double below 2^106
          if constexpr (std::is_same_v<binomial_type, double_double>) {
            next[m] = dd_plus(row[m - 1], row[m]);
          } else {
            next[m] = row[m - 1] + row[m];
          }
        }
        row = std::move(next);
      }
      for (std::size_t m = 0; m < row.size(); ++m) binomial[static_cast<std::size_t>(k) * binomial_stride + m] = row[m];
    }
    double largest_product = 1;  // Π_k C(f_k, ⌊f_k/2⌋), rounded up
    for (int k = 0; k < K; ++k) {
      double largest = 1;
      for (int m = 1; m <= g.free[k]; ++m) largest = largest * (g.free[k] - m + 1) / m;
      largest_product *= std::ceil(largest) * (1 + 0x1p-50);
    }
    small_binomials = largest_product < 0x1p53;
    for (int k = 0; k < K; ++k) {
      if (g.free[k] > 0) digits.push_back(k);
    }
    std::sort(digits.begin(), digits.end(), [&](int x, int y) { return g.free[x] > g.free[y]; });
    while (static_cast<std::size_t>(split) < digits.size() && tasks < wanted_tasks)
      tasks *= g.free[digits[split++]] + 1;
    walked.assign(digits.begin() + split, digits.end());
    for (const int k : walked) walk_terms *= static_cast<std::uint64_t>(g.free[k] + 1);
  }

  // The tables over this plan's storage, `u` and the setup's counts (all on the host).
  glynn_tables<V, P> tables(const glynn_setup& g, const V* u) const {
    return {g.rows,
            g.columns,
            g.free.data(),
            g.row_count.data(),
            g.column_count.data(),
            u,
            binomial.data(),
            binomial_stride,
            digits.data(),
            split,
            walked.data(),
            static_cast<int>(walked.size()),
            small_binomials};
  }
};

}  // namespace detail

}  // namespace sparseperm
