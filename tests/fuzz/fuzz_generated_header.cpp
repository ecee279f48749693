// Fuzz target: the generated-header path. The input is a file name (up to the first NUL byte, at most
// 255 bytes) and a Matrix Market text; the header generated from them must be what
// generated_header_check.hpp demands: the name only inside literals that read back as itself, an
// identifier of safe characters, and no other preprocessor line. A text that does not read as a
// matrix gives way to a small fixed one, so every name is tried.
#include <sparseperm/matrix/input_error.cuh>
#include <sparseperm/matrix/matrix_market.cuh>
#include <sparseperm/module/codegen.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "generated_header_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t split = std::min(input.find('\0'), std::min<std::size_t>(input.size(), 255));
  const std::string name(input.substr(0, split));
  const std::string_view text = split < input.size() ? input.substr(split + 1) : std::string_view();
  sparseperm::sparse_matrix matrix =
      sparseperm::sparse_matrix::from_entries(2, {{0, 0, 0.5}, {0, 1, -3}, {1, 1, 1e-300}});
  try {
    const auto file = sparseperm::parse_matrix_market(text, "fuzz.mtx");
    if (file.matrix.n() <= 64 && file.matrix.nnz() <= 4096) matrix = file.matrix;
  } catch (const sparseperm::input_error&) {
  }
  const std::string header = sparseperm::generate_matrix_header(matrix, name, name);
  if (const std::string problem = header_check::problem(header, matrix, name, name); !problem.empty()) {
    std::fprintf(stderr, "generated header: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
