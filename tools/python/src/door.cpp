// The library side of the Python package: compiled by nvcc where the toolkit is found (the GPU
// engines, the generated ones through the same pipeline and cache as the CLI), else by the host
// compiler (CPU engines; the GPU ones say why they cannot run).
#include "door.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <sparseperm/perm.cuh>
#include <sparseperm/pipeline.cuh>
#include <sparseperm/structure/repeated_lines.cuh>

namespace sparseperm::python {
namespace {

door_error::kind door_kind(engine_error::kind kind) {
  switch (kind) {
    case engine_error::kind::unknown_engine:
      return door_error::kind::unknown_engine;
    case engine_error::kind::unavailable:
      return door_error::kind::unavailable;
    case engine_error::kind::too_large:
      return door_error::kind::too_large;
    case engine_error::kind::overflow:
      return door_error::kind::overflow;
    case engine_error::kind::refused:
    case engine_error::kind::bad_setting:
      return door_error::kind::refused;
    case engine_error::kind::interrupted:
      return door_error::kind::interrupted;
    case engine_error::kind::failed:
      break;
  }
  return door_error::kind::failed;
}

// f(), with the library's exceptions as door_error (memory exhaustion stays std::bad_alloc).
template <class F>
auto translated(F f) -> decltype(f()) {
  try {
    return f();
  } catch (const door_error&) {
    throw;
  } catch (const input_error& e) {
    throw door_error(door_error::kind::bad_input, e.what());
  } catch (const engine_error& e) {
    throw door_error(door_kind(e.reason()), e.what());
  } catch (const std::invalid_argument& e) {
    throw door_error(door_error::kind::bad_input, e.what());
  }
}

[[noreturn]] void bad_input(const std::string& message) { throw door_error(door_error::kind::bad_input, message); }

void check_size(std::int64_t n) {
  if (n < 0) bad_input("a matrix cannot have a negative size");
  if (n > max_matrix_market_dimension) {
    throw door_error(door_error::kind::too_large, "the matrix is " + std::to_string(n) + " x " + std::to_string(n) +
                                                      ", beyond the size limit of " +
                                                      std::to_string(max_matrix_market_dimension));
  }
}

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
sparse_matrix with_multiplicities(const sparse_matrix& a, const door_options& o) {
  if (o.row_multiplicities.empty() && o.column_multiplicities.empty()) return a;
  return translated([&] { return expand_lines(a, o.row_multiplicities, o.column_multiplicities); });
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
  const sparse_matrix a = translated([&] { return sparse_matrix::from_entries(m.n, std::move(entries)); });
  return with_multiplicities(a, o);
}

int devices_present() {
#if defined(__CUDACC__)
  return gpu::device_count();
#else
  return 0;
#endif
}

// devices=: the tool's grammar (parse_device_list); no CUDA device for "all" is an unavailable engine.
std::vector<int> parse_devices(const std::string& text) {
  if (text.empty()) return {0};
  try {
    return parse_device_list(text, devices_present());
  } catch (const std::invalid_argument& e) {
    const bool none = devices_present() == 0 && (text == "all" || text == "split");
    throw door_error(none ? door_error::kind::unavailable : door_error::kind::bad_input,
                     std::string("devices: ") + e.what());
  }
}

compute_options to_options(const door_options& o, progress_counter* progress) {
  compute_options options;
  if (o.engine != "auto") {
    const engine_description* engine = find_engine(o.engine);
    if (engine == nullptr) {
      throw door_error(door_error::kind::unknown_engine,
                       "unknown engine '" + o.engine + "' (engines: auto, " + engine_names() + ")");
    }
    options.engine = engine_choice(engine);
  }
  if (!o.precision.empty()) {
    const auto p = parse_precision(o.precision);
    if (!p || *p == precision::automatic)
      bad_input("unknown precision '" + o.precision + "' (double, compensated or exact)");
    options.precision = *p;
  }
  if (o.threads < 0) bad_input("threads: a count below 0");
  options.threads = o.threads;
  options.devices = parse_devices(o.devices);
  options.time_limit_seconds = o.time_limit_seconds;
  options.pipeline.include_dir = o.include_dir;
  options.progress = progress;
  return options;
}

door_result to_door(const permanent_result& r) {
  door_result d;
  d.permanent = r.permanent;
  d.permanent_imag = r.permanent_imag;
  d.value = r.value;
  d.imag = r.imag;
  d.exact = r.exact;
  d.complex = r.complex;
  d.has_error_bound = r.error_bound.has_value();
  d.error_bound = r.error_bound.value_or(0.0);
  d.scale_exponent = r.scale_exponent;
  d.scaled_value = r.scaled_value;
  d.scaled_imag = r.scaled_imag;
  d.scaled_error_bound = r.scaled_error_bound;
  d.engine = r.engine;
  d.plan = r.plan;
  d.n = r.n;
  d.threads = r.threads;
  d.nnz = r.nnz;
  d.seconds_plan = r.seconds.plan;
  d.seconds_codegen = r.seconds.codegen;
  d.seconds_compile = r.seconds.compile;
  d.seconds_compute = r.seconds.compute;
  d.seconds_total = r.seconds.total;
  return d;
}

// The library's batch (batch.cuh) of matrix_at(0 .. count − 1), its failures as door errors.
template <class MatrixAt>
std::vector<door_result> run_batch(std::int64_t count, const door_options& o, progress_counter& progress,
                                   const MatrixAt& matrix_at) {
  const compute_options options = to_options(o, &progress);
  std::vector<permanent_result> results;
  try {
    results = translated([&] { return compute_permanents(count, matrix_at, options); });
  } catch (const batch_error& e) {
    try {
      translated([&] { std::rethrow_exception(e.cause()); });
    } catch (const door_error& cause) {
      throw door_error(cause.reason(), e.what());
    }
    throw;  // not a library error (memory): as it was
  }
  std::vector<door_result> converted(results.size());
  for (std::size_t k = 0; k < results.size(); ++k) converted[k] = to_door(results[k]);
  return converted;
}

}  // namespace

door_matrix read_matrix_market_file(const std::string& path) {
  const matrix_market_file file = translated([&] { return read_matrix_market(path); });
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

door_result compute(const door_matrix& matrix, const door_options& o, progress_counter& progress) {
  const sparse_matrix a = to_sparse(matrix, o);
  const compute_options options = to_options(o, &progress);
  return to_door(translated([&] { return compute_permanent(a, options); }));
}

std::vector<door_result> compute_batch(const std::vector<door_matrix>& matrices, const door_options& o,
                                       progress_counter& progress) {
  return run_batch(static_cast<std::int64_t>(matrices.size()), o, progress,
                   [&](std::int64_t k) { return to_sparse(matrices[static_cast<std::size_t>(k)], o); });
}

std::vector<door_result> compute_dense_batch(int batch, int n, const double* real, const double* imag,
                                             const door_options& o, progress_counter& progress) {
  check_size(n);
  const std::size_t size = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  return run_batch(batch, o, progress, [&](std::int64_t k) {
    std::vector<matrix_entry> entries;
    entries.reserve(size);
    const double* re = real + static_cast<std::size_t>(k) * size;
    const double* im = imag ? imag + static_cast<std::size_t>(k) * size : nullptr;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
        const double x = re[at], y = im ? im[at] : 0.0;
        if (x != 0 || y != 0 || !std::isfinite(x) || !std::isfinite(y)) entries.push_back(checked_entry(n, i, j, x, y));
      }
    }
    return with_multiplicities(translated([&] { return sparse_matrix::from_entries(n, std::move(entries)); }), o);
  });
}

door_inspection inspect(const door_matrix& matrix, const door_options& o) {
  const sparse_matrix a = to_sparse(matrix, o);
  const compute_options options = to_options(o, nullptr);
  const permanent_plan plan = translated([&] { return make_plan(a, options, true); });
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
