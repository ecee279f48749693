#pragma once
// The host entry point: check the structure, choose an engine, run it, time it.
//
// Every call returns the same record (result.cuh). A 0×0 matrix has permanent 1; a matrix without a
// perfect matching (structural rank < n) has permanent 0, found by matching before any engine runs.
// `auto` takes the fastest engine of this build that can handle n.
#include <chrono>
#include <cmath>
#include <string>
#include <string_view>

#include "engine_error.cuh"
#include "engines/cpu_sparse.cuh"
#include "engines/reference.cuh"
#include "progress.cuh"
#include "result.cuh"
#include "runtime/matching.cuh"
#include "runtime/sparse_matrix.cuh"

namespace sparseperm {

struct engine_description {
  std::string_view name;
  std::string_view summary;
  int max_n;
};

// The engines of this build, fastest first: `auto` takes the first whose limit admits n.
inline constexpr engine_description host_engines[] = {
    {"cpu-sparse", "the paper's CPU-SparsePerman: sparse Ryser over CSC, degree-sorted columns, zero tracking, OpenMP",
     cpu_sparse_max_n},
    {"reference", "brute force (n <= 10) or dense Ryser (n <= 26); long double, exact for integer matrices",
     reference_ryser_max_n},
};

struct compute_options {
  std::string engine = "auto";
  int threads = 0;                       // 0: all that OpenMP offers
  progress_counter* progress = nullptr;
};

inline std::string engine_names() {
  std::string names = "auto";
  for (const auto& e : host_engines) names += ", " + std::string(e.name);
  return names;
}

inline const engine_description* find_engine(std::string_view name) {
  for (const auto& e : host_engines) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

// The engine that `options.engine` means for an n×n matrix; throws engine_error when there is none.
inline const engine_description& resolve_engine(const std::string& name, int n) {
  if (name == "auto") {
    for (const auto& e : host_engines) {
      if (n <= e.max_n) return e;
    }
    throw engine_error(engine_error::kind::too_large,
                       "n = " + std::to_string(n) + " exceeds the limit of every engine in this build (the largest is " +
                           std::string(host_engines[0].name) + ", n <= " + std::to_string(host_engines[0].max_n) + ")");
  }
  const engine_description* engine = find_engine(name);
  if (engine == nullptr) {
    throw engine_error(engine_error::kind::unknown_engine, "unknown engine '" + name + "' (engines: " + engine_names() + ")");
  }
  if (n > engine->max_n) {
    throw engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) + " exceeds the limit of engine '" +
                                                          name + "' (n <= " + std::to_string(engine->max_n) + ")");
  }
  return *engine;
}

inline permanent_result compute_permanent(const sparse_matrix& matrix, const compute_options& options = {}) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const int n = matrix.n();
  const engine_description& engine = resolve_engine(options.engine, n);

  const bipartite_matching matching = maximum_matching(matrix);
  const double plan_seconds = std::chrono::duration<double>(clock::now() - start).count();
  permanent_result result;
  if (n == 0 || matching.size < n) {
    result.engine = "structure";
    result.n = n;
    result.nnz = matrix.nnz();
    result.exact = true;
    result.value = n == 0 ? 1 : 0;
    result.permanent = n == 0 ? "1" : "0";
    result.plan = n == 0 ? "the 0 x 0 matrix: permanent 1 by convention"
                         : "structurally singular: a maximum matching covers " + std::to_string(matching.size) + " of " +
                               std::to_string(n) + " rows, so every term has a zero factor";
  } else if (engine.name == "cpu-sparse") {
    result = permanent_cpu_sparse(matrix, {.threads = options.threads, .progress = options.progress});
  } else {
    result = permanent_reference(matrix);
  }
  if (!std::isfinite(result.value)) {
    throw engine_error(engine_error::kind::failed,
                       "the permanent is not finite in double precision (" + format_double(result.value) +
                           "): the values are too large for engine '" + result.engine + "'");
  }
  result.seconds.plan = plan_seconds;
  result.seconds.total = std::chrono::duration<double>(clock::now() - start).count();
  return result;
}

}  // namespace sparseperm
