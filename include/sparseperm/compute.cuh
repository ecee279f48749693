#pragma once
// The host entry point: check the structure, choose an engine, run it, time it.
//
// Every call returns the same record (result.cuh). A 0×0 matrix has permanent 1; a matrix without a
// perfect matching (structural rank < n) has permanent 0, found by matching before any engine runs.
//
// Engines: dp, cpu-sparse and reference everywhere; cpu-cached through the pipeline (a host module
// generated and compiled for the matrix) where a C++ compiler is found at run time; gpu-sparse where
// this translation unit is compiled by nvcc and a CUDA device is present; gpu-cached, gpu-purereg and
// gpu-hybrid through the pipeline (a kernel generated and compiled for the matrix), which also needs
// nvcc at run time. `auto` follows
// the planner (planner.cuh): fine blocks, degree reductions, the cheapest engine for each block.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detail/big_integer.cuh"
#include "detail/error_bound.cuh"
#include "detail/product_bound.cuh"
#include "detail/scaled_double.cuh"
#include "detail/runtime_arithmetic.cuh"
#include "engine_catalog.cuh"
#include "engine_error.cuh"
#include "engines/cpu_sparse.cuh"
#include "engines/dp.cuh"
#include "planner.cuh"
#include "engines/reference.cuh"
#include "progress.cuh"
#include "result.cuh"
#include "runtime/matching.cuh"
#include "runtime/host_module_runner.cuh"
#include "runtime/pipeline.cuh"
#include "runtime/sparse_matrix.cuh"
#if defined(__CUDACC__)
#  include "engines/gpu_sparse.cuh"
#  include "gpu/module_runner.cuh"
#endif

namespace sparseperm {

// The engine that `name` means for an n×n matrix; throws engine_error when there is none. (`auto`
// is the planner's, and needs no check here.)
inline const engine_description& resolve_engine(const std::string& name, int n, const compute_options& options = {}) {
  const engine_description* engine = find_engine(name);
  if (engine == nullptr) {
    throw engine_error(engine_error::kind::unknown_engine, "unknown engine '" + name + "' (engines: " + engine_names() + ")");
  }
  if (n > engine->max_n) {
    throw engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) + " exceeds the limit of engine '" +
                                                          name + "' (n <= " + std::to_string(engine->max_n) + ")");
  }
  if (const auto why = engine_unavailable(*engine, options)) {
    throw engine_error(engine_error::kind::unavailable, "engine '" + name + "' is not available: " + *why);
  }
  return *engine;
}

// The dp engine on a matrix, in the column order `order` (dp_orders).
inline permanent_result permanent_dp(const sparse_matrix& matrix, const dp_order& order, int threads = 0) {
  const auto start = std::chrono::steady_clock::now();
  const dp_value v = permanent_dp_value(matrix, order, threads);
  permanent_result result;
  result.engine = "dp";
  result.n = matrix.n();
  result.nnz = matrix.nnz();
  result.threads = detail::engine_threads(threads);
  if (v.exact) {
    result.exact = true;
    result.permanent = v.exact_value.to_decimal();
    result.value = v.value;
  } else {
    set_floating_value(result, v.value);
    set_error_bound(result, v.error_bound);
  }
  result.plan = "columns in " + order.name + " order; frontier " + std::to_string(order.frontier) + " rows; " +
                std::to_string(v.peak_states) + " states at most; " + format_count(v.transitions) + " transitions; " + v.arithmetic;
  result.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// The dp engine on the whole matrix, with the best column order it finds.
inline permanent_result permanent_dp(const sparse_matrix& matrix, int threads = 0) {
  return permanent_dp(matrix, dp_orders(matrix).front(), threads);
}

// A generated engine's result: its code generation and compilation, and where its module is.
inline void note_module(permanent_result& result, const compiled_module& module) {
  result.seconds.codegen = module.codegen_seconds;
  result.seconds.compile = module.compile_seconds;
  result.plan += module.cached ? "; module from the cache " + module.directory : "; module compiled into " + module.directory;
}

// A generated engine's run: the module compiled or found in the cache, then run(module). A module
// from the cache that proves to be another matrix's (module_proof.cuh) loses its entry and is built
// again, once; a freshly built one that does is our failure, reported as such.
template <class Run>
permanent_result run_module_of(const sparse_matrix& matrix, const std::string& source_name, const pipeline_options& pipeline,
                               const Run& run) {
  for (int attempt = 0;; ++attempt) {
    const compiled_module module = compile_module(matrix, source_name, pipeline);
    try {
      permanent_result result = run(module);
      note_module(result, module);
      return result;
    } catch (const module_mismatch_error&) {
      if (!module.cached || attempt > 0) throw;
      detail::remove_cache_path(module.directory);
    }
  }
}

// The pipeline's options for a generated engine: the caller's, with the engine and the precision.
inline pipeline_options pipeline_for(const std::string& engine, const compute_options& options) {
  pipeline_options pipeline = options.pipeline;
  pipeline.engine = engine;
  pipeline.precision = options.precision;
  return pipeline;
}

// `engine` on a matrix with a perfect matching, in the arithmetic options.precision asks for.
inline permanent_result run_engine(const sparse_matrix& matrix, const engine_description& engine, const compute_options& options) {
  const std::string name(engine.name);
  if (options.precision == precision::exact) {  // refused before any compiling or running
    if (const auto why = detail::exact_refusal(matrix, name)) throw engine_error(engine_error::kind::refused, *why);
  }
  if (name != "dp" && name != "reference") {  // the Ryser engines round values to row grids (error_bound.cuh)
    if (const auto why = detail::ryser_bound_refusal(matrix)) {
      throw engine_error(engine_error::kind::refused, "engine '" + name + "' cannot certify a result for this matrix (" + *why +
                                                          "); dp and reference can");
    }
  }
  permanent_result result;
  if (name == "cpu-sparse") {
    result = permanent_cpu_sparse(matrix, {.threads = options.threads, .progress = options.progress, .precision = options.precision});
  } else if (name == "dp") {
    result = permanent_dp(matrix, options.threads);
  } else if (name == "reference") {
    result = permanent_reference(matrix);
  } else if (engine.kind == engine_kind::host_generated) {
    result = run_module_of(matrix, options.source_name, pipeline_for(name, options), [&](const compiled_module& module) {
      return run_host_module(module.image, module.path, matrix, options.precision, {.threads = options.threads, .progress = options.progress});
    });
  } else {
#if defined(__CUDACC__)
    if (engine.kind == engine_kind::gpu_generated) {
      pipeline_options pipeline = pipeline_for(name, options);
      if (pipeline.arch.empty()) {
        const cudaDeviceProp device = gpu::select_device(options.device, pipeline.engine);
        pipeline.arch = "sm_" + std::to_string(device.major) + std::to_string(device.minor);
      }
      result = run_module_of(matrix, options.source_name, pipeline, [&](const compiled_module& kernel) {
        return gpu::run_module(kernel.image, kernel.path, pipeline.engine, matrix, options.precision,
                               {.device = options.device, .progress = options.progress});
      });
    } else {
      result = permanent_gpu_sparse(matrix, {.device = options.device, .progress = options.progress, .precision = options.precision});
    }
#endif
  }
  return result;
}

// Runs a plan: each block on its engine, the product of the blocks and the factors.
inline permanent_result run_plan(const permanent_plan& plan, const compute_options& options) {
  permanent_result result;
  result.engine = plan_engines(plan);
  result.n = plan.n;
  result.nnz = plan.nnz;
  result.plan = summarize_plan(plan);
  if (plan.zero) {
    set_exact_value(result, 0, plan.zero_reason);
    return result;
  }
  bool exact = plan.integer;
  detail::big_integer exact_value = plan.factor;
  detail::scaled_double value = plan.factor_value;  // scaled: blocks of tiny or huge permanents multiply safely
  detail::product_bound bound(plan.n);              // the floating product's error bound (product_bound.cuh)
  for (const auto& block : plan.blocks) {
    // exact on a block a Ryser engine cannot hold (entries beyond residues): dp, which holds any
    const bool dp = block.engine == "dp" ||
                    (options.precision == precision::exact && detail::exact_refusal(block.matrix, block.engine).has_value());
    const permanent_result r = dp ? permanent_dp(block.matrix, block.order, options.threads)
                                  : run_engine(block.matrix, *find_engine(block.engine), options);
    exact = exact && r.exact;
    if (exact) exact_value = exact_value * detail::big_integer::from_decimal(r.permanent);
    value *= r.value;
    bound.factor(r.value, r.exact ? 0.0 : r.error_bound.value_or(std::numeric_limits<double>::infinity()));
    result.threads = std::max(result.threads, r.threads);
    result.registers_per_thread = std::max(result.registers_per_thread, r.registers_per_thread);
    result.seconds.codegen += r.seconds.codegen;
    result.seconds.compile += r.seconds.compile;
  }
  if (exact) {
    result.exact = true;
    result.permanent = exact_value.to_decimal();
    result.value = exact_value.to_double();
  } else {
    if (value.overflows()) {
      throw engine_error(engine_error::kind::overflow, "the permanent is not finite in double precision (about 2^" +
                                                           std::to_string(value.exponent()) + ", beyond its range)");
    }
    set_floating_value(result, value.to_double());
    set_error_bound(result, (bound.of(plan.factor_value, value) + value.conversion_error_up()) * detail::bound_margin);
  }
  return result;
}

// A floating result of a matrix read from a file whose values were rounded on reading
// (sparse_matrix::input_rounding): the bound grows by what that rounding can change, so that it
// holds for the matrix the file wrote, as the row grids' change does for the matrix held
// (detail/error_bound.cuh: |perm(Â) − perm(A)| ≤ (Π(1 + ρ_i) − 1)·perm(|A|)).
inline void add_input_rounding(permanent_result& result, const sparse_matrix& matrix) {
  if (result.exact || !result.error_bound || matrix.input_rounding().empty()) return;
  const std::vector<double>& rho = matrix.input_rounding();
  // the sums bound the file's |a_ij| ≤ |â_ij| / (1 − ρ), not only the doubles held
  const double widen = detail::bound_margin / (1 - *std::max_element(rho.begin(), rho.end()));
  const detail::grid_rounding_builder facts =
      detail::perturbation_builder(matrix, [&](int i) { return rho[static_cast<std::size_t>(i)]; }, widen);
  const double bound = *result.error_bound;
  set_error_bound(result, (bound + detail::grid_perturbation_bound(facts.facts(), result.value, bound)) * detail::bound_margin);
  result.plan += "; the bound includes the rounding of the file's values to doubles";
}

inline permanent_result compute_permanent(const sparse_matrix& matrix, const compute_options& options = {}) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const int n = matrix.n();
  permanent_result result;
  if (options.engine == "auto") {
    if (options.precision == precision::exact) {
      if (const auto why = detail::exact_refusal(matrix, "auto")) throw engine_error(engine_error::kind::refused, *why);
    }
    const permanent_plan plan = make_plan(matrix, options);
    const double plan_seconds = std::chrono::duration<double>(clock::now() - start).count();
    result = run_plan(plan, options);
    add_input_rounding(result, matrix);
    result.seconds.plan = plan_seconds;
    result.seconds.total = std::chrono::duration<double>(clock::now() - start).count();
    result.seconds.compute = result.seconds.total - plan_seconds - result.seconds.codegen - result.seconds.compile;
    return result;
  }
  const engine_description& engine = resolve_engine(options.engine, n, options);
  const bipartite_matching matching = maximum_matching(matrix);
  const double plan_seconds = std::chrono::duration<double>(clock::now() - start).count();
  if (n == 0 || matching.size < n) {
    result.engine = "structure";
    result.n = n;
    result.nnz = matrix.nnz();
    set_exact_value(result, n == 0 ? 1 : 0,
                    n == 0 ? "the 0 x 0 matrix: permanent 1 by convention"
                           : "structurally singular: a maximum matching covers " + std::to_string(matching.size) + " of " +
                                 std::to_string(n) + " rows, so every term has a zero factor");
  } else {
    result = run_engine(matrix, engine, options);
    add_input_rounding(result, matrix);
  }
  result.seconds.plan = plan_seconds;
  result.seconds.total = std::chrono::duration<double>(clock::now() - start).count();
  return result;
}

}  // namespace sparseperm
