// expect: rows must be strictly increasing
#include <sparseperm/matrix/pattern.cuh>
constexpr int size = sparseperm::column<3, 1>::size;
