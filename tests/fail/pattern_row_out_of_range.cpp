// expect: a row index is not below N
#include <sparseperm/matrix/pattern.cuh>
constexpr int n = sparseperm::pattern<2, sparseperm::column<0, 2>, sparseperm::column<1>>::n;
