// The permanent of a Matrix Market file with the library: read, compute, print.
//
//   permanent_of_a_file FILE [EXPECTED]
//
// With EXPECTED (a decimal integer), exits with 1 unless the exact result equals it.
#include <sparseperm/perm.cuh>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [EXPECTED]\n", argv[0]);
    return 2;
  }
  try {
    const sparseperm::matrix_market_file file = sparseperm::read_matrix_market(argv[1]);
    const sparseperm::permanent_result result = sparseperm::compute_permanent(file.matrix);
    std::printf("perm(%s) = %s (%s, engine %s, %.3f s)\n", argv[1], result.permanent.c_str(),
                result.exact ? "exact" : "double", result.engine.c_str(), result.seconds.total);
    if (argc > 2 && (!result.exact || result.permanent != argv[2])) {
      std::fprintf(stderr, "expected %s\n", argv[2]);
      return 1;
    }
    return 0;
  } catch (const sparseperm::input_error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
