#pragma once
// A progress counter an engine updates while it runs (a user interface reads it from another thread),
// and the caller's request to stop: the Ryser engines look at it between chunks and end with
// engine_error(interrupted) (a Python caller's Ctrl-C; the CLI's signals end the process instead).
#include <atomic>
#include <cstdint>

#include "engine_error.cuh"

namespace sparseperm {

struct progress_counter {
  std::atomic<std::uint64_t> done{0};        // units of work finished (Gray steps for the Ryser engines)
  std::atomic<std::uint64_t> total{0};       // units of work in all; 0 until the engine knows
  std::atomic<bool> stop{false};             // set by the caller: end the run soon, without a result
  const progress_counter* parent = nullptr;  // whose stop request this one shares (a batch's, for
                                             // each matrix: the matrix counts apart, stops with it)

  double fraction() const {
    const std::uint64_t t = total.load(std::memory_order_relaxed);
    return t == 0 ? 0.0 : static_cast<double>(done.load(std::memory_order_relaxed)) / static_cast<double>(t);
  }
};

inline bool stop_requested(const progress_counter* progress) {
  for (; progress != nullptr; progress = progress->parent) {
    if (progress->stop.load(std::memory_order_relaxed)) return true;
  }
  return false;
}

// After a run that stopped early: the caller asked for it, so there is no result.
inline void throw_if_stopped(const progress_counter* progress) {
  if (stop_requested(progress)) throw engine_error(engine_error::kind::interrupted, "interrupted");
}

}  // namespace sparseperm
