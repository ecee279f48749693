#pragma once
// Compile-time loops for generated code: every index is a constant, so arrays indexed by it stay in
// registers.
//
//   static_for<B, E>(f)      f(integral_constant<int, B>), ..., f(integral_constant<int, E − 1>)
//   static_dispatch<E>(j, f) f(integral_constant<int, j>) for the runtime j ∈ [0, E): a chain of
//                            compares in index order, cheapest for j = 0 (the most frequent column)
#include <type_traits>
#include <utility>

#include "../config.cuh"

namespace sparseperm::detail {

template <int Begin, class F, int... K>
SPARSEPERM_HOST_DEVICE inline void static_for_impl(F&& f, std::integer_sequence<int, K...>) {
  (f(std::integral_constant<int, Begin + K>{}), ...);
}

template <int Begin, int End, class F>
SPARSEPERM_HOST_DEVICE inline void static_for(F&& f) {
  if constexpr (End > Begin) static_for_impl<Begin>(f, std::make_integer_sequence<int, End - Begin>{});
}

template <class F, int... J>
SPARSEPERM_HOST_DEVICE inline void static_dispatch_impl(int j, F&& f, std::integer_sequence<int, J...>) {
  ((j == J ? (f(std::integral_constant<int, J>{}), true) : false) || ...);
}

template <int End, class F>
SPARSEPERM_HOST_DEVICE inline void static_dispatch(int j, F&& f) {
  if constexpr (End > 0) static_dispatch_impl(j, f, std::make_integer_sequence<int, End>{});
}

}  // namespace sparseperm::detail
