#pragma once
// Chunks on CPU threads: every chunk's record, in chunk order.
//
//   run_chunks_on_host<Record>(chunks, threads, progress, steps_of, run_chunk, shared)
//
// run_chunk(c) computes chunk c's record (on any thread). Without sharing the chunks go to OpenMP
// threads dynamically (a stop request skips the rest); with `shared` (a journal, or MPI ranks) they go
// through the distributed runtime (chunk_dispatch.cuh): each thread takes chunks from the queue until
// it closes, and this process runs only its share of those no journal holds. Either way the result
// does not depend on how the chunks were scheduled.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "../core/progress.cuh"
#include "../detail/threads.cuh"
#include "chunk_dispatch.cuh"
#include "chunk_queue.cuh"
#include "sharing.cuh"

namespace sparseperm::detail {

// The agent of a CPU thread in a shared run: takes chunks until the queue has none, and calls the
// run off for the others when its chunk fails.
template <class Record>
struct host_chunk_agent {
  chunk_queue& queue;
  const typename chunk_dispatch<Record>::finish_function& finish;
  const std::function<Record(std::uint64_t)>& run_chunk;

  void operator()() const {
    try {
      while (const std::optional<std::uint64_t> c = queue.take(true)) {
        finish(*c, run_chunk(*c));
        queue.finished();
      }
    } catch (...) {
      queue.call_off();  // the others stop too
      throw;
    }
  }
};

// (Type-erased: the chunks' machinery is compiled once per record type, not once per loop.)
template <class Record>
std::vector<Record> run_chunks_on_host(std::uint64_t chunks, int threads, progress_counter* progress,
                                       const std::function<std::uint64_t(std::uint64_t)>& steps_of,
                                       const std::function<Record(std::uint64_t)>& run_chunk,
                                       shared_chunks* shared = nullptr) {
  const int team = threads > 0 ? threads : 1;
  if (shared) {
    const auto run = [&](chunk_queue& queue, const typename chunk_dispatch<Record>::finish_function& finish) {
      const host_chunk_agent<Record> agent{queue, finish, run_chunk};
      parallel_for<schedule::static_one>(team, team, [&](std::int64_t) { agent(); });
    };
    return chunk_dispatch<Record>(chunks, *shared, progress, steps_of).run(static_cast<std::uint64_t>(team), run);
  }
  if (progress) {
    std::uint64_t total = 0;
    for (std::uint64_t c = 0; c < chunks; ++c) total += steps_of(c);
    progress->total.store(total, std::memory_order_relaxed);
  }
  std::vector<Record> records(static_cast<std::size_t>(chunks));
  parallel_for<schedule::dynamic_one>(static_cast<std::int64_t>(chunks), threads, [&](std::int64_t c) {
    if (stop_requested(progress)) return;  // the remaining chunks are skipped
    records[static_cast<std::size_t>(c)] = run_chunk(static_cast<std::uint64_t>(c));
    if (progress) progress->done.fetch_add(steps_of(static_cast<std::uint64_t>(c)), std::memory_order_relaxed);
  });
  throw_if_stopped(progress);
  return records;
}

}  // namespace sparseperm::detail
