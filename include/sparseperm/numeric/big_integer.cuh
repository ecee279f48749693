#pragma once
// Signed integers of any size, for exact permanents beyond 128 bits (the dp engine on integer
// matrices: a 0/1 band matrix of n = 1000 has a permanent of several hundred bits).
//
// Sign and magnitude, the magnitude in 32-bit limbs, least significant first, no leading zero limbs
// (zero has none). Only what the engines need: addition, multiplication by an integer or another
// big integer, conversion to decimal and to the nearest double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "../core/config.cuh"

namespace sparseperm::detail {

class big_integer {
 public:
  big_integer() {}
  // User-provided, so host only: nvcc infers implicit members as host and device where a host-device
  // template (glynn_task) is instantiated with big integers on the host, and warns (#20013).
  big_integer(const big_integer& other) : limbs_(other.limbs_), negative_(other.negative_) {}
  big_integer(big_integer&& other) noexcept : limbs_(std::move(other.limbs_)), negative_(other.negative_) {}
  big_integer& operator=(const big_integer& other) {
    limbs_ = other.limbs_;
    negative_ = other.negative_;
    return *this;
  }
  big_integer& operator=(big_integer&& other) noexcept {
    limbs_ = std::move(other.limbs_);
    negative_ = other.negative_;
    return *this;
  }
  ~big_integer() {}
  big_integer(long long v) {
    assign_magnitude(v < 0, v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v));
  }
#if SPARSEPERM_HAS_INT128
  big_integer(__int128 v) {
    const bool negative = v < 0;
    unsigned __int128 m = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
    for (; m != 0; m >>= 32) limbs_.push_back(static_cast<std::uint32_t>(m));
    negative_ = negative && !limbs_.empty();
  }
#endif

  // From a decimal string with an optional leading '-'; anything else is a precondition violation.
  static big_integer from_decimal(const std::string& text) {
    big_integer result;
    const bool negative = !text.empty() && text[0] == '-';
    for (std::size_t k = negative ? 1 : 0; k < text.size(); ++k) {
      result = result.times(10);
      result += big_integer(static_cast<long long>(text[k] - '0'));
    }
    result.negative_ = negative && !result.limbs_.empty();
    return result;
  }

  // A double that holds an integer, exactly (of any magnitude: 2^1000 too).
  static big_integer from_integer_double(double v) {
    int exponent = 0;
    const double fraction = std::frexp(v, &exponent);  // v = fraction·2^exponent, |fraction| in [1/2, 1)
    if (exponent <= 53) return big_integer(static_cast<long long>(v));
    big_integer result(static_cast<long long>(std::ldexp(fraction, 53)));
    for (int k = exponent - 53; k > 0; k -= 30) result = result.times(1ll << (k < 30 ? k : 30));
    return result;
  }

  // The number of trailing zero bits (0 for 0).
  std::size_t trailing_zero_bits() const noexcept {
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
      if (limbs_[i] != 0) return 32 * i + static_cast<std::size_t>(__builtin_ctz(limbs_[i]));
    }
    return 0;
  }

  // The magnitude's limbs, least significant first (no leading zero limb), and back: a record's
  // bytes (run/record_codec.cuh).
  const std::vector<std::uint32_t>& magnitude() const noexcept { return limbs_; }
  static big_integer from_magnitude(bool negative, std::vector<std::uint32_t> limbs) {
    while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
    big_integer v;
    v.limbs_ = std::move(limbs);
    v.negative_ = negative && !v.limbs_.empty();
    return v;
  }

  bool is_zero() const noexcept { return limbs_.empty(); }
  bool negative() const noexcept { return negative_; }
  std::size_t bits() const noexcept {
    return limbs_.empty() ? 0
                          : 32 * (limbs_.size() - 1) + (32 - static_cast<std::size_t>(__builtin_clz(limbs_.back())));
  }

  big_integer& operator+=(const big_integer& other) {
    if (other.is_zero()) return *this;
    if (negative_ == other.negative_) {
      add_magnitude(other.limbs_);
    } else if (compare_magnitude(limbs_, other.limbs_) >= 0) {
      subtract_magnitude(limbs_, other.limbs_);  // |this| ≥ |other|: the sign stays
    } else {
      std::vector<std::uint32_t> result = other.limbs_;
      subtract_magnitude(result, limbs_);
      limbs_ = std::move(result);
      negative_ = other.negative_;
    }
    if (limbs_.empty()) negative_ = false;
    return *this;
  }

  big_integer& operator-=(const big_integer& other) { return *this += other.times(-1); }
  friend big_integer operator+(big_integer a, const big_integer& b) { return a += b; }
  friend big_integer operator-(big_integer a, const big_integer& b) { return a -= b; }

  // this / 2^k when that is an integer (true), else this unchanged (false).
  bool divide_exactly_by_power_of_two(int k) {
    if (is_zero() || k == 0) return true;
    const std::size_t whole = static_cast<std::size_t>(k) / 32, rest = static_cast<std::size_t>(k) % 32;
    if (whole > limbs_.size()) return false;
    for (std::size_t i = 0; i < whole; ++i) {
      if (limbs_[i] != 0) return false;
    }
    if (whole < limbs_.size() && rest != 0 && (limbs_[whole] & ((std::uint32_t{1} << rest) - 1)) != 0) return false;
    if (whole == limbs_.size()) return false;  // nonzero and all its limbs below 2^k: not divisible
    std::vector<std::uint32_t> shifted(limbs_.begin() + static_cast<std::ptrdiff_t>(whole), limbs_.end());
    if (rest != 0) {
      for (std::size_t i = 0; i < shifted.size(); ++i) {
        const std::uint64_t high = i + 1 < shifted.size() ? shifted[i + 1] : 0;
        shifted[i] = static_cast<std::uint32_t>(((high << 32) | shifted[i]) >> rest);
      }
    }
    while (!shifted.empty() && shifted.back() == 0) shifted.pop_back();
    limbs_ = std::move(shifted);
    if (limbs_.empty()) negative_ = false;
    return true;
  }

  // this · v for a 64-bit signed v.
  big_integer times(long long v) const {
    big_integer result;
    if (v == 0 || is_zero()) return result;
    const unsigned long long m = v < 0 ? 0ull - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    const std::uint32_t factor[2] = {static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(m >> 32)};
    result.limbs_ = multiply_magnitudes(limbs_, std::vector<std::uint32_t>(factor, factor + (factor[1] ? 2 : 1)));
    result.negative_ = negative_ != (v < 0);
    return result;
  }

  big_integer operator*(const big_integer& other) const {
    big_integer result;
    if (is_zero() || other.is_zero()) return result;
    result.limbs_ = multiply_magnitudes(limbs_, other.limbs_);
    result.negative_ = negative_ != other.negative_;
    return result;
  }

  // The nearest double, or ±Inf beyond its range (callers report that).
  double to_double() const {
    double value = 0;
    for (std::size_t k = limbs_.size(); k-- > 0;) value = value * 4294967296.0 + limbs_[k];
    return negative_ ? -value : value;
  }

  std::string to_decimal() const {
    if (is_zero()) return "0";
    std::vector<std::uint32_t> m = limbs_;
    std::string digits;
    while (!m.empty()) {  // divide by 10^9, nine digits at a time
      std::uint64_t remainder = 0;
      for (std::size_t k = m.size(); k-- > 0;) {
        const std::uint64_t current = (remainder << 32) | m[k];
        m[k] = static_cast<std::uint32_t>(current / 1000000000u);
        remainder = current % 1000000000u;
      }
      while (!m.empty() && m.back() == 0) m.pop_back();
      for (int d = 0; d < 9 && (remainder != 0 || !m.empty()); ++d) {
        digits.push_back(static_cast<char>('0' + remainder % 10));
        remainder /= 10;
      }
    }
    if (negative_) digits.push_back('-');
    return std::string(digits.rbegin(), digits.rend());
  }

  friend bool operator==(const big_integer&, const big_integer&) = default;

 private:
  void assign_magnitude(bool negative, unsigned long long m) {
    for (; m != 0; m >>= 32) limbs_.push_back(static_cast<std::uint32_t>(m));
    negative_ = negative && !limbs_.empty();
  }

  static int compare_magnitude(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (std::size_t k = a.size(); k-- > 0;) {
      if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    }
    return 0;
  }

  void add_magnitude(const std::vector<std::uint32_t>& other) {
    if (limbs_.size() < other.size()) limbs_.resize(other.size(), 0);
    std::uint64_t carry = 0;
    for (std::size_t k = 0; k < limbs_.size(); ++k) {
      const std::uint64_t sum = static_cast<std::uint64_t>(limbs_[k]) + (k < other.size() ? other[k] : 0) + carry;
      limbs_[k] = static_cast<std::uint32_t>(sum);
      carry = sum >> 32;
      if (carry == 0 && k >= other.size()) break;
    }
    if (carry) limbs_.push_back(static_cast<std::uint32_t>(carry));
  }

  // a −= b for |a| ≥ |b|.
  static void subtract_magnitude(std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
    std::int64_t borrow = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      std::int64_t difference = static_cast<std::int64_t>(a[k]) - (k < b.size() ? b[k] : 0) - borrow;
      borrow = difference < 0 ? 1 : 0;
      a[k] = static_cast<std::uint32_t>(difference + (borrow << 32));
      if (borrow == 0 && k >= b.size()) break;
    }
    while (!a.empty() && a.back() == 0) a.pop_back();
  }

  static std::vector<std::uint32_t> multiply_magnitudes(const std::vector<std::uint32_t>& a,
                                                        const std::vector<std::uint32_t>& b) {
    std::vector<std::uint32_t> result(a.size() + b.size(), 0);
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::uint64_t carry = 0;
      for (std::size_t j = 0; j < b.size(); ++j) {
        const std::uint64_t t = static_cast<std::uint64_t>(a[i]) * b[j] + result[i + j] + carry;
        result[i + j] = static_cast<std::uint32_t>(t);
        carry = t >> 32;
      }
      for (std::size_t k = i + b.size(); carry != 0; ++k) {
        const std::uint64_t t = static_cast<std::uint64_t>(result[k]) + carry;
        result[k] = static_cast<std::uint32_t>(t);
        carry = t >> 32;
      }
    }
    while (!result.empty() && result.back() == 0) result.pop_back();
    return result;
  }

  std::vector<std::uint32_t> limbs_;
  bool negative_ = false;
};

// Gaussian integers of any size: exact complex permanents beyond 128 bits (dp and glynn, and the
// planner's products of blocks and factors). Host only, like big_integer.
struct big_gaussian {
  big_integer re, im;
  // user-provided, host only (see big_integer)
  big_gaussian() {}
  big_gaussian(const big_gaussian& other) : re(other.re), im(other.im) {}
  big_gaussian(big_gaussian&& other) noexcept : re(std::move(other.re)), im(std::move(other.im)) {}
  big_gaussian& operator=(const big_gaussian& other) {
    re = other.re;
    im = other.im;
    return *this;
  }
  big_gaussian& operator=(big_gaussian&& other) noexcept {
    re = std::move(other.re);
    im = std::move(other.im);
    return *this;
  }
  ~big_gaussian() {}
  big_gaussian(long long r) : re(r), im(0ll) {}
  big_gaussian(big_integer r, big_integer i) : re(std::move(r)), im(std::move(i)) {}
  big_gaussian& operator+=(const big_gaussian& b) {
    re += b.re;
    im += b.im;
    return *this;
  }
  big_gaussian& operator-=(const big_gaussian& b) {
    re -= b.re;
    im -= b.im;
    return *this;
  }
  friend big_gaussian operator+(big_gaussian a, const big_gaussian& b) { return a += b; }
  friend big_gaussian operator*(const big_gaussian& a, const big_gaussian& b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  // this · (r + i·m) for 64-bit parts (cheaper than a big product)
  big_gaussian times(long long r, long long m) const {
    big_integer real = re.times(r), imag = re.times(m);
    real += im.times(-m);
    imag += im.times(r);
    return {std::move(real), std::move(imag)};
  }
};

}  // namespace sparseperm::detail
