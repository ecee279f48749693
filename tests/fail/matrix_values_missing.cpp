// expect: CompileTimeMatrix
#include <sparseperm/matrix/pattern.cuh>
struct no_values {
  using pattern = sparseperm::pattern<1, sparseperm::column<0>>;
};
constexpr int n = sparseperm::constants_of<no_values>.n;
