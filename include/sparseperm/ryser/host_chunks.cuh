#pragma once
// The CPU Ryser engines' outer loop (cpu-sparse, cpu-cached): the steps [1, 2^(n−1)) cut into
// aligned power-of-two chunks (about 64 per thread, at least 4096, at most 2^22 steps each where that
// makes at most 2^18 chunks, and at least 1024 steps each), handed to OpenMP
// threads dynamically. Each chunk sums into its own accumulator and the partial sums are reduced in
// chunk order, so the result does not depend on how the chunks were scheduled.
//
//   steps(first, end, sum)   adds the terms of the steps [first, end) to `sum` (first ≥ 1); a
//                            thread rebuilds its start state x_{first−1} itself
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/progress.cuh"
#include "../detail/bits.cuh"
#include "../detail/threads.cuh"
#include "../run/host_chunks.cuh"
#include "../run/sharing.cuh"
#include "gray_code.cuh"

namespace sparseperm::detail {

struct host_chunking {
  std::uint64_t chunk = 0;  // steps per chunk, a power of two
  std::int64_t chunks = 0;
  // The most additions into one accumulator (numeric/error_bound.cuh): a chunk's steps, then the
  // chunk sums merged in order.
  std::uint64_t longest_chain() const { return chunk + static_cast<std::uint64_t>(chunks); }
};

// Journaled and distributed runs cut the steps into the same chunks whatever the thread count (4096
// of them: 64 a thread up to 64 threads), so that a run resumed on other threads finds its chunks and
// every rank cuts them alike (run/chunk_dispatch.cuh).
inline constexpr std::uint64_t fixed_chunks = 4096;

inline host_chunking plan_host_chunks(int n, int threads, bool fixed = false) {
  const std::uint64_t total = step_count(n);
  // A stop request (core/progress.cuh) waits for the chunks being run: on few threads too, chunks of
  // at most 2^22 steps (about 0.2 s at n = 40), unless that makes more than 2^18 of them.
  std::uint64_t wanted_chunks = fixed_chunks;
  if (!fixed) {
    wanted_chunks = std::max({64 * static_cast<std::uint64_t>(threads > 0 ? threads : 1), fixed_chunks,
                              std::min<std::uint64_t>(total >> 22, std::uint64_t{1} << 18)});
  }
  std::uint64_t chunk = bit_floor(std::max<std::uint64_t>(total / wanted_chunks, 1024));
  if (chunk > total) chunk = total;
  return {chunk, static_cast<std::int64_t>(total / chunk)};
}

// Σ_{g ≥ 1} of the steps' terms, reduced in chunk order into `sum` (which holds step 0's term). With
// `shared` (a journal, or ranks: run/chunk_dispatch.cuh), this process runs only its chunks that the
// journal does not hold, journals each, and gets the others' from the ranks.
template <class Sum, class Steps>
void sum_host_chunks(int n, int threads, progress_counter* progress, const Steps& steps, Sum& sum,
                     host_chunking& chunking, shared_chunks* shared = nullptr) {
  chunking = plan_host_chunks(n, threads, shared && shared->sharing.fixed_chunks());
  const std::uint64_t chunk = chunking.chunk;
  const auto range_of = [chunk](std::uint64_t c) {
    return std::pair<std::uint64_t, std::uint64_t>{c == 0 ? 1 : c * chunk, (c + 1) * chunk};
  };
  const auto steps_of = [&](std::uint64_t c) { return range_of(c).second - range_of(c).first; };
  const auto sum_chunk = [&](std::uint64_t c) {
    const auto [first, end] = range_of(c);
    Sum local;  // accumulate privately: neighbouring chunks' sums share cache lines
    steps(first, end, local);
    return local;
  };
  if (shared) shared->key += "; chunks " + std::to_string(chunking.chunks) + " of " + std::to_string(chunk);
  const std::vector<Sum> partial = run_chunks_on_host<Sum>(static_cast<std::uint64_t>(chunking.chunks), threads,
                                                           progress, steps_of, sum_chunk, shared);
  for (const Sum& p : partial) sum.merge(p);
}

}  // namespace sparseperm::detail
