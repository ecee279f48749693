#pragma once
// The sparse Ryser inner loop of CPU-SparsePerman and GPU-SparsePerman (the paper's Algorithm 1),
// on the host and the device.
//
// x is strided: entry i at x[i·stride] (stride 1 in a CPU thread's private array; the block size in
// GPU shared memory, where neighbouring threads then hit neighbouring banks). Step g updates the
// rows of column ctz(g) and keeps the number of exactly-zero entries of x, skipping the product
// while it is not 0.
#include <cstdint>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/double_double.cuh"
#include "../numeric/modular.cuh"
#include "gray_code.cuh"
#include "gray_steps.cuh"

namespace sparseperm::detail {

// The matrix as the loop reads it: CSC in the engine's column order, values in the arithmetic's
// scale (doubled for exact integers), and the start state x_0.
template <class X>
struct sparse_columns_view {
  int n = 0;
  const std::int32_t* start = nullptr;  // column j: entries [start[j], start[j+1])
  const std::int32_t* rows = nullptr;
  const X* values = nullptr;
  const X* x0 = nullptr;
  const double* fine = nullptr;  // F_i of each row, where the sum keeps its fine parts (add_fine_parts_term)
};

// Π x[i·stride], four independent chains: a multiplication's latency is about four cycles, so one
// chain would leave the core idle most of the time (eight chains measured slower on the CPU).
SPARSEPERM_HOST_DEVICE inline double product_of(const double* x, int n, int stride) {
  double p0 = 1, p1 = 1, p2 = 1, p3 = 1;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    p0 *= x[i * stride];
    p1 *= x[(i + 1) * stride];
    p2 *= x[(i + 2) * stride];
    p3 *= x[(i + 3) * stride];
  }
  for (; i < n; ++i) p0 *= x[i * stride];
  return (p0 * p1) * (p2 * p3);
}

#if SPARSEPERM_HAS_INT128
SPARSEPERM_HOST_DEVICE inline __int128 product_of(const std::int64_t* x, int n, int stride) {
  __int128 p = 1;
  for (int i = 0; i < n; ++i) p *= x[i * stride];
  return p;
}

// Gaussian integers: doubled int64 row sums, 128-bit products (the caller's bound holds them).
SPARSEPERM_HOST_DEVICE inline complex_number<__int128> product_of(const complex_number<std::int64_t>* x, int n,
                                                                  int stride) {
  complex_number<__int128> p{1, 0};
  for (int i = 0; i < n; ++i) p = p * complex_number<__int128>(x[i * stride]);
  return p;
}
#endif

// Complex doubles, two chains (a complex multiplication is four multiplications deep enough).
SPARSEPERM_HOST_DEVICE inline complex_double product_of(const complex_double* x, int n, int stride) {
  complex_double p0{1, 0}, p1{1, 0};
  int i = 0;
  for (; i + 2 <= n; i += 2) {
    p0 = p0 * x[i * stride];
    p1 = p1 * x[(i + 1) * stride];
  }
  if (i < n) p0 = p0 * x[i * stride];
  return p0 * p1;
}

// Split row sums (numeric/double_double.cuh): each factor rounded once, then as above (a product of n
// factors counts 2n − 1 roundings, complex ones one more per factor).
SPARSEPERM_HOST_DEVICE inline double product_of(const split_value<double>* x, int n, int stride) {
  double p0 = 1, p1 = 1, p2 = 1, p3 = 1;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    p0 *= x[i * stride].factor();
    p1 *= x[(i + 1) * stride].factor();
    p2 *= x[(i + 2) * stride].factor();
    p3 *= x[(i + 3) * stride].factor();
  }
  for (; i < n; ++i) p0 *= x[i * stride].factor();
  return (p0 * p1) * (p2 * p3);
}

SPARSEPERM_HOST_DEVICE inline complex_double product_of(const split_value<complex_double>* x, int n, int stride) {
  complex_double p0{1, 0}, p1{1, 0};
  int i = 0;
  for (; i + 2 <= n; i += 2) {
    p0 = p0 * x[i * stride].factor();
    p1 = p1 * x[(i + 1) * stride].factor();
  }
  if (i < n) p0 = p0 * x[i * stride].factor();
  return p0 * p1;
}

// The product of x in the arithmetic of X (double, or 128-bit for int64 x)...
struct plain_product {
  template <class X>
  SPARSEPERM_HOST_DEVICE auto operator()(const X* x, int n, int stride) const {
    return product_of(x, n, stride);
  }
};

// ... or modulo the first K primes (x: doubled integers below 2^24), two chains.
template <int K>
struct residue_product {
  SPARSEPERM_HOST_DEVICE residues<K> operator()(const double* x, int n, int stride) const {
    residues<K> p0(1.0), p1(1.0);
    int i = 0;
    for (; i + 2 <= n; i += 2) {
      p0 = p0 * residues<K>(x[i * stride]);
      p1 = p1 * residues<K>(x[(i + 1) * stride]);
    }
    if (i < n) p0 = p0 * residues<K>(x[i * stride]);
    return p0 * p1;
  }
};

// ... or in double-double from split row sums (every factor exact), two chains.
struct double_double_product {
  template <class V>
  SPARSEPERM_HOST_DEVICE auto operator()(const split_value<V>* x, int n, int stride) const {
    auto p0 = dd_factor(x[0]);
    if (n == 1) return p0;
    auto p1 = dd_factor(x[stride]);
    int i = 2;
    for (; i + 2 <= n; i += 2) {
      p0 = dd_times(p0, dd_factor(x[i * stride]));
      p1 = dd_times(p1, dd_factor(x[(i + 1) * stride]));
    }
    if (i < n) p0 = dd_times(p0, dd_factor(x[i * stride]));
    return dd_times(p0, p1);
  }
};

// The term of x on values rounded to their row grids into `sum`, with what the values' fine parts
// can move it by (numeric/bounds.md, "Values off their grids"): max(P̂1 − P̂0, 0) with P1 = Π (m_i +
// F_i), P0 = Π m_i, m_i = |x_i| (real: P̂0 is |t̂|) or the modulus bound of x_i (complex); two chains
// each. A zero x_i makes t̂ and P̂0 0 but not P̂1, so no step is skipped.
template <class Sum>
SPARSEPERM_HOST_DEVICE void add_fine_parts_term(const double* x, const double* fine, int n, int stride, Sum& sum,
                                                bool odd) {
  double t0 = 1, t1 = 1, q0 = 1, q1 = 1;
  int i = 0;
  for (; i + 2 <= n; i += 2) {
    const double a = x[i * stride], b = x[(i + 1) * stride];
    t0 *= a;
    t1 *= b;
    q0 *= std::fabs(a) + fine[i];
    q1 *= std::fabs(b) + fine[i + 1];
  }
  if (i < n) {
    t0 *= x[i * stride];
    q0 *= std::fabs(x[i * stride]) + fine[i];
  }
  const double t = t0 * t1;
  sum.add_signed(t, odd);
  sum.add_fine(std::fmax(q0 * q1 - std::fabs(t), 0.0), 0);
}

template <class Sum>
SPARSEPERM_HOST_DEVICE void add_fine_parts_term(const complex_double* x, const double* fine, int n, int stride,
                                                Sum& sum, bool odd) {
  complex_double t0{1, 0}, t1{1, 0};
  double q0 = 1, q1 = 1, p0 = 1, p1 = 1;
  int i = 0;
  for (; i + 2 <= n; i += 2) {
    const complex_double a = x[i * stride], b = x[(i + 1) * stride];
    t0 = t0 * a;
    t1 = t1 * b;
    const double ma = modulus_bound(a.re, a.im), mb = modulus_bound(b.re, b.im);
    q0 *= ma + fine[i];
    q1 *= mb + fine[i + 1];
    p0 *= ma;
    p1 *= mb;
  }
  if (i < n) {
    const complex_double a = x[i * stride];
    t0 = t0 * a;
    const double ma = modulus_bound(a.re, a.im);
    q0 *= ma + fine[i];
    p0 *= ma;
  }
  const double base = p0 * p1;
  sum.add_signed(t0 * t1, odd);
  sum.add_fine(std::fmax(q0 * q1 - base, 0.0), base);
}

// Adds the terms of the steps [first, end) (first ≥ 1) to `sum`; x is scratch of n·stride entries.
template <class X, class Sum, class Product = plain_product>
SPARSEPERM_HOST_DEVICE void sparse_ryser_steps(const sparse_columns_view<X>& m, X* x, int stride, std::uint64_t first,
                                               std::uint64_t end, Sum& sum, Product product = {}) {
  const int n = m.n;
  for (int i = 0; i < n; ++i) x[i * stride] = m.x0[i];
  for (std::uint64_t included = gray(first - 1); included != 0; included &= included - 1) {
    const int j = trailing_zeros(included);
    for (std::int32_t k = m.start[j]; k < m.start[j + 1]; ++k) x[m.rows[k] * stride] += m.values[k];
  }
  if constexpr (has_fine_parts<Sum>) {
    (void)product;
    for_each_gray_step(first, end, [&](int j, bool inclusion, bool odd) {
      for (std::int32_t k = m.start[j]; k < m.start[j + 1]; ++k) {
        X& xi = x[m.rows[k] * stride];
        xi = inclusion ? xi + m.values[k] : xi - m.values[k];
      }
      add_fine_parts_term(x, m.fine, n, stride, sum, odd);
    });
  } else {
    int zeros = 0;
    for (int i = 0; i < n; ++i) zeros += x[i * stride] == X{0};
    for_each_gray_step(first, end, [&](int j, bool inclusion, bool odd) {
      for (std::int32_t k = m.start[j]; k < m.start[j + 1]; ++k) {
        X& xi = x[m.rows[k] * stride];
        zeros -= xi == X{0};
        xi = inclusion ? xi + m.values[k] : xi - m.values[k];
        zeros += xi == X{0};
      }
      if (zeros == 0) {
        sum.add_signed(product(x, n, stride), odd);
      }
    });
  }
}

}  // namespace sparseperm::detail
