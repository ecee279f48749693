#pragma once
// A progress bar on stderr for runs longer than a second, only when stderr is a terminal.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include <sparseperm/core/progress.cuh>
#include <sparseperm/detail/format.cuh>

namespace sparseperm::cli {

class progress_bar {
 public:
  explicit progress_bar(const progress_counter& counter) : counter_(counter) {
    if (isatty(STDERR_FILENO)) worker_ = std::thread([this] { run(); });
  }
  ~progress_bar() { stop(); }
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
    if (drawn_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  void run() {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) return;
    while (!stopping_) {
      const double fraction = counter_.fraction();
      const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
      constexpr int width = 40;
      const int filled = static_cast<int>(fraction * width);
      char bar[width + 1];
      for (int k = 0; k < width; ++k) bar[k] = k < filled ? '#' : '.';
      bar[width] = '\0';
      if (fraction > 0.01) {  // the rate in the engine's units (Gray steps for Ryser), and what is left
        const double rate = static_cast<double>(counter_.done.load(std::memory_order_relaxed)) / elapsed;
        std::fprintf(stderr, "\r[%s] %5.1f%%  %.1f s, %.3g/s, about %s left\033[K", bar, 100 * fraction, elapsed, rate,
                     detail::format_duration(elapsed * (1 - fraction) / fraction).c_str());
      } else {
        std::fprintf(stderr, "\r[%s] %5.1f%%  %.1f s\033[K", bar, 100 * fraction, elapsed);
      }
      std::fflush(stderr);
      drawn_ = true;
      wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; });
    }
  }

  const progress_counter& counter_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool drawn_ = false;
  std::thread worker_;
};

}  // namespace sparseperm::cli
