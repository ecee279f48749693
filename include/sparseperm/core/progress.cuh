#pragma once
// A progress counter an engine updates while it runs (a user interface reads it from another thread).
#include <atomic>
#include <cstdint>

namespace sparseperm {

struct progress_counter {
  std::atomic<std::uint64_t> done{0};   // units of work finished (Gray steps for the Ryser engines)
  std::atomic<std::uint64_t> total{0};  // units of work in all; 0 until the engine knows

  double fraction() const {
    const std::uint64_t t = total.load(std::memory_order_relaxed);
    return t == 0 ? 0.0 : static_cast<double>(done.load(std::memory_order_relaxed)) / static_cast<double>(t);
  }
};

}  // namespace sparseperm
