#pragma once
// Accumulators for Ryser's alternating sums, on the host and the device.
//
//   plain_sum        one double
//   (both floating sums also keep Σ|term| for the error bound, error_bound.cuh)
//   compensated_sum  Knuth's TwoSum (two_sum): the rounding error of every addition kept and added back
//                    (branch-free; Neumaier's variant branches on magnitudes, which alternating
//                    terms make unpredictable)
//   exact_sum        a 128-bit integer
//   exact_double_sum the exact sum of doubles in fixed point (a long accumulator): the host's
//                    reduction of per-thread sums, which then loses nothing
//   complex_sum<S>   complex terms: S for the real parts and S for the imaginary ones (each keeps Σ|part|,
//                    so the magnitude is Σ (|re t| + |im t|) ≥ Σ|t|); exact_complex_sum: 128-bit parts
//   dd_sum           double-double terms and sums (double_double.cuh), with Σ|t| and the Σ|partial
//                    sum| that their additions' error needs
//   fine_parts_sum<S>  S and the sums that bound what rounding the values to their row grids changed
//   sign_split_sum<S>  two accumulators S, one for the terms added and one for those subtracted:
//                    two dependency chains where one held a CPU at the adder's latency per step
//                    (the sign is a constant in unrolled code, so the choice costs nothing there)
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../core/config.cuh"
#include "complex.cuh"
#include "double_double.cuh"

namespace sparseperm::detail {

// Whether an accumulator sums double-double terms (dd_sum, and complex sums of it).
template <class Sum>
constexpr bool double_double_terms_of() {
  if constexpr (requires { Sum::double_double_terms; }) {
    return Sum::double_double_terms;
  } else {
    return false;
  }
}
template <class Sum>
inline constexpr bool is_double_double_sum = double_double_terms_of<Sum>();

struct plain_sum {
  double sum = 0;
  double magnitude = 0;  // Σ|term|, for the error bound (error_bound.cuh): one more addition a step
  SPARSEPERM_HOST_DEVICE void add(double term) {
    sum += term;
    magnitude += std::fabs(term);
  }
  // sum ± term as one fused multiply-add by ±1 (exactly the same rounding as the addition): the
  // select of −term cost a negation and two selects a step.
  SPARSEPERM_HOST_DEVICE void add_signed(double term, bool negative) {
    sum = std::fma(negative ? -1.0 : 1.0, term, sum);
    magnitude += std::fabs(term);
  }
  // factor·difference, two terms that share a factor (the cached loops' step pairs); magnitude: the
  // sum of the two terms' |cofactors|
  SPARSEPERM_HOST_DEVICE void add_factored(double factor, double difference, double magnitude_part) {
    sum = std::fma(factor, difference, sum);
    magnitude = std::fma(std::fabs(factor), magnitude_part, magnitude);
  }
  SPARSEPERM_HOST_DEVICE void merge(const plain_sum& other) {
    sum += other.sum;
    magnitude += other.magnitude;
  }
  SPARSEPERM_HOST_DEVICE double value() const { return sum; }
  template <class F>
  void for_each_part(F f) const {
    f(sum);
  }
  static constexpr bool compensated = false;
  static std::string description() { return "double, plain sums"; }
};

// sum + v with the rounding error of every addition kept (TwoSum): dp's per-state values, and the
// core of compensated_sum.
struct two_sum {
  double sum = 0;
  double compensation = 0;
  SPARSEPERM_HOST_DEVICE void add(double v) {
    const double t = sum + v;
    const double v_part = t - sum;
    compensation += (sum - (t - v_part)) + (v - v_part);
    sum = t;
  }
  SPARSEPERM_HOST_DEVICE double value() const { return sum + compensation; }
};

struct compensated_sum : two_sum {
  double magnitude = 0;  // Σ|term| of the terms added (not of merged or absorbed totals)
  SPARSEPERM_HOST_DEVICE void add(double term) {
    two_sum::add(term);
    magnitude += std::fabs(term);
  }
  SPARSEPERM_HOST_DEVICE void add_signed(double term, bool negative) { add(negative ? -term : term); }
  SPARSEPERM_HOST_DEVICE void add_factored(double factor, double difference, double magnitude_part) {
    two_sum::add(factor * difference);
    magnitude = std::fma(std::fabs(factor), magnitude_part, magnitude);
  }
  SPARSEPERM_HOST_DEVICE void merge(const compensated_sum& other) {
    two_sum::add(other.sum);
    two_sum::add(other.compensation);
    magnitude += other.magnitude;
  }
  template <class F>
  void for_each_part(F f) const {
    f(sum);
    f(compensation);
  }
  static constexpr bool compensated = true;
  static std::string description() { return "double, compensated (TwoSum) sums"; }
};

#if SPARSEPERM_HAS_INT128
struct exact_sum {
  __int128 sum = 0;
  SPARSEPERM_HOST_DEVICE void add(__int128 term) { sum += term; }
  SPARSEPERM_HOST_DEVICE void add_signed(__int128 term, bool negative) { sum += negative ? -term : term; }
  SPARSEPERM_HOST_DEVICE void merge(const exact_sum& other) { sum += other.sum; }
  SPARSEPERM_HOST_DEVICE __int128 value() const { return sum; }
  static std::string description() { return "exact 128-bit integers"; }
};
#endif

template <class Sum>
struct complex_sum {
  Sum re, im;
  template <class Part>  // double, or double_double for dd_sum
  SPARSEPERM_HOST_DEVICE void add(const complex_number<Part>& term) {
    re.add(term.re);
    im.add(term.im);
  }
  template <class Part>
  SPARSEPERM_HOST_DEVICE void add_signed(const complex_number<Part>& term, bool negative) {
    re.add_signed(term.re, negative);
    im.add_signed(term.im, negative);
  }
  SPARSEPERM_HOST_DEVICE void merge(const complex_sum& other) {
    re.merge(other.re);
    im.merge(other.im);
  }
  SPARSEPERM_HOST_DEVICE complex_double value() const { return {re.value(), im.value()}; }
  static constexpr bool compensated = Sum::compensated;
  static constexpr bool double_double_terms = double_double_terms_of<Sum>();
  static std::string description() { return "complex " + Sum::description(); }
};

#if SPARSEPERM_HAS_INT128
struct exact_complex_sum {
  complex_number<__int128> sum;
  SPARSEPERM_HOST_DEVICE void add(const complex_number<__int128>& term) { sum += term; }
  SPARSEPERM_HOST_DEVICE void add_signed(const complex_number<__int128>& term, bool negative) {
    if (negative) {
      sum -= term;
    } else {
      sum += term;
    }
  }
  SPARSEPERM_HOST_DEVICE void merge(const exact_complex_sum& other) { sum += other.sum; }
  SPARSEPERM_HOST_DEVICE complex_number<__int128> value() const { return sum; }
  static std::string description() { return "exact Gaussian integers in 128 bits"; }
};
#endif

template <class Sum>
struct sign_split_sum {
  Sum parts[2];
  SPARSEPERM_HOST_DEVICE void add(decltype(Sum{}.value()) term) { parts[0].add(term); }
  SPARSEPERM_HOST_DEVICE void add_signed(decltype(Sum{}.value()) term, bool negative) {
    parts[negative ? 1 : 0].add_signed(term, negative);
  }
  SPARSEPERM_HOST_DEVICE void add_factored(double factor, double difference, double magnitude_part) {
    parts[0].add_factored(factor, difference, magnitude_part);
  }
  SPARSEPERM_HOST_DEVICE void merge(const sign_split_sum& other) {
    parts[0].merge(other.parts[0]);
    parts[1].merge(other.parts[1]);
  }
  SPARSEPERM_HOST_DEVICE auto value() const {
    Sum total = parts[0];
    total.merge(parts[1]);
    return total.value();
  }
  template <class F>
  void for_each_part(F f) const {
    parts[0].for_each_part(f);
    parts[1].for_each_part(f);
  }
  static constexpr bool compensated = Sum::compensated;
  static std::string description() { return Sum::description() + " of the added and the subtracted terms"; }
};

// A floating accumulator S of a walk on values rounded to their row grids, with what the values'
// fine parts can move its terms by (numeric/bounds.md, "Values off their grids"): Σ max(P̂1 − P̂0, 0)
// and, for complex terms, Σ P̂0 (a real term's P̂0 is |t̂|: S's Σ|t|), plain sums of terms ≥ 0.
struct fine_parts_totals {
  double excess = 0;
  double base = 0;
};
template <class Sum>
struct fine_parts_sum : Sum {
  fine_parts_totals fine;
  SPARSEPERM_HOST_DEVICE void add_fine(double excess, double base) {
    fine.excess += excess;
    fine.base += base;
  }
  SPARSEPERM_HOST_DEVICE void merge(const fine_parts_sum& other) {
    Sum::merge(other);
    add_fine(other.fine.excess, other.fine.base);
  }
  static constexpr bool fine_parts = true;
  static std::string description() { return Sum::description() + " with the fine parts' running bound"; }
};
template <class Sum>
inline constexpr bool has_fine_parts = requires {
  Sum::fine_parts;
};

// Double-double terms (numeric/double_double.cuh), summed with dd_plus: each addition is off by at
// most dd_sum_unit of its result, so `partials` keeps Σ |result| of the additions (error_bound.cuh).
struct dd_sum {
  double_double sum{};
  double magnitude = 0;  // Σ|t.hi|
  double partials = 0;   // Σ|ŝ.hi| over the additions' results
  SPARSEPERM_HOST_DEVICE void add(const double_double& term) {
    sum = dd_plus(sum, term);
    magnitude += std::fabs(term.hi);
    partials += std::fabs(sum.hi);
  }
  SPARSEPERM_HOST_DEVICE void add_signed(const double_double& term, bool negative) {
    add(negative ? dd_negate(term) : term);
  }
  SPARSEPERM_HOST_DEVICE void merge(const dd_sum& other) {
    sum = dd_plus(sum, other.sum);
    magnitude += other.magnitude;
    partials += other.partials + std::fabs(sum.hi);
  }
  SPARSEPERM_HOST_DEVICE double value() const { return sum.hi + sum.lo; }
  static constexpr bool compensated = true;
  static constexpr bool double_double_terms = true;
  static std::string description() { return "double-double"; }
};

// Σ|ŝ| of the additions of a double-double accumulator (0 for others).
template <class Sum>
SPARSEPERM_HOST_DEVICE double partials_of(const Sum& s) {
  if constexpr (requires { s.re.partials; }) {
    return s.re.partials + s.im.partials;
  } else if constexpr (requires { s.partials; }) {
    return s.partials;
  } else {
    return 0;
  }
}

// Σ|term| of a floating accumulator (0 for exact ones, which need no bound).
template <class Sum>
SPARSEPERM_HOST_DEVICE double magnitude_of(const Sum& s) {
  if constexpr (requires { s.parts[1]; }) {
    return magnitude_of(s.parts[0]) + magnitude_of(s.parts[1]);
  } else if constexpr (requires { s.re.magnitude; }) {
    return s.re.magnitude + s.im.magnitude;
  } else if constexpr (requires { s.magnitude; }) {
    return s.magnitude;
  } else {
    return 0;
  }
}

// The unrolled blocks of the cached loops sum their 2^b terms plainly and add that total once to a
// compensated sum: TwoSum once a block instead of at every step (measured on the H100: per-step
// TwoSum cost gpu-cached 2.1x at n = 40, p = 0.1). The block's own error is γ_(B−1)·Σ|t|, of the
// order of the products' γ_(n−1)·Σ|t| (error_bound.cuh counts it).
template <class Sum>
struct block_partial {
  static constexpr bool separate = false;
};
template <>
struct block_partial<compensated_sum> {
  static constexpr bool separate = true;
  using type = plain_sum;
  SPARSEPERM_HOST_DEVICE static void absorb(compensated_sum& total, const plain_sum& part) {
    total.two_sum::add(part.sum);
    total.magnitude += part.magnitude;
  }
};
template <>
struct block_partial<complex_sum<compensated_sum>> {
  static constexpr bool separate = true;
  using type = complex_sum<plain_sum>;
  SPARSEPERM_HOST_DEVICE static void absorb(complex_sum<compensated_sum>& total, const complex_sum<plain_sum>& part) {
    block_partial<compensated_sum>::absorb(total.re, part.re);
    block_partial<compensated_sum>::absorb(total.im, part.im);
  }
};
template <>
struct block_partial<sign_split_sum<compensated_sum>> {
  static constexpr bool separate = true;
  using type = sign_split_sum<plain_sum>;
  SPARSEPERM_HOST_DEVICE static void absorb(sign_split_sum<compensated_sum>& total,
                                            const sign_split_sum<plain_sum>& part) {
    block_partial<compensated_sum>::absorb(total.parts[0], part.parts[0]);
    block_partial<compensated_sum>::absorb(total.parts[1], part.parts[1]);
  }
};

// The generated engines' step loops likewise: loop(acc, flush) adds each step's term to `acc` (its
// add_signed or add_factored) and calls flush() where a run of plain additions may end; for
// compensated sums acc is a plain partial absorbed with one TwoSum at each flush, for other sums the
// sum itself (flush does nothing). No flush has a branch of its own: gpu-hybrid flushes where it
// reloads its cached global product (a column above c flips: runs of 2^(c+1) steps), gpu-purereg in
// the switch's cases for the columns ≥ purereg_run_bits; both keep the compensated total in global
// memory (module/kernel_module.cuh): a branch of its own, and the total in registers, cost gpu-hybrid
// 28% and 4% (tools/benchmarks.md has the cost of each precision).
inline constexpr int purereg_run_bits = 6;

template <class Sum, class Loop>
SPARSEPERM_HOST_DEVICE void with_run_sums(Sum& sum, Loop loop) {
  using partial = block_partial<Sum>;
  if constexpr (partial::separate) {
    typename partial::type part;
    loop(part, [&] {
      partial::absorb(sum, part);
      part = {};
    });
    partial::absorb(sum, part);
  } else {
    loop(sum, [] {});
  }
}

// Host only. The exact sum of doubles in fixed point (a long accumulator): limb i holds a signed
// count of 2^(32i − 1074), so every double's 53 bits land in three limbs exactly, and the carries
// are propagated every 2^30 additions and when read. value() is the sum rounded once from its top 64
// bits: within an ulp. An addition is a few integer operations (Shewchuk's expansion, which this
// replaced, walked all its components: about 50 ns an addition, a millisecond for the sums of a small
// GPU run's threads). Infinities and NaN are kept apart and dominate the value, as in a double sum.
struct exact_double_sum {
  static constexpr int limbs = 70;  // positions up to 2045 + 84 bits, and the carries above them
  std::int64_t limb[limbs] = {};
  double special = 0;  // the sum of the non-finite values added
  bool has_special = false;
  std::uint32_t pending = 0;  // additions since the carries were last propagated

  void add(double b) {
    if (b == 0) return;
    if (!std::isfinite(b)) {
      special += b;
      has_special = true;
      return;
    }
    std::uint64_t bits = 0;
    std::memcpy(&bits, &b, sizeof bits);
    const int biased = static_cast<int>((bits >> 52) & 0x7ff);
    std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
    if (biased != 0) mantissa |= std::uint64_t{1} << 52;
    const int position = biased == 0 ? 0 : biased - 1;  // b = mantissa · 2^(position − 1074)
    const unsigned __int128 shifted = static_cast<unsigned __int128>(mantissa) << (position % 32);
    const int i = position / 32;
    const auto chunk = [&](int k) { return static_cast<std::int64_t>((shifted >> (32 * k)) & 0xffffffffu); };
    if ((bits >> 63) != 0) {
      limb[i] -= chunk(0), limb[i + 1] -= chunk(1), limb[i + 2] -= chunk(2);
    } else {
      limb[i] += chunk(0), limb[i + 1] += chunk(1), limb[i + 2] += chunk(2);
    }
    if (++pending == (std::uint32_t{1} << 30)) {
      carry(limb);
      pending = 0;
    }
  }

  // Adds another accumulator's sum, exactly (limb by limb, both carried first: no limb overflows).
  void merge(const exact_double_sum& other) {
    if (other.has_special) {
      special += other.special;
      has_special = true;
    }
    std::int64_t l[limbs];
    std::memcpy(l, other.limb, sizeof l);
    carry(l);
    carry(limb);
    for (int i = 0; i < limbs; ++i) limb[i] += l[i];
    pending = 2;  // each limb below 2^33: as after two additions
  }

  double value() const {
    if (has_special) return special;
    std::int64_t l[limbs];
    std::memcpy(l, limb, sizeof l);
    carry(l);  // every limb but the top in [0, 2^32); the top carries the sign
    const bool negative = l[limbs - 1] < 0;
    if (negative) {
      for (std::int64_t& x : l) x = -x;
      carry(l);
    }
    int top = limbs - 1;
    while (top >= 0 && l[top] == 0) --top;
    if (top < 0) return 0.0;
    // the top three limbs (96 bits at most), cut to their top 64: the limbs below add less than one
    // of the last bit kept, so one rounding to 53 bits leaves the value within an ulp
    unsigned __int128 head = 0;
    for (int k = top; k >= top - 2; --k) head = (head << 32) | static_cast<std::uint64_t>(k >= 0 ? l[k] : 0);
    int shift = 0;
    while ((head >> shift) >> 64 != 0) ++shift;
    const double rounded = static_cast<double>(static_cast<std::uint64_t>(head >> shift));
    const double magnitude = std::ldexp(rounded, 32 * (top - 2) + shift - 1074);
    return negative ? -magnitude : magnitude;
  }

 private:
  static void carry(std::int64_t (&l)[limbs]) {
    for (int i = 0; i + 1 < limbs; ++i) {
      const std::int64_t high = l[i] >> 32;  // floor: l[i] − high·2^32 is in [0, 2^32)
      l[i] -= high * (std::int64_t{1} << 32);
      l[i + 1] += high;
    }
  }
};

}  // namespace sparseperm::detail
