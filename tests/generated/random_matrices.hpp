#pragma once
// Includes the generated random matrices of part SPARSEPERM_RANDOM_PART (make_random_matrices.cpp)
// and names its loop FOR_EACH_RANDOM_MATRIX(f): f.template operator()<M>() for each matrix type M.
#define SPARSEPERM_STRINGIFY2(x) #x
#define SPARSEPERM_STRINGIFY(x)  SPARSEPERM_STRINGIFY2(x)
#define SPARSEPERM_CONCAT2(a, b) a##b
#define SPARSEPERM_CONCAT(a, b)  SPARSEPERM_CONCAT2(a, b)
#include SPARSEPERM_STRINGIFY(SPARSEPERM_CONCAT(random_matrices_, SPARSEPERM_RANDOM_PART).cuh)
#define FOR_EACH_RANDOM_MATRIX SPARSEPERM_CONCAT(for_each_random_matrix_, SPARSEPERM_RANDOM_PART)
