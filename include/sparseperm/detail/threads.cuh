#pragma once
// How many CPU threads the OpenMP engines use when the caller does not say, and the one parallel loop
// they run on.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>

#if defined(_OPENMP)
#  include <omp.h>
#endif

namespace sparseperm::detail {

inline int available_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// The threads an engine runs with: `requested` when positive (and OpenMP is there), else all.
inline int engine_threads(int requested) {
#if defined(_OPENMP)
  return requested > 0 ? requested : available_threads();
#else
  (void)requested;
  return 1;
#endif
}

enum class schedule { static_one, dynamic_one };

// body(k) for k in [0, count) on `threads` OpenMP threads (schedule(static, 1) or (dynamic, 1)). An
// exception thrown in a thread (std::bad_alloc under a memory limit) would end the process there;
// here the first one is kept, the remaining iterations are skipped, and it is rethrown to the caller.
template <schedule Schedule, class Body>
void parallel_for(std::int64_t count, int threads, const Body& body) {
  std::exception_ptr failure;
  std::mutex failure_lock;
  std::atomic<bool> failed{false};
  const auto guarded = [&](std::int64_t k) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      body(k);
    } catch (...) {
      const std::lock_guard<std::mutex> hold(failure_lock);
      if (!failure) failure = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  };
  // no more threads than iterations, and none started for one (a team costs tens of microseconds)
  [[maybe_unused]] const int team = static_cast<int>(std::clamp<std::int64_t>(count, 1, threads > 0 ? threads : 1));
  if (team == 1) {
    for (std::int64_t k = 0; k < count; ++k) guarded(k);
  } else if constexpr (Schedule == schedule::static_one) {
#if defined(_OPENMP)
#  pragma omp parallel for schedule(static, 1) num_threads(team)
#endif
    for (std::int64_t k = 0; k < count; ++k) guarded(k);
  } else {
#if defined(_OPENMP)
#  pragma omp parallel for schedule(dynamic, 1) num_threads(team)
#endif
    for (std::int64_t k = 0; k < count; ++k) guarded(k);
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace sparseperm::detail
