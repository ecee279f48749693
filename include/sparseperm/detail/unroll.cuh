#pragma once
// Compile-time loops for generated code: every index is a constant, so arrays indexed by it stay in
// registers.
//
//   static_for<B, E>(f)      f(integral_constant<int, B>), ..., f(integral_constant<int, E − 1>)
//   static_dispatch<E>(j, f) f(integral_constant<int, j>) for the runtime j ∈ [0, E), E ≤ 64:
//                            tests for j = 0 and 1 (half and a quarter of the Gray steps), then a
//                            switch. Measured on an H100 (n = 40, both generated engines): a chain
//                            of compares was up to 35% slower at p = 0.1 (nvcc speculated the cheap
//                            cases and copied every live x register at each exit of the chain) and
//                            3-4% faster at p = 0.3 and 0.5.
#include <type_traits>
#include <utility>

#include "../core/config.cuh"

namespace sparseperm::detail {

template <int Begin, class F, int... K>
SPARSEPERM_HOST_DEVICE inline void static_for_impl(F&& f, std::integer_sequence<int, K...>) {
  (f(std::integral_constant<int, Begin + K>{}), ...);
}

template <int Begin, int End, class F>
SPARSEPERM_HOST_DEVICE inline void static_for(F&& f) {
  if constexpr (End > Begin) static_for_impl<Begin>(f, std::make_integer_sequence<int, End - Begin>{});
}

#define SPARSEPERM_DISPATCH_CASE(J)                             \
  case J:                                                       \
    if constexpr (J < End) f(std::integral_constant<int, J>{}); \
    break;
// clang-format off (it does not settle on one layout of these macro lines)
#define SPARSEPERM_DISPATCH_CASES8(J) \
  SPARSEPERM_DISPATCH_CASE(J)         \
  SPARSEPERM_DISPATCH_CASE(J + 1)     \
  SPARSEPERM_DISPATCH_CASE(J + 2)     \
  SPARSEPERM_DISPATCH_CASE(J + 3)     \
  SPARSEPERM_DISPATCH_CASE(J + 4)     \
  SPARSEPERM_DISPATCH_CASE(J + 5)     \
  SPARSEPERM_DISPATCH_CASE(J + 6)     \
  SPARSEPERM_DISPATCH_CASE(J + 7)
// clang-format on

template <int End, class F>
SPARSEPERM_HOST_DEVICE inline void static_dispatch(int j, F&& f) {
  static_assert(End <= 64, "static_dispatch: at most 64 cases");
  if (j == 0) {
    if constexpr (0 < End) f(std::integral_constant<int, 0>{});
    return;
  }
  if (j == 1) {
    if constexpr (1 < End) f(std::integral_constant<int, 1>{});
    return;
  }
  switch (j) {
    // clang-format off
    SPARSEPERM_DISPATCH_CASES8(0)
    SPARSEPERM_DISPATCH_CASES8(8)
    SPARSEPERM_DISPATCH_CASES8(16)
    SPARSEPERM_DISPATCH_CASES8(24)
    SPARSEPERM_DISPATCH_CASES8(32)
    SPARSEPERM_DISPATCH_CASES8(40)
    SPARSEPERM_DISPATCH_CASES8(48)
    SPARSEPERM_DISPATCH_CASES8(56)
    // clang-format on
    default:
      break;
  }
}
#undef SPARSEPERM_DISPATCH_CASES8
#undef SPARSEPERM_DISPATCH_CASE

}  // namespace sparseperm::detail
