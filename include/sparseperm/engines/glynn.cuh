#pragma once
// The `glynn` engine: Glynn's formula (BB/FG) over the matrix's distinct rows and their
// multiplicities, for matrices with repeated rows or columns (boson sampling with several photons in
// a mode; an all-equal matrix).
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
#include "../numeric/error_bound.cuh"
#include "../structure/repeated_lines.cuh"
#include "engine.cuh"

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
// matrix; `why` says why no bound can be certified (then nothing else is filled).
struct glynn_grid {
  std::vector<double> re, im;
  grid_rounding_facts facts;
  std::string why;
};

inline glynn_grid glynn_grid_of(const glynn_setup& g) {
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
  const auto modulus = [&](std::size_t c) {
    return g.complex ? std::hypot(g.re[c], g.im[c]) * bound_margin : std::fabs(g.re[c]);
  };
  grid_rounding_builder builder;  // the expanded matrix, rows and columns in each other's roles
  for (int l = 0; l < g.columns; ++l) {
    double rho = 0, abs_sum = 0;
    bool negative = g.complex;
    for (int k = 0; k < g.rows; ++k) {
      const std::size_t c = static_cast<std::size_t>(k) * g.columns + l;
      grid.re[c] = round_to_grid<double>(g.re[c], exponent[l]);
      negative = negative || g.re[c] < 0;
      if (g.complex) {
        grid.im[c] = round_to_grid<double>(g.im[c], exponent[l]);
        if (g.re[c] != 0 || g.im[c] != 0)
          rho = std::max(rho, relative_change_complex<double>(g.re[c], g.im[c], grid.re[c], grid.im[c]));
      } else if (g.re[c] != 0) {
        rho = std::max(rho, relative_change<double>(g.re[c], grid.re[c]));
      }
      abs_sum += g.row_count[k] * modulus(c);
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
};

// Task `index`: its split digits fixed, the walked ones through all their values; the terms into
// `local`. m, direction (K each) and v (L) are the caller's scratch.
#if defined(__CUDACC__)
#  pragma nv_exec_check_disable  // instantiated with big integers too, on the host only
#endif
template <class V, class P, class Sum>
SPARSEPERM_HOST_DEVICE void glynn_task(const glynn_tables<V, P>& t, std::int64_t index, int* m, int* direction, V* v,
                                       Sum& local) {
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
  bool negative = false;
  for (int k = 0; k < t.K; ++k) {
    const V s = V(static_cast<long long>(t.row_count[k] - 2 * m[k]));
    for (int l = 0; l < t.L; ++l) v[l] += s * t.u[static_cast<std::size_t>(k) * t.L + l];
    negative = negative != ((m[k] & 1) != 0);
  }
  for (;;) {
    part_type<P> binomials = part_type<P>(1LL);
    for (int k = 0; k < t.K; ++k) {
      if (t.free[k] > 0) binomials = binomials * t.binomial[static_cast<std::size_t>(k) * t.binomial_stride + m[k]];
    }
    // Π_l v_l^(c_l) in binary powers, highest bit first: N − 1 multiplications at most, and
    // (Π_l v_l)^2, L of them, for two photons in every mode
    P term{};
    bool started = false;
    for (int bit = top_bit; bit >= 0; --bit) {
      if (started) term = term * term;
      for (int l = 0; l < t.L; ++l) {
        if (((t.column_count[l] >> bit) & 1) == 0) continue;
        term = started ? term * P(v[l]) : P(v[l]);
        started = true;
      }
    }
    local.add_signed(term * binomials, negative);
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
    const V twice = V(direction[k] > 0 ? -2LL : 2LL);  // s_k = r_k − 2 m_k
    for (int l = 0; l < t.L; ++l) v[l] += twice * t.u[static_cast<std::size_t>(k) * t.L + l];
    negative = !negative;
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

  glynn_plan(const glynn_setup& g, std::int64_t wanted_tasks) {
    const int K = g.rows;
    for (int k = 0; k < K; ++k) binomial_stride = std::max(binomial_stride, g.free[k] + 1);
    binomial.assign(static_cast<std::size_t>(K) * binomial_stride, binomial_type(0LL));
    for (int k = 0; k < K; ++k) {
      std::vector<binomial_type> row{binomial_type(1LL)};
      for (int f = 1; f <= g.free[k]; ++f) {
        std::vector<binomial_type> next(static_cast<std::size_t>(f) + 1, binomial_type(1LL));
        for (int m = 1; m < f; ++m) next[m] = row[m - 1] + row[m];
        row = std::move(next);
      }
      for (std::size_t m = 0; m < row.size(); ++m) binomial[static_cast<std::size_t>(k) * binomial_stride + m] = row[m];
    }
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
            static_cast<int>(walked.size())};
  }
};

// The run in one arithmetic on OpenMP threads: V the column sums' type, P the products', Sum the
// accumulator; longest_chain: the most additions into one accumulator.
template <class V, class P, class Sum>
Sum glynn_sum(const glynn_setup& g, const std::vector<V>& u, int threads, std::uint64_t& longest_chain,
              const progress_counter* progress = nullptr) {
  // about 16 tasks a thread; a long run in tasks of about 2^24 terms (at most 2^18 of them), which a
  // stop request waits for
  const double long_run_tasks = std::min(std::ldexp(g.terms, -24), std::ldexp(1.0, 18));
  const glynn_plan<V, P> plan(g, std::max(16LL * std::max(threads, 1), static_cast<long long>(long_run_tasks)));
  const glynn_tables<V, P> tables = plan.tables(g, u.data());
  longest_chain = plan.walk_terms + static_cast<std::uint64_t>(plan.tasks);
  std::vector<Sum> partial(static_cast<std::size_t>(plan.tasks));
  parallel_for<schedule::dynamic_one>(plan.tasks, threads, [&](const std::int64_t index) {
    if (stop_requested(progress)) return;
    std::vector<int> m(static_cast<std::size_t>(g.rows)), direction(static_cast<std::size_t>(g.rows));
    std::vector<V> v(static_cast<std::size_t>(g.columns));
    Sum local;
    glynn_task(tables, index, m.data(), direction.data(), v.data(), local);
    partial[static_cast<std::size_t>(index)] = local;
  });
  throw_if_stopped(progress);
  Sum total;
  for (const Sum& s : partial) total.merge(s);
  return total;
}

template <class P>
struct big_sum {
  P sum{};
  big_sum() {}  // user-provided, host only (see big_integer)
  void add_signed(const P& term, bool negative) {
    if (negative) {
      sum -= term;
    } else {
      sum += term;
    }
  }
  void merge(const big_sum& other) { sum += other.sum; }
};

// What the estimates of glynn and gpu-glynn share: whether Glynn's sum is planned for a block (its rows
// or columns repeat, its terms fit, its grids exist; else e.why says why not), its work in units of a
// term and a class, terms x (distinct rows + distinct columns + 1), and its arithmetic.
struct glynn_work {
  glynn_setup setup;
  double units = 0;
  bool exact = false;  // integers summed exactly: 128 bits, or big integers where
  bool big = false;    // the sums may exceed 125 bits
};

inline std::optional<glynn_work> glynn_work_of(const planner_block& block, engine_estimate& e) {
  glynn_work w{glynn_setup_of(block.matrix)};
  const glynn_setup& g = w.setup;
  if (g.terms >= std::ldexp(1.0, g.n - 1)) {
    e.why = "no repeated rows or columns";
    return std::nullopt;
  }
  if (g.terms > glynn_max_terms) {
    e.why = "2^" + std::to_string(static_cast<int>(std::log2(g.terms))) + " terms";
    return std::nullopt;
  }
  const precision p = block.options.precision;
  w.exact = block.matrix.has_integer_values() && p != precision::double_sums && p != precision::compensated;
  if (!w.exact) {
    if (const glynn_grid grid = glynn_grid_of(g); !grid.why.empty()) {
      e.why = grid.why;
      return std::nullopt;
    }
  }
  w.big = w.exact && glynn_exact_bits(g) >= 125;
  w.units = g.terms * (g.columns + g.rows + 1.0);
  return w;
}

}  // namespace detail

namespace engines {

struct glynn {
  static constexpr std::string_view name = "glynn";
  static constexpr std::string_view summary =
      "Glynn's formula over distinct rows and their multiplicities (an n-ary Gray code): prod(r_k + 1) terms "
      "instead of 2^(n-1), for repeated rows or columns";
  static constexpr engine_placement placement = engine_placement::host;
  static constexpr bool complex_values = true;
  static constexpr bool cpu_threads = true;
  static constexpr int max_n = 1 << 20;
  static constexpr exact_reach exact = exact_reach::any_integer;
  static constexpr bool rounds_to_grids = false;  // its own column grids
  // per term and class, one core (16 cores of the H100 host, two photons in each of 16 to 18 modes:
  // real doubles 2.5e-9 s, complex 1.3x, exact 128-bit integers 1.7x; big integers 27x, measured on
  // 2 cores with 11 and 12 modes)
  static constexpr double term_seconds = 2.5e-9, complex_factor = 1.3, exact_factor = 1.7, big_factor = 27;
  static permanent_result run(const engine_task& task, const compute_options& options);
  // Planned for matrices with repeated rows or columns only (otherwise the Ryser engines are faster).
  static void estimate(const planner_block& block, engine_estimate& e) {
    if (const auto w = detail::glynn_work_of(block, e)) {
      e.seconds = w->units * term_seconds * (w->setup.complex ? complex_factor : 1) *
                  (w->big     ? big_factor
                   : w->exact ? exact_factor
                              : 1) /
                  std::max(1, detail::engine_threads(block.options.threads));
    }
  }
  static std::string plan_note(const engine_task& task) {
    const detail::glynn_setup g = detail::glynn_setup_of(task.matrix);
    return " (" + std::to_string(g.rows) + " distinct " + (g.transposed ? "columns" : "rows") + ", " +
           detail::glynn_terms_text(g.terms) + " terms)";
  }
};

}  // namespace engines

namespace detail {

// What a summer (below) is told and tells beside the sum.
struct glynn_summing {
  int threads = 1;                             // in: CPU threads; out: the threads that summed
  std::uint64_t longest_chain = 0;             // the most additions into one accumulator
  std::optional<double> device_seconds;        // the kernel's time (CUDA events) where a GPU summed
  std::string where;                           // the device, for the plan
  const progress_counter* progress = nullptr;  // in: the caller's stop request
};

// Sums a run on OpenMP threads (glynn_sum).
struct glynn_on_host {
  template <class V, class P, class Sum>
  Sum operator()(const glynn_setup& g, const std::vector<V>& u, glynn_summing& summing) const {
    return glynn_sum<V, P, Sum>(g, u, summing.threads, summing.longest_chain, summing.progress);
  }
};

// Glynn's formula for `matrix` as engine `engine`, its sums by `summer` (glynn_on_host, or
// gpu_glynn's kernels): the classes, the arithmetic, the grids and the bound are the same wherever
// the terms are summed.
template <class Summer>
permanent_result run_glynn(const sparse_matrix& matrix, const compute_options& options, std::string_view engine,
                           const Summer& summer) {
  const auto start = std::chrono::steady_clock::now();
  const int n = matrix.n();
  permanent_result result;
  result.engine = std::string(engine);
  result.n = n;
  result.nnz = matrix.nnz();
  result.threads = detail::engine_threads(options.threads);
  if (n == 0 || matrix.has_empty_line()) {
    set_exact_value(result, n == 0 ? 1 : 0, n == 0 ? "empty matrix" : "an empty row or column");
    return result;
  }
  const detail::glynn_setup g = detail::glynn_setup_of(matrix);
  if (g.terms > detail::glynn_max_terms) {
    throw engine_error(engine_error::kind::too_large, "engine '" + std::string(engine) + "': 2^" +
                                                          std::to_string(static_cast<int>(std::log2(g.terms))) +
                                                          " terms (its rows repeat too little)");
  }
  const std::size_t cells = g.re.size();
  glynn_summing summing;
  summing.threads = result.threads;
  summing.progress = options.progress;
  std::string arithmetic;
  const bool integer = matrix.has_integer_values();
  const bool exact =
      integer && options.precision != precision::double_sums && options.precision != precision::compensated;
  if (options.precision == precision::exact && !integer) {
    throw engine_error(engine_error::kind::refused,
                       "--precision exact needs an integer matrix (Gaussian integers for a complex one), and this one "
                       "has non-integer values (engine '" +
                           std::string(engine) + "')");
  }
  if (exact) {
    const bool wide = detail::glynn_exact_bits(g) < 125;
    auto finish = [&](auto re, auto im) {  // Σ / 2^(N−1), exactly
      detail::big_integer r(re), i(im);
      if (!r.divide_exactly_by_power_of_two(n - 1) || !i.divide_exactly_by_power_of_two(n - 1)) {
        throw engine_error(engine_error::kind::failed,
                           "engine '" + std::string(engine) + "': the exact sum is not divisible by 2^(n-1)");
      }
      result.exact = true;
      result.permanent = r.to_decimal();
      result.value = r.to_double();
      if (g.complex) set_imaginary_part(result, i.to_double(), i.to_decimal());
    };
    if (g.complex) {
      std::vector<complex_number<std::int64_t>> u(cells);
      for (std::size_t c = 0; c < cells; ++c)
        u[c] = {static_cast<std::int64_t>(g.re[c]), static_cast<std::int64_t>(g.im[c])};
#if SPARSEPERM_HAS_INT128
      if (wide) {
        const auto s = summer.template operator()<complex_number<std::int64_t>, complex_number<detail::int128>,
                                                  detail::exact_complex_sum>(g, u, summing);
        finish(s.sum.re, s.sum.im);
        arithmetic = "exact 128-bit Gaussian integers";
      } else
#endif
      {
        using big = detail::big_gaussian;
        std::vector<big> wide_u(cells);
        for (std::size_t c = 0; c < cells; ++c)
          wide_u[c] = big(detail::big_integer(static_cast<long long>(g.re[c])),
                          detail::big_integer(static_cast<long long>(g.im[c])));
        const auto s = summer.template operator()<big, big, detail::big_sum<big>>(g, wide_u, summing);
        finish(s.sum.re, s.sum.im);
        arithmetic = "exact big Gaussian integers";
      }
    } else {
#if SPARSEPERM_HAS_INT128
      if (wide) {
        std::vector<std::int64_t> u(cells);
        for (std::size_t c = 0; c < cells; ++c) u[c] = static_cast<std::int64_t>(g.re[c]);
        const auto s = summer.template operator()<std::int64_t, detail::int128, detail::exact_sum>(g, u, summing);
        finish(s.sum, detail::int128{0});
        arithmetic = "exact 128-bit integers";
      } else
#endif
      {
        std::vector<detail::big_integer> u(cells);
        for (std::size_t c = 0; c < cells; ++c) u[c] = detail::big_integer(static_cast<long long>(g.re[c]));
        const auto s =
            summer.template operator()<detail::big_integer, detail::big_integer, detail::big_sum<detail::big_integer>>(
                g, u, summing);
        finish(s.sum, detail::big_integer(0ll));
        arithmetic = "exact big integers";
      }
    }
  } else {
    const detail::glynn_grid grid = detail::glynn_grid_of(g);
    if (!grid.why.empty()) {
      throw engine_error(engine_error::kind::refused, "engine '" + std::string(engine) +
                                                          "' cannot certify a result for this matrix (" + grid.why +
                                                          "); dp and reference can");
    }
    const std::vector<double>& rounded_re = grid.re;
    const std::vector<double>& rounded_im = grid.im;
    detail::grid_rounding_facts facts = grid.facts;
    // products that underflow: the builder counts factors up to Σ|a|/2 per line, Glynn's up to Σ|a|
    // and the binomials up to 2^(N−1) more: 2^(2N) on the sum, 2^(N+1) after the scaling
    const double underflow = std::ldexp(facts.underflow, n + 1) * (g.complex ? 8 : 1);
    facts.underflow = 0;
    // a term: the binomials (Pascal: up to f additions each, K − 1 real products), N column factors
    double roundings = g.n + g.rows;
    for (const int f : g.free) roundings += f;
    detail::floating_sum_report report;
    report.chain = 0;
    report.compensated = options.precision != precision::double_sums;
    double value_re = 0, value_im = 0;
    auto floating_run = [&]<class Sum>(auto tag) {
      using V = decltype(tag);
      std::vector<V> u(cells);
      for (std::size_t c = 0; c < cells; ++c) {
        if constexpr (std::is_same_v<V, complex_double>) {
          u[c] = {rounded_re[c], rounded_im[c]};
        } else {
          u[c] = rounded_re[c];
        }
      }
      const Sum s = summer.template operator()<V, V, Sum>(g, u, summing);
      report.magnitude = detail::magnitude_of(s);
      if constexpr (std::is_same_v<V, complex_double>) {
        const complex_double v = s.value();
        value_re = v.re;
        value_im = v.im;
        report.sum = l1_norm(v);
      } else {
        value_re = s.value();
        report.sum = std::fabs(value_re);
      }
      arithmetic = Sum::description();
    };
    if (g.complex) {
      roundings = 4 * roundings + 1;
      if (report.compensated) {
        floating_run.template operator()<detail::complex_sum<detail::compensated_sum>>(complex_double{});
      } else {
        floating_run.template operator()<detail::complex_sum<detail::plain_sum>>(complex_double{});
      }
    } else if (report.compensated) {
      floating_run.template operator()<detail::compensated_sum>(0.0);
    } else {
      floating_run.template operator()<detail::plain_sum>(0.0);
    }
    report.chain = summing.longest_chain;
    const double scale = std::ldexp(1.0, -(n - 1));
    set_floating_value(result, std::ldexp(value_re, -(n - 1)));
    if (g.complex) set_imaginary_part(result, std::ldexp(value_im, -(n - 1)));
    const double magnitude = g.complex ? std::hypot(result.value, result.imag) : std::fabs(result.value);
    // ryser_sum_bound with the term's roundings in place of n; the scaling by 2^−(N−1) is exact
    // unless it falls into the subnormals (2^−1074 a part then)
    const double rounding = detail::ryser_sum_bound(static_cast<int>(roundings), report, facts) * scale +
                            (g.complex ? 2 : 1) * 0x1p-1074 + underflow;
    set_error_bound(result,
                    (rounding + detail::grid_perturbation_bound(facts, magnitude, rounding)) * detail::bound_margin);
  }
  result.plan = std::to_string(g.rows) + " distinct " + (g.transposed ? "columns" : "rows") + " and " +
                std::to_string(g.columns) + " distinct " + (g.transposed ? "rows" : "columns") + "; " +
                detail::glynn_terms_text(g.terms) + " terms of Glynn's formula in a mixed-radix Gray code; " +
                arithmetic + summing.where;
  result.threads = summing.threads;
  result.seconds.compute =
      summing.device_seconds.value_or(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return result;
}

}  // namespace detail

inline permanent_result permanent_glynn(const sparse_matrix& matrix, const compute_options& options = {}) {
  return detail::run_glynn(matrix, options, engines::glynn::name, detail::glynn_on_host{});
}

inline permanent_result engines::glynn::run(const engine_task& task, const compute_options& options) {
  return permanent_glynn(task.matrix, options);
}

}  // namespace sparseperm
