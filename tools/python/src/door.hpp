#pragma once
// The boundary between the Python bindings (bindings.cpp: nanobind, the host compiler) and the
// library (door.cpp: compiled by nvcc where there is one, so that the GPU engines exist). It speaks the
// library's own types where they are plain C++: results are permanent_result (their published fields,
// for_each_field, become the Python dict), errors are the library's (engine_error, input_error,
// batch_error, std::invalid_argument for a bad matrix or option), settings are the tool's text.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <sparseperm/core/engine_error.cuh>
#include <sparseperm/core/progress.cuh>
#include <sparseperm/core/result.cuh>
#include <sparseperm/core/results.cuh>

namespace sparseperm {
struct compute_options;  // engines/engine.cuh: opaque to the bindings
}

namespace sparseperm::python {

// A square matrix as coordinates (0-based, no repeated position); imag empty for a real matrix.
struct door_matrix {
  int n = 0;
  std::vector<std::int64_t> rows, columns;
  std::vector<double> real, imag;
};

// The settings as the tool's text (settings.cuh's setting_texts; empty: the default), the
// multiplicities, and where the library's headers are for the generated engines; `read` is the
// library's reading of them (read_settings), made once for all the calls that share these options.
struct door_options {
  std::string engine, precision, threads, devices, time_limit;
  std::vector<int> row_multiplicities, column_multiplicities;  // empty: 1 each
  std::string include_dir;
  std::string digits;  // empty: the default
  std::shared_ptr<const compute_options> read;
};
// Reads the settings (std::invalid_argument, with Python's names, for a bad one) into o.read.
void read_settings(door_options& o);
// n × n within the size the library reads (engine_error too_large beyond it, std::invalid_argument
// below 0).
void check_size(std::int64_t n);
// Whether the settings leave the engine to the planner (read_settings first).
bool automatic_engine(const door_options& o);

door_matrix read_matrix_market_file(const std::string& path);
permanent_result compute(const door_matrix& matrix, const door_options& options, progress_counter& progress);
// Many matrices (the library's compute_permanents: dense ones without a plan, on the CPU's threads or a
// GPU warp each), results in order. The first failing matrix (by index) is a batch_error.
permanent_results compute_batch(const std::vector<door_matrix>& matrices, const door_options& options,
                                progress_counter& progress);
// One dense n × n matrix, row-major (imag null, or beside real): no coordinates made in Python.
// progress null: a brief run, which no Ctrl-C stops (the options are then used as read, not copied).
permanent_result compute_dense(int n, const double* real, const double* imag, const door_options& options,
                               progress_counter* progress);
// B dense n × n matrices, row-major one after the other (imag null, or beside real), their entries
// `step` doubles apart (2: numpy's complex128 read in place, imag = real + 1).
permanent_results compute_dense_batch(int batch, int n, const double* real, const double* imag, int step,
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

struct door_engine {
  std::string name, summary;
  bool available = true;
  std::string why;  // when not available
};
std::vector<door_engine> engines(const door_options& options);
bool has_cuda_build();

}  // namespace sparseperm::python
