#pragma once
// Preconditions of constexpr functions.
//
// During constant evaluation a violated precondition calls a function that is not constexpr, so the
// compiler stops with an error that names it; at run time on the host it throws std::logic_error
// (device code cannot throw: there it traps).
#include "../core/config.cuh"

#if !defined(__CUDA_ARCH__)
#  include <stdexcept>
#endif

namespace sparseperm::detail {

SPARSEPERM_HOST_DEVICE inline void sparseperm_precondition_violated(const char* what) {
#if defined(__CUDA_ARCH__)
  (void)what;
  __trap();
#else
  throw std::logic_error(what);
#endif
}

SPARSEPERM_HOST_DEVICE constexpr void expects(bool condition, const char* what) {
  if (!condition) sparseperm_precondition_violated(what);
}

}  // namespace sparseperm::detail
