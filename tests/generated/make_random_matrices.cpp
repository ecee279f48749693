// Writes headers of random generated matrices for the tests of the generated engines:
//
//   make_random_matrices OUTPUT_DIR PARTS
//
// OUTPUT_DIR/random_matrices_K.cuh (K < PARTS) each hold a share of 128 matrices (n = 1..24; 0/1,
// small-integer and uniform reals; signed reals with n = 2..14; singular ones included; 8 wide
// integer ones, n = 2..4, whose rows sum beyond 2^24) and a function
// for_each_random_matrix_K(f) that calls f.template operator()<M>() for each matrix type M;
// OUTPUT_DIR/random_complex_matrices_K.cuh (K < 4) likewise 112 complex ones (for_each_complex_matrix_K);
// OUTPUT_DIR/random_cancelling_matrices_K.cuh (K < 4) 100 real and 100 complex dense matrices of full
// 53-bit values in [−1, 1), whose Ryser terms cancel (for_each_cancelling_matrix_K).
#include <sparseperm/module/codegen.cuh>
#include <sparseperm/structure/matching.cuh>
#include "random_matrix.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "../exact_dyadic.hpp"
#include "../host/test_support.hpp"

// How many wide-integer matrices random_matrices_{0..PARTS-1}.cuh hold between them (PARTS of 4: two a part).
constexpr int wide_matrix_count = 8;

// How many complex matrices random_complex_matrices_{0..3}.cuh hold between them.
constexpr int complex_matrix_count = 112;

// How many cancelling matrices random_cancelling_matrices_{0..3}.cuh hold between them: the first
// half real (n = 4..14), the rest complex (n = 4..12).
constexpr int cancelling_matrix_count = 200;

// The headers of one family of matrices, in parts: each part a header of matrix types and a function
// FUNCTION_K(f) that calls f.template operator()<M>() for each of them.
struct matrix_parts {
  std::vector<std::string> headers, lists;
  explicit matrix_parts(int parts) : headers(parts), lists(parts) {}
  void add(int part, const sparseperm::sparse_matrix& matrix, const char* name) {
    headers[part] += sparseperm::generate_matrix_header(matrix, name, std::string(name) + ".mtx") + "\n";
    lists[part] += std::string("  f.template operator()<sparseperm::generated::") + name + "::matrix>();\n";
  }
  // DIR/STEM_K.cuh for each part K
  void write(const std::string& dir, const std::string& stem, const std::string& function) const {
    for (std::size_t part = 0; part < headers.size(); ++part) {
      std::ofstream out(dir + "/" + stem + "_" + std::to_string(part) + ".cuh");
      out << headers[part] << "template <class F>\nvoid " << function << "_" << part << "(F&& f) {\n"
          << lists[part] << "}\n";
    }
  }
};

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_random_matrices OUTPUT_DIR PARTS\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int parts = std::stoi(argv[2]);
  sparseperm::random_stream stream(20260101);
  const sparseperm::value_kind kinds[] = {sparseperm::value_kind::ones, sparseperm::value_kind::integers,
                                          sparseperm::value_kind::uniform};
  matrix_parts real(parts);
  for (int m = 0; m < 120; ++m) {
    const int n = m >= 96 ? 2 + m % 13 : 1 + m % 24;  // signed reals stay small: their check sums |terms|
    const double density = m < 24 ? 0.5 : (m % 3 == 0 ? 0.2 : m % 3 == 1 ? 0.35 : 0.7);
    const auto kind = kinds[(m / 24) % 3];
    const bool signed_reals = m >= 96;  // the last share: reals in (−1, 1]
    const auto matrix =
        test_support::random_matrix(stream, n, density, m >= 96 ? sparseperm::value_kind::uniform : kind, signed_reals);
    char name[16];
    std::snprintf(name, sizeof name, "r%03d", m);
    // each share of 24 rotated by one part, so that every part gets every size (m % parts alone put
    // all four n = 24 matrices in one part, which then ran 6 times as long as the others)
    real.add((m + m / 24) % parts, matrix, name);
  }
  // Wide integers: entries ±[2^24, 2^25] (rows beyond residues' 2^24), n = 2..4 (within 128 bits),
  // so the default runs 128-bit integers there; two a part.
  sparseperm::random_stream wide_stream(20261125);
  for (int m = 0; m < wide_matrix_count; ++m) {
    const int n = 2 + m % 3;
    std::vector<sparseperm::matrix_entry> entries;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (i != j && wide_stream.uniform() >= 0.6) continue;  // the diagonal: a perfect matching
        const double magnitude = 16777216.0 + static_cast<double>(wide_stream.below(16777217));
        entries.push_back({i, j, wide_stream.uniform() < 0.3 ? -magnitude : magnitude});
      }
    }
    const sparseperm::sparse_matrix matrix = sparseperm::sparse_matrix::from_entries(n, std::move(entries));
    char name[16];
    std::snprintf(name, sizeof name, "w%03d", m);
    real.add(m % parts, matrix, name);
  }
  real.write(dir, "random_matrices", "for_each_random_matrix");
  // Complex matrices in four parts: Gaussian integers (even m) and dyadic complex values k / 2^20
  // (odd m), n = 1..14, dense and sparse.
  sparseperm::random_stream complex_stream(20261124);
  matrix_parts complex_parts(4);
  for (int m = 0; m < complex_matrix_count; ++m) {
    const int n = 1 + m % 14;
    const double density = m % 3 == 0 ? 1.0 : m % 3 == 1 ? 0.35 : 0.6;
    sparseperm::sparse_matrix matrix;
    do {  // a draw with no imaginary part would be a real matrix; a singular one an exact 0
      matrix = test_support::random_complex(complex_stream, n, density, m % 2 == 0);
    } while (!matrix.is_complex() || sparseperm::maximum_matching(matrix).size < n);
    char name[16];
    std::snprintf(name, sizeof name, "c%03d", m);
    complex_parts.add((m / 2) % 4, matrix, name);
  }
  complex_parts.write(dir, "random_complex_matrices", "for_each_complex_matrix");
  sparseperm::random_stream cancelling_stream(20261128);
  matrix_parts cancelling(4);
  for (int m = 0; m < cancelling_matrix_count; ++m) {
    const bool complex = m >= cancelling_matrix_count / 2;
    const int n = complex ? 4 + m % 9 : 4 + m % 11;
    const sparseperm::sparse_matrix matrix = exact_dyadic::random_cancelling(cancelling_stream, n, complex);
    char name[16];
    std::snprintf(name, sizeof name, "x%03d", m);
    cancelling.add(m % 4, matrix, name);
  }
  cancelling.write(dir, "random_cancelling_matrices", "for_each_cancelling_matrix");
  return 0;
}
