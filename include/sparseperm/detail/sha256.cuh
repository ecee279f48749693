#pragma once
// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the module cache: names of cache entries
// that a crafted matrix cannot collide with another's, and a keyed digest that proves a module was
// written by this user's sparseperm before anything of it is loaded (module/cache.cuh).
// Host code; tests check the standards' vectors (tests/host/test_hardening.cpp).
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sparseperm::detail {

class sha256 {
 public:
  using digest = std::array<unsigned char, 32>;

  sha256& update(std::string_view data) {
    for (const char c : data) {
      block_[filled_++] = static_cast<unsigned char>(c);
      if (filled_ == 64) compress(), filled_ = 0;
    }
    length_ += data.size();
    return *this;
  }

  digest finish() {
    const std::uint64_t bits = length_ * 8;
    block_[filled_++] = 0x80;
    if (filled_ > 56) {
      while (filled_ < 64) block_[filled_++] = 0;
      compress();
      filled_ = 0;
    }
    while (filled_ < 56) block_[filled_++] = 0;
    for (int k = 7; k >= 0; --k) block_[filled_++] = static_cast<unsigned char>(bits >> (8 * k));
    compress();
    digest out{};
    for (int k = 0; k < 8; ++k) {
      for (int b = 0; b < 4; ++b)
        out[static_cast<std::size_t>(4 * k + b)] = static_cast<unsigned char>(state_[k] >> (24 - 8 * b));
    }
    return out;
  }

  static digest of(std::string_view data) { return sha256().update(data).finish(); }

 private:
  static std::uint32_t rotate(std::uint32_t x, int k) { return (x >> k) | (x << (32 - k)); }

  void compress() {
    static constexpr std::uint32_t round_constants[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t) {
      w[t] = static_cast<std::uint32_t>(block_[4 * t]) << 24 | static_cast<std::uint32_t>(block_[4 * t + 1]) << 16 |
             static_cast<std::uint32_t>(block_[4 * t + 2]) << 8 | static_cast<std::uint32_t>(block_[4 * t + 3]);
    }
    for (int t = 16; t < 64; ++t) {
      const std::uint32_t s0 = rotate(w[t - 15], 7) ^ rotate(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = rotate(w[t - 2], 17) ^ rotate(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3], e = state_[4], f = state_[5],
                  g = state_[6], h = state_[7];
    for (int t = 0; t < 64; ++t) {
      const std::uint32_t t1 =
          h + (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) + ((e & f) ^ (~e & g)) + round_constants[t] + w[t];
      const std::uint32_t t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    state_[0] += a, state_[1] += b, state_[2] += c, state_[3] += d;
    state_[4] += e, state_[5] += f, state_[6] += g, state_[7] += h;
  }

  std::uint32_t state_[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                             0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  unsigned char block_[64]{};
  std::size_t filled_ = 0;
  std::uint64_t length_ = 0;
};

// HMAC-SHA-256(key, message).
inline sha256::digest hmac_sha256(std::string_view key, std::string_view message) {
  std::string block_key(64, '\0');
  if (key.size() > 64) {
    const sha256::digest hashed = sha256::of(key);
    std::memcpy(block_key.data(), hashed.data(), hashed.size());
  } else {
    std::memcpy(block_key.data(), key.data(), key.size());
  }
  std::string inner_pad(64, '\0'), outer_pad(64, '\0');
  for (int k = 0; k < 64; ++k) {
    inner_pad[static_cast<std::size_t>(k)] = static_cast<char>(block_key[static_cast<std::size_t>(k)] ^ 0x36);
    outer_pad[static_cast<std::size_t>(k)] = static_cast<char>(block_key[static_cast<std::size_t>(k)] ^ 0x5c);
  }
  const sha256::digest inner = sha256().update(inner_pad).update(message).finish();
  return sha256()
      .update(outer_pad)
      .update(std::string_view(reinterpret_cast<const char*>(inner.data()), inner.size()))
      .finish();
}

inline std::string hex_of(const sha256::digest& d, std::size_t bytes = 32) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t k = 0; k < bytes && k < d.size(); ++k) out += digits[d[k] >> 4], out += digits[d[k] & 15];
  return out;
}

// Equal digests, compared in time that does not depend on where they differ.
inline bool same_digest(const sha256::digest& a, const sha256::digest& b) {
  unsigned char difference = 0;
  for (std::size_t k = 0; k < a.size(); ++k) difference |= static_cast<unsigned char>(a[k] ^ b[k]);
  return difference == 0;
}

}  // namespace sparseperm::detail
