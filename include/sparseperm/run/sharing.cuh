#pragma once
// How a chunked run is shared: the journal it resumes from and appends to, and the MPI ranks it runs
// on (core/process_group.cuh). Any engine whose work splits into chunks whose count does not depend on
// threads, devices or ranks can be shared (run/chunk_dispatch.cuh).
//
//   chunk_sharing    what the caller asks: a checkpoint file, the ranks
//   chunk_key(...)   the start of a run's journal key: the version, the engine, the arithmetic, n; the
//                    engine appends its chunking and what identifies its loop and matrix
//   shared_chunks    a run's view of the sharing: its key, and afterwards what came from the journals
//                    and how the ranks' work was spread
//   sharing_text     the plan's words for that
//
// Journals (run/journal.cuh): one file a rank, FILE itself for a single process and
// FILE.<rank>-of-<ranks> under MPI; its key adds the rank and the rank count to the caller's.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.cuh"
#include "../core/process_group.cuh"

namespace sparseperm::detail {

struct chunk_sharing {
  std::string checkpoint;                    // a journal file to resume from and append to, or ""
  const process_group* processes = nullptr;  // null: a single process

  int rank() const { return processes ? processes->rank : 0; }
  int ranks() const { return processes ? processes->size : 1; }
  bool distributed() const { return ranks() > 1; }
  // Journaled and distributed runs need chunks that do not depend on this process's threads.
  bool fixed_chunks() const { return !checkpoint.empty() || distributed(); }
  std::string journal_path() const { return journal_path_of(rank(), ranks()); }
  // The journal of rank r of m ranks (FILE itself for a single process), and the words its key ends in.
  std::string journal_path_of(int r, int m) const {
    return m > 1 ? checkpoint + "." + std::to_string(r) + "-of-" + std::to_string(m) : checkpoint;
  }
  static std::string journal_key_words(int r, int m) {
    return "; rank " + std::to_string(r) + " of " + std::to_string(m);
  }
};

inline std::string chunk_key(std::string_view engine, const std::string& arithmetic, int n) {
  return "sparseperm " SPARSEPERM_VERSION_STRING " " + std::string(engine) + "; " + arithmetic + "; n " +
         std::to_string(n);
}

// A chunked run's view of the sharing: `key` names everything that decides its records (the matrix
// as the loop holds it, the engine, the arithmetic, the chunking, the version).
struct shared_chunks {
  chunk_sharing sharing;
  std::string key = {};
  std::size_t resumed = 0;                      // chunks that this rank's journal held
  std::size_t resumed_by_all = 0;               // chunks that the ranks' journals held
  std::size_t dropped = 0;                      // records of this rank's journal dropped and run again
  std::size_t adopted = 0;                      // chunks this rank took from the journals of another rank count
  std::vector<double> rank_seconds = {};        // how long each rank ran its chunks (distributed runs)
  std::vector<std::uint64_t> rank_chunks = {};  // how many chunks each rank ran
};

// The plan's words for a shared run: the ranks' dealing, and what came from the journals.
inline std::string sharing_text(const shared_chunks& shared, std::uint64_t chunks) {
  std::string text;
  const chunk_sharing& sharing = shared.sharing;
  if (sharing.distributed()) {
    text += "; " + std::to_string(sharing.ranks()) +
            " MPI ranks, the chunks dealt out by rank 0 as the ranks ask, the records reduced exactly in chunk order";
    if (!shared.rank_seconds.empty()) {  // how even the dealing was
      const auto [low, high] = std::minmax_element(shared.rank_seconds.begin(), shared.rank_seconds.end());
      const auto [fewest, most] = std::minmax_element(shared.rank_chunks.begin(), shared.rank_chunks.end());
      char line[160];
      std::snprintf(line, sizeof line, " (the ranks ran %llu to %llu chunks in %.3g to %.3g s)",
                    static_cast<unsigned long long>(*fewest), static_cast<unsigned long long>(*most), *low, *high);
      text += line;
    }
  }
  if (!sharing.checkpoint.empty()) {
    text += "; journal " + sharing.journal_path() + ": " + std::to_string(shared.resumed) + " of " +
            std::to_string(chunks) + " chunks resumed from it";
    if (shared.dropped > 0) {
      text += " (" + std::to_string(shared.dropped) + (shared.dropped == 1 ? " record" : " records") +
              " of it dropped and run again: not sealed with your key, not a value of this run, or contradicting "
              "another)";
    }
    if (shared.adopted > 0) {
      text += ", " + std::to_string(shared.adopted) + " taken from the journals of a run on another rank count";
    }
    if (sharing.distributed()) text += ", " + std::to_string(shared.resumed_by_all) + " from the ranks' journals";
  }
  return text;
}

}  // namespace sparseperm::detail
