#pragma once
// Dense floating matrices of one size, four at a time: each lane of a SIMD register holds one
// matrix's row sum x_i (complex values: the real and the imaginary parts in two registers), and the
// four matrices walk the same Gray code, so every instruction of a step does four matrices' work
// and no lane ever waits for another. The batches' CPU route (batch.cuh): a sampler's million small
// amplitudes, where one matrix is too little work to split and a plan per matrix would cost more
// than the matrix.
//
// Arithmetic as cpu-sparse's floating runs: the values on their row grids (every x exact, so the
// order of the additions does not matter), each product a balanced tree of n − 1 multiplications
// (the same rounding count as any order), terms summed plainly within runs of 8 steps and each run's
// sum added with TwoSum (error_bound.cuh's compensated sums with block = 8). What the grids' rounding
// moves each term by is bounded from the row sums the walk visits (dense_lane_sums::excess; the
// `Fine` walk, numeric/bounds.md), or a priori on the fast path.
//
// The step loop is compiled twice, for AVX2 with FMA where the CPU has them (chosen at run time:
// the library is compiled for any x86-64) and for the compiler's baseline target, where the
// four-wide vectors are lowered to what the target has (two SSE2 operations each on x86-64). With
// AVX2 the preparation of the four matrices' grids and columns also runs a lane a matrix
// (lanes_avx2); elsewhere it goes matrix by matrix (at n = 8 it took more than the walk).
//
//   dense_lanes_min_n, dense_lanes_max_n   the sizes with a step loop
//   dense_lane_group                       up to four matrices' row grids, columns and start
//                                          state from their row-major values (prepare), the walk,
//                                          and each lane's result's numbers (lane_numbers); or one
//                                          matrix a quarter of its walk a lane (a single call:
//                                          split_into_quarters, walk_quarters)
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "../core/result.cuh"
#include "../detail/bits.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/error_bound.cuh"
#include "ryser_result.cuh"

namespace sparseperm::detail {

inline constexpr int dense_lanes = 4;
inline constexpr int dense_lanes_min_n = 4;  // runs of 8 steps: n − 1 ≥ 3
inline constexpr int dense_lanes_max_n = 30;
inline constexpr int dense_lanes_run_bits = 3;  // terms summed plainly between TwoSums: 2^3

// The step loop's pieces are inlined into each compiled copy (host code only, so also under nvcc,
// whose SPARSEPERM_HOST_INLINE is empty): a piece left out of line keeps the baseline target and
// runs the AVX2 copy at SSE2's speed.
#if defined(__GNUC__) || defined(__clang__)
#  define SPARSEPERM_LANES_INLINE __attribute__((always_inline)) inline
#else
#  define SPARSEPERM_LANES_INLINE inline
#endif

// Four doubles, one a lane; lane_vector_in_memory for loads and stores at any 8-byte alignment (a
// target without AVX aligns the vector type to 16 bytes only, an AVX one assumes 32).
typedef double lane_vector __attribute__((vector_size(32)));
typedef double lane_vector_in_memory __attribute__((vector_size(32), aligned(8)));
typedef long long lane_bits __attribute__((vector_size(32)));

// (the helpers take and give vectors by reference: a vector by value is what GCC's -Wpsabi notes)
SPARSEPERM_LANES_INLINE void set_abs(lane_vector& out, const lane_vector& v) {
  constexpr long long magnitude = 0x7fffffffffffffffLL;
  out = reinterpret_cast<lane_vector>(reinterpret_cast<const lane_bits&>(v) &
                                      lane_bits{magnitude, magnitude, magnitude, magnitude});
}
SPARSEPERM_LANES_INLINE void add_abs(lane_vector& total, const lane_vector& v) {
  lane_vector a;
  set_abs(a, v);
  total += a;
}

// What the walk of four matrices leaves: per lane its compensated sums (real and imaginary parts),
// Σ|t| (of each part), and what the values' fine parts can move the terms by: Σ max(P1 − P0, 0)
// with P1 = Π (m_i + F_i) and P0 = Π m_i, m_i ≥ |x_i| (complex: max + k·min of |re|, |im|; Σ P0 is `base`;
// real: P0 = |t|), F_i the row's Σ_j |a_ij − â_ij| / 2 (numeric/bounds.md, "Values off their grids").
struct dense_lane_sums {
  double sum[2][dense_lanes]{};
  double compensation[2][dense_lanes]{};
  double magnitude[2][dense_lanes]{};
  double excess[dense_lanes]{};
  double base[dense_lanes]{};
  bool fine = false;  // excess and base were summed

  // part p's compensated sum of a lane, and it written back
  compensated_sum part(int p, int lane) const {
    compensated_sum s;
    s.sum = sum[p][lane];
    s.compensation = compensation[p][lane];
    s.magnitude = magnitude[p][lane];
    return s;
  }
  void set_part(int p, int lane, const compensated_sum& s) {
    sum[p][lane] = s.sum;
    compensation[p][lane] = s.compensation;
    magnitude[p][lane] = s.magnitude;
  }
};

template <bool Complex>
struct lane_value {
  lane_vector part[Complex ? 2 : 1];
};

// Π x[Lo..Hi) as a balanced tree: log2(n) multiplications deep, so consecutive steps' products overlap.
template <int Lo, int Hi, bool Complex>
SPARSEPERM_LANES_INLINE void lane_product(const lane_value<Complex>* x, lane_value<Complex>& out) {
  if constexpr (Hi - Lo == 1) {
    out = x[Lo];
  } else {
    constexpr int middle = (Lo + Hi) / 2;
    lane_value<Complex> a, b;
    lane_product<Lo, middle, Complex>(x, a);
    lane_product<middle, Hi, Complex>(x, b);
    if constexpr (Complex) {
      out.part[0] = a.part[0] * b.part[0] - a.part[1] * b.part[1];
      out.part[1] = a.part[0] * b.part[1] + a.part[1] * b.part[0];
    } else {
      out.part[0] = a.part[0] * b.part[0];
    }
  }
}

SPARSEPERM_LANES_INLINE void add_positive(lane_vector& total, const lane_vector& v) {
  total += reinterpret_cast<lane_vector>((v > 0.0) & reinterpret_cast<const lane_bits&>(v));
}

// The walk of one group: columns[(j·n + i)·parts + p] and x0[i·parts + p] are lane vectors (four
// matrices' entry (i, j), part p), fine[i] row i's F_i (dense_lane_sums), in memory as
// dense_lane_group keeps them.
template <int N, bool Complex, bool Fine>
struct lane_walk {
  static constexpr int parts = Complex ? 2 : 1;
  using value = lane_value<Complex>;

  // x ± column j (Sign ±1 a constant: the compiler emits the addition or the subtraction)
  template <int Sign>
  SPARSEPERM_LANES_INLINE static void flip(value* x, const double* columns, int j) {
    const lane_vector_in_memory* c = reinterpret_cast<const lane_vector_in_memory*>(columns) + j * N * parts;
    for (int i = 0; i < N; ++i)
      for (int p = 0; p < parts; ++p)
        x[i].part[p] = Sign > 0 ? x[i].part[p] + c[i * parts + p] : x[i].part[p] - c[i * parts + p];
  }
  SPARSEPERM_LANES_INLINE static void flip(value* x, const double* columns, int j, bool inclusion) {
    if (inclusion) {
      flip<1>(x, columns, j);
    } else {
      flip<-1>(x, columns, j);
    }
  }
  // the sums the term of the current x adds to
  struct accumulators {
    value run;
    lane_vector magnitude[parts];
    lane_vector excess, base;
    const lane_vector_in_memory* fine;
  };
  // the term of the current x into the run's sums, with sign (−1)^g, and its P1 − P0
  template <bool Odd>
  SPARSEPERM_LANES_INLINE static void add_term(const value* x, accumulators& a) {
    value t;
    lane_product<0, N, Complex>(x, t);
    for (int p = 0; p < parts; ++p) {
      a.run.part[p] = Odd ? a.run.part[p] - t.part[p] : a.run.part[p] + t.part[p];
      add_abs(a.magnitude[p], t.part[p]);
    }
    if constexpr (Fine) add_excess(x, t, a);
  }
  // max(P1 − P0, 0) (dense_lane_sums) into its sum; the products in four chains as the rows come
  // (n − 1 roundings as any order), so that no row's m_i or y_i stays live
  SPARSEPERM_LANES_INLINE static void add_excess(const value* x, const value& t, accumulators& a) {
    constexpr int chains = N < 4 ? N : 4;
    lane_vector p1[chains], p0[chains];
    for (int i = 0; i < N; ++i) {
      lane_vector m;
      set_abs(m, x[i].part[0]);
      if constexpr (Complex) {  // |re + i·im| ≤ max + k·min (k² + 2k ≥ 1): at most 8.3 % above
        lane_vector b;
        set_abs(b, x[i].part[1]);
        const lane_vector larger = m > b ? m : b;
        const lane_vector smaller = m > b ? b : m;
        m = larger + modulus_bound_slope * smaller;
      }
      const lane_vector y = m + a.fine[i];
      if (i < chains) {
        p1[i] = y;
        if constexpr (Complex) p0[i] = m;
      } else {
        p1[i % chains] *= y;
        if constexpr (Complex) p0[i % chains] *= m;
      }
    }
    lane_vector product = p1[0], base;
    for (int c = 1; c < chains; ++c) product *= p1[c];
    if constexpr (Complex) {
      base = p0[0];
      for (int c = 1; c < chains; ++c) base *= p0[c];
      a.base += base;
    } else {
      set_abs(base, t.part[0]);
    }
    add_positive(a.excess, product - base);
  }

  // steps 1..7 of a run of 8 (g = 8q + s): column ctz(s), inclusion where bit ctz(s) + 1 of g is 0,
  // which for s = 4 is bit 3 of g, the run's parity
  SPARSEPERM_LANES_INLINE static void run_steps(value* x, const double* columns, bool odd_run, accumulators& a) {
    flip<1>(x, columns, 0);  // s = 1
    add_term<true>(x, a);
    flip<1>(x, columns, 1);  // s = 2
    add_term<false>(x, a);
    flip<-1>(x, columns, 0);  // s = 3
    add_term<true>(x, a);
    flip(x, columns, 2, !odd_run);  // s = 4
    add_term<false>(x, a);
    flip<1>(x, columns, 0);  // s = 5
    add_term<true>(x, a);
    flip<-1>(x, columns, 1);  // s = 6
    add_term<false>(x, a);
    flip<-1>(x, columns, 0);  // s = 7
    add_term<true>(x, a);
  }

  // Runs [first, end) of the walk (run q: steps 8q .. 8q + 7; run 0 begins with x_0's own term):
  // x is the state after the runs before first (x_0 for first = 0) and becomes the state after end;
  // the sums go on from what `sums` holds.
  SPARSEPERM_LANES_INLINE static void walk(const double* columns, const double* fine, double* x_state,
                                           std::uint32_t first, std::uint32_t end, dense_lane_sums& sums) {
    static_assert(N >= dense_lanes_min_n && N <= dense_lanes_max_n, "lane_walk: no step loop for this n");
    lane_vector_in_memory* state = reinterpret_cast<lane_vector_in_memory*>(x_state);
    value x[N];
    for (int i = 0; i < N; ++i)
      for (int p = 0; p < parts; ++p) x[i].part[p] = state[i * parts + p];
    lane_vector sum[parts], compensation[parts];
    accumulators a;
    a.fine = reinterpret_cast<const lane_vector_in_memory*>(fine);
    for (int p = 0; p < parts; ++p) {
      std::memcpy(&sum[p], sums.sum[p], sizeof sum[p]);
      std::memcpy(&compensation[p], sums.compensation[p], sizeof compensation[p]);
      std::memcpy(&a.magnitude[p], sums.magnitude[p], sizeof a.magnitude[p]);
    }
    std::memcpy(&a.excess, sums.excess, sizeof a.excess);
    std::memcpy(&a.base, sums.base, sizeof a.base);
    for (std::uint32_t q = first; q < end; ++q) {
      a.run = value{};
      if (q == 0) {
        add_term<false>(x, a);  // g = 0: x_0 itself
      } else {                  // g = 8q: column 3 + ctz(q), inclusion where the bit above it is 0
        const int j = dense_lanes_run_bits + trailing_zeros32(q);
        flip(x, columns, j, ((q >> (j - dense_lanes_run_bits + 1)) & 1u) == 0);
        add_term<false>(x, a);
      }
      run_steps(x, columns, (q & 1u) != 0, a);
      for (int p = 0; p < parts; ++p) {  // TwoSum of the run's sum into the total
        const lane_vector t = sum[p] + a.run.part[p];
        const lane_vector v_part = t - sum[p];
        compensation[p] += (sum[p] - (t - v_part)) + (a.run.part[p] - v_part);
        sum[p] = t;
      }
    }
    for (int i = 0; i < N; ++i)
      for (int p = 0; p < parts; ++p) state[i * parts + p] = x[i].part[p];
    for (int p = 0; p < parts; ++p) {
      std::memcpy(sums.sum[p], &sum[p], sizeof sum[p]);
      std::memcpy(sums.compensation[p], &compensation[p], sizeof compensation[p]);
      std::memcpy(sums.magnitude[p], &a.magnitude[p], sizeof a.magnitude[p]);
    }
    std::memcpy(sums.excess, &a.excess, sizeof a.excess);
    std::memcpy(sums.base, &a.base, sizeof a.base);
  }
};

using lane_walk_function = void (*)(const double*, const double*, double*, std::uint32_t, std::uint32_t,
                                    dense_lane_sums&);

template <int N, bool Complex, bool Fine>
void lane_walk_baseline(const double* columns, const double* fine, double* x, std::uint32_t first, std::uint32_t end,
                        dense_lane_sums& sums) {
  lane_walk<N, Complex, Fine>::walk(columns, fine, x, first, end, sums);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__AVX2__)
#  define SPARSEPERM_LANES_AVX2 1
template <int N, bool Complex, bool Fine>
__attribute__((target("avx2,fma"))) void lane_walk_avx2(const double* columns, const double* fine, double* x,
                                                        std::uint32_t first, std::uint32_t end, dense_lane_sums& sums) {
  lane_walk<N, Complex, Fine>::walk(columns, fine, x, first, end, sums);
}
#else
#  define SPARSEPERM_LANES_AVX2 0
#endif

template <bool Complex, bool Fine, int... K>
lane_walk_function lane_walk_for(int n, bool avx2, std::integer_sequence<int, K...>) {
  lane_walk_function f = nullptr;
  (void)avx2;
#if SPARSEPERM_LANES_AVX2
  if (avx2) {
    ((n == K + dense_lanes_min_n ? (f = &lane_walk_avx2<K + dense_lanes_min_n, Complex, Fine>, 0) : 0), ...);
    return f;
  }
#endif
  ((n == K + dense_lanes_min_n ? (f = &lane_walk_baseline<K + dense_lanes_min_n, Complex, Fine>, 0) : 0), ...);
  return f;
}

// Whether the CPU runs the AVX2 step loops (asked once).
inline bool lanes_have_avx2() {
#if SPARSEPERM_LANES_AVX2
  static const bool has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
#else
  return false;
#endif
}

// The step loop of n × n matrices (dense_lanes_min_n ≤ n ≤ dense_lanes_max_n); Fine: with the fine
// parts' sums (dense_lane_sums::excess).
template <bool Complex, bool Fine>
lane_walk_function lane_walk_of(int n) {
  return lane_walk_for<Complex, Fine>(n, lanes_have_avx2(),
                                      std::make_integer_sequence<int, dense_lanes_max_n - dense_lanes_min_n + 1>{});
}

// |re + i·im| rounded up by a few ulps: a square root where the squares stay normal (nanoseconds,
// where hypot takes tens; n² times a matrix), else hypot.
inline constexpr double lane_modulus_up = 1 + 0x1p-50;
inline double lane_modulus_of(double re, double im) {
  const double larger = std::max(std::fabs(re), std::fabs(im));
  if (larger > 0x1p-400 && larger < 0x1p400) return std::sqrt(re * re + im * im) * lane_modulus_up;
  return std::hypot(re, im) * lane_modulus_up;
}

// round_to_grid's constant 1.5·2^(e+1) for a row of grid exponent e ≤ max_grid_exponent, from its
// bits: (v + c) − c is v on the grid.
inline double lane_grid_constant(int e) {
  return 1.5 * std::bit_cast<double>(static_cast<std::uint64_t>(e + 1 + 1023) << 52);
}

// F_i = Σ_j |a_ij − â_ij| / 2 rounded up: the sum of n ≤ 30 exact differences is short by at most
// γ_29 < 2^−48, and this factor's own rounding keeps more than 2^−45 of it.
inline constexpr double lane_fine_margin = 1 + 0x1p-44;

// Whether a lane's row grids cannot certify its matrix (row_grid_refusal's reasons).
inline bool lane_refused(const grid_rounding_facts& f) { return !f.representable || !(f.change < 1); }

#if SPARSEPERM_LANES_AVX2
// dense_lane_group::prepare_lane's arithmetic for the four lanes at once, a lane of each vector a
// matrix: the same operations in the same order, so the same grids, columns and facts (a modulus's
// sum of squares may be fused, within the few ulps its rounding up covers). A vector of moduli
// with a lane whose squares would leave double's normal range takes lane_modulus_of lane by lane.
struct lanes_avx2 {
  // |v| (a function of the AVX2 target: a vector returned by value keeps its ABI)
  __attribute__((target("avx2,fma"), always_inline)) static lane_vector abs(const lane_vector& v) {
    constexpr long long m = 0x7fffffffffffffffLL;
    return reinterpret_cast<lane_vector>(reinterpret_cast<const lane_bits&>(v) & lane_bits{m, m, m, m});
  }
  __attribute__((target("avx2,fma"), always_inline)) static lane_vector modulus(const lane_vector& x,
                                                                                const lane_vector& y) {
    const lane_vector larger = __builtin_ia32_maxpd256(abs(x), abs(y));
    // 0 is exact too (an entry already on its grid changes by 0 + 0i)
    const lane_bits normal = (larger == 0.0) | ((larger > 0x1p-400) & (larger < 0x1p400));
    lane_vector m = __builtin_ia32_sqrtpd256(x * x + y * y) * lane_modulus_up;
    if (!__builtin_ia32_ptestc256(normal, lane_bits{-1, -1, -1, -1})) [[unlikely]] {
      for (int lane = 0; lane < dense_lanes; ++lane) m[lane] = lane_modulus_of(x[lane], y[lane]);
    }
    return m;
  }

  // Row i's moduli and sums (pass one of prepare_lane); re[l], im[l]: lane l's row-major values.
  template <bool Complex>
  struct row_sums {
    lane_vector re[dense_lanes_max_n], im[dense_lanes_max_n], modulus[dense_lanes_max_n];
    lane_vector l1 = {}, sum = {};
    lane_bits negative = {};
  };
  template <bool Complex>
  __attribute__((target("avx2,fma"))) static void sum_row(int n, int i, const double* const* re,
                                                          const double* const* im, int step, lane_vector* column_sums,
                                                          row_sums<Complex>& r) {
    lane_vector l1[2] = {}, sum[2] = {};
    const std::size_t row = static_cast<std::size_t>(i) * n;
    for (int j = 0; j < n; ++j) {
      const std::size_t at = (row + static_cast<std::size_t>(j)) * step;
      r.re[j] = lane_vector{re[0][at], re[1][at], re[2][at], re[3][at]};
      lane_vector m;
      if constexpr (Complex) {
        r.im[j] = lane_vector{im[0][at], im[1][at], im[2][at], im[3][at]};
        m = modulus(r.re[j], r.im[j]);
        l1[j & 1] += abs(r.re[j]) + abs(r.im[j]);
      } else {
        m = abs(r.re[j]);
        l1[j & 1] += m;
        r.negative |= r.re[j] < 0.0;
      }
      r.modulus[j] = m;
      sum[j & 1] += m;
      column_sums[j] += m;
    }
    r.l1 = l1[0] + l1[1];
    r.sum = sum[0] + sum[1];
  }

  // Row i rounded to its grids (constant c a lane) into the columns, x_0 and F_i; returns ρ's
  // chains' max.
  template <bool Complex>
  __attribute__((target("avx2,fma"))) static lane_vector round_row(int n, int i, const lane_vector& c,
                                                                   const row_sums<Complex>& r, double* columns,
                                                                   double* x0, double* fine_bounds) {
    constexpr int parts = Complex ? 2 : 1;
    const std::size_t column_stride = static_cast<std::size_t>(n) * parts * dense_lanes;
    lane_vector rho[2] = {}, total[2] = {}, total_imag[2] = {}, fine[2] = {};
    double* entry = columns + static_cast<std::size_t>(i) * parts * dense_lanes;
    for (int j = 0; j < n; ++j, entry += column_stride) {
      const lane_vector v = (r.re[j] + c) - c;
      std::memcpy(entry, &v, sizeof v);
      total[j & 1] += v;
      lane_vector change;
      if constexpr (Complex) {
        const lane_vector w = (r.im[j] + c) - c;
        std::memcpy(entry + dense_lanes, &w, sizeof w);
        total_imag[j & 1] += w;
        const lane_vector dv = abs(v - r.re[j]), dw = abs(w - r.im[j]);
        change = __builtin_ia32_maxpd256(dv, dw) + modulus_bound_slope * __builtin_ia32_minpd256(dv, dw);
        fine[j & 1] += dv + dw;
      } else {
        change = abs(v - r.re[j]);
        fine[j & 1] += change;
      }
      rho[j & 1] = __builtin_ia32_maxpd256(change / r.modulus[j], rho[j & 1]);  // std::max(rho, ratio)
    }
    const lane_vector fine_bound = (fine[0] + fine[1]) * (0.5 * lane_fine_margin);
    std::memcpy(fine_bounds + static_cast<std::size_t>(i) * dense_lanes, &fine_bound, sizeof fine_bound);
    // x_0's row: the last column's entry − Σ_j a_ij / 2 (memcpy: the buffers are 8-byte aligned)
    const double* last = columns + (static_cast<std::size_t>(n - 1) * n + i) * parts * dense_lanes;
    double* start = x0 + static_cast<std::size_t>(i) * parts * dense_lanes;
    lane_vector top[parts];
    std::memcpy(top, last, sizeof top);
    top[0] -= (total[0] + total[1]) / 2;
    if constexpr (Complex) top[1] -= (total_imag[0] + total_imag[1]) / 2;
    std::memcpy(start, top, sizeof top);
    return __builtin_ia32_maxpd256(rho[0], rho[1]);
  }

  template <bool Complex>
  __attribute__((target("avx2,fma"))) static void prepare(int n, const double* const* re, const double* const* im,
                                                          int step, double* columns, double* x0, double* fine_bounds,
                                                          grid_rounding_facts facts[dense_lanes]) {
    lane_vector column_sums[dense_lanes_max_n];
    for (int j = 0; j < n; ++j) column_sums[j] = lane_vector{};
    grid_rounding_builder builders[dense_lanes];
    bool representable[dense_lanes] = {true, true, true, true};
    row_sums<Complex> r;
    for (int i = 0; i < n; ++i) {
      sum_row<Complex>(n, i, re, im, step, column_sums, r);
      lane_vector c;
      for (int lane = 0; lane < dense_lanes; ++lane) {
        const int e = grid_exponent(r.l1[lane]);
        representable[lane] = representable[lane] && e <= max_grid_exponent;
        c[lane] = representable[lane] ? lane_grid_constant(e) : 0.0;
      }
      const lane_vector rho = round_row<Complex>(n, i, c, r, columns, x0, fine_bounds) * (1 + 0x1p-48) * bound_margin;
      const lane_vector row_sum = Complex ? r.sum * bound_margin : r.sum;
      for (int lane = 0; lane < dense_lanes; ++lane)
        builders[lane].row(rho[lane], row_sum[lane], Complex || r.negative[lane] != 0);
    }
    for (int lane = 0; lane < dense_lanes; ++lane) {
      for (int j = 0; j < n; ++j)
        builders[lane].column(Complex ? column_sums[j][lane] * bound_margin : column_sums[j][lane]);
      if (!representable[lane]) builders[lane].unrepresentable();
      facts[lane] = builders[lane].facts();
    }
  }
};
#endif

// Up to four n × n matrices in the lanes: their values rounded to their row grids, as column
// vectors in Gray order (column j of the matrix is Gray column j, column n − 1 is x_0's), x_0, and
// what the grids changed. The buffers are the caller's (the batch: one allocation a group of four,
// not one a matrix).
struct dense_lane_group {
  int n = 0;
  bool complex = false;
  double* columns = nullptr;  // n·n·parts lane vectors
  double* x0 = nullptr;       // n·parts lane vectors: x_0, then the walk's state; then n of F_i
  int step = 1;               // doubles from one entry of the values prepare reads to the next
  grid_rounding_facts facts[dense_lanes];

  static std::size_t columns_size(int n, bool complex) {
    return static_cast<std::size_t>(n) * static_cast<std::size_t>(n) * (complex ? 2 : 1) * dense_lanes;
  }
  static std::size_t x0_size(int n, bool complex) {
    return static_cast<std::size_t>(n) * (complex ? 3 : 2) * dense_lanes;
  }
  double* fine_bounds() const { return x0 + static_cast<std::size_t>(n) * (complex ? 2 : 1) * dense_lanes; }

  // Lane l gets the matrix with row-major parts real[l] and imag[l] (nullptr: real values; entries
  // `step` doubles apart). Every value must be finite. refused[l]: the lane's row grids cannot
  // certify its matrix (row_grid_refusal's reasons), which then needs another route. The facts are
  // row_grids_of's but for the moduli of complex values: square roots rounded up (hypot where the
  // squares would leave double's normal range).
  void prepare(const double* const* real, const double* const* imag, int count, bool refused[dense_lanes]) {
#if SPARSEPERM_LANES_AVX2
    if (lanes_have_avx2()) {
      const double* re[dense_lanes];
      const double* im[dense_lanes];
      for (int lane = 0; lane < dense_lanes; ++lane) {
        re[lane] = real[lane < count ? lane : 0];
        im[lane] = imag ? imag[lane < count ? lane : 0] : nullptr;
      }
      if (complex) {
        lanes_avx2::prepare<true>(n, re, im, step, columns, x0, fine_bounds(), facts);
      } else {
        lanes_avx2::prepare<false>(n, re, im, step, columns, x0, fine_bounds(), facts);
      }
      for (int lane = 0; lane < count; ++lane) refused[lane] = lane_refused(facts[lane]);
      return;
    }
#endif
    prepare_each(real, imag, count, refused);
  }

  // prepare matrix by matrix (where the CPU has no AVX2)
  void prepare_each(const double* const* real, const double* const* imag, int count, bool refused[dense_lanes]) {
    for (int lane = 0; lane < dense_lanes; ++lane) {
      const int from = lane < count ? lane : 0;
      facts[lane] =
          complex ? prepare_lane<true>(lane, real[from], imag[from]) : prepare_lane<false>(lane, real[from], nullptr);
      if (lane < count) refused[lane] = lane_refused(facts[lane]);
    }
  }

  template <bool Complex>
  grid_rounding_facts prepare_lane(int lane, const double* re, const double* im) {
    constexpr int parts = Complex ? 2 : 1;
    double modulus[dense_lanes_max_n], column_sums[dense_lanes_max_n];
    grid_rounding_builder builder;
    bool representable = true;
    std::fill(column_sums, column_sums + n, 0.0);
    const std::size_t column_stride = static_cast<std::size_t>(n) * parts * dense_lanes;
    for (int i = 0; i < n; ++i) {
      const double* row_re = re + static_cast<std::size_t>(i) * n * step;
      const double* row_im = Complex ? im + static_cast<std::size_t>(i) * n * step : nullptr;
      // Σ(|re| + |im|) for the grid, Σ|a| for the bound, in two chains each
      double l1[2]{}, sum[2]{};
      bool negative = Complex;
      for (int j = 0; j < n; ++j) {
        if constexpr (Complex) {
          modulus[j] = lane_modulus_of(row_re[j * step], row_im[j * step]);
          l1[j & 1] += std::fabs(row_re[j * step]) + std::fabs(row_im[j * step]);
        } else {
          modulus[j] = std::fabs(row_re[j * step]);
          l1[j & 1] += modulus[j];
          negative = negative || row_re[j * step] < 0;
        }
        sum[j & 1] += modulus[j];
        column_sums[j] += modulus[j];
      }
      const int e = grid_exponent(l1[0] + l1[1]);
      representable = representable && e <= max_grid_exponent;
      const double c = representable ? lane_grid_constant(e) : 0.0;  // once a row
      // rho: the largest |â − a| / |a| (the differences are exact), in two chains
      double rho_chains[2]{}, total[2]{}, total_imag[2]{}, fine[2]{};
      double* entry = columns + static_cast<std::size_t>(i) * parts * dense_lanes + lane;
      for (int j = 0; j < n; ++j, entry += column_stride) {
        const double v = (row_re[j * step] + c) - c;
        entry[0] = v;
        total[j & 1] += v;  // exact on the grid, in any order
        double change;
        if constexpr (Complex) {
          const double w = (row_im[j * step] + c) - c;
          entry[dense_lanes] = w;
          total_imag[j & 1] += w;
          change = modulus_bound(v - row_re[j * step], w - row_im[j * step]);
          fine[j & 1] += std::fabs(v - row_re[j * step]) + std::fabs(w - row_im[j * step]);
        } else {
          change = std::fabs(v - row_re[j * step]);
          fine[j & 1] += change;
        }
        // the modulus is rounded up by a few ulps, the change's bound down by at most two: the ratio's
        // margin covers both
        rho_chains[j & 1] = std::max(rho_chains[j & 1], change / modulus[j]);
      }
      // x_0 = a(:, n−1)/2 − Σ_(j < n−1) a(:, j)/2 = a(:, n−1) − Σ_j a(:, j)/2, exact on the grid
      const double* last = columns + (static_cast<std::size_t>(n - 1) * n + i) * parts * dense_lanes + lane;
      double* start = x0 + static_cast<std::size_t>(i) * parts * dense_lanes + lane;
      start[0] = last[0] - (total[0] + total[1]) / 2;
      if constexpr (Complex) start[dense_lanes] = last[dense_lanes] - (total_imag[0] + total_imag[1]) / 2;
      fine_bounds()[static_cast<std::size_t>(i) * dense_lanes + lane] = (fine[0] + fine[1]) * (0.5 * lane_fine_margin);
      const double rho = std::max(rho_chains[0], rho_chains[1]) * (1 + 0x1p-48) * bound_margin;
      builder.row(rho, Complex ? (sum[0] + sum[1]) * bound_margin : sum[0] + sum[1], negative);
    }
    for (int j = 0; j < n; ++j) builder.column(Complex ? column_sums[j] * bound_margin : column_sums[j]);
    if (!representable) builder.unrepresentable();
    return builder.facts();
  }

  // Whether a lane's bound gains from the fine parts' sums: values the grids rounded, of either sign
  // (a nonnegative matrix's a-priori term is relative to its permanent already).
  bool fine_parts_pay(int count) const {
    for (int lane = 0; lane < count; ++lane)
      if (facts[lane].change > 0 && !facts[lane].nonnegative) return true;
    return false;
  }

  lane_walk_function walk_function(bool fine) const {
    return complex ? (fine ? lane_walk_of<true, true>(n) : lane_walk_of<true, false>(n))
                   : (fine ? lane_walk_of<false, true>(n) : lane_walk_of<false, false>(n));
  }

  // The walk, x0 becoming the state as it goes, in slices of 2^20 steps (milliseconds) with
  // go_on() between them: false stops the walk (its sums are then partial). fine: with the fine
  // parts' sums, which cost about as much again as the rest of a step.
  template <class GoOn>
  dense_lane_sums walk(const GoOn& go_on, bool fine = true) const {
    dense_lane_sums sums;
    sums.fine = fine;
    const lane_walk_function f = walk_function(fine);
    const std::uint32_t runs = std::uint32_t{1} << (n - 1 - dense_lanes_run_bits);
    constexpr std::uint32_t slice = std::uint32_t{1} << (20 - dense_lanes_run_bits);
    for (std::uint32_t first = 0; first < runs; first += slice) {
      if (first > 0 && !go_on()) break;
      f(columns, fine_bounds(), x0, first, std::min(runs, first + slice), sums);
    }
    return sums;
  }

  // One matrix in all four lanes (prepare with count 1 left a copy in each), each lane to walk a
  // quarter of its Gray code: lane l from g = l·2^(n−3) (its x the state there, exact on the grid).
  // Within a quarter, steps flip the same columns as the first quarter's, and every flip goes the same
  // way but that of column n − 4 in the odd quarters (bit n − 4 of g ^ (g >> 1) holds bit n − 3 of g
  // there), so their copy of that column is negated. Then walk_quarters. n ≥ 7.
  void split_into_quarters() {
    const int parts = complex ? 2 : 1;
    const auto column = [&](int j, int i, int p) {
      return columns + (static_cast<std::size_t>(j) * n + i) * parts * dense_lanes + p * dense_lanes;
    };
    const int top = n - 4;
    for (int i = 0; i < n; ++i)
      for (int p = 0; p < parts; ++p) {
        double* x = x0 + static_cast<std::size_t>(i) * parts * dense_lanes + p * dense_lanes;
        const double a_top = column(top, i, p)[0], a_low = column(n - 3, i, p)[0], a_high = column(n - 2, i, p)[0];
        // g ^ (g >> 1) at l·2^(n−3), l = 1, 2, 3: columns {n−4, n−3}, {n−3, n−2}, {n−4, n−2}
        x[1] = (x[0] + a_top) + a_low;
        x[2] = (x[0] + a_low) + a_high;
        x[3] = (x[0] + a_top) + a_high;
        column(top, i, p)[1] = -a_top;
        column(top, i, p)[3] = -a_top;
      }
  }

  // The quarters' walk (split_into_quarters), their sums merged into lane 0's as threads' chunks
  // merge (compensated_sum::merge): the same analysis, with fewer additions in a chain than the
  // 2^(n−1) lane_numbers counts.
  dense_lane_sums walk_quarters(bool fine) const {
    const lane_walk_function f = walk_function(fine);
    dense_lane_sums sums;
    sums.fine = fine;
    f(columns, fine_bounds(), x0, 0, std::uint32_t{1} << (n - 3 - dense_lanes_run_bits), sums);
    for (int p = 0; p < 2; ++p) {
      compensated_sum total = sums.part(p, 0);
      for (int lane = 1; lane < dense_lanes; ++lane) total.merge(sums.part(p, lane));
      sums.set_part(p, 0, total);
    }
    for (int lane = 1; lane < dense_lanes; ++lane) {
      sums.excess[0] += sums.excess[lane];
      sums.base[0] += sums.base[lane];
    }
    return sums;
  }

  // Lane l's permanent's numbers, certified as set_ryser_sum certifies cpu-sparse's (not yet checked
  // for overflow: check_floating_numbers).
  static floating_numbers lane_numbers(int n, bool complex, const dense_lane_sums& sums, int lane,
                                       const grid_rounding_facts& facts) {
    constexpr std::uint64_t run = std::uint64_t{1} << dense_lanes_run_bits;
    // Σ|t| is one plain sum of every term: the longest chain (a run's 8 terms go into its partial,
    // each partial into the total with one TwoSum)
    const std::uint64_t chain = std::uint64_t{1} << (n - 1);
    // the rounding of the values â on their grids, bounded after the walk (fine_parts_bound) and a
    // priori (grid_perturbation_bound): the smaller
    const floating_run_facts run_facts{without_change(facts), run};
    floating_numbers v =
        complex ? ryser_sum_numbers(n, complex_sum<compensated_sum>{sums.part(0, lane), sums.part(1, lane)}, chain,
                                    run_facts)
                : ryser_sum_numbers(n, sums.part(0, lane), chain, run_facts);
    if (sums.fine) {
      return with_fine_parts(n, v, facts, {sums.excess[lane], sums.base[lane]}, sums.magnitude[0][lane], chain);
    }
    v.bound += grid_perturbation_bound(facts, std::hypot(v.value, v.imag), v.bound);
    return v;
  }
};

}  // namespace sparseperm::detail
