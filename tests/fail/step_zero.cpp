// expect: step<G>: G must be >= 1
#include <sparseperm/ryser/gray_code.cuh>
int column = sparseperm::step<0>::column;
