#pragma once
// The GPU engines' chunks: the steps [1, 2^(n−1)) cut into a queue of aligned power-of-two chunks
// that the devices of a run take one at a time (gpu/ryser_launcher.cuh), each run as Algorithm 2's
// launches over its range, its per-thread sums zeroed before and reduced on the host after. A chunk's
// record keeps what the result needs of it: exact sums merged; floating ones as a double-double of
// their exact sum and the magnitude Σ|t| rounded up.
//
// The chunking depends on n alone: a run gives the same records, and the same result bit for bit,
// on one device or several, and a journal resumes on any device count (floating records also depend
// on the thread count, which the journal's key names).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "../core/result.cuh"
#include "../detail/bits.cuh"
#include "../detail/precondition.cuh"
#include "../detail/threads.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/error_bound.cuh"
#include "gray_code.cuh"
#include "launch_parameters.cuh"
#include "ryser_result.cuh"

namespace sparseperm::detail {

// Chunk c is [1 + c·chunk, 1 + (c+1)·chunk), the last one cut at 2^(n−1): ranges that start at 1
// (mod chunk), as Algorithm 2's launches want. About 256 chunks (a device's tail is a chunk), each
// 2^36 to 2^44 steps: the host reduces a chunk's per-thread sums while the device runs the next (about
// 4 ms for an H100's 114,048 sums), which a chunk of 2^36 steps (70 to 160 ms on an H100) hides and
// one of 2^31 does not (gpu-cached at n = 38 took 4× as long with chunks of 2^30). A journal loses
// at most a chunk a device (2^44 steps: a minute or so).
struct device_chunking {
  std::uint64_t chunk = 1;
  std::uint64_t chunks = 0;
  std::uint64_t end = 1;  // 2^(n−1)

  std::uint64_t first_of(std::uint64_t c) const { return 1 + c * chunk; }
  std::uint64_t end_of(std::uint64_t c) const { return c + 1 == chunks ? end : 1 + (c + 1) * chunk; }
  std::uint64_t steps_of(std::uint64_t c) const { return end_of(c) - first_of(c); }
};

inline constexpr std::uint64_t device_chunks_wanted = 256;
inline constexpr int device_chunk_bits_min = 36, device_chunk_bits_max = 44;

// (The host tests emulate runs of small n with smaller chunks: min_bits, max_bits.)
inline device_chunking plan_device_chunks(int n, int min_bits = device_chunk_bits_min,
                                          int max_bits = device_chunk_bits_max) {
  device_chunking c;
  c.end = step_count(n);
  if (c.end == 1) return c;  // n = 1: step 0 alone
  expects(min_bits >= 1 && min_bits <= max_bits, "plan_device_chunks: chunks of at least 2 steps");
  const int bits = std::clamp(n - 1 - highest_bit(device_chunks_wanted), min_bits, max_bits);
  c.chunk = bits >= n - 1 ? c.end : std::uint64_t{1} << bits;
  c.chunks = bits >= n - 1 ? 1 : c.end / c.chunk;
  return c;
}

// The most additions into one per-thread accumulator over a chunk's launches.
inline std::uint64_t longest_chunk_chain(const device_chunking& c, std::uint64_t threads, std::uint64_t min_chunk,
                                         std::uint64_t granule = 0) {
  std::uint64_t chain = 1;
  if (c.chunks > 0)
    chain = longest_thread_steps(plan_chunk_launches(c.first_of(0), c.end_of(0), threads, min_chunk, granule));
  return chain;
}

// A chunk's record for accumulators of type Sum whose terms are of type Product.
template <class Sum, class Product, class = void>
struct chunk_record {  // exact: the merged sum
  Sum sum;
  static chunk_record of(const Sum* sums, std::size_t count) {
    chunk_record r;
    for (std::size_t t = 0; t < count; ++t) r.sum.merge(sums[t]);
    return r;
  }
};

// An exact sum of doubles as a double_double (numeric/double_double.cuh), |exact − (hi + lo)| ≤
// 2^−104·|exact| (hi is within an ulp of it, lo within an ulp of the rest), and Σ|t| rounded up.
inline double_double double_double_of(const exact_double_sum& exact) {
  double_double d;
  d.hi = exact.value();
  exact_double_sum rest = exact;
  rest.add(-d.hi);
  d.lo = rest.value();
  return d;
}
inline double rounded_up(const exact_double_sum& s) {
  return std::nextafter(std::nextafter(s.value(), std::numeric_limits<double>::infinity()),
                        std::numeric_limits<double>::infinity());
}
// A record's rounding, relative to the magnitudes (ryser_sum_bound's `records`): 2^−104 a record,
// with room to spare.
inline constexpr double record_rounding = 0x1p-100;

// K exact sums over the threads' sums, add(sum, accumulators) each: in pieces of 4096 threads on the
// host's threads, merged exactly (an exact sum does not depend on the order). A run of the whole GPU
// leaves 10^5 or more sums a chunk, about 33 ns each on one thread, not hidden behind the device
// where a run is a single chunk (a small matrix's).
template <int K, class Sum, class Add>
std::array<exact_double_sum, K> exact_sums_of(const Sum* sums, std::size_t count, const Add& add) {
  constexpr std::size_t piece = 4096;
  const std::size_t pieces = (count + piece - 1) / piece;
  std::vector<std::array<exact_double_sum, K>> parts(std::max<std::size_t>(pieces, 1));
  parallel_for<schedule::dynamic_one>(static_cast<std::int64_t>(pieces), engine_threads(0), [&](std::int64_t k) {
    const std::size_t end = std::min(count, (static_cast<std::size_t>(k) + 1) * piece);
    for (std::size_t t = static_cast<std::size_t>(k) * piece; t < end; ++t) add(sums[t], parts[k]);
  });
  for (std::size_t k = 1; k < parts.size(); ++k) {
    for (int j = 0; j < K; ++j) parts[0][j].merge(parts[k][j]);
  }
  return parts[0];
}

// A record's sums of the fine parts' running bound (fine_parts_sum), rounded up; none for other sums.
struct no_fine_parts {};
template <class Sum>
using fine_parts_record = std::conditional_t<has_fine_parts<Sum>, fine_parts_totals, no_fine_parts>;

// The exact sums a floating record keeps: the value's parts (one or two), Σ|t|, then the fine parts'.
template <class Sum, int Parts>
inline constexpr int record_sums = Parts + 1 + (has_fine_parts<Sum> ? 2 : 0);
template <class Sum, int Parts>
void add_fine_parts(const Sum& s, std::array<exact_double_sum, record_sums<Sum, Parts>>& a) {
  if constexpr (has_fine_parts<Sum>) {
    a[Parts + 1].add(s.fine.excess);
    a[Parts + 2].add(s.fine.base);
  }
}
template <class Sum, int Parts>
fine_parts_record<Sum> fine_parts_of(const std::array<exact_double_sum, record_sums<Sum, Parts>>& total) {
  if constexpr (has_fine_parts<Sum>) {
    return {rounded_up(total[Parts + 1]), rounded_up(total[Parts + 2])};
  } else {
    return {};
  }
}

template <class Sum>
struct chunk_record<Sum, double> {
  double_double sum;
  double magnitude = 0;
  [[no_unique_address]] fine_parts_record<Sum> fine{};
  static chunk_record of(const Sum* sums, std::size_t count) {
    using totals = std::array<exact_double_sum, record_sums<Sum, 1>>;
    const auto total = exact_sums_of<record_sums<Sum, 1>>(sums, count, [](const Sum& s, totals& a) {
      s.for_each_part([&](double v) { a[0].add(v); });
      a[1].add(magnitude_of(s));
      add_fine_parts<Sum, 1>(s, a);
    });
    return {double_double_of(total[0]), rounded_up(total[1]), fine_parts_of<Sum, 1>(total)};
  }
};

template <class Sum>
struct chunk_record<Sum, complex_double> {
  double_double re, im;
  double magnitude = 0;
  [[no_unique_address]] fine_parts_record<Sum> fine{};
  static chunk_record of(const Sum* sums, std::size_t count) {
    using totals = std::array<exact_double_sum, record_sums<Sum, 2>>;
    const auto total = exact_sums_of<record_sums<Sum, 2>>(sums, count, [](const Sum& s, totals& a) {
      s.re.for_each_part([&](double v) { a[0].add(v); });
      s.im.for_each_part([&](double v) { a[1].add(v); });
      a[2].add(magnitude_of(s));
      add_fine_parts<Sum, 2>(s, a);
    });
    return {double_double_of(total[0]), double_double_of(total[1]), rounded_up(total[2]), fine_parts_of<Sum, 2>(total)};
  }
};

// A record read back from a journal or a rank (run/record_codec.cuh's valid_record): finite parts, a
// magnitude that is not negative.
inline bool valid_record(const double_double& d) { return std::isfinite(d.hi) && std::isfinite(d.lo); }
template <class Sum, class Product, class V>
bool valid_record(const chunk_record<Sum, Product, V>& r) {
  return valid_record(r.sum);
}
inline bool valid_record(no_fine_parts) { return true; }
inline bool valid_record(const fine_parts_totals& f) {
  return std::isfinite(f.excess) && f.excess >= 0 && std::isfinite(f.base) && f.base >= 0;
}
template <class Sum>
bool valid_record(const chunk_record<Sum, double>& r) {
  return valid_record(r.sum) && std::isfinite(r.magnitude) && r.magnitude >= 0 && valid_record(r.fine);
}
template <class Sum>
bool valid_record(const chunk_record<Sum, complex_double>& r) {
  return valid_record(r.re) && valid_record(r.im) && std::isfinite(r.magnitude) && r.magnitude >= 0 &&
         valid_record(r.fine);
}

// The fine parts' sums of every record and of step 0's term (facts.start_fine), exactly, rounded up.
template <class Record>
fine_parts_totals fine_parts_total(const std::vector<Record>& records, const floating_run_facts& facts) {
  exact_double_sum excess, base;
  excess.add(facts.start_fine.excess);
  base.add(facts.start_fine.base);
  for (const Record& r : records) {
    excess.add(r.fine.excess);
    base.add(r.fine.base);
  }
  return {rounded_up(excess), rounded_up(base)};
}

// The result from every chunk's record, reduced exactly in chunk order, and step 0's term.
// chain: the most additions into one per-thread accumulator (longest_chunk_chain).
template <class Sum, class Product>
void set_ryser_records(permanent_result& result, int n, const Product& start_term,
                       const std::vector<chunk_record<Sum, Product>>& records, std::uint64_t chain,
                       const floating_run_facts& facts) {
  if constexpr (std::is_same_v<Product, complex_double>) {
    exact_double_sum re, im, magnitude;
    re.add(start_term.re);
    im.add(start_term.im);
    magnitude.add(l1_norm(start_term));
    for (const auto& r : records) {
      re.add(r.re.hi);
      re.add(r.re.lo);
      im.add(r.im.hi);
      im.add(r.im.lo);
      magnitude.add(r.magnitude);
    }
    floating_sum_report report = sum_report<Sum>(0, rounded_up(magnitude), chain, facts);
    report.records = record_rounding;
    const complex_double sum{re.value(), im.value()};
    if constexpr (has_fine_parts<Sum>) {
      set_floating_numbers(result, with_fine_parts(n, ryser_numbers(n, sum, report, without_change(facts.grid)),
                                                   facts.grid, fine_parts_total(records, facts), 0, chain));
    } else {
      set_ryser_value(result, n, sum, report, facts.grid);
    }
  } else if constexpr (std::is_floating_point_v<Product>) {
    exact_double_sum total, magnitude;
    total.add(start_term);
    magnitude.add(std::fabs(start_term));
    for (const auto& r : records) {
      total.add(r.sum.hi);
      total.add(r.sum.lo);
      magnitude.add(r.magnitude);
    }
    floating_sum_report report = sum_report<Sum>(total.value(), rounded_up(magnitude), chain, facts);
    report.records = record_rounding;
    if constexpr (has_fine_parts<Sum>) {
      set_floating_numbers(result, with_fine_parts(n, ryser_numbers(n, report, without_change(facts.grid)), facts.grid,
                                                   fine_parts_total(records, facts), report.magnitude, chain));
    } else {
      set_ryser_value(result, n, report, facts.grid);
    }
  } else if constexpr (is_double_double_sum<Sum>) {
    // merged in order with dd_plus, each merge's error in the partial sums' magnitude; the doubles
    // beside the sums took at most a thread's steps and 2^42 merges (threads times chunks)
    Sum total;
    total.add(start_term);
    for (const auto& r : records) total.merge(r.sum);
    set_ryser_sum(result, n, total, chain + (std::uint64_t{1} << 42), facts);
  } else {
    Sum total;
    total.add(start_term);
    for (const auto& r : records) total.merge(r.sum);
    set_ryser_value(result, n, total.value());
  }
}

}  // namespace sparseperm::detail
