#pragma once
// What the chunked Ryser runs share besides their loops (the CPU chunk loop, host_chunks.cuh; the GPU
// queue, gpu/ryser_launcher.cuh): which chunks this process runs, the journal that resumes them, and
// the exchange that gives every process every chunk's record.
//
// The steps are cut into chunks whose count does not depend on threads, devices or ranks. Chunk c
// belongs to rank c mod ranks (a static split: the chunks of a Ryser run cost the same, and a rank's
// GPUs or threads take its chunks from a dynamic queue). A record is a chunk's partial result,
// trivially copyable: its exact or compensated sum, or what the GPU reduction of a chunk keeps. The
// caller reduces the records in chunk order, so every rank, and a run resumed from its journal, gets
// the same result bit for bit.
//
// Journals (detail/journal.cuh): one file a rank, FILE itself for a single process and
// FILE.<rank>-of-<ranks> under MPI; its key adds the rank and the rank count to the caller's.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/config.cuh"
#include "../core/engine_error.cuh"
#include "../core/process_group.cuh"
#include "../core/progress.cuh"
#include "../detail/journal.cuh"
#include "../detail/sha256.cuh"

namespace sparseperm::detail {

struct chunk_sharing {
  std::string checkpoint;                    // a journal file to resume from and append to, or ""
  const process_group* processes = nullptr;  // null: a single process

  int rank() const { return processes ? processes->rank : 0; }
  int ranks() const { return processes ? processes->size : 1; }
  bool distributed() const { return ranks() > 1; }
  // Journaled and distributed runs need chunks that do not depend on this process's threads.
  bool fixed_chunks() const { return !checkpoint.empty() || distributed(); }
  std::string journal_path() const {
    return distributed() ? checkpoint + "." + std::to_string(rank()) + "-of-" + std::to_string(ranks()) : checkpoint;
  }
};

// How many of `chunks` chunks rank `rank` of `ranks` owns (those c with c mod ranks = rank).
inline std::uint64_t owned_chunks(std::uint64_t chunks, std::uint64_t rank, std::uint64_t ranks) {
  return chunks > rank ? (chunks - rank + ranks - 1) / ranks : 0;
}

// The start of every chunked run's journal key: the version, the engine, the arithmetic, n. The
// engine appends the chunking and what identifies its loop and matrix.
inline std::string chunk_key(std::string_view engine, const std::string& arithmetic, int n) {
  return "sparseperm " SPARSEPERM_VERSION_STRING " " + std::string(engine) + "; " + arithmetic + "; n " +
         std::to_string(n);
}

// A chunked run's view of the sharing: `key` names everything that decides its records (the matrix
// as the loop holds it, the engine, the arithmetic, the chunking, the version); `resumed` says how
// many of this rank's chunks came from its journal.
struct shared_chunks {
  chunk_sharing sharing;
  std::string key = {};
  std::size_t resumed = 0;
  std::vector<double> rank_seconds = {};  // how long each rank ran its chunks (distributed runs)
};

// Runs this process's chunks of [0, chunks) that its journal does not hold: run(todo, finish) runs
// the chunks in `todo` (in any order, on any threads) and calls finish(c, record) for each, from any
// thread. Returns every chunk's record, in chunk order, at every rank. steps_of(c): chunk c's Gray
// steps, for the progress counter.
template <class Record, class StepsOf, class Run>
std::vector<Record> run_chunk_share(std::uint64_t chunks, shared_chunks& shared, progress_counter* progress,
                                    const StepsOf& steps_of, const Run& run) {
  static_assert(std::is_trivially_copyable_v<Record>, "a chunk's record is journaled and sent as its bytes");
  const chunk_sharing& sharing = shared.sharing;
  const std::uint64_t rank = static_cast<std::uint64_t>(sharing.rank());
  const std::uint64_t ranks = static_cast<std::uint64_t>(sharing.ranks());
  std::unique_ptr<checkpoint_journal> journal;
  if (!sharing.checkpoint.empty()) {
    journal = std::make_unique<checkpoint_journal>(
        sharing.journal_path(), shared.key + "; rank " + std::to_string(rank) + " of " + std::to_string(ranks),
        sizeof(Record));
  }
  std::vector<Record> records(static_cast<std::size_t>(chunks));
  std::vector<std::uint64_t> todo;
  std::uint64_t owned_steps = 0, resumed_steps = 0;
  shared.resumed = 0;
  for (std::uint64_t c = rank; c < chunks; c += ranks) {
    owned_steps += steps_of(c);
    if (journal && journal->find(c, &records[static_cast<std::size_t>(c)])) {
      ++shared.resumed;
      resumed_steps += steps_of(c);
    } else {
      todo.push_back(c);
    }
  }
  if (progress) {
    progress->total.store(owned_steps, std::memory_order_relaxed);
    progress->done.store(resumed_steps, std::memory_order_relaxed);
  }
  std::string failure;  // a rank's error travels to all, so that none waits for it
  engine_error::kind failure_kind = engine_error::kind::failed;
  const auto started = std::chrono::steady_clock::now();
  try {
    run(todo, [&](std::uint64_t c, const Record& record) {
      records[static_cast<std::size_t>(c)] = record;
      if (journal) journal->record(c, &record);
      if (progress) progress->done.fetch_add(steps_of(c), std::memory_order_relaxed);
    });
  } catch (const engine_error& e) {
    if (!sharing.distributed()) throw;
    failure = e.what();
    failure_kind = e.reason();
  } catch (const std::exception& e) {
    if (!sharing.distributed()) throw;
    failure = e.what();
  }
  if (!sharing.distributed()) return records;

  // the exchange: "R", the key's digest and (index, record) for each chunk this rank owns; or "E",
  // the kind, the error. Ranks that ran another matrix, engine or arithmetic are refused, not mixed.
  const std::string digest = hex_of(sha256::of(shared.key));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string mine;
  if (failure.empty()) {
    mine = "R" + digest;
    mine.append(reinterpret_cast<const char*>(&seconds), sizeof seconds);
    for (std::uint64_t c = rank; c < chunks; c += ranks) {
      mine.append(reinterpret_cast<const char*>(&c), sizeof c);
      mine.append(reinterpret_cast<const char*>(&records[static_cast<std::size_t>(c)]), sizeof(Record));
    }
  } else {
    mine = "E" + std::string(1, static_cast<char>(failure_kind)) + failure;
  }
  const std::vector<std::string> all = sharing.processes->all_gather(mine);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (!all[r].empty() && all[r][0] == 'E' && all[r].size() >= 2) {
      throw rank_error(static_cast<engine_error::kind>(all[r][1]),
                       "rank " + std::to_string(r) + " of " + std::to_string(ranks) + ": " + all[r].substr(2));
    }
  }
  const auto broken = [&](std::size_t r) {
    return rank_error(engine_error::kind::failed,
                      "rank " + std::to_string(r) + " sent chunk records that do not fit this run (a bug)");
  };
  if (all.size() != ranks) throw broken(all.size());
  for (std::size_t r = 0; r < all.size(); ++r) {  // every rank compares with rank 0, so all say the same
    if (all[r].size() < 1 + digest.size() || all[0].compare(0, 1 + digest.size(), all[r], 0, 1 + digest.size()) != 0) {
      throw rank_error(engine_error::kind::refused,
                       "rank " + std::to_string(r) + " of " + std::to_string(ranks) +
                           " ran another computation than rank 0 (a different matrix, engine, arithmetic or version)");
    }
  }
  const std::size_t entry = sizeof(std::uint64_t) + sizeof(Record), head = 1 + digest.size() + sizeof(double);
  shared.rank_seconds.assign(all.size(), 0.0);
  for (std::size_t r = 0; r < all.size(); ++r) {
    const std::string& blob = all[r];
    const std::uint64_t owned = owned_chunks(chunks, r, ranks);
    if (blob.size() != head + owned * entry) throw broken(r);
    std::memcpy(&shared.rank_seconds[r], blob.data() + 1 + digest.size(), sizeof(double));
    for (std::uint64_t k = 0; k < owned; ++k) {
      std::uint64_t c = 0;
      std::memcpy(&c, blob.data() + head + k * entry, sizeof c);
      if (c != r + k * ranks) throw broken(r);
      std::memcpy(&records[static_cast<std::size_t>(c)], blob.data() + head + k * entry + sizeof c, sizeof(Record));
    }
  }
  return records;
}

}  // namespace sparseperm::detail

namespace sparseperm::detail {

// The plan's words for a shared run: the ranks' split, and what came from the journal.
inline std::string sharing_text(const chunk_sharing& sharing, std::size_t resumed, std::uint64_t chunks,
                                const std::vector<double>& rank_seconds = {}) {
  std::string text;
  const std::uint64_t ranks = static_cast<std::uint64_t>(sharing.ranks());
  const std::uint64_t rank = static_cast<std::uint64_t>(sharing.rank());
  if (sharing.distributed()) {
    text += "; " + std::to_string(ranks) + " MPI ranks, chunk c on rank c mod " + std::to_string(ranks) +
            ", the records reduced exactly in chunk order";
    if (!rank_seconds.empty()) {  // how even the static split was
      const auto [low, high] = std::minmax_element(rank_seconds.begin(), rank_seconds.end());
      char line[96];
      std::snprintf(line, sizeof line, " (ranks ran their chunks in %.3g to %.3g s)", *low, *high);
      text += line;
    }
  }
  if (!sharing.checkpoint.empty()) {
    text += "; journal " + sharing.journal_path() + ": " + std::to_string(resumed) + " of " +
            std::to_string(owned_chunks(chunks, rank, ranks)) + " chunks resumed from it";
  }
  return text;
}

}  // namespace sparseperm::detail
