// Static tests of Algorithm 2 (building this file is passing).
#include <sparseperm/ryser/launch_parameters.cuh>

#include <cstdint>

namespace sp = sparseperm;

// A plan is valid when its launches tile [1, 2^(n-1)) in order, each with a power-of-two chunk that
// the launch's first step is aligned to (first ≡ 1 mod chunk), at most `threads` threads, chunks of at
// least min_chunk unless the whole problem is smaller, and each thread's range inside the launch.
constexpr bool valid_plan(int n, std::uint64_t threads, std::uint64_t min_chunk) {
  const sp::launch_plan plan = sp::generate_launch_parameters(n, threads, min_chunk);
  std::uint64_t next = 1;
  const std::uint64_t end = sp::step_count(n);
  if (plan.first_step != 1 || plan.end_step != end) return false;
  for (int i = 0; i < plan.count; ++i) {
    const sp::launch& l = plan[i];
    if (l.first_step != next || l.end_step <= l.first_step) return false;
    if (!sp::detail::is_power_of_two(l.chunk) || (l.first_step - 1) % l.chunk != 0) return false;
    if (l.threads < 1 || l.threads > threads) return false;
    if (l.chunk < min_chunk && l.chunk != end) return false;
    if (l.thread_first(l.threads - 1) >= l.end_step || l.thread_end(l.threads - 1) != l.end_step) return false;
    if (i + 1 < plan.count && l.steps() != l.chunk * l.threads) return false;  // only the last launch is ragged
    next = l.end_step;
  }
  return next == end;
}
static_assert(valid_plan(1, 1, 1024));
static_assert(valid_plan(5, 128, 1024));
static_assert(valid_plan(20, 4, 1024));
static_assert(valid_plan(30, 1000, 1024));
static_assert(valid_plan(40, 132 * 1024, 1024));
static_assert(valid_plan(64, 132 * 2048, 1024));
static_assert(valid_plan(64, 1, 1));

// Each full launch covers at least half of what is left, so the launches are few.
constexpr bool halves(int n, std::uint64_t threads) {
  const sp::launch_plan plan = sp::generate_launch_parameters(n, threads);
  std::uint64_t left = plan.end_step - plan.first_step;
  for (int i = 0; i + 1 < plan.count; ++i) {
    if (2 * plan[i].steps() < left) return false;
    left -= plan[i].steps();
  }
  return true;
}
static_assert(halves(40, 132 * 1024));
static_assert(sp::generate_launch_parameters(64, 132 * 2048).count <= 40);

// Small cases spelled out.
// n = 5: 16 steps, less than one minimum chunk: one thread does steps 1..15.
static_assert(sp::generate_launch_parameters(5, 128).count == 1);
static_assert(sp::generate_launch_parameters(5, 128)[0].chunk == 16);
static_assert(sp::generate_launch_parameters(5, 128)[0].threads == 1);
// n = 20, 4 threads: 2^19 - 1 steps; chunks 2^16 (4·2^16 ≤ 524287), then 2^15, 2^14, ... down to
// 2^10, then a last launch of 1024-step chunks.
static_assert(sp::generate_launch_parameters(20, 4)[0].chunk == (1u << 16));
static_assert(sp::generate_launch_parameters(20, 4)[1].chunk == (1u << 15));
static_assert(sp::generate_launch_parameters(20, 4)[1].first_step == 1 + 4 * (1u << 16));

// The type-level form.
static_assert(sp::launch_parameters<20, 4>::value.count == sp::generate_launch_parameters(20, 4).count);
