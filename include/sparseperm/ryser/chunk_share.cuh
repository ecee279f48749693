#pragma once
// What the chunked Ryser runs share besides their loops (the CPU chunk loop, host_chunks.cuh; the GPU
// devices, gpu/ryser_launcher.cuh): the queue their workers take chunks from, the journal that
// resumes them, the dealing of chunks to MPI ranks, and the exchange that gives every rank every
// chunk's record.
//
// The steps are cut into chunks whose count does not depend on threads, devices or ranks. A record
// is a chunk's partial result, trivially copyable: its exact or compensated sum, or what the GPU
// reduction of a chunk keeps. The caller reduces the records in chunk order, so every rank, and a run
// resumed from its journal, gets the same result bit for bit, whoever ran which chunk.
//
// Between ranks the chunks are dealt out as the ranks ask (rank 0 deals), not split in advance: on
// one 16-core host, 16 single-thread ranks with a fixed share each finished between 4.2 and 7.4 s
// (tools/benchmarks.md), and hosts of a cluster differ more than that.
//
// Journals (detail/journal.cuh): one file a rank, FILE itself for a single process and
// FILE.<rank>-of-<ranks> under MPI; its key adds the rank and the rank count to the caller's. A
// resumed run gathers what every rank's journal holds and deals out the rest.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
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

// The start of every chunked run's journal key: the version, the engine, the arithmetic, n. The
// engine appends the chunking and what identifies its loop and matrix.
inline std::string chunk_key(std::string_view engine, const std::string& arithmetic, int n) {
  return "sparseperm " SPARSEPERM_VERSION_STRING " " + std::string(engine) + "; " + arithmetic + "; n " +
         std::to_string(n);
}

// The chunks a process has yet to run, which its workers (CPU threads, GPU devices) take one at a
// time: take(), run it, finished(). A failing worker gives its chunks back for the others. Chunks
// arrive with add(): all at once in a single process, dealt out as they are asked for in a
// distributed run; close() says that no more will come.
class chunk_queue {
 public:
  template <class Iterator>
  void add(Iterator first, Iterator last) {
    const std::lock_guard lock(mutex_);
    waiting_.insert(waiting_.end(), first, last);
    changed_.notify_all();
  }
  void close() {
    const std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  // The next chunk, or nothing when the run is called off or no chunk waits. `wait`: block until a
  // chunk waits, or the queue is closed and no worker holds a chunk (a failing worker gives its
  // back); a worker that holds a chunk itself must not wait for it.
  std::optional<std::uint64_t> take(bool wait) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return called_off_ || !wait || !waiting_.empty() || (closed_ && held_ == 0); });
    if (called_off_ || waiting_.empty()) return std::nullopt;
    const std::uint64_t c = waiting_.front();
    waiting_.pop_front();
    ++held_;
    return c;
  }
  void finished() {
    const std::lock_guard lock(mutex_);
    --held_;
    changed_.notify_all();
  }
  void give_back(std::uint64_t c) {
    const std::lock_guard lock(mutex_);
    waiting_.push_front(c);
    --held_;
    changed_.notify_all();
  }
  void call_off() {
    const std::lock_guard lock(mutex_);
    called_off_ = true;
    changed_.notify_all();
  }
  // Whether the chunks waiting are no more than those being run: time to ask for more.
  bool running_low() {
    const std::lock_guard lock(mutex_);
    return !closed_ && waiting_.size() <= static_cast<std::size_t>(held_);
  }
  bool closed() {
    const std::lock_guard lock(mutex_);
    return closed_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::uint64_t> waiting_;
  long held_ = 0;
  bool closed_ = false, called_off_ = false;
};

// A chunked run's view of the sharing: `key` names everything that decides its records (the matrix
// as the loop holds it, the engine, the arithmetic, the chunking, the version).
struct shared_chunks {
  chunk_sharing sharing;
  std::string key = {};
  std::size_t resumed = 0;                      // chunks that this rank's journal held
  std::size_t resumed_by_all = 0;               // chunks that the ranks' journals held
  std::vector<double> rank_seconds = {};        // how long each rank ran its chunks (distributed runs)
  std::vector<std::uint64_t> rank_chunks = {};  // how many chunks each rank ran
};

// The dealing's messages, to rank 0: 'Q' (asks for chunks: the steps it finished so far, its
// workers) and 'F' (its run failed: deal no more; the steps finished); from rank 0: 'G' (the chunks
// todo[first, first + count)) and 'N' (none left). Rank 0 answers each message, and a rank asks again
// only once answered, so none is left over when the dealing ends.
struct deal_message {
  char kind = 'N';
  std::uint64_t a = 0, b = 0;

  std::string bytes() const {
    std::string out(1, kind);
    out.append(reinterpret_cast<const char*>(&a), sizeof a);
    out.append(reinterpret_cast<const char*>(&b), sizeof b);
    return out;
  }
  static deal_message of(int from, const std::string& bytes) {
    deal_message m;
    if (bytes.size() != 1 + 2 * sizeof(std::uint64_t) || std::string_view("QFGN").find(bytes[0]) == std::string::npos)
      throw engine_error(engine_error::kind::failed,
                         "rank " + std::to_string(from) + " sent a message that is not the dealing's (a bug)");
    m.kind = bytes[0];
    std::memcpy(&m.a, bytes.data() + 1, sizeof m.a);
    std::memcpy(&m.b, bytes.data() + 1 + sizeof m.a, sizeof m.b);
    return m;
  }
};

// Deals `todo` out to the ranks until every rank has run its part (run_ended). Rank 0 hands out
// grants that shrink as the chunks run out (guided: the remaining chunks over twice the ranks, at
// least the asker's workers), so the last chunks go out a few at a time and ranks of unequal speed end
// together; a rank asks again when its queue holds no more chunks than its workers run. Only this
// thread talks to the other ranks; it looks for messages every 200 µs when idle.
inline void deal_chunks(const process_group& group, const std::vector<std::uint64_t>& todo, std::uint64_t workers,
                        chunk_queue& queue, const std::atomic<bool>& run_ended,
                        const std::atomic<std::uint64_t>& finished_steps, progress_counter* progress) {
  const std::uint64_t total = todo.size(), ranks = static_cast<std::uint64_t>(group.size);
  const auto grant = [&](std::uint64_t left, std::uint64_t asker) {
    return std::min(left, std::max({std::uint64_t{1}, asker, left / (2 * ranks)}));
  };
  const auto add = [&](std::uint64_t first, std::uint64_t count) {
    queue.add(todo.begin() + static_cast<std::ptrdiff_t>(first),
              todo.begin() + static_cast<std::ptrdiff_t>(first + count));
  };
  const auto idle = [] { std::this_thread::sleep_for(std::chrono::microseconds(200)); };
  if (group.rank == 0) {
    std::uint64_t next = 0;
    bool stopped = false;
    std::uint64_t told_none = 0;
    std::vector<std::uint64_t> reported(static_cast<std::size_t>(ranks), 0);
    for (;;) {
      bool busy = false;
      while (std::optional<std::pair<int, std::string>> message = group.receive()) {
        busy = true;
        const int from = message->first;
        const deal_message m = deal_message::of(from, message->second);
        if (from <= 0 || from >= group.size || (m.kind != 'Q' && m.kind != 'F'))
          throw engine_error(engine_error::kind::failed,
                             "rank " + std::to_string(from) + " sent rank 0 a message out of turn (a bug)");
        std::uint64_t& before = reported[static_cast<std::size_t>(from)];
        if (progress && m.a > before) progress->done.fetch_add(m.a - before, std::memory_order_relaxed);
        before = std::max(before, m.a);
        stopped = stopped || m.kind == 'F';
        if (stopped || next == total) {
          group.send(from, deal_message{'N'}.bytes());
          ++told_none;
        } else {
          const std::uint64_t count = grant(total - next, m.b);
          group.send(from, deal_message{'G', next, count}.bytes());
          next += count;
        }
      }
      // a run that ends while chunks may still come has failed: deal no more
      if (run_ended.load() && !queue.closed()) stopped = true;
      if (!stopped && next < total && queue.running_low()) {
        const std::uint64_t count = grant(total - next, workers);
        add(next, count);
        next += count;
        busy = true;
      }
      if (stopped || next == total) queue.close();
      if (run_ended.load() && told_none == ranks - 1) return;
      if (!busy) idle();
    }
  }
  bool asking = false, none_left = false;
  for (;;) {
    bool busy = false;
    while (std::optional<std::pair<int, std::string>> message = group.receive()) {
      busy = true;
      const deal_message m = deal_message::of(message->first, message->second);
      if (message->first != 0 || !asking || (m.kind != 'G' && m.kind != 'N') ||
          (m.kind == 'G' && (m.a > total || m.b > total - m.a)))
        throw engine_error(engine_error::kind::failed,
                           "rank " + std::to_string(message->first) + " sent a message out of turn (a bug)");
      if (m.kind == 'G') add(m.a, m.b);
      none_left = none_left || m.kind == 'N';
      asking = false;
    }
    if (!asking && !none_left) {
      if (run_ended.load()) {  // before the queue closed: the run failed
        group.send(0, deal_message{'F', finished_steps.load()}.bytes());
        asking = busy = true;
      } else if (queue.running_low()) {
        group.send(0, deal_message{'Q', finished_steps.load(), workers}.bytes());
        asking = busy = true;
      }
    }
    if (none_left) queue.close();
    if (none_left && run_ended.load()) return;
    if (!busy) idle();
  }
}

// Runs this process's share of the chunks [0, chunks) that no journal holds: run(queue, finish)
// runs the chunks it takes from `queue` (chunk_queue's protocol, on any threads) until take() gives
// nothing, and calls finish(c, record) for each, from any thread; `workers` says how many chunks it
// runs at once. Returns every chunk's record, in chunk order, at every rank. steps_of(c): chunk c's
// Gray steps, for the progress counter.
template <class Record, class StepsOf, class Run>
std::vector<Record> run_chunk_share(std::uint64_t chunks, shared_chunks& shared, progress_counter* progress,
                                    const StepsOf& steps_of, std::uint64_t workers, const Run& run) {
  static_assert(std::is_trivially_copyable_v<Record>, "a chunk's record is journaled and sent as its bytes");
  const chunk_sharing& sharing = shared.sharing;
  const std::uint64_t rank = static_cast<std::uint64_t>(sharing.rank());
  const std::uint64_t ranks = static_cast<std::uint64_t>(sharing.ranks());
  std::vector<Record> records(static_cast<std::size_t>(chunks));
  std::vector<char> held(static_cast<std::size_t>(chunks), 0);  // resumed or run here
  std::unique_ptr<checkpoint_journal> journal;
  const auto fail_text = [](char kind, const std::string& why) { return "E" + std::string(1, kind) + why; };
  std::string failure;  // a rank's error travels to all, so that none waits for it
  try {
    if (!sharing.checkpoint.empty()) {
      journal = std::make_unique<checkpoint_journal>(
          sharing.journal_path(), shared.key + "; rank " + std::to_string(rank) + " of " + std::to_string(ranks),
          sizeof(Record));
    }
  } catch (const engine_error& e) {
    if (!sharing.distributed()) throw;
    failure = fail_text(static_cast<char>(e.reason()), e.what());
  }
  shared.resumed = 0;
  for (std::uint64_t c = 0; journal && c < chunks; ++c) {
    if (journal->find(c, &records[static_cast<std::size_t>(c)])) {
      held[static_cast<std::size_t>(c)] = 1;
      ++shared.resumed;
    }
  }
  const auto throw_failures = [&](const std::vector<std::string>& all) {
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (!all[r].empty() && all[r][0] == 'E' && all[r].size() >= 2) {
        throw rank_error(static_cast<engine_error::kind>(all[r][1]),
                         "rank " + std::to_string(r) + " of " + std::to_string(ranks) + ": " + all[r].substr(2));
      }
    }
  };
  const auto append = [](std::string& out, const auto& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
  };

  // what is done: this rank's journal, or every rank's; ranks that would run another matrix, engine
  // or arithmetic are refused here, before they run
  const std::string digest = hex_of(sha256::of(shared.key));
  std::vector<char> done = held;
  if (sharing.distributed()) {
    std::string mine = failure;
    if (mine.empty()) {
      mine = "K" + digest;
      for (std::uint64_t c = 0; c < chunks; ++c)
        if (held[static_cast<std::size_t>(c)]) append(mine, c);
    }
    const std::vector<std::string> all = sharing.processes->all_gather(mine);
    throw_failures(all);
    if (all.size() != ranks) throw rank_error(engine_error::kind::failed, "the ranks' exchange lost a rank (a bug)");
    for (std::size_t r = 0; r < all.size(); ++r) {
      if (all[r].size() < 1 + digest.size() ||
          all[0].compare(0, 1 + digest.size(), all[r], 0, 1 + digest.size()) != 0) {
        throw rank_error(
            engine_error::kind::refused,
            "rank " + std::to_string(r) + " of " + std::to_string(ranks) +
                " ran another computation than rank 0 (a different matrix, engine, arithmetic or version)");
      }
      for (std::size_t at = 1 + digest.size(); at + sizeof(std::uint64_t) <= all[r].size();
           at += sizeof(std::uint64_t)) {
        std::uint64_t c = 0;
        std::memcpy(&c, all[r].data() + at, sizeof c);
        if (c < chunks) done[static_cast<std::size_t>(c)] = 1;
      }
    }
  }
  std::vector<std::uint64_t> todo;
  std::uint64_t all_steps = 0, done_steps = 0;
  shared.resumed_by_all = 0;
  for (std::uint64_t c = 0; c < chunks; ++c) {
    all_steps += steps_of(c);
    if (done[static_cast<std::size_t>(c)]) {
      done_steps += steps_of(c);
      ++shared.resumed_by_all;
    } else {
      todo.push_back(c);
    }
  }
  if (progress) {
    progress->total.store(all_steps, std::memory_order_relaxed);
    progress->done.store(done_steps, std::memory_order_relaxed);
  }

  chunk_queue queue;
  std::atomic<std::uint64_t> finished_steps{0};
  const auto finish = [&](std::uint64_t c, const Record& record) {
    records[static_cast<std::size_t>(c)] = record;
    held[static_cast<std::size_t>(c)] = 1;
    if (journal) journal->record(c, &record);
    finished_steps.fetch_add(steps_of(c), std::memory_order_relaxed);
    if (progress) progress->done.fetch_add(steps_of(c), std::memory_order_relaxed);
    if (stop_requested(progress)) queue.call_off();  // the chunks finished so far stay in the journal
  };
  if (!sharing.distributed()) {
    queue.add(todo.begin(), todo.end());
    queue.close();
    run(queue, finish);
    throw_if_stopped(progress);
    return records;
  }

  const auto started = std::chrono::steady_clock::now();
  std::atomic<bool> run_ended{false};
  std::exception_ptr run_failure;
  {
    std::thread runner([&] {
      try {
        run(queue, finish);
      } catch (...) {
        run_failure = std::current_exception();
      }
      run_ended.store(true);
    });
    try {
      deal_chunks(*sharing.processes, todo, std::max<std::uint64_t>(workers, 1), queue, run_ended, finished_steps,
                  progress);
    } catch (...) {
      queue.call_off();
      queue.close();
      runner.join();
      throw;
    }
    runner.join();
  }
  if (run_failure) {
    try {
      std::rethrow_exception(run_failure);
    } catch (const engine_error& e) {
      failure = fail_text(static_cast<char>(e.reason()), e.what());
    } catch (const std::exception& e) {
      failure = fail_text(static_cast<char>(engine_error::kind::failed), e.what());
    }
  }

  // the exchange: "R", the seconds, the chunks run, then (index, record) for each chunk this rank
  // holds; or "E", the kind, the error
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::string mine = failure;
  if (mine.empty()) {
    mine = "R";
    append(mine, seconds);
    const std::uint64_t ran =  // the chunks held, less those the journal gave
        static_cast<std::uint64_t>(std::count(held.begin(), held.end(), 1)) - shared.resumed;
    append(mine, ran);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      if (!held[static_cast<std::size_t>(c)]) continue;
      append(mine, c);
      append(mine, records[static_cast<std::size_t>(c)]);
    }
  }
  const std::vector<std::string> all = sharing.processes->all_gather(mine);
  throw_failures(all);
  const auto broken = [&](std::size_t r) {
    return rank_error(engine_error::kind::failed,
                      "rank " + std::to_string(r) + " sent chunk records that do not fit this run (a bug)");
  };
  if (all.size() != ranks) throw broken(all.size());
  const std::size_t entry = sizeof(std::uint64_t) + sizeof(Record), head = 1 + sizeof(double) + sizeof(std::uint64_t);
  shared.rank_seconds.assign(all.size(), 0.0);
  shared.rank_chunks.assign(all.size(), 0);
  std::vector<char> have(static_cast<std::size_t>(chunks), 0);
  for (std::size_t r = 0; r < all.size(); ++r) {
    const std::string& blob = all[r];
    if (blob.size() < head || blob[0] != 'R' || (blob.size() - head) % entry != 0) throw broken(r);
    std::memcpy(&shared.rank_seconds[r], blob.data() + 1, sizeof(double));
    std::memcpy(&shared.rank_chunks[r], blob.data() + 1 + sizeof(double), sizeof(std::uint64_t));
    for (std::size_t at = head; at < blob.size(); at += entry) {
      std::uint64_t c = 0;
      std::memcpy(&c, blob.data() + at, sizeof c);
      if (c >= chunks) throw broken(r);
      if (have[static_cast<std::size_t>(c)]) continue;  // a chunk in two journals: the same record
      have[static_cast<std::size_t>(c)] = 1;
      std::memcpy(&records[static_cast<std::size_t>(c)], blob.data() + at + sizeof c, sizeof(Record));
    }
  }
  if (std::find(have.begin(), have.end(), 0) != have.end()) {
    throw rank_error(engine_error::kind::failed, "the ranks' records miss a chunk (a bug)");
  }
  return records;
}

}  // namespace sparseperm::detail

namespace sparseperm::detail {

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
    if (sharing.distributed()) text += ", " + std::to_string(shared.resumed_by_all) + " from the ranks' journals";
  }
  return text;
}

}  // namespace sparseperm::detail
