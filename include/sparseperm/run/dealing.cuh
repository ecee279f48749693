#pragma once
// Rank 0 deals the chunks out to the ranks as they ask, rather than splitting them in advance: on one
// 16-core host, 16 single-thread ranks with a fixed share each finished between 4.2 and 7.4 s
// (tools/benchmarks.md), and hosts of a cluster differ more than that.
//
// Grants shrink as the chunks run out (guided: the remaining chunks over twice the ranks, at least
// the asker's workers), so the last chunks go out a few at a time and ranks of unequal speed end
// together; a rank asks again when its queue holds no more chunks than its workers run. Only the
// thread that runs chunk_dealer talks to the other ranks; it looks for messages every 200 µs when idle.
//
// Messages (run/record_codec.cuh: a kind and two numbers), to rank 0: 'Q' (asks for chunks: the steps
// it finished so far, its workers) and 'F' (its run failed: deal no more; the steps finished); from
// rank 0: 'G' (the chunks todo[first, first + count)) and 'N' (none left). Rank 0 answers each
// message, and a rank asks again only once answered, so none is left over when the dealing ends.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/process_group.cuh"
#include "../core/progress.cuh"
#include "chunk_queue.cuh"
#include "record_codec.cuh"

namespace sparseperm::detail {

struct deal_message {
  char kind = 'N';
  std::uint64_t a = 0, b = 0;

  std::string bytes() const { return byte_writer().put(kind).put(a).put(b).take(); }
  static deal_message of(int from, const std::string& bytes) {
    deal_message m;
    byte_reader in(bytes);
    if (!in.get(m.kind) || !in.get(m.a) || !in.get(m.b) || !in.done() ||
        std::string_view("QFGN").find(m.kind) == std::string_view::npos)
      throw engine_error(engine_error::kind::failed,
                         "rank " + std::to_string(from) + " sent a message that is not the dealing's (a bug)");
    return m;
  }
};

// Deals `todo` out to the ranks until every rank has run its part (run_ended): run() on every rank,
// beside the thread that runs the chunks this rank is given (into `queue`).
class chunk_dealer {
 public:
  chunk_dealer(const process_group& group, const std::vector<std::uint64_t>& todo, std::uint64_t workers,
               chunk_queue& queue, const std::atomic<bool>& run_ended, const std::atomic<std::uint64_t>& finished_steps,
               progress_counter* progress)
      : group_(group),
        todo_(todo),
        workers_(std::max<std::uint64_t>(workers, 1)),
        queue_(queue),
        run_ended_(run_ended),
        finished_steps_(finished_steps),
        progress_(progress),
        reported_(static_cast<std::size_t>(group.size), 0) {}

  void run() {
    if (group_.rank == 0) {
      deal();
    } else {
      ask();
    }
  }

 private:
  std::uint64_t total() const { return todo_.size(); }
  std::uint64_t grant(std::uint64_t left, std::uint64_t asker) const {
    return std::min(left, std::max({std::uint64_t{1}, asker, left / (2 * static_cast<std::uint64_t>(group_.size))}));
  }
  void add(std::uint64_t first, std::uint64_t count) {
    queue_.add(todo_.begin() + static_cast<std::ptrdiff_t>(first),
               todo_.begin() + static_cast<std::ptrdiff_t>(first + count));
  }
  static void idle() { std::this_thread::sleep_for(std::chrono::microseconds(200)); }

  // Rank 0: answers the others, and fills its own queue when it runs low.
  void deal() {
    for (;;) {
      bool busy = answer_ranks();
      // a run that ends while chunks may still come has failed: deal no more
      if (run_ended_.load() && !queue_.closed()) stopped_ = true;
      if (!stopped_ && next_ < total() && queue_.running_low()) {
        const std::uint64_t count = grant(total() - next_, workers_);
        add(next_, count);
        next_ += count;
        busy = true;
      }
      if (stopped_ || next_ == total()) queue_.close();
      if (run_ended_.load() && told_none_ == static_cast<std::uint64_t>(group_.size) - 1) return;
      if (!busy) idle();
    }
  }

  // Rank 0: one answer to each message waiting; whether there was one.
  bool answer_ranks() {
    bool busy = false;
    while (std::optional<std::pair<int, std::string>> message = group_.receive()) {
      busy = true;
      const int from = message->first;
      const deal_message m = deal_message::of(from, message->second);
      if (from <= 0 || from >= group_.size || (m.kind != 'Q' && m.kind != 'F'))
        throw engine_error(engine_error::kind::failed,
                           "rank " + std::to_string(from) + " sent rank 0 a message out of turn (a bug)");
      std::uint64_t& before = reported_[static_cast<std::size_t>(from)];
      if (progress_ && m.a > before) progress_->done.fetch_add(m.a - before, std::memory_order_relaxed);
      before = std::max(before, m.a);
      stopped_ = stopped_ || m.kind == 'F';
      if (stopped_ || next_ == total()) {
        group_.send(from, deal_message{'N'}.bytes());
        ++told_none_;
      } else {
        const std::uint64_t count = grant(total() - next_, m.b);
        group_.send(from, deal_message{'G', next_, count}.bytes());
        next_ += count;
      }
    }
    return busy;
  }

  // The other ranks: ask rank 0 whenever the queue runs low, until it says none are left.
  void ask() {
    for (;;) {
      bool busy = take_answers();
      if (!asking_ && !none_left_) {
        if (run_ended_.load()) {  // before the queue closed: the run failed
          group_.send(0, deal_message{'F', finished_steps_.load()}.bytes());
          asking_ = busy = true;
        } else if (queue_.running_low()) {
          group_.send(0, deal_message{'Q', finished_steps_.load(), workers_}.bytes());
          asking_ = busy = true;
        }
      }
      if (none_left_) queue_.close();
      if (none_left_ && run_ended_.load()) return;
      if (!busy) idle();
    }
  }

  bool take_answers() {
    bool busy = false;
    while (std::optional<std::pair<int, std::string>> message = group_.receive()) {
      busy = true;
      const deal_message m = deal_message::of(message->first, message->second);
      if (message->first != 0 || !asking_ || (m.kind != 'G' && m.kind != 'N') ||
          (m.kind == 'G' && (m.a > total() || m.b > total() - m.a)))
        throw engine_error(engine_error::kind::failed,
                           "rank " + std::to_string(message->first) + " sent a message out of turn (a bug)");
      if (m.kind == 'G') add(m.a, m.b);
      none_left_ = none_left_ || m.kind == 'N';
      asking_ = false;
    }
    return busy;
  }

  const process_group& group_;
  const std::vector<std::uint64_t>& todo_;
  const std::uint64_t workers_;
  chunk_queue& queue_;
  const std::atomic<bool>& run_ended_;
  const std::atomic<std::uint64_t>& finished_steps_;
  progress_counter* progress_;
  // rank 0
  std::uint64_t next_ = 0, told_none_ = 0;
  bool stopped_ = false;
  std::vector<std::uint64_t> reported_;  // the steps each rank said it finished
  // the others
  bool asking_ = false, none_left_ = false;
};

}  // namespace sparseperm::detail
