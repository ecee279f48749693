#pragma once
// Test matrices: the paper's Erdős–Rényi generator.
//
// Each of the n² entries is nonzero with probability p, independently; values are uniform in (0, 1]
// (the paper's [0, 1], without exact zeros, which would not be entries), all ones, or integers drawn
// uniformly from [low, high] without 0. Draws that are structurally singular (no perfect matching,
// so permanent 0) are rejected and drawn again from the same stream. The stream is xoshiro256**
// seeded by splitmix64, with our own conversions to doubles and integers, so a seed gives the same
// matrix with every compiler and standard library.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <sparseperm/matrix/sparse_matrix.cuh>
#include <sparseperm/structure/matching.cuh>

namespace sparseperm {

class random_stream {
 public:
  explicit random_stream(std::uint64_t seed) {
    for (std::uint64_t& word : state_) word = splitmix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotate(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotate(state_[3], 45);
    return result;
  }

  // Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform in [0, bound), bound ≥ 1, without bias (rejection).
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t limit = -bound % bound;  // 2^64 mod bound
    for (;;) {
      const std::uint64_t r = next();
      if (r >= limit) return r % bound;
    }
  }

 private:
  static std::uint64_t rotate(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix64(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t state_[4]{};
};

enum class value_kind { uniform, ones, integers, complex };  // complex: both parts uniform in (−1, 1]

struct erdos_renyi_options {
  int n = 0;
  double density = 0.1;
  std::uint64_t seed = 1;
  value_kind values = value_kind::uniform;
  std::int64_t low = 1;  // integers: uniform in [low, high] without 0
  std::int64_t high = 1;
  int max_attempts = 10000;
};

inline sparse_matrix generate_erdos_renyi(const erdos_renyi_options& options) {
  if (options.n < 1 || options.n > 10000) throw std::invalid_argument("n must be in [1, 10000]");
  if (!(options.density > 0 && options.density <= 1)) throw std::invalid_argument("density must be in (0, 1]");
  if (options.values == value_kind::integers) {
    if (options.low > options.high) throw std::invalid_argument("integer range is empty (low > high)");
    if (options.low == 0 && options.high == 0) throw std::invalid_argument("integer range holds only 0");
    if (std::fabs(static_cast<double>(options.low)) > max_exact_integer ||
        std::fabs(static_cast<double>(options.high)) > max_exact_integer) {
      throw std::invalid_argument("integer range exceeds 2^53");
    }
  }
  random_stream stream(options.seed);
  const bool zero_in_range = options.low <= 0 && options.high >= 0;
  const std::uint64_t span = static_cast<std::uint64_t>(options.high - options.low) + 1 - (zero_in_range ? 1 : 0);
  auto draw_value = [&]() -> double {
    switch (options.values) {
      case value_kind::ones:
        return 1.0;
      case value_kind::uniform:
        return 1.0 - stream.uniform();  // (0, 1]
      case value_kind::complex:
        return 1.0 - 2 * stream.uniform();  // (−1, 1], a part
      case value_kind::integers: {
        std::int64_t v = options.low + static_cast<std::int64_t>(stream.below(span));
        if (zero_in_range && v >= 0) ++v;  // skip 0
        return static_cast<double>(v);
      }
    }
    return 1.0;
  };
  for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
    std::vector<matrix_entry> entries;
    for (int i = 0; i < options.n; ++i) {
      for (int j = 0; j < options.n; ++j) {
        if (stream.uniform() >= options.density) continue;
        const double value = draw_value();
        entries.push_back({i, j, value, options.values == value_kind::complex ? draw_value() : 0.0});
      }
    }
    sparse_matrix matrix = sparse_matrix::from_entries(options.n, std::move(entries));
    if (structural_rank(matrix) == options.n) return matrix;
  }
  throw std::runtime_error("no structurally nonsingular " + std::to_string(options.n) + " x " +
                           std::to_string(options.n) + " matrix of density " + std::to_string(options.density) +
                           " in " + std::to_string(options.max_attempts) + " draws: the density is too low");
}

}  // namespace sparseperm
