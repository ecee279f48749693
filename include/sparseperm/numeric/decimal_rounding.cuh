#pragma once
// Did reading a decimal number round it? decimal_rounding(text, value) takes the text a reader gave
// std::from_chars and the nearest double it returned: 0 when the double is the number written, else
// a bound on the relative change |value − written| / |written|.
//
// The written number is D = S · 10^q (S an integer without trailing zeros). A double is m · 2^e with
// m < 2^53, so D is one exactly when
//   q ≥ 0: the odd part of S · 5^q is below 2^53 (never for q ≥ 23, as 5^23 > 2^53);
//   q < 0: 5^−q divides S, and the odd part of S / 5^−q is below 2^53;
// and then it is the double computed from those parts, which must equal `value`. Most decimals with a
// fraction fail the divisibility at once (0.1: 5 does not divide 1). Significands beyond 19 digits,
// which 64 bits do not hold, are compared with the exact decimal expansion of `value` instead (every
// double has one of at most 767 significant digits, which glibc's printf writes exactly).
//
// Rounding to nearest changes a normal double by at most 2^−53 of the written number; a subnormal
// one k·2^−1074 by at most 2^−1075, which is 1/(2k − 1) of the number at least k·2^−1074 − 2^−1075.
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "../detail/bits.cuh"
#include "error_bound.cuh"

namespace sparseperm::detail {

// A decimal text as digits · 10^exponent, the digits without leading or trailing zeros ("" for zero);
// false when the text is not a plain decimal number.
struct decimal_digits {
  std::string digits;
  long long exponent = 0;
};

inline bool split_decimal(std::string_view text, decimal_digits& out) {
  std::size_t at = 0;
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) ++at;
  std::string digits;
  long long exponent = 0;
  bool any = false, point = false;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (c >= '0' && c <= '9') {
      any = true;
      if (digits.empty() && c == '0') {
        if (point) --exponent;  // a leading zero after the point
        continue;
      }
      digits += c;
      if (point) --exponent;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  if (at < text.size()) {
    if (text[at] != 'e' && text[at] != 'E') return false;
    ++at;
    bool negative = false;
    if (at < text.size() && (text[at] == '-' || text[at] == '+')) negative = text[at++] == '-';
    long long e = 0;
    bool exponent_digits = false;
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
      exponent_digits = true;
      if (e < 100000000) e = e * 10 + (text[at] - '0');
    }
    if (!exponent_digits || at != text.size()) return false;
    exponent += negative ? -e : e;
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back(), ++exponent;
  if (digits.empty()) exponent = 0;
  out.digits = std::move(digits);
  out.exponent = exponent;
  return true;
}

// The exact decimal digits of |value| in the same form.
inline decimal_digits exact_digits_of(double value) {
  char buffer[900];
  std::snprintf(buffer, sizeof buffer, "%.800e", std::fabs(value));
  decimal_digits d;
  split_decimal(buffer, d);
  return d;
}

// Whether strtod rounds `text` to the same double upward and downward, that is, holds it exactly
// (glibc's strtod rounds in the current rounding mode); nothing where strtod ignores the mode.
inline std::optional<bool> same_both_ways(std::string_view text) {
  if (text.size() > 1000) return std::nullopt;
  char buffer[1001];
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  const int mode = std::fegetround();
  char* end = nullptr;
  std::fesetround(FE_UPWARD);
  const double up = std::strtod(buffer, &end), tenth_up = std::strtod("0.1", nullptr);
  std::fesetround(FE_DOWNWARD);
  const double down = std::strtod(buffer, nullptr), tenth_down = std::strtod("0.1", nullptr);
  std::fesetround(mode);
  // the modes not honoured, or a locale whose decimal point is not '.': not this way
  if (tenth_up == tenth_down || end != buffer + text.size()) return std::nullopt;
  return up == down;
}

// Is |written| = digits · 10^exponent exactly |value|? (digits: at most 19, a 64-bit integer.)
inline bool is_exactly(std::uint64_t significand, long long exponent, double value) {
  const double magnitude = std::fabs(value);
  if (exponent >= 0) {
    if (exponent >= 23) return false;     // 5^23 > 2^53: the odd part is too long
    unsigned __int128 odd = significand;  // below 10^19 · 5^22 < 2^128
    for (long long k = 0; k < exponent; ++k) odd *= 5;
    int twos = static_cast<int>(exponent);
    while ((odd & 1) == 0) odd >>= 1, ++twos;  // a product past 2^64 may still be a double: 4444444444444442624 · 10
    return odd < (std::uint64_t{1} << 53) &&
           std::ldexp(static_cast<double>(static_cast<std::uint64_t>(odd)), twos) == magnitude;
  }
  const long long fives = -exponent;
  if (fives > 27) return false;  // 5^28 > 2^64 > significand: 5^−q cannot divide it
  std::uint64_t power = 1;
  for (long long k = 0; k < fives; ++k) power *= 5;
  if (significand % power != 0) return false;
  std::uint64_t odd = significand / power;
  long long twos = exponent;
  while ((odd & 1) == 0) odd >>= 1, ++twos;
  return odd < (std::uint64_t{1} << 53) && twos >= -1074 &&
         std::ldexp(static_cast<double>(odd), static_cast<int>(twos)) == magnitude;
}

// 0 when `value` is exactly the number `text` writes; else a bound on the relative rounding.
inline double decimal_rounding(std::string_view text, double value) {
  decimal_digits written;
  if (!split_decimal(text, written)) return 0x1p-53;  // not the plain decimal form: assume the worst normal rounding
  if (written.digits.empty()) return value == 0 ? 0 : 1;
  bool exact = false;
  if (written.digits.size() <= 19) {
    std::uint64_t significand = 0;
    for (const char c : written.digits) significand = significand * 10 + static_cast<std::uint64_t>(c - '0');
    exact = is_exactly(significand, written.exponent, value);
  } else if (const auto both = same_both_ways(text)) {
    exact = *both;  // about 2 µs, where the full expansion below takes 15
  } else {
    const decimal_digits held = exact_digits_of(value);
    exact = held.digits == written.digits && held.exponent == written.exponent;
  }
  if (exact) return 0;
  const double magnitude = std::fabs(value);
  if (magnitude >= 0x1p-1022) return 0x1p-53;
  if (magnitude == 0) return 1;                    // a nonzero written, zero held (readers refuse that underflow first)
  const double k = magnitude * 0x1p1022 * 0x1p52;  // an integer ≥ 1: the value's multiple of 2^−1074
  return 1 / (2 * k - 1) * bound_margin;
}

}  // namespace sparseperm::detail
