#pragma once
// The boundary between the Python bindings (bindings.cpp: nanobind, the host compiler) and the
// library (door.cpp: compiled by nvcc where there is one, so that the GPU engines exist): plain types.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <sparseperm/core/progress.cuh>

namespace sparseperm::python {

// A square matrix as coordinates (0-based, no repeated position); imag empty for a real matrix.
struct door_matrix {
  int n = 0;
  std::vector<std::int64_t> rows, columns;
  std::vector<double> real, imag;
};

struct door_options {
  std::string engine = "auto";
  std::string precision;  // empty: automatic; "double", "compensated" or "exact"
  int threads = 0;        // 0: all
  std::string devices;    // empty: the first GPU; "all" or "0,1"
  double time_limit_seconds = 24 * 3600.0;
  std::vector<int> row_multiplicities, column_multiplicities;  // empty: 1 each
  std::string include_dir;  // the library's headers, where the generated engines compile
};

struct door_result {
  std::string permanent, permanent_imag;  // exact decimal integers, or %.17g / scaled decimal text
  double value = 0, imag = 0;
  bool exact = false, complex = false, has_error_bound = false;
  double error_bound = 0;
  std::int64_t scale_exponent = 0;  // beyond double: (scaled_value + i·scaled_imag)·2^scale_exponent
  double scaled_value = 0, scaled_imag = 0, scaled_error_bound = 0;
  std::string engine, plan;
  int n = 0, threads = 0;
  std::int64_t nnz = 0;
  double seconds_plan = 0, seconds_codegen = 0, seconds_compile = 0, seconds_compute = 0, seconds_total = 0;
};

// An error as the CLI would report it, with what kind of Python exception it becomes.
class door_error : public std::runtime_error {
 public:
  enum class kind { bad_input, unknown_engine, unavailable, too_large, overflow, refused, interrupted, failed };
  door_error(kind what, const std::string& message) : std::runtime_error(message), kind_(what) {}
  kind reason() const noexcept { return kind_; }

 private:
  kind kind_;
};

struct door_engine {
  std::string name, summary;
  bool available = true;
  std::string why;  // when not available
};

door_matrix read_matrix_market_file(const std::string& path);
door_result compute(const door_matrix& matrix, const door_options& options, progress_counter& progress);
// Many matrices (the library's compute_permanents: dense ones without a plan, on the CPU's threads or a
// GPU warp each), results in order. The first failing matrix (by index) is the error, "matrix K: ...".
std::vector<door_result> compute_batch(const std::vector<door_matrix>& matrices, const door_options& options,
                                       progress_counter& progress);
// B dense n × n matrices, row-major one after the other (imag empty, or beside real).
std::vector<door_result> compute_dense_batch(int batch, int n, const double* real, const double* imag,
                                             const door_options& options, progress_counter& progress);
// The planner's view: every block with every engine's estimate, and the engine chosen.
struct door_estimate {
  std::string engine;
  bool possible = false;
  double seconds = 0;  // possible: the estimate
  std::string why;     // not possible: why; else how (the arithmetic it would run), may be empty
};
struct door_block {
  int n = 0;
  std::int64_t nnz = 0;
  std::string engine;
  std::vector<door_estimate> estimates;
};
struct door_inspection {
  int n = 0;
  std::int64_t nnz = 0;
  std::string engines, plan;  // as a result would name them
  std::vector<door_block> blocks;
};
door_inspection inspect(const door_matrix& matrix, const door_options& options);
std::vector<door_engine> engines(const door_options& options);
bool has_cuda_build();

}  // namespace sparseperm::python
