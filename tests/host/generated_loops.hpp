#pragma once
// The generated engines' per-thread loops run on the host as the GPU runs them: Algorithm 2's
// launches and aligned chunks, one accumulator per thread kept across launches, global rows strided
// by the thread count; and cpu-cached's chunk loop on OpenMP threads.
#include <sparseperm/engines/cpu_cached.cuh>
#include <sparseperm/numeric/accumulators.cuh>
#include <sparseperm/ryser/arithmetic_types.cuh>
#include <sparseperm/ryser/cached_loop.cuh>
#include <sparseperm/ryser/device_chunks.cuh>
#include <sparseperm/ryser/hybrid_loop.cuh>
#include <sparseperm/ryser/purereg_loop.cuh>
#include <sparseperm/ryser/ryser_result.cuh>

#include <cstdint>
#include <vector>

namespace test_generated {

namespace sp = sparseperm;

template <class Arith>
using thread_sum = sp::detail::generated_sum<Arith, sp::precision::double_sums, false>;

// Runs `steps(first, end, gx, stride, sum)` as gpu/ryser_launcher.cuh does: the steps in about
// eight aligned chunks (ryser/device_chunks.cuh), each Algorithm 2's launches with the per-thread sums
// zeroed before and reduced into the chunk's record after, the records reduced in chunk order.
template <class Plan, class Steps>
sp::permanent_result run_like_a_gpu(Steps steps, int global_rows, std::uint64_t threads, std::uint64_t min_chunk) {
  using sum_type = thread_sum<typename Plan::arithmetic>;
  using product = decltype(sp::start_term_of<Plan>());
  using record = sp::detail::chunk_record<sum_type, product>;
  const int eighth = Plan::n > 5 ? Plan::n - 4 : 1;  // 2^(n−4) steps a chunk: 8 chunks
  const sp::detail::device_chunking chunking = sp::detail::plan_device_chunks(Plan::n, eighth, eighth);
  std::vector<record> records;
  std::vector<typename Plan::value> global(static_cast<std::size_t>(global_rows > 0 ? global_rows : 1) * threads);
  for (std::uint64_t c = 0; c < chunking.chunks; ++c) {
    const sp::launch_plan plan = sp::plan_range_launches(chunking.first_of(c), chunking.end_of(c), threads, min_chunk);
    std::vector<sum_type> partial(threads);
    for (int l = 0; l < plan.count; ++l) {
      for (std::uint64_t t = 0; t < plan[l].threads; ++t) {
        steps(plan[l].thread_first(t), plan[l].thread_end(t), global.data() + t, threads, partial[t]);
      }
    }
    records.push_back(record::of(partial.data(), partial.size()));
  }
  sp::permanent_result result;
  result.engine = "host emulation";
  sp::detail::set_ryser_records<sum_type>(result, Plan::n, sp::start_term_of<Plan>(), records,
                                          sp::detail::longest_chunk_chain(chunking, threads, min_chunk), {Plan::grid});
  return result;
}

template <class Plan>
sp::permanent_result run_purereg(std::uint64_t threads) {
  return run_like_a_gpu<Plan>([](std::uint64_t first, std::uint64_t end, auto*, std::uint64_t,
                                 auto& sum) { sp::purereg_steps<Plan>(first, end, sum); },
                              0, threads, 2);
}

template <class Plan>
sp::permanent_result run_hybrid(std::uint64_t threads) {
  return run_like_a_gpu<Plan>([](std::uint64_t first, std::uint64_t end, auto* gx, std::uint64_t stride,
                                 auto& sum) { sp::hybrid_steps<Plan>(first, end, gx, stride, sum); },
                              Plan::global_rows, threads, 2);
}

template <class Plan>
sp::permanent_result run_cached(std::uint64_t threads, std::uint64_t min_chunk) {
  return run_like_a_gpu<Plan>([](std::uint64_t first, std::uint64_t end, auto* gx, std::uint64_t stride,
                                 auto& sum) { sp::cached_steps<Plan>(first, end, gx, stride, sum); },
                              Plan::global_slots, threads, min_chunk);
}

template <class Plan>
sp::permanent_result run_host(int threads) {
  using sum = sp::cpu_cached_sum<typename Plan::arithmetic>;
  return sp::detail::run_host_chunks<sum>(
      sp::engines::cpu_cached::name, Plan::n, Plan::matrix::pattern::nnz, sp::start_term_of<Plan>(),
      [](std::uint64_t first, std::uint64_t end, sum& s) { sp::cached_steps<Plan>(first, end, nullptr, 0, s); },
      {.threads = threads}, "forced", {Plan::grid, std::uint64_t{1} << Plan::b});
}

}  // namespace test_generated
