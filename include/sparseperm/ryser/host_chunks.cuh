#pragma once
// The CPU Ryser engines' outer loop (cpu-sparse, cpu-cached): the steps [1, 2^(n−1)) cut into
// aligned power-of-two chunks, about 64 per thread and at least 1024 steps each, handed to OpenMP
// threads dynamically. Each chunk sums into its own accumulator and the partial sums are reduced in
// chunk order, so the result does not depend on how the chunks were scheduled.
//
//   steps(first, end, sum)   adds the terms of the steps [first, end) to `sum` (first ≥ 1); a
//                            thread rebuilds its start state x_{first−1} itself
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "../core/progress.cuh"
#include "../detail/bits.cuh"
#include "../detail/journal.cuh"
#include "../detail/threads.cuh"
#include "gray_code.cuh"

namespace sparseperm::detail {

struct host_chunking {
  std::uint64_t chunk = 0;  // steps per chunk, a power of two
  std::int64_t chunks = 0;
  // The most additions into one accumulator (numeric/error_bound.cuh): a chunk's steps, then the
  // chunk sums merged in order.
  std::uint64_t longest_chain() const { return chunk + static_cast<std::uint64_t>(chunks); }
};

// Journaled runs cut the steps into the same chunks whatever the thread count (4096 of them: 64 a
// thread up to 64 threads), so that a run resumed on other threads finds its chunks.
inline constexpr std::uint64_t journaled_chunks = 4096;

inline host_chunking plan_host_chunks(int n, int threads, bool journaled = false) {
  const std::uint64_t total = step_count(n);
  const std::uint64_t wanted_chunks =
      journaled ? journaled_chunks : 64 * static_cast<std::uint64_t>(threads > 0 ? threads : 1);
  std::uint64_t chunk = bit_floor(std::max<std::uint64_t>(total / wanted_chunks, 1024));
  if (chunk > total) chunk = total;
  return {chunk, static_cast<std::int64_t>(total / chunk)};
}

// A journaled run (detail/journal.cuh): `open` makes the journal once the chunking is known.
struct host_journal {
  std::function<std::unique_ptr<checkpoint_journal>(const host_chunking&, std::size_t sum_bytes)> open;
  std::size_t resumed = 0;  // chunks found in the journal
};

// Σ_{g ≥ 1} of the steps' terms, reduced in chunk order into `sum` (which holds step 0's term). With a
// journal, chunks it holds are read instead of run, and every chunk run is appended to it.
template <class Sum, class Steps>
void sum_host_chunks(int n, int threads, progress_counter* progress, const Steps& steps, Sum& sum,
                     host_chunking& chunking, host_journal* journaled = nullptr) {
  chunking = plan_host_chunks(n, threads, journaled != nullptr);
  const std::uint64_t chunk = chunking.chunk;
  std::vector<Sum> partial(static_cast<std::size_t>(chunking.chunks));
  std::unique_ptr<checkpoint_journal> journal;
  if (journaled) {
    static_assert(std::is_trivially_copyable_v<Sum>, "a journaled sum is stored as its bytes");
    journal = journaled->open(chunking, sizeof(Sum));
    journaled->resumed = journal->resumed();
  }
  if (progress) progress->total.store(step_count(n) - 1, std::memory_order_relaxed);
  parallel_for<schedule::dynamic_one>(chunking.chunks, threads, [&](std::int64_t c) {
    const std::uint64_t first = c == 0 ? 1 : static_cast<std::uint64_t>(c) * chunk;
    const std::uint64_t end = static_cast<std::uint64_t>(c + 1) * chunk;
    Sum local;  // accumulate privately: neighbouring chunks' sums share cache lines
    if (!journal || !journal->find(static_cast<std::uint64_t>(c), &local)) {
      steps(first, end, local);
      if (journal) journal->record(static_cast<std::uint64_t>(c), &local);
    }
    partial[static_cast<std::size_t>(c)] = local;
    if (progress) progress->done.fetch_add(end - first, std::memory_order_relaxed);
  });
  for (const Sum& p : partial) sum.merge(p);
}

}  // namespace sparseperm::detail
