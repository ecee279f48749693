#pragma once
// Includes the generated random matrices of one part (make_random_matrices.cpp) and names its loop:
//   SPARSEPERM_RANDOM_PART   FOR_EACH_RANDOM_MATRIX(f)   the real matrices of that part
//   SPARSEPERM_COMPLEX_PART  FOR_EACH_COMPLEX_MATRIX(f)  the complex matrices of that part
//   SPARSEPERM_CANCELLING_PART  FOR_EACH_CANCELLING_MATRIX(f)  the cancelling matrices of that part
// each f.template operator()<M>() for each matrix type M.
//
// random_share<M>(shares): the share (0 ≤ s < shares) of a random matrix, for the host tests that
// run their forced loop shapes on one share each (every shape still meets every size and value kind:
// a whole share of every part's matrices), or −1 for a matrix every share takes (the wide integers).
// SPARSEPERM_TEST_FULL_SWEEP (CMake: -DSPARSEPERM_TEST_FULL_SWEEP=ON) runs every shape on every matrix.
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
#if defined(SPARSEPERM_CANCELLING_PART)
#  include SPARSEPERM_STRINGIFY(SPARSEPERM_CONCAT(random_cancelling_matrices_, SPARSEPERM_CANCELLING_PART).cuh)
#  define FOR_EACH_CANCELLING_MATRIX SPARSEPERM_CONCAT(for_each_cancelling_matrix_, SPARSEPERM_CANCELLING_PART)
#endif

namespace test_generated {

#if defined(SPARSEPERM_TEST_FULL_SWEEP)
inline constexpr bool full_sweep = true;
#else
inline constexpr bool full_sweep = false;
#endif

// A matrix's number m in make_random_matrices (its name: a letter, then m in decimal).
template <class M>
constexpr int random_matrix_number() {
  int m = 0;
  for (const char* digit = M::name + 1; *digit != '\0'; ++digit) m = 10 * m + (*digit - '0');
  return m;
}

// Real matrices r%03d: (m + m / 24) % shares, as parts rotate the shares of 24 (make_random_matrices),
// so that each share of three holds every n = 1..24, eight matrices of each value kind and ten of
// each part. Complex matrices c%03d: (m / 8) % shares, each share of two every n = 1..14 (odd n in
// Gaussian integers, even n dyadic) and fourteen of each part.
template <class M>
constexpr int random_share(int shares) {
  constexpr int m = random_matrix_number<M>();
  switch (M::name[0]) {
    case 'r':
      return (m + m / 24) % shares;
    case 'c':
      return (m / 8) % shares;
    case 'x':  // cancelling matrices x%03d: part m % 4, alternate ones of a part
      return (m / 4) % shares;
    default:
      return -1;
  }
}

// Whether matrix M runs the forced shapes of share s (of `shares`).
template <class M>
constexpr bool runs_share(int s, int shares) {
  const int share = random_share<M>(shares);
  return full_sweep || share < 0 || share == s;
}

}  // namespace test_generated
