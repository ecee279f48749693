#pragma once
// The reference algorithms: slow, simple and independent, the oracle of the tests (the `reference`
// engine's algorithms; its tag: engines/reference.cuh). They share no code with the engines they check:
// the dense Ryser below walks its own Gray code.
//
//   brute_force  Σ over all n! permutations of Π a[i][σ(i)] (n ≤ 10)
//   dense_ryser  Nijenhuis–Wilf Ryser over the dense matrix, Gray-code order (n ≤ 26)
//   subset_dp    f(S) = Σ_{j ∈ S} a[|S|−1][j] · f(S \ {j}) over column subsets: a third algorithm
//                that shares nothing with Ryser, for cross-checks (n ≤ 24)
//
// Each runs in long double, or exactly in 128-bit integers for integer matrices whose bound fits
// (numeric/exact_integer.cuh); complex matrices in complex long double, or 128-bit Gaussian integers.
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/progress.cuh"
#include "../core/result.cuh"
#include "../detail/bits.cuh"
#include "../matrix/exactness.cuh"
#include "../matrix/row_grids.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/exact_integer.cuh"

namespace sparseperm {

inline constexpr int reference_brute_force_max_n = 10;
inline constexpr int reference_ryser_max_n = 26;
inline constexpr int reference_subset_dp_max_n = 24;

namespace reference {

// n beyond an algorithm's limit.
inline void check_size(const char* algorithm, int n, int limit) {
  if (n > limit) {
    throw engine_error(engine_error::kind::too_large,
                       std::string(algorithm) + ": n = " + std::to_string(n) + " > " + std::to_string(limit));
  }
}

// The Nijenhuis–Wilf Gray code, written here apart from ryser/gray_code.cuh: step g ≥ 1 flips column
// ctz(g), adds it when bit ctz(g) + 1 of g is 0, and its term has the sign (−1)^g; the sum of the
// 2^(n−1) terms times 4(n mod 2) − 2 is the permanent.
inline std::uint64_t steps_of(int n) { return std::uint64_t{1} << (n - 1); }
inline int flipped_column(std::uint64_t g) { return __builtin_ctzll(g); }
inline bool adds_column(std::uint64_t g) { return ((g >> (flipped_column(g) + 1)) & 1u) == 0; }
inline int sign_of(std::uint64_t g) { return (g & 1u) ? -1 : 1; }
inline int factor_of(int n) { return 4 * (n % 2) - 2; }
// A stop request ends a walk within 2^16 steps (milliseconds at n = 26).
inline void check_stop(std::uint64_t g, const progress_counter* progress) {
  if ((g & 0xffff) == 0) throw_if_stopped(progress);
}

// T is long double or detail::int128 (then the values must be integers). magnitude: Σ|term|, for
// long double's error bound.
template <class T>
T brute_force(const sparse_matrix& matrix, long double* magnitude = nullptr) {
  const int n = matrix.n();
  check_size("brute force", n, reference_brute_force_max_n);
  const std::vector<double> a = matrix.dense();
  std::vector<int> sigma(n);
  std::iota(sigma.begin(), sigma.end(), 0);
  T sum = 0;
  do {
    T term = 1;
    for (int i = 0; i < n && term != 0; ++i) term *= static_cast<T>(a[static_cast<std::size_t>(i) * n + sigma[i]]);
    sum += term;
    if constexpr (std::is_floating_point_v<T>) {
      if (magnitude) *magnitude += term < 0 ? -term : term;
    }
  } while (std::next_permutation(sigma.begin(), sigma.end()));
  return sum;
}

// Long double Nijenhuis–Wilf Ryser: Σ (−1)^g Π x_g (before the factor ±2), with the values on their
// row grids (error_bound.cuh) so that x is exact, and Σ|term| in `magnitude`.
inline long double dense_ryser_sum(const sparse_matrix& matrix, const detail::row_grids<long double>& grids,
                                   long double& magnitude, const progress_counter* progress = nullptr) {
  const int n = matrix.n();
  check_size("dense Ryser", n, reference_ryser_max_n);
  const std::vector<double> a = matrix.dense();
  auto at = [&](int i, int j) { return grids.value(i, a[static_cast<std::size_t>(i) * n + j]); };
  std::vector<long double> x(n);
  for (int i = 0; i < n; ++i) {
    long double row_sum = 0;
    for (int j = 0; j < n; ++j) row_sum += at(i, j);
    x[i] = at(i, n - 1) - row_sum / 2;
  }
  auto product = [&] {
    long double p = 1;
    for (int i = 0; i < n; ++i) p *= x[i];
    return p;
  };
  long double sum = product();
  magnitude = sum < 0 ? -sum : sum;
  for (std::uint64_t g = 1; g < steps_of(n); ++g) {
    check_stop(g, progress);
    const int j = flipped_column(g);
    const long double s = adds_column(g) ? 1 : -1;
    for (int i = 0; i < n; ++i) x[i] += s * at(i, j);
    const long double term = product();
    sum += sign_of(g) * term;
    magnitude += term < 0 ? -term : term;
  }
  return sum;
}

inline long double dense_ryser(const sparse_matrix& matrix) {
  if (matrix.n() == 0) return 1;
  long double magnitude = 0;
  return factor_of(matrix.n()) * dense_ryser_sum(matrix, detail::row_grids_of<long double>(matrix), magnitude);
}

#if SPARSEPERM_HAS_INT128
// Exact Nijenhuis–Wilf Ryser for integer matrices, on doubled row sums X = 2x (integers):
// perm = (4(n mod 2) − 2)/2^n · Σ (−1)^g Π X_g = ±Σ/2^(n−1).
inline detail::int128 dense_ryser_exact(const sparse_matrix& matrix, const progress_counter* progress = nullptr) {
  const int n = matrix.n();
  if (n == 0) return 1;
  check_size("dense Ryser", n, reference_ryser_max_n);
  const std::vector<double> a = matrix.dense();
  auto twice = [&](int i, int j) { return 2 * static_cast<std::int64_t>(a[static_cast<std::size_t>(i) * n + j]); };
  std::vector<std::int64_t> x(n);
  for (int i = 0; i < n; ++i) {
    std::int64_t row_sum = 0;
    for (int j = 0; j < n; ++j) row_sum += twice(i, j) / 2;
    x[i] = twice(i, n - 1) - row_sum;
  }
  auto product = [&] {
    detail::int128 p = 1;
    for (int i = 0; i < n; ++i) p *= x[i];
    return p;
  };
  detail::int128 sum = product();
  for (std::uint64_t g = 1; g < steps_of(n); ++g) {
    check_stop(g, progress);
    const int j = flipped_column(g);
    const std::int64_t s = adds_column(g) ? 1 : -1;
    for (int i = 0; i < n; ++i) x[i] += s * twice(i, j);
    sum += sign_of(g) * product();
  }
  const detail::int128 scale = detail::int128{1} << (n - 1);
  if (sum % scale != 0)
    throw engine_error(engine_error::kind::failed, "dense Ryser: the exact sum is not divisible by 2^(n-1)");
  return (n % 2 == 1 ? 1 : -1) * (sum / scale);
}
#endif

// Complex long double is std::complex here (host only; complex_number's members are host-device,
// and nvcc has no long double on the device). Its multiplication rounds as complex_number's does.
using long_complex = std::complex<long double>;

}  // namespace reference

template <class T>
struct part_of<std::complex<T>> {
  using type = T;
};

namespace reference {

inline long double l1_norm(const long_complex& z) { return std::fabs(z.real()) + std::fabs(z.imag()); }

// The complex counterparts: T is long_complex or complex_number<int128>.
template <class T>
T brute_force_complex(const sparse_matrix& matrix, long double* magnitude = nullptr) {
  using part = part_type<T>;
  const int n = matrix.n();
  check_size("brute force", n, reference_brute_force_max_n);
  std::vector<double> re, im;
  matrix.dense_complex(re, im);
  std::vector<int> sigma(n);
  std::iota(sigma.begin(), sigma.end(), 0);
  T sum{};
  do {
    T term{1, 0};
    for (int i = 0; i < n && term != T{}; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * n + sigma[i];
      term = term * T(static_cast<part>(re[at]), static_cast<part>(im[at]));
    }
    sum += term;
    if constexpr (std::is_floating_point_v<part>) {
      if (magnitude) *magnitude += reference::l1_norm(term);
    }
  } while (std::next_permutation(sigma.begin(), sigma.end()));
  return sum;
}

// Complex long double Nijenhuis–Wilf Ryser on the row grids, Σ l1(term) in `magnitude`.
inline long_complex dense_ryser_sum_complex(const sparse_matrix& matrix, const detail::row_grids<long double>& grids,
                                            long double& magnitude, const progress_counter* progress = nullptr) {
  using value = long_complex;
  const int n = matrix.n();
  check_size("dense Ryser", n, reference_ryser_max_n);
  std::vector<double> re, im;
  matrix.dense_complex(re, im);
  auto at = [&](int i, int j) {
    const std::size_t k = static_cast<std::size_t>(i) * n + j;
    return value(grids.value(i, re[k]), grids.value(i, im[k]));
  };
  std::vector<value> x(n);
  for (int i = 0; i < n; ++i) {
    value row_sum{};
    for (int j = 0; j < n; ++j) row_sum += at(i, j);
    x[i] = at(i, n - 1) - row_sum / 2.0L;
  }
  auto product = [&] {
    value p{1, 0};
    for (int i = 0; i < n; ++i) p = p * x[i];
    return p;
  };
  value sum = product();
  magnitude = reference::l1_norm(sum);
  for (std::uint64_t g = 1; g < steps_of(n); ++g) {
    check_stop(g, progress);
    const int j = flipped_column(g);
    for (int i = 0; i < n; ++i) x[i] = adds_column(g) ? x[i] + at(i, j) : x[i] - at(i, j);
    const value term = product();
    sum = sign_of(g) > 0 ? sum + term : sum - term;
    magnitude += reference::l1_norm(term);
  }
  return sum;
}

#if SPARSEPERM_HAS_INT128
// Exact complex Ryser on doubled row sums (Gaussian integers), as dense_ryser_exact.
inline complex_number<detail::int128> dense_ryser_exact_complex(const sparse_matrix& matrix,
                                                                const progress_counter* progress = nullptr) {
  using wide = complex_number<detail::int128>;
  const int n = matrix.n();
  if (n == 0) return wide{1, 0};
  check_size("dense Ryser", n, reference_ryser_max_n);
  std::vector<double> re, im;
  matrix.dense_complex(re, im);
  auto twice = [&](int i, int j) {
    const std::size_t k = static_cast<std::size_t>(i) * n + j;
    return complex_number<std::int64_t>{2 * static_cast<std::int64_t>(re[k]), 2 * static_cast<std::int64_t>(im[k])};
  };
  std::vector<complex_number<std::int64_t>> x(n);
  for (int i = 0; i < n; ++i) {
    complex_number<std::int64_t> row_sum{};
    for (int j = 0; j < n; ++j) row_sum += twice(i, j) / std::int64_t{2};
    x[i] = twice(i, n - 1) - row_sum;
  }
  auto product = [&] {
    wide p{1, 0};
    for (int i = 0; i < n; ++i) p = p * wide(x[i]);
    return p;
  };
  wide sum = product();
  for (std::uint64_t g = 1; g < steps_of(n); ++g) {
    check_stop(g, progress);
    const int j = flipped_column(g);
    for (int i = 0; i < n; ++i) x[i] = adds_column(g) ? x[i] + twice(i, j) : x[i] - twice(i, j);
    sum = sign_of(g) > 0 ? sum + product() : sum - product();
  }
  const detail::int128 scale = detail::int128{1} << (n - 1);
  if (sum.re % scale != 0 || sum.im % scale != 0)
    throw engine_error(engine_error::kind::failed, "dense Ryser: the exact sum is not divisible by 2^(n-1)");
  const detail::int128 sign = n % 2 == 1 ? 1 : -1;
  return {sign * (sum.re / scale), sign * (sum.im / scale)};
}
#endif

// The permanent by dynamic programming over column subsets (independent of Ryser). T may be a
// complex_number (then the imaginary parts count).
template <class T>
T subset_dp(const sparse_matrix& matrix) {
  const int n = matrix.n();
  check_size("subset DP", n, reference_subset_dp_max_n);
  std::vector<T> f(std::size_t{1} << n, T{0});
  f[0] = 1;
  for (std::uint64_t mask = 1; mask < f.size(); ++mask) {
    const int row = detail::popcount(mask) - 1;  // rows [0, row) were matched to mask minus one column
    const auto columns = matrix.row_columns(row);
    const auto values = matrix.row_values(row);
    const auto imag = matrix.row_imag(row);
    T sum = 0;
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const std::uint64_t bit = std::uint64_t{1} << columns[k];
      if (!(mask & bit)) continue;
      if constexpr (is_complex_number<T>) {
        using part = part_type<T>;
        sum += T(static_cast<part>(values[k]), static_cast<part>(imag.empty() ? 0.0 : imag[k])) * f[mask ^ bit];
      } else {
        sum += static_cast<T>(values[k]) * f[mask ^ bit];
      }
    }
    f[mask] = sum;
  }
  return f.back();
}

}  // namespace reference

namespace reference {

// The reference engine's complex branch: exact for Gaussian integers within 128 bits, else complex
// long double with a bound on the modulus of the error.
inline void permanent_reference_complex(const sparse_matrix& matrix, permanent_result& result, bool brute,
                                        const progress_counter* progress) {
  const int n = matrix.n();
#if SPARSEPERM_HAS_INT128
  if (detail::fits_int128(matrix, brute || n == 0 ? 0 : n - 1)) {
    const complex_number<detail::int128> exact = brute ? brute_force_complex<complex_number<detail::int128>>(matrix)
                                                       : dense_ryser_exact_complex(matrix, progress);
    result.value = static_cast<double>(exact.re);
    result.permanent = detail::to_decimal(exact.re);
    result.exact = true;
    set_imaginary_part(result, static_cast<double>(exact.im), detail::to_decimal(exact.im));
    result.plan += ", exact 128-bit Gaussian integers";
    return;
  }
#endif
  constexpr double unit = 0x1p-64;  // long double's
  long double magnitude = 0;
  long_complex value;
  if (brute) {
    value = brute_force_complex<long_complex>(matrix, &magnitude);
    double permutations = 1;
    for (int k = 2; k <= n; ++k) permutations *= k;
    set_floating_value(result, static_cast<double>(value.real()));
    set_imaginary_part(result, static_cast<double>(value.imag()));
    // per part: sums of n! terms; per term: the complex products' roundings (numeric/complex.cuh)
    const long double sums =
        (detail::gamma_of(complex_product_roundings(n), unit) + detail::gamma_of(permutations + 1, unit)) * magnitude;
    set_error_bound(result, (detail::round_up_to_double(sums) + detail::conversion_error_up(value.real()) +
                             detail::conversion_error_up(value.imag())) *
                                detail::bound_margin);
  } else {
    const detail::row_grids<long double> grids = detail::row_grids_of<long double>(matrix);
    const long_complex sum = dense_ryser_sum_complex(matrix, grids, magnitude, progress);
    value = sum * static_cast<long double>(factor_of(n));
    set_floating_value(result, static_cast<double>(value.real()));
    set_imaginary_part(result, static_cast<double>(value.imag()));
    detail::floating_sum_report report;
    report.sum = detail::round_up_to_double(reference::l1_norm(sum));
    report.magnitude = detail::round_up_to_double(magnitude) * detail::bound_margin;
    report.chain = steps_of(n);
    report.unit = unit;
    report.complex = true;
    const double rounding = 2 * detail::ryser_sum_bound(n, report, grids.facts) +
                            detail::conversion_error_up(value.real()) + detail::conversion_error_up(value.imag());
    set_error_bound(result, rounding + detail::grid_perturbation_bound(
                                           grids.facts, std::hypot(result.value, result.imag), rounding));
  }
  result.plan += ", complex long double with an error bound";
}

}  // namespace reference

namespace detail {

// The reference, as engine `engine`: brute force up to n = 10, dense Ryser up to n = 26; exact for
// integer matrices whose 128-bit bound holds.
inline permanent_result run_reference(const sparse_matrix& matrix, std::string_view engine,
                                      const progress_counter* progress = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  const int n = matrix.n();
  if (n > reference_ryser_max_n) {
    throw beyond_limit(engine, n, reference_ryser_max_n);
  }
  permanent_result result;
  result.engine = std::string(engine);
  result.n = n;
  result.nnz = matrix.nnz();
  const bool brute = n <= reference_brute_force_max_n;
  result.plan = brute ? "brute force over all permutations" : "dense Nijenhuis-Wilf Ryser";
  if (matrix.is_complex()) {
    reference::permanent_reference_complex(matrix, result, brute, progress);
    result.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
#if SPARSEPERM_HAS_INT128
  if (detail::fits_int128(matrix, brute || n == 0 ? 0 : n - 1)) {
    const detail::int128 exact =
        brute ? reference::brute_force<detail::int128>(matrix) : reference::dense_ryser_exact(matrix, progress);
    result.value = static_cast<double>(exact);
    result.permanent = detail::to_decimal(exact);
    result.exact = true;
    result.plan += ", exact 128-bit integers";
  } else
#endif
  {
    // long double's unit 2^−64, then one rounding to double
    constexpr double unit = 0x1p-64;
    long double magnitude = 0;
    if (brute) {
      const long double value = reference::brute_force<long double>(matrix, &magnitude);
      set_floating_value(result, static_cast<double>(value));
      double permutations = 1;
      for (int k = 2; k <= n; ++k) permutations *= k;
      // products of at most 10 doubles do not underflow long double; the conversion to double may
      const long double sums = (detail::gamma_of(n, unit) + detail::gamma_of(permutations + 1, unit)) * magnitude;
      set_error_bound(result,
                      (detail::round_up_to_double(sums) + detail::conversion_error_up(value)) * detail::bound_margin);
    } else {
      const detail::row_grids<long double> grids = detail::row_grids_of<long double>(matrix);
      const long double sum = reference::dense_ryser_sum(matrix, grids, magnitude, progress);
      const long double value = reference::factor_of(n) * sum;
      set_floating_value(result, static_cast<double>(value));
      detail::floating_sum_report report;
      report.sum = static_cast<double>(sum);
      report.magnitude = detail::round_up_to_double(magnitude) * detail::bound_margin;
      report.chain = reference::steps_of(n);
      report.unit = unit;
      const double rounding = 2 * detail::ryser_sum_bound(n, report, grids.facts) + detail::conversion_error_up(value);
      set_error_bound(result, rounding + detail::grid_perturbation_bound(grids.facts, result.value, rounding));
    }
    result.plan += ", long double with an error bound";
  }
  result.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace detail

}  // namespace sparseperm
