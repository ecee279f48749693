#pragma once
// Algorithm 2 (GenerateLaunchParameters): split the Gray steps [1, 2^(n−1)) into launches of
// aligned power-of-two chunks, one chunk per thread.
//
// With T threads, each launch takes the largest power-of-two chunk C ≥ min_chunk with C·T ≤ the
// steps left, so the first launch covers at least half of the work and each later one at least half
// of the rest. When fewer than T·min_chunk steps are left, a last launch gives chunks of min_chunk to
// as many threads as needed (its last thread stops at 2^(n−1)). Every launch starts at a step
// first ≡ 1 (mod C), so thread t owns [first + t·C, first + (t+1)·C) and all threads of a warp flip
// the same column at the same local step (gray_code.cuh). Step 0 (the start state x_0) belongs to no
// launch: the host adds its term.
#include <cstdint>

#include "../core/config.cuh"
#include "../detail/bits.cuh"
#include "../detail/precondition.cuh"
#include "gray_code.cuh"

namespace sparseperm {

struct launch {
  std::uint64_t first_step = 0;  // thread t starts at first_step + t·chunk
  std::uint64_t chunk = 0;       // steps per thread: a power of two (Algorithm 2) or of granules
  std::uint64_t threads = 0;
  std::uint64_t end_step = 0;  // one past the last step of the launch

  SPARSEPERM_HOST_DEVICE constexpr std::uint64_t thread_first(std::uint64_t t) const { return first_step + t * chunk; }
  SPARSEPERM_HOST_DEVICE constexpr std::uint64_t thread_end(std::uint64_t t) const {
    const std::uint64_t e = first_step + (t + 1) * chunk;
    return e < end_step ? e : end_step;
  }
  SPARSEPERM_HOST_DEVICE constexpr std::uint64_t steps() const { return end_step - first_step; }
};

// Launches halve the work left, so 64 is more than 2^63 steps can need.
inline constexpr int max_launches = 64;

struct launch_plan {
  launch launches[max_launches]{};
  int count = 0;
  std::uint64_t first_step = 1;  // the plan covers [first_step, end_step)
  std::uint64_t end_step = 1;

  SPARSEPERM_HOST_DEVICE constexpr const launch& operator[](int i) const { return launches[i]; }
};

// Algorithm 2 over the steps [first, end) of a range that starts at first ≡ 1 (mod min_chunk): a
// chunk of the GPU queue (ryser/device_chunks.cuh), or all steps.
SPARSEPERM_HOST_DEVICE constexpr launch_plan plan_range_launches(std::uint64_t first, std::uint64_t end,
                                                                 std::uint64_t threads,
                                                                 std::uint64_t min_chunk = 1024) {
  detail::expects(threads >= 1 && threads <= (std::uint64_t{1} << 31),
                  "generate_launch_parameters: threads must be in [1, 2^31]");
  detail::expects(detail::is_power_of_two(min_chunk) && min_chunk <= (std::uint64_t{1} << 32),
                  "generate_launch_parameters: min_chunk must be a power of two <= 2^32");
  detail::expects(first >= 1 && first < end && end - first <= (std::uint64_t{1} << 63),
                  "plan_range_launches: the range must be [first, end) with 1 <= first < end");
  launch_plan plan;
  plan.first_step = first;
  plan.end_step = end;
  std::uint64_t left = end - first;
  while (left >= threads * min_chunk) {
    const std::uint64_t chunk = detail::bit_floor(left / threads);
    const std::uint64_t covered = chunk * threads;
    plan.launches[plan.count++] = launch{first, chunk, threads, first + covered};
    first += covered;
    left -= covered;
  }
  if (left > 0) {
    const std::uint64_t chunk = min_chunk < end - plan.first_step + 1 ? min_chunk : end - plan.first_step + 1;
    plan.launches[plan.count++] = launch{first, chunk, (left + chunk - 1) / chunk, end};
  }
  return plan;
}

SPARSEPERM_HOST_DEVICE constexpr launch_plan generate_launch_parameters(int n, std::uint64_t threads,
                                                                        std::uint64_t min_chunk = 1024) {
  detail::expects(n >= 1 && n <= max_ryser_n, "generate_launch_parameters: n must be in [1, 64]");
  if (n == 1) {  // no step beyond step 0
    launch_plan plan;
    plan.end_step = 1;
    return plan;
  }
  return plan_range_launches(1, step_count(n), threads, min_chunk);
}

// One launch over [first, end), every thread the same number of steps: the fewest multiple of g
// that `threads` threads need, g the largest power of two ≥ granule and ≤ 1/128 of a thread's
// steps (range starts ≡ 1 mod g: those of the GPU queue's chunks). Algorithm 2's power-of-two chunks
// leave threads idle where the steps are not a power of two times the threads (an H100 keeps
// 132 · 256 threads of gpu-dense: 3 % of a run of 2^27 steps, in three launches); here at most 1/128
// of a thread's steps. For kernels that walk any range starting on a multiple of `granule` plus one
// (gpu-dense: static blocks of 2^K ≤ granule steps); their threads flip different columns at one
// step in g, where Algorithm 2's (chunks of 2^c) do at one in 2^c.
SPARSEPERM_HOST_DEVICE constexpr launch_plan plan_even_launch(std::uint64_t first, std::uint64_t end,
                                                              std::uint64_t threads, std::uint64_t granule) {
  detail::expects(threads >= 1 && threads <= (std::uint64_t{1} << 31),
                  "plan_even_launch: threads must be in [1, 2^31]");
  detail::expects(detail::is_power_of_two(granule) && first >= 1 && first < end,
                  "plan_even_launch: a range [first, end) with 1 <= first < end, a power-of-two granule");
  launch_plan plan;
  plan.first_step = first;
  plan.end_step = end;
  const std::uint64_t steps = end - first;
  const std::uint64_t per_thread = (steps - 1) / threads + 1;
  const std::uint64_t g = per_thread / 128 > granule ? detail::bit_floor(per_thread / 128) : granule;
  detail::expects((first - 1) % g == 0, "plan_even_launch: the range must start at a multiple of its granule plus one");
  const std::uint64_t chunk = ((per_thread - 1) / g + 1) * g;
  plan.launches[plan.count++] = launch{first, chunk, (steps - 1) / chunk + 1, end};
  return plan;
}

// A range's launches: Algorithm 2's (granule 0) or one even launch.
SPARSEPERM_HOST_DEVICE constexpr launch_plan plan_chunk_launches(std::uint64_t first, std::uint64_t end,
                                                                 std::uint64_t threads, std::uint64_t min_chunk,
                                                                 std::uint64_t granule) {
  return granule == 0 ? plan_range_launches(first, end, threads, min_chunk)
                      : plan_even_launch(first, end, threads, granule);
}

// The most steps one thread takes over all launches of a plan (a chunk in each): the longest chain of
// additions into one per-thread accumulator (numeric/error_bound.cuh).
constexpr std::uint64_t longest_thread_steps(const launch_plan& plan) {
  std::uint64_t steps = 0;
  for (int l = 0; l < plan.count; ++l) steps += plan[l].chunk;
  return steps;
}

// The type-level form: the plan of an n×n matrix for a thread count fixed at compile time.
template <int N, std::uint64_t Threads, std::uint64_t MinChunk = 1024>
struct launch_parameters {
  static_assert(N >= 1 && N <= max_ryser_n, "sparseperm::launch_parameters<N, ...>: N must be in [1, 64]");
  static_assert(Threads >= 1 && Threads <= (std::uint64_t{1} << 31),
                "sparseperm::launch_parameters<N, Threads, ...>: Threads must be in [1, 2^31]");
  static_assert(detail::is_power_of_two(MinChunk) && MinChunk <= (std::uint64_t{1} << 32),
                "sparseperm::launch_parameters<N, Threads, MinChunk>: MinChunk must be a power of two <= 2^32");
  static constexpr launch_plan value = generate_launch_parameters(N, Threads, MinChunk);
};

}  // namespace sparseperm
