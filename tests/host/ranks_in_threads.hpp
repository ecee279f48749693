#pragma once
// MPI ranks simulated by threads of one process, for the tests of distributed runs.
#include <sparseperm/core/process_group.cuh>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace test_support {

// R ranks in one process, one thread each: an exchange is a barrier that hands every rank every
// rank's bytes (what MPI_Allgatherv does for the CLI), and a message waits in its receiver's mailbox.
class ranks_in_threads {
 public:
  explicit ranks_in_threads(int size)
      : slots_(static_cast<std::size_t>(size)), mailboxes_(static_cast<std::size_t>(size)) {
    for (int r = 0; r < size; ++r) {
      sparseperm::process_group group;
      group.rank = r;
      group.size = size;
      group.all_gather = [this, r](const std::string& mine) { return exchange(r, mine); };
      group.send = [this, r](int to, const std::string& bytes) {
        const std::lock_guard lock(mutex_);
        mailboxes_.at(static_cast<std::size_t>(to)).push_back({r, bytes});
      };
      group.receive = [this, r]() -> std::optional<std::pair<int, std::string>> {
        const std::lock_guard lock(mutex_);
        auto& box = mailboxes_[static_cast<std::size_t>(r)];
        if (box.empty()) return std::nullopt;
        auto message = box.front();
        box.pop_front();
        return message;
      };
      groups_.push_back(group);
    }
  }
  const sparseperm::process_group* rank(int r) const { return &groups_[static_cast<std::size_t>(r)]; }

  // run(rank) on a thread a rank; their results (or errors) in rank order
  template <class Run>
  std::vector<std::string> each(const Run& run) {
    std::vector<std::string> out(slots_.size());
    std::vector<std::thread> threads;
    for (std::size_t r = 0; r < slots_.size(); ++r) {
      threads.emplace_back([&, r] {
        try {
          out[r] = run(static_cast<int>(r));
        } catch (const sparseperm::rank_error& e) {
          out[r] = std::string("rank_error: ") + e.what();
        } catch (const std::exception& e) {
          out[r] = std::string("error: ") + e.what();
        }
      });
    }
    for (auto& t : threads) t.join();
    return out;
  }

 private:
  std::vector<std::string> exchange(int rank, const std::string& mine) {
    std::unique_lock lock(mutex_);
    const int generation = generation_;
    slots_[static_cast<std::size_t>(rank)] = mine;
    if (++arrived_ == static_cast<int>(slots_.size())) {
      result_ = slots_;
      arrived_ = 0;
      ++generation_;
      changed_.notify_all();
      return result_;
    }
    changed_.wait(lock, [&] { return generation_ != generation; });
    return result_;
  }
  std::vector<sparseperm::process_group> groups_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> slots_, result_;
  std::vector<std::deque<std::pair<int, std::string>>> mailboxes_;
  int arrived_ = 0, generation_ = 0;
};

}  // namespace test_support
