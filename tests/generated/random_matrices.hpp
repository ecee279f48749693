#pragma once
// Includes the generated random matrices of one part (make_random_matrices.cpp) and names its loop:
//   SPARSEPERM_RANDOM_PART   FOR_EACH_RANDOM_MATRIX(f)   the real matrices of that part
//   SPARSEPERM_COMPLEX_PART  FOR_EACH_COMPLEX_MATRIX(f)  the complex matrices of that part
// each f.template operator()<M>() for each matrix type M.
#define SPARSEPERM_STRINGIFY2(x) #x
#define SPARSEPERM_STRINGIFY(x)  SPARSEPERM_STRINGIFY2(x)
#define SPARSEPERM_CONCAT2(a, b) a##b
#define SPARSEPERM_CONCAT(a, b)  SPARSEPERM_CONCAT2(a, b)
#if defined(SPARSEPERM_RANDOM_PART)
#  include SPARSEPERM_STRINGIFY(SPARSEPERM_CONCAT(random_matrices_, SPARSEPERM_RANDOM_PART).cuh)
#  define FOR_EACH_RANDOM_MATRIX SPARSEPERM_CONCAT(for_each_random_matrix_, SPARSEPERM_RANDOM_PART)
#endif
#if defined(SPARSEPERM_COMPLEX_PART)
#  include SPARSEPERM_STRINGIFY(SPARSEPERM_CONCAT(random_complex_matrices_, SPARSEPERM_COMPLEX_PART).cuh)
#  define FOR_EACH_COMPLEX_MATRIX SPARSEPERM_CONCAT(for_each_complex_matrix_, SPARSEPERM_COMPLEX_PART)
#endif
