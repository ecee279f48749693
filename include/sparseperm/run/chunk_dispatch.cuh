#pragma once
// The distributed runtime of any chunked run (the Ryser engines' CPU threads and GPU devices, glynn's
// tasks): the journal that resumes it, the queue its workers take chunks from, the dealing of chunks
// to MPI ranks, and the exchange that gives every rank every chunk's record.
//
// The work is cut into chunks whose count does not depend on threads, devices or ranks. A record is
// a chunk's partial result (its sum, exact or compensated, or what a GPU reduction of a chunk keeps),
// turned into bytes by run/record_codec.cuh. The caller reduces the records in chunk order, so every
// rank, and a run resumed from its journal, gets the same result bit for bit, whoever ran which chunk.
//
//   chunk_dispatch<Record> d(chunks, shared, progress, steps_of);
//   std::vector<Record> records = d.run(workers, run);
//
// run(queue, finish) runs the chunks it takes from `queue` (chunk_queue's protocol, on any threads)
// until take() gives nothing, and calls finish(c, record) for each, from any thread; `workers` says
// how many chunks it runs at once; steps_of(c) counts chunk c's work for the progress counter. The
// dispatch keeps the call's state as members and runs it in steps: open the journal, agree with the
// ranks on what is done, run this process's share (dealt out by rank 0 under MPI), exchange the
// records. A rank's error travels to all in the next exchange, so that none waits for it.
//
// Wire formats (record_codec.cuh): a failure is 'E', its kind and its message; the agreement 'K', the
// key's digest and the chunks this rank's journal holds; the records 'R', the seconds and the chunks
// this rank ran, then each chunk it holds with its record.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/process_group.cuh"
#include "../core/progress.cuh"
#include "../detail/sha256.cuh"
#include "chunk_queue.cuh"
#include "dealing.cuh"
#include "journal.cuh"
#include "record_codec.cuh"
#include "sharing.cuh"

namespace sparseperm::detail {

template <class Record>
class chunk_dispatch {
 public:
  using finish_function = std::function<void(std::uint64_t, const Record&)>;
  using run_function = std::function<void(chunk_queue&, const finish_function&)>;

  chunk_dispatch(std::uint64_t chunks, shared_chunks& shared, progress_counter* progress,
                 std::function<std::uint64_t(std::uint64_t)> steps_of)
      : chunks_(chunks),
        shared_(shared),
        sharing_(shared.sharing),
        progress_(progress),
        steps_of_(std::move(steps_of)),
        records_(static_cast<std::size_t>(chunks)),
        held_(static_cast<std::size_t>(chunks), 0) {}

  // Every chunk's record, in chunk order, at every rank.
  std::vector<Record> run(std::uint64_t workers, const run_function& run) {
    open_journal();
    resume();
    adopt_other_rank_counts();
    const std::vector<char> done = agree_with_ranks();
    plan_todo(done);
    if (!sharing_.distributed()) {
      queue_.add(todo_.begin(), todo_.end());
      queue_.close();
      run(queue_, finish_function([this](std::uint64_t c, const Record& r) { finish(c, r); }));
      throw_if_stopped(progress_);
      return std::move(records_);
    }
    run_with_ranks(workers, run);
    exchange_records();
    return std::move(records_);
  }

 private:
  std::uint64_t ranks() const { return static_cast<std::uint64_t>(sharing_.ranks()); }

  static std::string failure_bytes(engine_error::kind kind, const std::string& why) {
    return byte_writer().put('E').put(static_cast<std::uint8_t>(kind)).put_text(why).take();
  }

  // A rank's failure in an exchange, thrown at every rank.
  void throw_failures(const std::vector<std::string>& all) const {
    for (std::size_t r = 0; r < all.size(); ++r) {
      byte_reader in(all[r]);
      char kind = 0;
      std::uint8_t reason = 0;
      std::string why;
      if (in.get(kind) && kind == 'E' && in.get(reason) && in.get_text(why)) {
        throw rank_error(static_cast<engine_error::kind>(reason),
                         "rank " + std::to_string(r) + " of " + std::to_string(ranks()) + ": " + why);
      }
    }
    if (all.size() != ranks()) throw rank_error(engine_error::kind::failed, "the ranks' exchange lost a rank (a bug)");
  }

  void open_journal() {
    if (sharing_.checkpoint.empty()) return;
    try {
      const std::string path = sharing_.journal_path();
      user_key_ = journal_user_key(path);
      journal_ = std::make_unique<checkpoint_journal>(
          path, shared_.key + chunk_sharing::journal_key_words(sharing_.rank(), sharing_.ranks()), user_key_,
          record_check());
    } catch (const engine_error& e) {
      if (!sharing_.distributed()) throw;
      failure_ = failure_bytes(e.reason(), e.what());
    }
  }

  // The records this rank's journal holds (each checked when the journal was read).
  void resume() {
    shared_.resumed = 0;
    shared_.dropped = journal_ ? journal_->dropped() : 0;
    for (std::uint64_t c = 0; journal_ && c < chunks_; ++c) {
      const std::string* bytes = journal_->find(c);
      if (bytes && record_from_bytes(*bytes, records_[static_cast<std::size_t>(c)])) {
        held_[static_cast<std::size_t>(c)] = 1;
        ++shared_.resumed;
      }
    }
  }

  // The journals of the same run on another rank count (FILE alone, FILE.r-of-M): the chunks are the
  // same, so their records are taken (each file by one rank) and appended to this rank's journal.
  void adopt_other_rank_counts() {
    if (!journal_) return;
    const std::vector<std::pair<std::string, std::string>> others = other_rank_count_journals();
    shared_.adopted = 0;
    for (std::size_t k = static_cast<std::size_t>(sharing_.rank()); k < others.size(); k += ranks()) {
      const auto& [path, key_words] = others[k];
      const auto records = checkpoint_journal::records_of(path, shared_.key + key_words, user_key_, record_check());
      for (const auto& [c, bytes] : records) {
        if (held_[static_cast<std::size_t>(c)] || !record_from_bytes(bytes, records_[static_cast<std::size_t>(c)]))
          continue;
        held_[static_cast<std::size_t>(c)] = 1;
        journal_->record(c, bytes);
        ++shared_.adopted;
      }
    }
  }

  // The files FILE and FILE.r-of-M (M ranks, r < M) but this run's, with the words their keys end in.
  std::vector<std::pair<std::string, std::string>> other_rank_count_journals() const {
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, std::string>> found;
    const auto add = [&](int r, int m) {
      if (m != sharing_.ranks())
        found.emplace_back(sharing_.journal_path_of(r, m), chunk_sharing::journal_key_words(r, m));
    };
    add(0, 1);
    const fs::path base(sharing_.checkpoint);
    const std::string stem = base.filename().string() + ".";
    std::error_code ec;
    for (fs::directory_iterator it(base.has_parent_path() ? base.parent_path() : fs::path("."), ec), end;
         !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      int r = 0, m = 0;
      char tail = 0;
      if (name.compare(0, stem.size(), stem) == 0 &&
          std::sscanf(name.c_str() + stem.size(), "%d-of-%d%c", &r, &m, &tail) == 2 && r >= 0 && r < m && m >= 2 &&
          name == stem + std::to_string(r) + "-of-" + std::to_string(m)) {
        add(r, m);
      }
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  // The records a journal may give back: in range, decoded, and holding what the arithmetic can produce.
  checkpoint_journal::accept_function record_check() const {
    return [this](std::uint64_t c, std::string_view bytes) {
      Record record{};
      return c < chunks_ && record_from_bytes(bytes, record) && valid_record(record);
    };
  }

  // What is done: this rank's journal, or every rank's. Ranks that would run another matrix, engine
  // or arithmetic are refused here, before they run.
  std::vector<char> agree_with_ranks() {
    std::vector<char> done = held_;
    if (!sharing_.distributed()) return done;
    const std::string digest = hex_of(sha256::of(shared_.key));
    std::string mine = failure_;
    if (mine.empty()) {
      byte_writer out;
      out.put('K').put_text(digest);
      for (std::uint64_t c = 0; c < chunks_; ++c)
        if (held_[static_cast<std::size_t>(c)]) out.put(c);
      mine = out.take();
    }
    const std::vector<std::string> all = sharing_.processes->all_gather(mine);
    throw_failures(all);
    std::string rank_zeros;  // every rank is held to rank 0's computation
    for (std::size_t r = 0; r < all.size(); ++r) {
      byte_reader in(all[r]);
      char kind = 0;
      std::string theirs;
      const bool read = in.get(kind) && kind == 'K' && in.get_text(theirs);
      if (r == 0) rank_zeros = theirs;
      if (!read || theirs != rank_zeros) {
        throw rank_error(
            engine_error::kind::refused,
            "rank " + std::to_string(r) + " of " + std::to_string(ranks()) +
                " ran another computation than rank 0 (a different matrix, engine, arithmetic or version)");
      }
      for (std::uint64_t c = 0; in.get(c);)
        if (c < chunks_) done[static_cast<std::size_t>(c)] = 1;
    }
    return done;
  }

  void plan_todo(const std::vector<char>& done) {
    std::uint64_t all_steps = 0, done_steps = 0;
    shared_.resumed_by_all = 0;
    for (std::uint64_t c = 0; c < chunks_; ++c) {
      all_steps += steps_of_(c);
      if (done[static_cast<std::size_t>(c)]) {
        done_steps += steps_of_(c);
        ++shared_.resumed_by_all;
      } else {
        todo_.push_back(c);
      }
    }
    if (progress_) {
      progress_->total.store(all_steps, std::memory_order_relaxed);
      progress_->done.store(done_steps, std::memory_order_relaxed);
    }
  }

  // A finished chunk, from any worker thread.
  void finish(std::uint64_t c, const Record& record) {
    records_[static_cast<std::size_t>(c)] = record;
    held_[static_cast<std::size_t>(c)] = 1;
    if (journal_) journal_->record(c, record_bytes(record));
    finished_steps_.fetch_add(steps_of_(c), std::memory_order_relaxed);
    if (progress_) progress_->done.fetch_add(steps_of_(c), std::memory_order_relaxed);
    if (stop_requested(progress_)) queue_.call_off();  // the chunks finished so far stay in the journal
  }

  // The chunks run on a thread of their own while this one deals them out (rank 0) or asks for them.
  void run_with_ranks(std::uint64_t workers, const run_function& run) {
    const auto started = std::chrono::steady_clock::now();
    std::atomic<bool> run_ended{false};
    std::exception_ptr run_failure;
    {
      std::thread runner([&] {
        try {
          run(queue_, finish_function([this](std::uint64_t c, const Record& r) { finish(c, r); }));
        } catch (...) {
          run_failure = std::current_exception();
        }
        run_ended.store(true);
      });
      try {
        chunk_dealer(*sharing_.processes, todo_, workers, queue_, run_ended, finished_steps_, progress_).run();
      } catch (...) {
        queue_.call_off();
        queue_.close();
        runner.join();
        throw;
      }
      runner.join();
    }
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (run_failure) {
      try {
        std::rethrow_exception(run_failure);
      } catch (const engine_error& e) {
        failure_ = failure_bytes(e.reason(), e.what());
      } catch (const std::exception& e) {
        failure_ = failure_bytes(engine_error::kind::failed, e.what());
      }
    }
  }

  // Every rank's records to every rank; each chunk's once (a chunk in two journals: the same record).
  void exchange_records() {
    std::string mine = failure_;
    if (mine.empty()) {
      const auto ran =  // the chunks held, less those the journal gave
          static_cast<std::uint64_t>(std::count(held_.begin(), held_.end(), 1)) - shared_.resumed - shared_.adopted;
      byte_writer out;
      out.put('R').put(seconds_).put(ran);
      for (std::uint64_t c = 0; c < chunks_; ++c) {
        if (!held_[static_cast<std::size_t>(c)]) continue;
        out.put(c);
        record_codec<Record>::write(out, records_[static_cast<std::size_t>(c)]);
      }
      mine = out.take();
    }
    const std::vector<std::string> all = sharing_.processes->all_gather(mine);
    throw_failures(all);
    shared_.rank_seconds.assign(all.size(), 0.0);
    shared_.rank_chunks.assign(all.size(), 0);
    std::vector<char> have(static_cast<std::size_t>(chunks_), 0);
    for (std::size_t r = 0; r < all.size(); ++r) read_records(r, all[r], have);
    if (std::find(have.begin(), have.end(), 0) != have.end()) {
      throw rank_error(engine_error::kind::failed, "the ranks' records miss a chunk (a bug)");
    }
  }

  void read_records(std::size_t r, const std::string& blob, std::vector<char>& have) {
    const auto broken = [&] {
      return rank_error(engine_error::kind::failed,
                        "rank " + std::to_string(r) + " sent chunk records that do not fit this run (a bug)");
    };
    byte_reader in(blob);
    char kind = 0;
    if (!in.get(kind) || kind != 'R' || !in.get(shared_.rank_seconds[r]) || !in.get(shared_.rank_chunks[r]))
      throw broken();
    while (!in.done()) {
      std::uint64_t c = 0;
      Record record{};
      if (!in.get(c) || c >= chunks_ || !record_codec<Record>::read(in, record) || !valid_record(record))
        throw broken();
      if (have[static_cast<std::size_t>(c)]) continue;
      have[static_cast<std::size_t>(c)] = 1;
      records_[static_cast<std::size_t>(c)] = std::move(record);
    }
  }

  const std::uint64_t chunks_;
  shared_chunks& shared_;
  const chunk_sharing& sharing_;
  progress_counter* const progress_;
  const std::function<std::uint64_t(std::uint64_t)> steps_of_;
  std::vector<Record> records_;
  std::vector<char> held_;  // resumed or run here
  std::string user_key_;    // the user's key that seals the journals (read once)
  std::unique_ptr<checkpoint_journal> journal_;
  std::string failure_;  // this rank's error, for the next exchange
  std::vector<std::uint64_t> todo_;
  chunk_queue queue_;
  std::atomic<std::uint64_t> finished_steps_{0};
  double seconds_ = 0;
};

}  // namespace sparseperm::detail
