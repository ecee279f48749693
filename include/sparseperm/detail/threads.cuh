#pragma once
// How many CPU threads the OpenMP engines use when the caller does not say.
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

}  // namespace sparseperm::detail
