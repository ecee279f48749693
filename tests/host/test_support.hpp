#pragma once
// Shared helpers of the host tests: random matrices of every kind, singular ones included.
#include <sparseperm/matrix/sparse_matrix.cuh>
#include <sparseperm/numeric/big_integer.cuh>
#include <sparseperm/ryser/gray_code.cuh>
#include "random_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace test_support {

// Each entry nonzero with probability `density`; values from `kind`: uniform in (0, 1] (in (−1, 1]
// with `signed_reals`), integers in [−3, 3] \ {0}, or ones.
// Unlike generate_erdos_renyi, singular draws are kept.
inline sparseperm::sparse_matrix random_matrix(sparseperm::random_stream& stream, int n, double density,
                                               sparseperm::value_kind kind, bool signed_reals = false) {
  std::vector<sparseperm::matrix_entry> entries;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (stream.uniform() >= density) continue;
      double v = 1;
      if (kind == sparseperm::value_kind::uniform)
        v = signed_reals ? 1.0 - 2 * stream.uniform() : 1.0 - stream.uniform();
      if (kind == sparseperm::value_kind::integers) {
        do {
          v = static_cast<double>(static_cast<std::int64_t>(stream.below(7)) - 3);
        } while (v == 0);
      }
      entries.push_back({i, j, v});
    }
  }
  return sparseperm::sparse_matrix::from_entries(n, std::move(entries));
}

inline constexpr int value_bits = 20;  // random_complex's values k / 2^20: perm · 2^(20 n) is a Gaussian integer

// A random complex matrix: each entry present with `density`, parts k / 2^20 with |k| ≤ 2^20, or
// Gaussian integers in [−3, 3] when `integers`.
inline sparseperm::sparse_matrix random_complex(sparseperm::random_stream& s, int n, double density, bool integers) {
  std::vector<sparseperm::matrix_entry> entries;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (s.uniform() >= density) continue;
      const auto part = [&] {
        if (integers) return static_cast<double>(static_cast<long long>(s.below(7)) - 3);
        return std::ldexp(
            static_cast<double>(static_cast<long long>(s.below((1u << (value_bits + 1)) + 1)) - (1ll << value_bits)),
            -value_bits);
      };
      const double re = part(), im = part();
      entries.push_back({i, j, re, im});
    }
  }
  return sparseperm::sparse_matrix::from_entries(n, std::move(entries));
}

inline sparseperm::sparse_matrix dense_matrix(int n, double value) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, value);
  return sparseperm::sparse_matrix::from_dense(n, a);
}

// J − I: the permanent counts derangements.
inline sparseperm::sparse_matrix derangement_matrix(int n) {
  std::vector<double> a(static_cast<std::size_t>(n) * n, 1.0);
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i) * n + i] = 0;
  return sparseperm::sparse_matrix::from_dense(n, a);
}

// Σ_g |Π x_g|: the size of the terms that Ryser adds with alternating signs, the scale of its
// rounding error (long double, Nijenhuis–Wilf; a step adds one column's nonzeros). Remembered per
// matrix: the checks ask for it once per result, and at n = 24 a walk takes seconds.
inline double ryser_absolute_sum(const sparseperm::sparse_matrix& m) {
  static std::map<std::pair<int, std::vector<double>>, double> known;
  auto key = std::pair{m.n(), m.dense()};
  if (const auto found = known.find(key); found != known.end()) return found->second;
  const int n = m.n();
  const std::vector<double>& a = key.second;
  std::vector<long double> x(n);
  for (int i = 0; i < n; ++i) {
    long double row_sum = 0;
    for (int j = 0; j < n; ++j) row_sum += a[static_cast<std::size_t>(i) * n + j];
    x[i] = a[static_cast<std::size_t>(i) * n + n - 1] - row_sum / 2;
  }
  auto magnitude = [&] {
    long double p = 1;
    for (long double v : x) p *= v;
    return std::fabs(p);
  };
  long double sum = magnitude();
  for (std::uint64_t g = 1; g < sparseperm::step_count(n); ++g) {
    const int j = sparseperm::changed_column(g);
    const long double d = sparseperm::direction(g);
    for (const int i : m.column_rows(j)) x[i] += d * a[static_cast<std::size_t>(i) * n + j];
    sum += magnitude();
  }
  const double result = static_cast<double>(2 * sum);
  known.emplace(std::move(key), result);
  return result;
}

inline std::string kind_name(sparseperm::value_kind kind) {
  switch (kind) {
    case sparseperm::value_kind::uniform:
      return "uniform";
    case sparseperm::value_kind::ones:
      return "ones";
    case sparseperm::value_kind::integers:
      return "integers";
    case sparseperm::value_kind::complex:
      return "complex";
  }
  return "?";
}

// Exact permanents of real matrices, for checking error bounds: every double is a dyadic rational
// m·2^e, so perm(A) = perm(M)·2^(Σ E_i) with M_ij = a_ij·2^(−E_i) integers (E_i: the lowest exponent
// of row i), and perm(M) in big integers by the subset recursion f(S) = Σ_j M[|S|−1][j]·f(S \ j).
struct dyadic {
  sparseperm::detail::big_integer m{0ll};
  int e = 0;  // the value is m·2^e
};

inline sparseperm::detail::big_integer times_power_of_two(sparseperm::detail::big_integer v, int k) {
  for (; k >= 30; k -= 30) v = v.times(1ll << 30);
  return k > 0 ? v.times(1ll << k) : v;
}

// v = mantissa·2^exponent with an integer mantissa of at most 53 bits.
inline dyadic dyadic_of(double v) {
  int exponent = 0;
  const double fraction = std::frexp(v, &exponent);
  return {sparseperm::detail::big_integer(static_cast<long long>(std::ldexp(fraction, 53))), exponent - 53};
}

inline dyadic exact_permanent(const sparseperm::sparse_matrix& a) {
  using big = sparseperm::detail::big_integer;
  const int n = a.n();
  if (n > 20) throw std::invalid_argument("exact_permanent: n <= 20");
  std::vector<std::vector<std::pair<int, big>>> rows(n);
  dyadic result{big(1ll), 0};
  for (int i = 0; i < n; ++i) {
    int low = 1 << 30;
    for (double v : a.row_values(i)) low = std::min(low, dyadic_of(v).e);
    const auto columns = a.row_columns(i);
    const auto values = a.row_values(i);
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const dyadic d = dyadic_of(values[k]);
      rows[i].emplace_back(columns[k], times_power_of_two(d.m, d.e - low));
    }
    if (!columns.empty()) result.e += low;
  }
  std::vector<big> f(std::size_t{1} << n, big(0ll));
  f[0] = big(1ll);
  for (std::uint32_t s = 1; s < (1u << n); ++s) {
    const int i = __builtin_popcount(s) - 1;
    big sum(0ll);
    for (const auto& [j, m] : rows[i]) {
      if (s & (1u << j)) sum += m * f[s & ~(1u << j)];
    }
    f[s] = sum;
  }
  result.m = f.back();
  return result;
}

// value − exact, rounded to a double.
inline double difference(double value, const dyadic& exact) {
  const dyadic v = dyadic_of(value);
  const int e = std::min(v.e, exact.e);
  sparseperm::detail::big_integer d = times_power_of_two(v.m, v.e - e);
  d += times_power_of_two(exact.m, exact.e - e).times(-1);
  // d alone may be beyond double's range: its top 30 limbs (960 bits) and the rest as an exponent
  const auto& limbs = d.magnitude();
  const std::size_t dropped = limbs.size() > 30 ? limbs.size() - 30 : 0;
  const auto top = sparseperm::detail::big_integer::from_magnitude(
      d.negative(), std::vector<std::uint32_t>(limbs.begin() + static_cast<std::ptrdiff_t>(dropped), limbs.end()));
  double scaled = top.to_double();
  for (int k = e + 32 * static_cast<int>(dropped); k != 0;) {  // ldexp in steps
    const int step = std::clamp(k, -1000, 1000);
    scaled = std::ldexp(scaled, step);
    k -= step;
  }
  return scaled;
}

// A k × k matrix (values by kind: 0 reals, 1 complex, 2 integers, 3 Gaussian integers) and
// multiplicities of total N ≤ max_total.
struct repeated_case {
  sparseperm::sparse_matrix base;
  std::vector<int> rows, columns;
};

inline repeated_case random_repeated(sparseperm::random_stream& s, int kind, int max_total) {
  repeated_case c;
  const int k = 1 + static_cast<int>(s.below(5));
  std::vector<sparseperm::matrix_entry> entries;
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      if (s.uniform() < 0.25 && i != j) continue;
      const auto part = [&] {
        return kind >= 2 ? static_cast<double>(static_cast<long long>(s.below(7)) - 3) : 1 - 2 * s.uniform();
      };
      const double re = part();
      const double im = kind % 2 == 1 ? part() : 0.0;
      entries.push_back({i, j, re, im});
    }
  }
  c.base = sparseperm::sparse_matrix::from_entries(k, std::move(entries));
  int total = 0;
  for (int i = 0; i < k; ++i) {
    c.rows.push_back(1 + static_cast<int>(s.below(3)));
    total += c.rows.back();
  }
  if (total > max_total) return random_repeated(s, kind, max_total);
  c.columns.assign(static_cast<std::size_t>(k), 1);  // the rest spread over random columns
  for (int left = total - k; left > 0; --left) ++c.columns[s.below(static_cast<std::uint64_t>(k))];
  return c;
}

}  // namespace test_support
