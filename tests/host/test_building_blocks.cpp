// The compile-time building blocks at run time, over ranges too large for constant evaluation:
// Gray-code facts, Algorithm 2 launch plans, Algorithm 3 orderings, Algorithm 4 partitions.
#include <doctest/doctest.h>

#include <sparseperm/run/chunk_dispatch.cuh>
#include <sparseperm/ryser/device_chunks.cuh>
#include <sparseperm/ryser/gray_steps.cuh>
#include <sparseperm/ryser/launch_parameters.cuh>
#include <sparseperm/ryser/ordering.cuh>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>

#include "ranks_in_threads.hpp"
#include "test_support.hpp"

namespace sp = sparseperm;

TEST_CASE("Theorem 1 over 2^22 steps") {
  std::uint64_t previous = sp::gray(0);
  for (std::uint64_t g = 1; g < (std::uint64_t{1} << 22); ++g) {
    const std::uint64_t current = sp::gray(g);
    const int j = sp::changed_column(g);
    REQUIRE((current ^ previous) == (std::uint64_t{1} << j));
    REQUIRE(sp::is_inclusion(g) == (((current >> j) & 1u) != 0));
    previous = current;
  }
  // And at the far end of a 64-column matrix.
  for (std::uint64_t g = (std::uint64_t{1} << 63) - 1000; g < (std::uint64_t{1} << 63); ++g) {
    REQUIRE((sp::gray(g) ^ sp::gray(g - 1)) == (std::uint64_t{1} << sp::changed_column(g)));
  }
}

TEST_CASE("aligned chunks agree for random chunk indices") {
  sp::random_stream stream(3);
  for (int trial = 0; trial < 200; ++trial) {
    const int log_chunk = 1 + static_cast<int>(stream.below(12));
    const std::uint64_t chunk = std::uint64_t{1} << log_chunk;
    const std::uint64_t t = stream.below(std::uint64_t{1} << (62 - log_chunk));
    for (std::uint64_t s = 1; s < chunk; ++s) {
      const std::uint64_t g = t * chunk + s;
      REQUIRE(sp::changed_column(g) == sp::changed_column(s));
      REQUIRE(sp::direction(g) == (s == chunk / 2 ? (t % 2 == 0 ? 1 : -1) : sp::direction(s)));
    }
  }
}

TEST_CASE("Algorithm 2 tiles the steps for every n and many thread counts") {
  int plans = 0;
  for (int n = 1; n <= 64; ++n) {
    for (std::uint64_t threads : {1ull, 3ull, 32ull, 1000ull, 132ull * 1024, 132ull * 2048, 1ull << 31}) {
      for (std::uint64_t min_chunk : {1ull, 1024ull, 1ull << 20}) {
        const sp::launch_plan plan = sp::generate_launch_parameters(n, threads, min_chunk);
        std::uint64_t next = 1;
        for (int k = 0; k < plan.count; ++k) {
          const sp::launch& l = plan[k];
          REQUIRE(l.first_step == next);
          REQUIRE(sp::detail::is_power_of_two(l.chunk));
          REQUIRE((l.first_step - 1) % l.chunk == 0);
          REQUIRE(l.threads <= threads);
          REQUIRE(l.thread_end(l.threads - 1) == l.end_step);
          next = l.end_step;
        }
        REQUIRE(next == sp::step_count(n));
        ++plans;
      }
    }
  }
  CHECK(plans == 64 * 7 * 3);
}

TEST_CASE("Algorithm 3 gives a staircase and Algorithm 4 a consistent partition on random patterns") {
  sp::random_stream stream(11);
  int patterns = 0;
  for (int n = 1; n <= 64; n += 3) {
    for (double density : {0.05, 0.1, 0.3, 0.6}) {
      const sp::column_masks pattern = test_support::random_matrix(stream, n, density, sp::value_kind::ones).masks();
      const sp::permanent_ordering_plan plan = sp::permanent_ordering(pattern);
      const sp::column_masks ordered = sp::reorder(pattern, plan.order);
      CHECK(ordered.nnz() == pattern.nnz());
      std::uint64_t seen = 0;
      for (int m = 1; m <= n; ++m) {
        seen |= ordered.rows[m - 1];
        REQUIRE(seen == sp::detail::low_mask(plan.rows_touched[m]));
        // Greedy choice: no remaining column would have added fewer new rows.
        const int added = plan.rows_touched[m] - plan.rows_touched[m - 1];
        for (int later = m; later < n; ++later) {
          REQUIRE(sp::detail::popcount(ordered.rows[later] & ~sp::detail::low_mask(plan.rows_touched[m - 1])) >= added);
        }
      }
      const sp::register_partition p = sp::partition_rows(ordered);
      REQUIRE(p.register_rows >= 0);
      REQUIRE(p.register_rows <= n);
      for (int j = 0; j <= p.last_register_column; ++j) {
        REQUIRE((ordered.rows[j] & ~sp::detail::low_mask(p.register_rows)) == 0);
      }
      REQUIRE(p.threads_per_sm == sp::resident_threads_per_sm(sp::h100_sxm, p.registers_per_thread));
      ++patterns;
    }
  }
  CHECK(patterns == 88);
}

TEST_CASE("the occupancy model matches the CUDA occupancy calculator's register rule") {
  // sm_90: 65536 registers, 64 warps, allocation per warp in units of 256 registers.
  CHECK(sp::resident_threads_per_sm(sp::h100_sxm, 24) == 2048);
  CHECK(sp::resident_threads_per_sm(sp::h100_sxm, 40) == 1632);  // 1280 per warp: 51 warps
  CHECK(sp::resident_threads_per_sm(sp::h100_sxm, 128) == 512);
  CHECK(sp::resident_threads_per_sm(sp::h100_sxm, 129) == 480);  // 4128 → 4352 per warp: 15 warps
  CHECK(sp::resident_threads_per_sm(sp::h100_sxm, 0) == 0);
}

TEST_CASE("the 32-bit step loop reports every step as the 64-bit facts do, across 2^31 and 2^32 boundaries") {
  for (std::uint64_t first : {std::uint64_t{1}, (std::uint64_t{1} << 31) - 5, (std::uint64_t{1} << 32) - 7,
                              (std::uint64_t{3} << 40) - 3, (std::uint64_t{1} << 62) - 2}) {
    std::uint64_t g = first;
    sp::detail::for_each_gray_step(first, first + 100, [&](int column, bool inclusion, bool odd) {
      REQUIRE(column == sp::changed_column(g));
      REQUIRE(inclusion == sp::is_inclusion(g));
      REQUIRE(odd == ((g & 1u) != 0));
      ++g;
    });
    CHECK(g == first + 100);
  }
}

TEST_CASE("the step loop is right for every small range and for Algorithm 2's chunks near 2^31 and 2^32") {
  auto check_range = [](std::uint64_t first, std::uint64_t end) {
    std::uint64_t g = first;
    bool right = true;
    sp::detail::for_each_gray_step(first, end, [&](int column, bool inclusion, bool odd) {
      right = right && g < end && column == sp::changed_column(g) && inclusion == sp::is_inclusion(g) &&
              odd == ((g & 1u) != 0);
      ++g;
    });
    return right && g == end;
  };
  int ranges = 0;
  for (std::uint64_t first = 1; first <= 260; ++first) {
    for (std::uint64_t end = first; end <= first + 300; ++end, ++ranges) REQUIRE(check_range(first, end));
  }
  // Chunks [a·C + 1, (a + 1)·C + 1) and ragged ends, a odd and even, where the run ends at l = C.
  for (std::uint64_t chunk : {std::uint64_t{1} << 10, std::uint64_t{1} << 16}) {
    for (std::uint64_t a : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{6},
                            (std::uint64_t{1} << 21) - 1, std::uint64_t{1} << 21, (std::uint64_t{1} << 40) + 5}) {
      const std::uint64_t first = a * chunk + 1;
      for (std::uint64_t length : {chunk, chunk - 1, chunk / 2 + 3}) {
        REQUIRE(check_range(first, first + length));
        ++ranges;
      }
    }
  }
  // Runs that end on 2^30 (the longest run), 2^31 and 2^32.
  for (std::uint64_t middle :
       {std::uint64_t{1} << 30, std::uint64_t{1} << 32, std::uint64_t{3} << 31, std::uint64_t{1} << 63}) {
    REQUIRE(check_range(middle - 1000, middle + 1000));
    ++ranges;
  }
  CHECK(ranges == 260 * 301 + 2 * 8 * 3 + 4);
}

TEST_CASE("the GPU queue's chunks cover the Gray steps exactly, aligned, up to n = 64") {
  for (int n = 2; n <= 64; ++n) {
    CAPTURE(n);
    const sp::detail::device_chunking c = sp::detail::plan_device_chunks(n);
    REQUIRE(c.chunks >= 1);
    CHECK(c.end == sp::step_count(n));
    CHECK(sp::detail::is_power_of_two(c.chunk));
    CHECK(c.chunk >= std::min<std::uint64_t>(c.end, std::uint64_t{1} << 36));
    CHECK(c.chunk <= std::uint64_t{1} << 44);
    std::uint64_t next = 1, steps = 0;
    for (std::uint64_t k = 0; k < c.chunks; ++k) {  // n = 64: 2^19 chunks of 2^44, to 2^63 without overflow
      REQUIRE(c.first_of(k) == next);
      CHECK((c.first_of(k) - 1) % c.chunk == 0);  // ≡ 1 (mod chunk), as Algorithm 2 wants
      REQUIRE(c.end_of(k) > c.first_of(k));
      steps += c.steps_of(k);
      next = c.end_of(k);
    }
    CHECK(next == c.end);
    CHECK(steps == c.end - 1);
    // every chunk's launches cover it, thread chunks aligned
    for (const std::uint64_t k : {std::uint64_t{0}, c.chunks - 1}) {
      const sp::launch_plan plan = sp::plan_range_launches(c.first_of(k), c.end_of(k), 132 * 864, 1024);
      std::uint64_t covered = 0;
      for (int l = 0; l < plan.count; ++l) {
        CHECK((plan[l].first_step - 1) % plan[l].chunk == 0);
        covered += plan[l].steps();
      }
      CHECK(covered == c.steps_of(k));
    }
  }
}

TEST_CASE("an even launch covers its range once, every thread the same fewest multiple of the granule") {
  sp::random_stream s(2611);
  int plans = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::uint64_t granule = std::uint64_t{1} << s.below(5);  // 1..16
    const std::uint64_t first = 1 + (std::uint64_t{1} << 40) * (trial % 3 == 0 ? 0 : s.below(1u << 20));
    const std::uint64_t steps = trial % 4 == 0 ? 1 + s.below(100) : (std::uint64_t{1} << (10 + s.below(34))) - 1;
    const std::uint64_t threads = trial % 5 == 0 ? 132 * 256 : 1 + s.below(1u << 17);
    CAPTURE(first);
    CAPTURE(steps);
    CAPTURE(threads);
    CAPTURE(granule);
    const sp::launch_plan plan = sp::plan_even_launch(first, first + steps, threads, granule);
    REQUIRE(plan.count == 1);
    const sp::launch& l = plan[0];
    const std::uint64_t per_thread = (steps + threads - 1) / threads;
    CHECK(l.chunk % granule == 0);
    CHECK(l.threads <= threads);
    CHECK(l.chunk * l.threads >= steps);                                    // every step has a thread
    CHECK(l.chunk - per_thread < std::max(granule, per_thread / 128 + 1));  // and at most 1/128 idle
    CHECK(l.thread_first(0) == first);
    CHECK(l.thread_end(l.threads - 1) == first + steps);
    CHECK(l.thread_first(l.threads - 1) < first + steps);  // no thread without steps
    CHECK((l.thread_first(l.threads - 1) - 1) % granule == 0);
    const std::uint64_t g = per_thread / 128 > granule ? sp::detail::bit_floor(per_thread / 128) : granule;
    CHECK(l.chunk % g == 0);  // threads start on the same steps of blocks of g
    CHECK(sp::longest_thread_steps(plan) == l.chunk);
    ++plans;
  }
  // n = 28 on an H100's 33792 gpu-dense threads: 3972 steps a thread in multiples of 16, where
  // Algorithm 2 gives 4096
  const sp::launch_plan h100 = sp::plan_even_launch(1, sp::step_count(28), 132 * 256, 8);
  CHECK(h100[0].chunk == 3984);
  CHECK(sp::longest_thread_steps(sp::plan_range_launches(1, sp::step_count(28), 132 * 256, 1024)) == 4096);
  CHECK(plans == 400);
}

TEST_CASE("ranks of unequal speed: the dealing gives the slow rank fewer chunks, every chunk runs once") {
  // rank r takes (r + 1) ms a chunk on 2 workers: rank 0 should run the most, rank 3 the fewest
  constexpr std::uint64_t chunks = 240;
  test_support::ranks_in_threads ranks(4);
  std::vector<std::vector<std::uint64_t>> counted(4);
  const auto results = ranks.each([&](int r) {
    sp::detail::shared_chunks shared{{"", ranks.rank(r)}, "a test's chunks"};
    std::vector<std::uint64_t> ran(chunks, 0);
    const auto run = [&](sp::detail::chunk_queue& queue, const auto& finish) {
      std::vector<std::thread> workers;
      for (int w = 0; w < 2; ++w) {
        workers.emplace_back([&] {
          while (const std::optional<std::uint64_t> c = queue.take(true)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(r + 1));
            ++ran[*c];  // each chunk reaches one worker
            finish(*c, *c * 3 + 1);
            queue.finished();
          }
        });
      }
      for (auto& w : workers) w.join();
    };
    const std::vector<std::uint64_t> records =
        sp::detail::chunk_dispatch<std::uint64_t>(chunks, shared, nullptr, [](std::uint64_t) {
          return std::uint64_t{1};
        }).run(2, run);
    for (std::uint64_t c = 0; c < chunks; ++c) REQUIRE(records[c] == c * 3 + 1);
    counted[static_cast<std::size_t>(r)] = shared.rank_chunks;
    std::uint64_t mine = 0;
    for (const std::uint64_t k : ran) mine += k;
    return std::to_string(mine);
  });
  std::uint64_t total = 0;
  for (int r = 0; r < 4; ++r) {
    CAPTURE(r);
    REQUIRE(results[static_cast<std::size_t>(r)].find("error") == std::string::npos);
    CHECK(counted[static_cast<std::size_t>(r)] == counted[0]);  // every rank learns the same counts
    CHECK(counted[0][static_cast<std::size_t>(r)] == std::stoull(results[static_cast<std::size_t>(r)]));
    total += counted[0][static_cast<std::size_t>(r)];
  }
  CHECK(total == chunks);
  // speeds 1 : 1/2 : 1/3 : 1/4 would give 115, 58, 38, 29; a fixed split 60 each
  CHECK(counted[0][0] > counted[0][3] * 2);
}

TEST_CASE("the record codec: records travel as bytes and back, and a malformed record is refused") {
  namespace d = sp::detail;
  // trivially copyable records: their bytes
  const d::compensated_sum sum = [] {
    d::compensated_sum s;
    for (int k = 1; k <= 1000; ++k) s.add_signed(1.0 / k, k % 3 == 0);
    return s;
  }();
  d::compensated_sum back;
  REQUIRE(d::record_from_bytes(d::record_bytes(sum), back));
  CHECK(back.sum == sum.sum);
  CHECK(back.compensation == sum.compensation);
  CHECK(back.magnitude == sum.magnitude);
  CHECK_FALSE(d::record_from_bytes(d::record_bytes(sum).substr(1), back));  // cut short
  CHECK_FALSE(d::record_from_bytes(d::record_bytes(sum) + "x", back));      // too long
  // big integers: the sign and the limbs, of any size
  sp::random_stream s(99);
  for (int trial = 0; trial < 200; ++trial) {
    d::big_integer v(static_cast<long long>(s.below(1000)) - 500);
    for (int k = 0; k < trial % 17; ++k) v = v.times(static_cast<long long>(s.below(1u << 30)) + 1);
    d::big_sum<d::big_gaussian> total;
    total.add(d::big_gaussian(v, v.times(-3)));
    d::big_sum<d::big_gaussian> again;
    REQUIRE(d::record_from_bytes(d::record_bytes(total), again));
    CHECK(again.sum.re.to_decimal() == v.to_decimal());
    CHECK(again.sum.im.to_decimal() == v.times(-3).to_decimal());
  }
  const std::string zero = d::record_bytes(d::big_integer(0ll));
  d::big_integer z(5ll);
  REQUIRE(d::record_from_bytes(zero, z));
  CHECK(z.is_zero());
  std::string huge = d::byte_writer().put(std::uint8_t{0}).put(std::uint64_t{1} << 60).take();  // limbs it lacks
  CHECK_FALSE(d::record_from_bytes(huge, z));
  std::string sign = d::byte_writer().put(std::uint8_t{7}).put(std::uint64_t{0}).take();  // a sign byte of 7
  CHECK_FALSE(d::record_from_bytes(sign, z));
}

namespace {

// a − b of dyadic rationals, exactly
test_support::dyadic minus(const test_support::dyadic& a, const test_support::dyadic& b) {
  const int e = std::min(a.e, b.e);
  sp::detail::big_integer d = test_support::times_power_of_two(a.m, a.e - e);
  d += test_support::times_power_of_two(b.m, b.e - e).times(-1);
  return {d, e};
}

double ulp_of(double v) { return std::nextafter(std::fabs(v), INFINITY) - std::fabs(v); }

}  // namespace

// The host's exact reduction of per-thread sums (accumulators.cuh): against big integers, on doubles
// of every size and sign (subnormals and values near the top of the range too), with the carries
// propagated mid-way; its double-double and its rounded-up magnitude as the records use them.
TEST_CASE("exact_double_sum is exact: value within an ulp, double_double_of within 2^-104") {
  namespace d = sp::detail;
  sp::random_stream stream(2611);
  for (int trial = 0; trial < 300; ++trial) {
    d::exact_double_sum sum;
    if (trial % 3 == 0) sum.pending = (std::uint32_t{1} << 30) - 7;  // the carry propagation on the way
    test_support::dyadic exact{d::big_integer(0ll), 0};
    const int count = 1 + trial % 40;
    const int low = trial % 4 == 0 ? -1074 : -60 - trial % 200, span = trial % 5 == 0 ? 2000 : 120;
    double magnitude_of_terms = 0;
    for (int k = 0; k < count; ++k) {
      const int e = std::min(low + static_cast<int>(stream.uniform() * span), 960);
      double v = std::ldexp(stream.uniform(), e);
      if (stream.uniform() < 0.5) v = -v;
      if (k > 0 && stream.uniform() < 0.2) v = -std::ldexp(stream.uniform() < 0.5 ? 1.0 : 0.75, e);
      sum.add(v);
      if (v != 0) exact = minus(exact, minus(test_support::dyadic{d::big_integer(0ll), 0}, test_support::dyadic_of(v)));
      magnitude_of_terms += std::fabs(v);
    }
    if (trial % 7 == 0) {  // a value and its negation leave the sum as it was
      sum.add(1e300);
      sum.add(-1e300);
    }
    CAPTURE(trial);
    const double value = sum.value();
    const double error = std::fabs(test_support::difference(value, exact));
    CHECK(error <= ulp_of(value));
    if (value == 0) CHECK(test_support::difference(0.0, exact) == 0);
    const sp::double_double dd = d::double_double_of(sum);
    const double dd_error = std::fabs(test_support::difference(dd.lo, minus(exact, test_support::dyadic_of(dd.hi))));
    CHECK(dd_error <= 0x1p-104 * std::fabs(value) + 0x1p-1074);
    d::exact_double_sum magnitude;
    for (int k = 0; k < 3; ++k) magnitude.add(magnitude_of_terms / 3);
    CHECK(d::rounded_up(magnitude) >= magnitude_of_terms / 3 * 3 * (1 - 0x1p-52));
  }
  d::exact_double_sum special;
  special.add(1.0);
  special.add(INFINITY);
  CHECK(special.value() == INFINITY);
  special.add(-INFINITY);
  CHECK(std::isnan(special.value()));
  d::exact_double_sum huge;  // beyond double's range: inf, as a double sum would be
  huge.add(DBL_MAX);
  huge.add(DBL_MAX);
  CHECK(huge.value() == INFINITY);
  huge.add(-DBL_MAX);
  CHECK(huge.value() == DBL_MAX);
  d::exact_double_sum tiny;
  tiny.add(0x1p-1074);
  tiny.add(0x1p-1074);
  tiny.add(-0x1p-1073);
  tiny.add(-0x1p-1074);
  CHECK(tiny.value() == -0x1p-1074);
}

// A chunk's record reduces its threads' sums in pieces on the host's threads, merged limb by limb:
// the same record, bit for bit, as one accumulator over all of them (an exact sum has no order).
TEST_CASE("a chunk's record from sums reduced in parallel pieces equals one exact sum") {
  namespace d = sp::detail;
  using Sum = d::complex_sum<d::compensated_sum>;
  sp::random_stream stream(907);
  for (const std::size_t count : {std::size_t{1}, std::size_t{4095}, std::size_t{4097}, std::size_t{70001}}) {
    std::vector<Sum> sums(count);
    for (Sum& s : sums) {
      for (int k = 0; k < 4; ++k) {
        const int e = static_cast<int>(stream.uniform() * 80) - 40;
        s.add_signed(sp::complex_double{std::ldexp(stream.uniform() - 0.5, e), std::ldexp(stream.uniform() - 0.5, e)},
                     k % 2 == 1);
      }
    }
    d::exact_double_sum re, im, magnitude, re_first, re_second;
    for (std::size_t t = 0; t < count; ++t) {
      sums[t].re.for_each_part([&](double v) { re.add(v); });
      sums[t].re.for_each_part([&](double v) { (t < count / 3 ? re_first : re_second).add(v); });
      sums[t].im.for_each_part([&](double v) { im.add(v); });
      magnitude.add(d::magnitude_of(sums[t]));
    }
    re_first.merge(re_second);
    CAPTURE(count);
    CHECK(re_first.value() == re.value());
    const auto record = d::chunk_record<Sum, sp::complex_double>::of(sums.data(), count);
    const sp::double_double want_re = d::double_double_of(re), want_im = d::double_double_of(im);
    CHECK(record.re.hi == want_re.hi);
    CHECK(record.re.lo == want_re.lo);
    CHECK(record.im.hi == want_im.hi);
    CHECK(record.im.lo == want_im.lo);
    CHECK(record.magnitude == d::rounded_up(magnitude));
  }
}
