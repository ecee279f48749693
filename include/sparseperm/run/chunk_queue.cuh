#pragma once
// The queue of a chunked run (run/chunk_dispatch.cuh).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace sparseperm::detail {

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

}  // namespace sparseperm::detail
