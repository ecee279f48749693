// expect: a square matrix needs exactly N columns
#include <sparseperm/matrix/pattern.cuh>
constexpr int n = sparseperm::pattern<3, sparseperm::column<0>>::n;
