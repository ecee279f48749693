#pragma once
// Error bounds for floating-point permanents.
//
// Ryser in floating point has three sources of error, and each is bounded here:
//
//   x drift      removed, not bounded: every value is rounded once to its row's grid, a power of
//                two 2^(e+2−p) with 2^e ≥ Σ_j |a_ij| (p: the significand's digits), on which every
//                partial sum of the row's values (±, halved) is exact, so every engine's x is exact
//                whatever its order of updates. The change is a relative ρ_i ≤ 2^(2−p)·Σ|a_i|/min|a_i|
//                per row (zero for integers and short dyadic values); grid_rounding_facts bounds
//                what it does to the permanent: |perm(Ã) − perm(A)| ≤ (Π(1+ρ_i) − 1)·perm(|A|).
//   products     a term is a product of n exact x's, n − 1 roundings in any tree (registers,
//                cached partial products): |fl(t) − t| ≤ γ_(n−1)|t|, so Σ|t| (each accumulator
//                keeps it: one more addition a step) bounds them all; products that underflow add
//                at most 2^−1074 per rounding times the rest of the product, bounded from the row sums.
//   sums         plain: γ_L·Σ|t| for chains of L additions; compensated (TwoSum, per step or per
//                unrolled block of B terms summed plainly first): (γ_(B−1) + γ_L²)·Σ|t|; per-thread
//                sums are reduced exactly on the host, so only the last rounding adds u·|value|.
//
// Everything the bound is computed from is itself rounded; the margins (1 + 2^−40 factors, γ of a
// few more operations than happen) cover that with room to spare.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "../core/config.cuh"
#include "double_double.cuh"

namespace sparseperm::detail {

inline constexpr double bound_margin = 1 + 0x1p-40;

// γ_k = k·u / (1 − k·u) (Higham): k roundings of unit u in a product or a chain of sums.
constexpr double gamma_of(double k, double unit) {
  const double ku = k * unit;
  return ku >= 0.5 ? std::numeric_limits<double>::infinity() : ku / (1 - ku) * bound_margin;
}

// 2^k in T, for constant evaluation (no ldexp there); k in [−1074, 1023] for double.
template <class T>
constexpr T power_of_two(int k) {
  if constexpr (std::is_same_v<T, double>) {  // at run time from the bits where 2^k is normal
    if (!std::is_constant_evaluated() && k >= -1022 && k <= 1023)
      return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
    if (!std::is_constant_evaluated() && k >= -1074 && k < -1022)  // subnormal: one bit of the fraction
      return std::bit_cast<double>(std::uint64_t{1} << (k + 1074));
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::is_constant_evaluated()) return std::ldexp(T(1), k);  // the loop is for compile time
  }
  T p = 1;
  for (; k > 0; --k) p *= 2;
  for (; k < 0; ++k) p /= 2;
  return p;
}

// The least e ≥ −1021 with 2^e ≥ s·(1 + 2^−40) (s computed from at most a few dozen terms), or
// 1024 when there is none in range.
constexpr int grid_exponent(double abs_sum) {
  const double s = abs_sum * bound_margin;
  if (!std::is_constant_evaluated()) {  // at run time from the exponent: the loop takes a thousand steps
    if (!(s > 0x1p-1021)) return -1021;
    if (!(s <= 0x1p1023)) return 1024;
    // s is normal: s = 1.f · 2^(b − 1023) with b its biased exponent; 2^e ≥ s from e = b − 1023 (f = 0)
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(s);
    const int biased = static_cast<int>(bits >> 52);  // s > 0: no sign bit
    return (bits & ((std::uint64_t{1} << 52) - 1)) == 0 ? biased - 1023 : biased - 1022;
  }
  int e = -1021;
  double p = power_of_two<double>(e);
  while (p < s && e < 1024) {
    p *= 2;
    ++e;
  }
  return e;
}

// v rounded to the grid of a row with grid_exponent e: the nearest multiple of 2^(e+2−p), where p is
// T's significand length. (v + C) − C with C = 1.5·2^(e+1): v + C lies in [2^(e+1), 2^(e+2)), whose
// spacing is the grid, and the subtraction is exact. Exact for integers below 2^(p−2) whatever e.
template <class T>
constexpr T round_to_grid(T v, int e) {
  const T c = T(1.5) * power_of_two<T>(e + 1);
  return (v + c) - c;
}

inline constexpr int max_grid_exponent = 1021;  // 2^(e+2) must stay finite

// What rounding a matrix's values to their row grids did, and the magnitudes its bound needs.
// Plain data: kernel modules carry it in their module_info.
struct grid_rounding_facts {
  double change = 0;         // ≥ Π(1 + ρ_i) − 1
  double shrink = 1;         // ≥ Π 1/(1 − ρ_i): perm(A) ≤ shrink·perm(Ã) for nonnegative A
  double abs_permanent = 0;  // ≥ perm(|A|): min(Π_i Σ_j |a_ij|, Π_j Σ_i |a_ij|)
  double underflow = 0;      // ≥ what underflowing products can add to Σ (−1)^g Π x_g
  std::int32_t nonnegative = 1;
  std::int32_t representable = 1;  // 0: a row sum beyond 2^1021, values not rounded, no bound
};

// |rounded − a| / |a|, rounded up: the relative change of one value (the difference is exact: both
// are multiples of a's spacing, and close).
template <class T>
constexpr double relative_change(T a, T rounded) {
  const T difference = rounded - a;
  return static_cast<double>((difference < 0 ? -difference : difference) / (a < 0 ? -a : a)) * bound_margin;
}

// |â − a| / |a| for a complex value rounded part by part, rounded up (the parts' differences are
// exact as above; hypot is within an ulp or two, which the margin covers).
template <class T>
double relative_change_complex(T re, T im, T rounded_re, T rounded_im) {
  return static_cast<double>(std::hypot(rounded_re - re, rounded_im - im) / std::hypot(re, im)) * (1 + 0x1p-50);
}

// Builds grid_rounding_facts (constant evaluation for generated kernels, run time for the others):
// row() once per row with the largest relative change of its values, column() once per column.
class grid_rounding_builder {
 public:
  constexpr void row(double rho, double abs_sum, bool has_negative) {
    if (has_negative) nonnegative_ = false;
    change_ = change_ + rho + change_ * rho;
    shrink_minus_one_ = rho >= 1 ? std::numeric_limits<double>::infinity() : (shrink_minus_one_ + rho) / (1 - rho);
    multiply(row_product_, abs_sum);
    multiply(x_product_, abs_sum / 2 > 1 ? abs_sum / 2 : 1);
    ++rows_;
  }
  constexpr void column(double abs_sum) { multiply(column_product_, abs_sum); }
  constexpr void unrepresentable() { representable_ = false; }

  constexpr grid_rounding_facts facts() const {
    grid_rounding_facts f;
    f.change = change_ * bound_margin;
    f.shrink = (1 + shrink_minus_one_) * bound_margin;
    f.abs_permanent = value_of(less(row_product_, column_product_) ? row_product_ : column_product_) * bound_margin;
    // 2^(n−1) terms, n − 1 roundings each of at most 2^−1074 times the rest of the product
    scaled u = x_product_;
    u.exponent += (rows_ > 0 ? rows_ - 1 : 0) - 1074;
    multiply(u, rows_ > 1 ? rows_ - 1 : 0);
    f.underflow = rows_ > 1 ? (u.exponent < -1074 ? power_of_two<double>(-1074) : value_of(u) * bound_margin) : 0;
    f.nonnegative = nonnegative_ ? 1 : 0;
    f.representable = representable_ ? 1 : 0;
    if (!representable_) f.change = std::numeric_limits<double>::infinity();
    return f;
  }

 private:
  struct scaled {  // mantissa · 2^exponent with mantissa in [1, 2) or 0: products of many row sums
    double mantissa = 1;
    int exponent = 0;
  };
  static constexpr void multiply(scaled& s, double v) {
    s.mantissa *= v;
    if (s.mantissa == 0) return;
    if (!std::is_constant_evaluated()) {  // a normal product at run time: its exponent from its bits
      const std::uint64_t bits = std::bit_cast<std::uint64_t>(s.mantissa);
      const int biased = static_cast<int>((bits >> 52) & 0x7ff);
      if (biased != 0 && biased != 0x7ff) {  // (the loops below halve and double exactly: the same result)
        s.exponent += biased - 1023;
        s.mantissa = std::bit_cast<double>((bits & ~(std::uint64_t{0x7ff} << 52)) | (std::uint64_t{1023} << 52));
        return;
      }
    }
    while (s.mantissa >= 2) s.mantissa /= 2, ++s.exponent;
    while (s.mantissa < 1) s.mantissa *= 2, --s.exponent;
  }
  static constexpr bool less(const scaled& a, const scaled& b) {
    if (a.mantissa == 0 || b.mantissa == 0) return a.mantissa == 0;
    return a.exponent != b.exponent ? a.exponent < b.exponent : a.mantissa < b.mantissa;
  }
  static constexpr double value_of(const scaled& s) {
    if (s.mantissa == 0) return 0;
    if (s.exponent > 1023) return std::numeric_limits<double>::infinity();
    if (s.exponent < -1074) return 0;
    return s.mantissa * power_of_two<double>(s.exponent);
  }
  double change_ = 0, shrink_minus_one_ = 0;
  scaled row_product_{}, column_product_{}, x_product_{};
  int rows_ = 0;
  bool nonnegative_ = true, representable_ = true;
};

// A double at least x ≥ 0 (long double results and bounds: rounded up, and never 0 for x > 0).
inline double round_up_to_double(long double x) {
  const double d = static_cast<double>(x);
  return static_cast<long double>(d) < x ? std::nextafter(d, std::numeric_limits<double>::infinity()) : d;
}

// |x − double(x)|, rounded up: what converting a long double result to double changes (its
// relative 2^−53 while normal; up to 2^−1075 absolute where it falls among the subnormals or to 0).
inline double conversion_error_up(long double x) {
  const long double difference = x - static_cast<long double>(static_cast<double>(x));
  return round_up_to_double(difference < 0 ? -difference : difference);
}

// A bound on |perm(Ã) − perm(A)| for the value computed from Ã, whose own bound is `rounding`.
inline double grid_perturbation_bound(const grid_rounding_facts& f, double value, double rounding) {
  if (f.change == 0) return 0;
  if (f.nonnegative) return f.change * f.shrink * (std::fabs(value) + rounding) * bound_margin;
  return f.change * f.abs_permanent * bound_margin;
}

// What the values' fine parts can move a walk on their grid roundings â by, on the permanent's scale
// (2 Σ_g (P1_g − P0_g); numeric/bounds.md, "Values off their grids"): excess = Σ max(P̂1 − P̂0, 0),
// base = Σ P̂0 (real terms: Σ|t̂|), sums of terms ≥ 0 in chains of at most `chain` additions before an
// exact reduction; P̂1 of n sums m̂_i + F_i and n − 1 products, P̂0 of n − 1 products, complex m̂_i =
// fl(max + k·min) ≥ |x̂_i|(1 − u)²; underflow as grid_rounding_facts counts it, each factor at most
// 4 max(Σ_j |a_ij| / 2, 1).
inline double fine_parts_bound(int n, bool complex, double excess, double base, std::uint64_t chain, double underflow) {
  constexpr double u = 0x1p-53;
  const double summed = 1 / (1 - gamma_of(static_cast<double>(chain) + 2, u));
  const double factors = complex ? 1 + gamma_of(2 * n, u) : 1;
  const double moved = (1 + gamma_of(2 * n + 2, u)) * excess * summed;
  const double products = (gamma_of(2 * n, u) + gamma_of(n, u)) * base * summed;
  return 2 * factors * (moved + products + std::ldexp(underflow, 2 * n + 1)) * bound_margin;
}

// How a floating Ryser run summed its terms.
struct floating_sum_report {
  double sum = 0;           // Σ (−1)^g Π x_g, reduced exactly then rounded once
  double magnitude = 0;     // Σ |Π x_g| as computed (step 0 included)
  std::uint64_t chain = 1;  // the most additions into one accumulator before an exact reduction
  std::uint64_t block = 1;  // compensated: terms summed plainly before each TwoSum
  bool compensated = false;
  double unit = 0x1p-53;  // the arithmetic's unit roundoff
  double records = 0;     // partial sums kept rounded before the exact reduction: their error over Σ|t|
  // complex runs: sum and magnitude are l1 norms (|re| + |im|: error_bound's sums are per part), and
  // a product of n factors rounds as complex_product_roundings(n) real ones (numeric/complex.cuh)
  bool complex = false;
  // split row sums (double_double.cuh's split_value): every factor is rounded once before the product
  bool rounded_factors = false;
  // double-double products and sums: the products' unit is dd_product_unit (complex:
  // dd_complex_product_unit), and `partials` is the Σ|ŝ| of the sums' results (dd_sum)
  bool double_double = false;
  double partials = 0;
};

// The same for double-double products of exact factors and double-double sums: a product of n factors
// is off by at most (1 + ε)^(n−1) − 1 ≤ (n−1)ε/(1 − (n−1)ε) of Π|x| (ε per multiplication), an addition
// by dd_sum_unit of its result (Σ of those: r.partials, a plain double sum of at most `chain` + 2
// terms), and the double value by u of itself; underflow: each double-double operation may lose up to
// 2^−1074 absolutely where its parts underflow (16 roundings a real multiplication, 64 a complex one,
// each times the rest of the product as in f.underflow).
inline double ryser_double_double_bound(int n, const floating_sum_report& r, const grid_rounding_facts& f) {
  const double u = r.unit;
  const double chain = static_cast<double>(r.chain);
  const double epsilon = r.complex ? dd_complex_product_unit : dd_product_unit;
  const double steps = (n > 1 ? n - 1 : 0) * epsilon;
  const double products = steps / (1 - steps) * bound_margin;
  // Σ|t̂.hi| computed plainly; |t| ≤ |t̂|(1 + products) and |t̂| ≤ |t̂.hi|(1 + 2u)
  const double magnitude = r.magnitude * (1 + gamma_of(chain + 2, u)) * (1 + 2 * u) * (1 + products);
  const double sums = dd_sum_unit * (1 + 4 * u) * r.partials * (1 + gamma_of(chain + 2, u));
  const double underflow = (r.complex ? 64 : 16) * f.underflow;
  return (products * magnitude + sums + 2 * u * std::fabs(r.sum) + underflow) * bound_margin;
}

// A bound on |Σ̂ − Σ| over Ã for a run of an n×n matrix (before the Nijenhuis–Wilf factor ±2).
inline double ryser_sum_bound(int n, const floating_sum_report& r, const grid_rounding_facts& f) {
  if (!f.representable) return std::numeric_limits<double>::infinity();
  if (r.double_double) return ryser_double_double_bound(n, r, f);
  const double u = r.unit;
  const double chain = static_cast<double>(r.chain);
  const double roundings = (r.complex ? 4.0 * n + 1 : n) + (r.rounded_factors ? n : 0);  // complex: ≥
                                                                                         // complex_product_roundings(n)
  // the computed Σ|t̂| is short of the true one by at most γ_L, and |t| ≤ |t̂|(1 + γ_(n−1))
  const double magnitude = r.magnitude * (1 + gamma_of(chain + 2, u)) * (1 + gamma_of(roundings, u));
  const double sums = r.compensated ? gamma_of(static_cast<double>(r.block) + 1, u) +
                                          2 * gamma_of(chain + 2, u) * gamma_of(chain + 2, u)
                                    : gamma_of(chain + 2, u);
  const double products = gamma_of(roundings, u);
  const double underflow = r.complex ? 8 * f.underflow : f.underflow;  // two parts, four roundings each
  return ((products + sums + r.records + 8 * u) * magnitude + 2 * u * std::fabs(r.sum) + underflow) * bound_margin;
}

}  // namespace sparseperm::detail
