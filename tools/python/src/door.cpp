// The library side of the Python package: compiled by nvcc where the toolkit is found (the GPU
// engines, the generated ones through the same pipeline and cache as the CLI), else by the host
// compiler (CPU engines; the GPU ones say why they cannot run).
#include "door.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <sparseperm/perm.cuh>
#include <sparseperm/pipeline.cuh>
#include <sparseperm/settings.cuh>
#include <sparseperm/structure/repeated_lines.cuh>

namespace sparseperm::python {
namespace {

[[noreturn]] void bad_input(const std::string& message) { throw std::invalid_argument(message); }

matrix_entry checked_entry(std::int64_t n, std::int64_t i, std::int64_t j, double re, double im) {
  if (i < 0 || i >= n || j < 0 || j >= n) {
    bad_input("entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is outside the " + std::to_string(n) +
              " x " + std::to_string(n) + " matrix");
  }
  if (!std::isfinite(re) || !std::isfinite(im)) {
    bad_input("entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is not a finite number");
  }
  return {static_cast<int>(i), static_cast<int>(j), re, im};
}

// The matrix with row i repeated r[i] times and column j c[j] times (the CLI's multiplicity flags).
sparse_matrix with_multiplicities(sparse_matrix a, const door_options& o) {
  if (o.row_multiplicities.empty() && o.column_multiplicities.empty()) return a;
  return expand_lines(a, o.row_multiplicities, o.column_multiplicities);
}

sparse_matrix to_sparse(const door_matrix& m, const door_options& o) {
  check_size(m.n);
  const std::size_t count = m.rows.size();
  if (m.columns.size() != count || m.real.size() != count || (!m.imag.empty() && m.imag.size() != count)) {
    bad_input("the coordinate arrays differ in length");
  }
  std::vector<matrix_entry> entries(count);
  for (std::size_t k = 0; k < count; ++k) {
    entries[k] = checked_entry(m.n, m.rows[k], m.columns[k], m.real[k], m.imag.empty() ? 0.0 : m.imag[k]);
  }
  return with_multiplicities(sparse_matrix::from_entries(m.n, std::move(entries)), o);
}

int devices_present() {
#if defined(__CUDACC__)
  return gpu::device_count();
#else
  return 0;
#endif
}

// The settings read once (read_settings), with this call's progress.
compute_options to_options(const door_options& o, progress_counter* progress) {
  if (!o.read) throw std::logic_error("sparseperm: options used before read_settings");
  compute_options options = *o.read;
  options.progress = progress;
  return options;
}

}  // namespace

// The tool's reading of the settings (settings.cuh), with Python's names for them in messages, and
// the module pipeline for the generated engines. The devices present are counted here, once: a
// small call's share of the time.
void read_settings(door_options& o) {
  auto options = std::make_shared<compute_options>(options_from_text(
      {o.engine, o.precision, o.threads, o.devices, o.time_limit, "", o.digits}, {"", devices_present()}));
  options->pipeline.include_dir = o.include_dir;
  options->modules = module_pipeline();
  o.read = std::move(options);
}

void check_size(std::int64_t n) {
  if (n < 0) bad_input("a matrix cannot have a negative size");
  if (n > max_matrix_market_dimension) {
    throw engine_error(engine_error::kind::too_large, "the matrix is " + std::to_string(n) + " x " + std::to_string(n) +
                                                          ", beyond the size limit of " +
                                                          std::to_string(max_matrix_market_dimension));
  }
}

bool automatic_engine(const door_options& o) { return o.read && o.read->engine.automatic(); }

door_matrix read_matrix_market_file(const std::string& path) {
  const matrix_market_file file = read_matrix_market(path);
  door_matrix m;
  m.n = file.matrix.n();
  const bool complex = file.matrix.is_complex();
  for (int j = 0; j < m.n; ++j) {
    const auto rows = file.matrix.column_rows(j);
    const auto values = file.matrix.column_values(j);
    const auto imag = file.matrix.column_imag(j);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      m.rows.push_back(rows[k]);
      m.columns.push_back(j);
      m.real.push_back(values[k]);
      if (complex) m.imag.push_back(imag[k]);
    }
  }
  return m;
}

permanent_result compute(const door_matrix& matrix, const door_options& o, progress_counter& progress) {
  const sparse_matrix a = to_sparse(matrix, o);
  return compute_permanent(a, to_options(o, &progress));
}

permanent_results compute_batch(const std::vector<door_matrix>& matrices, const door_options& o,
                                progress_counter& progress) {
  return compute_permanents(
      static_cast<std::int64_t>(matrices.size()),
      [&](std::int64_t k) { return to_sparse(matrices[static_cast<std::size_t>(k)], o); }, to_options(o, &progress));
}

namespace {

// Dense matrix k of B, row-major one after the other, as the library's sparse_matrix (zeros left out,
// a value that is not finite refused), with the options' multiplicities.
sparse_matrix dense_matrix(const dense_matrices& values, std::int64_t k, const door_options& o) {
  const int n = values.n;
  std::vector<matrix_entry> entries;
  entries.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  const double* re = values.real_of(k);
  const double* im = values.imag_of(k);
  for (int j = 0; j < n; ++j) {  // column-major: the matrix's own order, nothing to sort
    for (int i = 0; i < n; ++i) {
      const std::size_t at = (static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)) *
                             static_cast<std::size_t>(values.step);
      const double x = re[at], y = im ? im[at] : 0.0;
      if (x != 0 || y != 0 || !std::isfinite(x) || !std::isfinite(y)) entries.push_back(checked_entry(n, i, j, x, y));
    }
  }
  return with_multiplicities(sparse_matrix::from_entries(n, std::move(entries)), o);
}

}  // namespace

permanent_result compute_dense(int n, const double* real, const double* imag, const door_options& o,
                               progress_counter* progress) {
  check_size(n);
  const dense_matrices one{1, n, real, imag};
  const auto matrix = [&] { return dense_matrix(one, 0, o); };
  if (!o.row_multiplicities.empty() || !o.column_multiplicities.empty())  // the array is not the matrix
    return compute_permanent(matrix(), to_options(o, progress));
  if (progress == nullptr && o.read) return compute_dense_permanent(one, matrix, *o.read);
  return compute_dense_permanent(one, matrix, to_options(o, progress));
}

permanent_results compute_dense_batch(int batch, int n, const double* real, const double* imag, int step,
                                      const door_options& o, progress_counter& progress) {
  check_size(n);
  const dense_matrices values{batch, n, real, imag, step};
  const auto matrix_at = [&](std::int64_t k) { return dense_matrix(values, k, o); };
  const compute_options options = to_options(o, &progress);
  if (!o.row_multiplicities.empty() || !o.column_multiplicities.empty())  // the arrays are not the matrices
    return compute_permanents(values.count, matrix_at, options);
  return compute_permanents(values.count, matrix_at, options, values);
}

door_inspection inspect(const door_matrix& matrix, const door_options& o) {
  const sparse_matrix a = to_sparse(matrix, o);
  const permanent_plan plan = make_plan(a, to_options(o, nullptr), true);
  door_inspection d;
  d.n = plan.n;
  d.nnz = plan.nnz;
  d.engines = plan_engines(plan);
  d.plan = summarize_plan(plan);
  for (const block_plan& b : plan.blocks) {
    door_block block;
    block.n = b.matrix.n();
    block.nnz = b.matrix.nnz();
    block.engine = b.engine ? std::string(b.engine->name) : "";
    for (const engine_estimate& e : b.estimates) {
      door_estimate estimate;
      estimate.engine = std::string(e.engine->name);
      estimate.possible = e.seconds.has_value();
      estimate.seconds = e.seconds.value_or(0.0);
      estimate.why = !estimate.possible          ? e.why
                     : !e.arithmetic_why.empty() ? e.arithmetic_why
                     : e.arithmetic              ? arithmetic_words(*e.arithmetic)
                                                 : std::string();
      block.estimates.push_back(std::move(estimate));
    }
    d.blocks.push_back(std::move(block));
  }
  return d;
}

std::vector<door_engine> engines(const door_options& o) {
  const compute_options options = to_options(o, nullptr);
  std::vector<door_engine> all;
  for (const engine_description* e : engine_descriptions()) {
    door_engine d{std::string(e->name), std::string(e->summary), true, ""};
    if (const auto why = engine_unavailable(*e, options)) {
      d.available = false;
      d.why = *why;
    }
    all.push_back(std::move(d));
  }
  return all;
}

bool has_cuda_build() {
#if defined(__CUDACC__)
  return true;
#else
  return false;
#endif
}

}  // namespace sparseperm::python
