#pragma once
// What the error bound of a Ryser run will certify, forecast before the run (`inspect`).
//
// The running bound (numeric/bounds.md) is about c·u·Σ_g |t_g| over the 2^(n−1) Nijenhuis–Wilf
// terms, c the roundings a term and the sums take: double c ≈ (2n + 66) real and (5n + 66) complex
// (split row sums, compensated sums of 2^6-step blocks); double-double c·u ≈ 8(n − 1)u² real and
// 56(n − 1)u² complex (the products; the sums' u² term is smaller where the partial sums stay below
// Σ|t|). Σ|t| is estimated from sampled terms (a statistic, not a bound), and the digits then depend
// on |perm|, which only the run finds: the forecast says above which |perm| a digit count is reached.
// For nonnegative matrices the a-priori bound is relative (perm(|A|) = perm(A)): double certifies
// about −log10((2n + 66)u) digits whatever the terms do.
#include <cmath>
#include <cstdint>
#include <vector>

#include "../matrix/sparse_matrix.cuh"
#include "../numeric/double_double.cuh"

namespace sparseperm::detail {

struct digits_forecast {
  double term_sum = 0;       // Σ_g |t_g| estimated from `samples` terms
  int samples = 0;           //
  bool nonnegative = false;  // every value real and ≥ 0
  double double_unit = 0;    // c·u of double: the bound ≈ double_unit·Σ|t|
  double dd_unit = 0;        // the same for double-double
  // |perm| from which the bound certifies `digits` significant digits in an arithmetic of unit c·u
  double permanent_for(int digits, double unit) const { return std::pow(10.0, digits) * unit * term_sum * 2; }
  // the digits double's relative a-priori bound certifies on a nonnegative matrix
  int nonnegative_double_digits() const { return static_cast<int>(std::floor(-std::log10(2 * double_unit))); }
};

// Σ|t| of matrix's Nijenhuis–Wilf terms, from `samples` uniformly drawn subsets of the first n − 1
// columns (x = a(:, n−1) − Σ_j a(:, j)/2 plus the subset's columns, the term Π|x_i|).
inline digits_forecast forecast_digits(const sparse_matrix& a, int samples = 4096, std::uint64_t seed = 1) {
  digits_forecast f;
  const int n = a.n();
  f.samples = samples;
  f.nonnegative = !a.is_complex();
  std::vector<double> x0_re(n, 0.0), x0_im(n, 0.0);
  for (int i = 0; i < n; ++i) {
    const auto columns = a.row_columns(i);
    const auto re = a.row_values(i);
    const auto im = a.row_imag(i);
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const double half = columns[k] == n - 1 ? 1 : -0.5;
      x0_re[i] += half * re[k];
      if (!im.empty()) x0_im[i] += half * im[k];
      if (re[k] < 0) f.nonnegative = false;
    }
  }
  std::uint64_t state = seed;
  const auto next = [&] {  // splitmix64
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  double mean = 0, reference = 0;  // the mean of |t| / 2^reference (log2 of the first nonzero term)
  bool referenced = false;
  std::vector<std::uint64_t> subset(static_cast<std::size_t>(n / 64 + 1));
  for (int s = 0; s < samples && n > 0; ++s) {
    for (auto& word : subset) word = next();
    double log_term = 0;
    bool zero = false;
    for (int i = 0; i < n && !zero; ++i) {
      double re = x0_re[i], im = x0_im[i];
      const auto columns = a.row_columns(i);
      const auto values = a.row_values(i);
      const auto imag = a.row_imag(i);
      for (std::size_t k = 0; k < columns.size(); ++k) {
        const int j = columns[k];
        if (j == n - 1 || !((subset[j / 64] >> (j % 64)) & 1)) continue;
        re += values[k];
        if (!imag.empty()) im += imag[k];
      }
      const double modulus = std::hypot(re, im);
      zero = modulus == 0;
      if (!zero) log_term += std::log2(modulus);
    }
    if (!zero && !referenced) reference = log_term, referenced = true;
    mean += ((zero ? 0 : std::exp2(log_term - reference)) - mean) / (s + 1);
  }
  f.term_sum = mean * std::exp2(reference + (n - 1));  // 2^(n−1) terms
  const double u = 0x1p-53;
  f.double_unit = (a.is_complex() ? 5.0 * n + 66 : 2.0 * n + 66) * u;
  f.dd_unit = (n > 1 ? n - 1 : 0) * (a.is_complex() ? dd_complex_product_unit : dd_product_unit) + 4 * dd_unit;
  return f;
}

}  // namespace sparseperm::detail
