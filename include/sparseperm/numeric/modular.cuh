#pragma once
// Exact permanents of integer matrices beyond 128 bits: Ryser's sum modulo several primes, joined by
// the Chinese remainder theorem.
//
// Residues live in doubles and the primes lie just below 2^25. A residue stays within p/2 + 1 of 0,
// so a product of two residues (or of a residue and an x below 2^24) is below 2^50 and exact, and
// r·s mod p takes four FP64 operations:
//     h = r·s;  q = (h·(1/p) + 1.5·2^52) − 1.5·2^52  (h/p rounded to an integer, off by at most 1);
//     h − q·p   (q·p < 2^53 is exact, and so is the difference)
// On the GPU this is the fastest exact arithmetic there is: a 64-bit integer multiplication is
// several instructions, and FP64 is what the generated kernels are built around. The same code runs
// on the host, and contraction into fused multiply-adds changes nothing (every step is exact).
//
//   modular_primes                 the 16 largest primes below 2^25 (400 bits together)
//   modulus / reduce / multiply    one prime at run time (run-time engines)
//   reduce_pair                    (a + b) mod p for integers near 2^53 whose sum is not a double
//   residues<K> / residue_sum<K>   the first K primes at compile time (generated engines)
//   residue_dot<K>                 Σ a·b of residues, reduced once per 16 products
//   permanent_bound_bits           a proven bound on log2 |perm|: Π of row or column sums, and
//                                  Brègman's Π (r_i!)^(1/r_i) for 0/1 matrices
//   primes_for_bits                how many primes hold a permanent of that bound, with its sign
//   chinese_remainder              the integer in (−M/2, M/2) with given residues, M = Π p
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/config.cuh"
#include "big_integer.cuh"

namespace sparseperm::detail {

inline constexpr int modular_prime_count = 16;
SPARSEPERM_GLOBAL_CONSTANT double modular_primes[modular_prime_count] = {
    33554393, 33554383, 33554371, 33554347, 33554341, 33554317, 33554291, 33554273,
    33554267, 33554249, 33554239, 33554221, 33554201, 33554167, 33554159, 33554137};
// Every residue operand is below 2^24 + p (x: its row sum bound; residues: p/2 + 1).
inline constexpr double modular_max_x = 16777216.0;         // 2^24: rows with a larger Σ|a_ij| are refused
inline constexpr double modular_bits_per_prime = 24.99999;  // log2 of the smallest prime, rounded down

struct modulus {
  double p = 0;
  double inverse = 0;  // 1/p, rounded: only the quotient's estimate uses it
};

SPARSEPERM_HOST_DEVICE constexpr modulus modulus_of(double p) { return {p, 1.0 / p}; }

// Integers below this stay exact through reduce (q·p too is below 2^53, with or without a fused
// multiply-add): the bound of every unreduced integer residue arithmetic hands to it.
inline constexpr double modular_exact_limit = 9007199254740992.0 - 134217728.0;  // 2^53 − 2^27

inline constexpr double modular_round_magic = 6755399441055744.0;  // 1.5·2^52: adding it rounds to an integer

// A representative of h mod p within p/2 + 1 of 0, for an integer |h| < modular_exact_limit.
SPARSEPERM_HOST_DEVICE inline double reduce(double h, modulus m) {
  const double q = (h * m.inverse + modular_round_magic) - modular_round_magic;
  return h - q * m.p;
}

// (a + b) mod p within p/2 + 1 of 0 for integers |a|, |b| < modular_exact_limit whose sum may not be
// a double: the quotient comes from the rounded sum (off by at most one), and a − q·p, about −b, is
// an integer below 2^53 that the fused multiply-add gives exactly; adding b is exact too.
SPARSEPERM_HOST_DEVICE inline double reduce_pair(double a, double b, modulus m) {
  const double q = ((a + b) * m.inverse + modular_round_magic) - modular_round_magic;
  return std::fma(-q, m.p, a) + b;
}

SPARSEPERM_HOST_DEVICE inline double multiply(double a, double b, modulus m) { return reduce(a * b, m); }

// a·b mod p in integers, for constant evaluation (the start term of a generated plan).
constexpr double multiply_constexpr(double a, double b, double p) {
  const auto ip = static_cast<std::int64_t>(p);
  std::int64_t r = (static_cast<std::int64_t>(a) % ip) * (static_cast<std::int64_t>(b) % ip) % ip;
  if (2 * r > ip) r -= ip;
  if (2 * r < -ip) r += ip;
  return static_cast<double>(r);
}

// K residues, of the first K primes: the product type of a generated kernel in exact modular mode.
template <int K>
struct residues {
  double r[K];
  SPARSEPERM_HOST_DEVICE constexpr residues() : r{} {}
  SPARSEPERM_HOST_DEVICE constexpr residues(double x) : r{} {  // an x or a small integer (|x| ≤ 2^24)
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) r[k] = x;
  }
  SPARSEPERM_HOST_DEVICE friend residues operator*(const residues& a, const residues& b) {
    residues c;
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) c.r[k] = multiply(a.r[k], b.r[k], modulus_of(modular_primes[k]));
    return c;
  }
  constexpr residues times_constexpr(double x) const {
    residues c;
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) c.r[k] = multiply_constexpr(r[k], x, modular_primes[k]);
    return c;
  }
};

// (a + b) mod each of the first K primes (reduce_pair).
template <int K>
SPARSEPERM_HOST_DEVICE inline residues<K> residues_of_pair(double a, double b) {
  residues<K> r;
  SPARSEPERM_UNROLL
  for (int k = 0; k < K; ++k) r.r[k] = reduce_pair(a, b, modulus_of(modular_primes[k]));
  return r;
}

// Σ a·b per prime of residue operands (|a|, |b| ≤ 2^24 + 1), unreduced: each product is below 2^49
// and exact, and `capacity` of them stay below modular_exact_limit; value() reduces once.
template <int K>
struct residue_dot {
  static constexpr int capacity = 16;
  double s[K] = {};
  SPARSEPERM_HOST_DEVICE void add(const residues<K>& a, const residues<K>& b) {
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) s[k] += a.r[k] * b.r[k];
  }
  SPARSEPERM_HOST_DEVICE residues<K> value() const {
    residues<K> v;
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) v.r[k] = reduce(s[k], modulus_of(modular_primes[k]));
    return v;
  }
};

// Σ ±residues per prime, exact in doubles between reductions (2^26 terms of at most 2^24 + 1).
template <int K>
struct residue_sum {
  double s[K] = {};
  std::uint32_t count = 0;
  SPARSEPERM_HOST_DEVICE void add_signed(const residues<K>& t, bool negative) {
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) s[k] += negative ? -t.r[k] : t.r[k];
    if (++count == (1u << 26)) reduce_all();
  }
  SPARSEPERM_HOST_DEVICE void add(const residues<K>& t) { add_signed(t, false); }
  SPARSEPERM_HOST_DEVICE void merge(const residue_sum& other) {
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k)
      s[k] = reduce(s[k] + reduce(other.s[k], modulus_of(modular_primes[k])), modulus_of(modular_primes[k]));
  }
  SPARSEPERM_HOST_DEVICE void reduce_all() {
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) s[k] = reduce(s[k], modulus_of(modular_primes[k]));
    count = 0;
  }
  SPARSEPERM_HOST_DEVICE residues<K> value() const {
    residues<K> v;
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) v.r[k] = reduce(s[k], modulus_of(modular_primes[k]));
    return v;
  }
  static std::string description() {
    return "exact: residues modulo " + std::to_string(K) + " primes below 2^25, joined by the CRT";
  }
};

// log2 of v > 0 from above: exponent by halvings, the mantissa's logarithm by the atanh series
// (constexpr: the bound decides a generated kernel's prime count at compile time).
constexpr double log2_upper(double v) {
  int exponent = 0;
  while (v >= 2) {
    v /= 2;
    ++exponent;
  }
  while (v < 1) {
    v *= 2;
    --exponent;
  }
  const double t = (v - 1) / (v + 1);
  double term = t;
  double ln = 0;
  for (int k = 1; k < 60; k += 2) {
    ln += term / k;
    term *= t * t;
  }
  return exponent + 2 * ln * 1.4426950408889634 + 1e-9;
}

// A proven bound on log2 |perm(A)| for an integer matrix with these row and column sums Σ|a| and
// degrees: |perm A| ≤ perm |A| ≤ Π_i R_i (and Π_j C_j); for a 0/1 matrix also Brègman's
// perm A ≤ Π_i (r_i!)^(1/r_i) over rows (and over columns). Empty lines give perm 0: −1 here.
constexpr double permanent_bound_bits(const double* row_sums, const int* row_degrees, const double* column_sums,
                                      const int* column_degrees, int n, bool zero_one) {
  double rows = 0, columns = 0, bregman_rows = 0, bregman_columns = 0;
  for (int i = 0; i < n; ++i) {
    if (row_degrees[i] == 0 || column_degrees[i] == 0) return -1;
    rows += log2_upper(row_sums[i]);
    columns += log2_upper(column_sums[i]);
    if (zero_one) {
      double row_log = 0, column_log = 0;
      for (int k = 2; k <= row_degrees[i]; ++k) row_log += log2_upper(k);
      for (int k = 2; k <= column_degrees[i]; ++k) column_log += log2_upper(k);
      bregman_rows += row_log / row_degrees[i];
      bregman_columns += column_log / column_degrees[i];
    }
  }
  double bits = rows < columns ? rows : columns;
  if (zero_one) {
    if (bregman_rows < bits) bits = bregman_rows;
    if (bregman_columns < bits) bits = bregman_columns;
  }
  return bits;
}

// Primes whose product M exceeds 4·2^bits: |perm| < M/4 leaves the sign and a margin.
constexpr int primes_for_bits(double bits) {
  const double needed = (bits < 0 ? 0 : bits) + 2;
  int k = 1;
  while (k * modular_bits_per_prime < needed) ++k;
  return k;
}

// Whether residues hold an integer matrix with these row sums Σ_j |a_ij| and this bound on
// log2 |perm|: one rule for the run-time engines and the generated kernels (as int128_bound.cuh).
constexpr bool residues_hold(const double* row_sums, int rows, double bound_bits) {
  for (int i = 0; i < rows; ++i) {
    if (row_sums[i] > modular_max_x) return false;
  }
  return primes_for_bits(bound_bits) <= modular_prime_count;
}

inline std::int64_t modular_inverse(std::int64_t a, std::int64_t p) {
  std::int64_t t = 0, new_t = 1, r = p, new_r = ((a % p) + p) % p;
  while (new_r != 0) {
    const std::int64_t q = r / new_r;
    const std::int64_t tt = t - q * new_t;
    t = new_t;
    new_t = tt;
    const std::int64_t rr = r - q * new_r;
    r = new_r;
    new_r = rr;
  }
  return ((t % p) + p) % p;
}

// The integer X with X ≡ residue[k] (mod primes[k]) and |X| < M/2, by Garner's mixed radix digits.
inline big_integer chinese_remainder(const std::vector<double>& residue, const std::vector<double>& primes) {
  const std::size_t k = residue.size();
  std::vector<std::int64_t> digit(k);
  for (std::size_t i = 0; i < k; ++i) {
    const auto p = static_cast<std::int64_t>(primes[i]);
    std::int64_t v = ((static_cast<std::int64_t>(residue[i]) % p) + p) % p;
    for (std::size_t j = 0; j < i; ++j) {
      v = ((v - digit[j]) % p + p) % p;
      v = v * modular_inverse(static_cast<std::int64_t>(primes[j]), p) % p;
    }
    digit[i] = v;
  }
  big_integer x, m = big_integer(1LL);
  for (std::size_t i = k; i-- > 0;) {
    x = x.times(static_cast<long long>(primes[i]));
    x += big_integer(static_cast<long long>(digit[i]));
  }
  for (std::size_t i = 0; i < k; ++i) m = m.times(static_cast<long long>(primes[i]));
  big_integer twice_minus_m = x.times(2);
  twice_minus_m += m.times(-1);
  if (!twice_minus_m.negative()) x += m.times(-1);
  return x;
}

// perm from the residues of the doubled Nijenhuis–Wilf sum S = Σ (−1)^g Π 2x_g (exact arithmetic's
// scale): perm = (−1)^(n+1) S / 2^(n−1), so modulo p multiply by the inverse of 2^(n−1).
inline big_integer permanent_from_residues(const std::vector<double>& sums, int n) {
  std::vector<double> primes(sums.size()), perm(sums.size());
  for (std::size_t k = 0; k < sums.size(); ++k) {
    primes[k] = modular_primes[k];
    const auto p = static_cast<std::int64_t>(primes[k]);
    std::int64_t power = 1;
    for (int i = 0; i < n - 1; ++i) power = power * 2 % p;
    const std::int64_t s = ((static_cast<std::int64_t>(sums[k]) % p) + p) % p;
    std::int64_t v = s * modular_inverse(power, p) % p;
    if (n % 2 == 0) v = (p - v) % p;
    perm[k] = static_cast<double>(v);
  }
  return chinese_remainder(perm, primes);
}

}  // namespace sparseperm::detail
