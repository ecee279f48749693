// Fuzz target: the Matrix Market reader. Any bytes either read as a matrix or give input_error
// (nothing else: no crash, no other exception, no hang), and a matrix read is written and read back
// to the same matrix, with nothing rounded on the way back.
#include <sparseperm/matrix/input_error.cuh>
#include <sparseperm/matrix/matrix_market.cuh>
#include <sparseperm/structure/matching.cuh>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sparseperm::matrix_market_file file;
  try {
    file = sparseperm::parse_matrix_market(text, "fuzz.mtx");
  } catch (const sparseperm::input_error&) {
    return 0;
  }
  const sparseperm::sparse_matrix& m = file.matrix;
  if (m.n() < 0 || m.n() > sparseperm::max_matrix_market_dimension) std::abort();
  if (m.nnz() > 1'000'000 || m.n() > 100'000) return 0;  // writing it back would take the fuzzer's time for nothing new
  sparseperm::structural_rank(m);
  const auto again = sparseperm::parse_matrix_market(sparseperm::to_matrix_market(m), "again.mtx");
  if (!(again.matrix == m) || !again.matrix.input_rounding().empty()) std::abort();
  return 0;
}
