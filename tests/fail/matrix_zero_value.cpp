// expect: values must be finite and nonzero
#include <sparseperm/matrix/pattern.cuh>
struct with_zero {
  using pattern = sparseperm::pattern<1, sparseperm::column<0>>;
  static constexpr double values[] = {0.0};
};
constexpr double v = sparseperm::constants_of<with_zero>.values[0];
