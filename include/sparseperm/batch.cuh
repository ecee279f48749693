#pragma once
// Many independent permanents in one call: samplers compute millions of small ones, where a plan per
// matrix would cost more than the matrix.
//
// A matrix with every entry nonzero has no structure for the planner to find (no blocks, no small
// frontier), so the Ryser loop is its engine: such a "dense" matrix (n from tiny_matrix_n + 1 to
// dense_batch_max_n) skips the planner and runs cpu-sparse's loop on one CPU thread, the matrices
// `options.threads` at a time; or, for floating values on a CUDA build with a device, that same loop
// on the GPU with one warp per matrix (gpu/dense_batch_kernel.cuh), when gpu_batch_pays says the GPU
// is the faster (a model fitted on an H100 host, its constants in the cpu-sparse and gpu-sparse tags).
// Every other matrix goes through compute_permanent on one thread; and when the batch has fewer
// matrices than threads, each matrix gets them all (one after the other).
//
// Either way each result is the one compute_permanent would certify: the same arithmetic choice,
// row grids and error bound.
//
// options.engine is compute's engine_choice: auto (the routes above), engines::cpu_sparse (every
// dense matrix on the CPU), engines::gpu_sparse (every dense floating one on the GPU), or any other
// engine for every matrix through compute_permanent.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "compute.cuh"
#include "core/engine_error.cuh"
#include "core/progress.cuh"
#include "detail/threads.cuh"
#include "engines/cpu_sparse.cuh"
#include "engines/gpu_sparse.cuh"
#include "matrix/exactness.cuh"
#include "matrix/row_grids.cuh"
#include "matrix/sparse_matrix.cuh"
#if defined(__CUDACC__)
#  include "gpu/cuda_support.cuh"
#  include "gpu/dense_batch_kernel.cuh"
#endif

namespace sparseperm {

// The largest dense matrix a batch runs without a plan: 2^29 steps on one thread is seconds.
inline constexpr int dense_batch_max_n = 30;

// One warp per matrix on the GPU from n = 7 (64 steps: two a lane) to this n (2^18 steps a lane).
inline constexpr int gpu_batch_min_n = detail::tiny_matrix_n + 1;
inline constexpr int gpu_batch_max_n = 24;

namespace detail {

#if defined(__CUDACC__)
inline constexpr bool compiled_for_gpu = true;  // nvcc compiled this: the GPU route exists
#else
inline constexpr bool compiled_for_gpu = false;
#endif

// The batch route a matrix takes.
enum class batch_route { planned, dense_cpu, dense_gpu };

// Whether the run is in floating arithmetic: non-integer values, or a floating precision asked for.
inline bool floating_run(const sparse_matrix& a, const compute_options& options) {
  return options.precision != precision::exact &&
         (!a.has_integer_values() || options.precision == precision::double_sums ||
          options.precision == precision::compensated);
}

// A dense matrix cpu-sparse's loop certifies without a plan, as compute_permanent would (no unit
// scaling needed, the arithmetic it would choose holds it).
inline bool dense_batch_eligible(const sparse_matrix& a, const compute_options& options) {
  const int n = a.n();
  if (n <= tiny_matrix_n || n > dense_batch_max_n || a.nnz() != static_cast<std::int64_t>(n) * n) return false;
  if (needs_unit_scaling(a)) return false;
  if (floating_run(a, options)) return !row_grid_refusal(a);
  // exact: integer values only, in an arithmetic cpu-sparse has
  return a.has_integer_values() && !exact_refusal(a, engines::cpu_sparse::name, engines::cpu_sparse::exact);
}

inline bool gpu_batch_eligible(const sparse_matrix& a, const compute_options& options) {
  return a.n() >= gpu_batch_min_n && a.n() <= gpu_batch_max_n && floating_run(a, options);
}

inline double dense_batch_steps(int n) { return std::ldexp(1.0, n - 1) * (n + 2); }

// Whether the GPU runs the dense matrices of these sizes sooner than `threads` CPU threads would.
inline bool gpu_batch_pays(const std::vector<int>& sizes, bool complex, int threads) {
  using cpu = engines::cpu_sparse;
  using gpu = engines::gpu_sparse;
  const double factor = complex ? cpu::complex_factor : 1;
  std::vector<double> count(gpu_batch_max_n + 1, 0);
  double cpu_seconds = 0, gpu_seconds = gpu::batch_setup_seconds;
  for (int n : sizes) {
    cpu_seconds += (cpu::batch_matrix_seconds + dense_batch_steps(n) * cpu::batch_step_per_row_seconds * factor) /
                   std::max(threads, 1);
    gpu_seconds += gpu::batch_prepare_per_entry_seconds * n * n;
    ++count[static_cast<std::size_t>(n)];
  }
  for (int n = gpu_batch_min_n; n <= gpu_batch_max_n; ++n) {
    const double waves = std::ceil(count[static_cast<std::size_t>(n)] / gpu::batch_resident_warps);
    gpu_seconds += waves * dense_batch_steps(n) / 32 * gpu::batch_lane_step_per_row_seconds * factor;
  }
  return gpu_seconds < cpu_seconds;
}

inline permanent_result run_dense_cpu(const sparse_matrix& a, const compute_options& options) {
  permanent_result r = permanent_cpu_sparse(
      a, {.threads = 1, .progress = options.progress, .precision = options.precision, .sharing = {}});
  add_input_rounding(r, a);
  r.plan = "dense, no plan: " + r.plan;
  r.seconds.total = r.seconds.compute;
  return r;
}

// One call of compute_permanents: the matrices, their routes and results, the first failure.
template <class MatrixAt>
class batch_run {
 public:
  batch_run(std::int64_t count, const MatrixAt& matrix_at, const compute_options& options)
      : count_(count),
        matrix_at_(matrix_at),
        options_(options),
        threads_(engine_threads(options.threads)),
        progress_(options.progress),
        results_(static_cast<std::size_t>(count)),
        failures_(static_cast<std::size_t>(count)) {
    one_ = options;
    one_.threads = 1;
    one_.progress = progress_ ? &inner_ : nullptr;  // a stop request reaches every matrix's loop
    inner_.parent = progress_;                      // at once, also inside a long one
    if (progress_) progress_->total.store(static_cast<std::uint64_t>(count), std::memory_order_relaxed);
  }

  std::vector<permanent_result> run() {
    const bool routed = options_.engine.automatic() || is(engines::cpu_sparse{}) || is(engines::gpu_sparse{});
    if (count_ < threads_ || !routed) return run_each();
    route();
    if (failed_) return finish();
    choose_gpu();
    run_cpu_routes();
    run_gpu_route();
    return finish();
  }

 private:
  template <Engine E>
  bool is(E) const {
    return options_.engine.get() == &description_of<E>;
  }
  bool stopped() const { return stop_requested(progress_); }
  template <class Body>
  void guarded(std::int64_t k, const Body& body) {
    if (failed_.load(std::memory_order_relaxed) || stopped()) return;
    try {
      body();
    } catch (...) {
      failures_[static_cast<std::size_t>(k)] = std::current_exception();
      failed_.store(true);
    }
    if (progress_) progress_->done.fetch_add(1, std::memory_order_relaxed);
  }
  // The results, or the first failing matrix's error (by index) as a batch_error.
  std::vector<permanent_result> finish() {
    for (std::size_t k = 0; k < failures_.size(); ++k) {
      if (!failures_[k]) continue;
      try {
        std::rethrow_exception(failures_[k]);
      } catch (const std::exception& e) {
        throw batch_error(static_cast<std::int64_t>(k), e.what(), failures_[k]);
      }
    }
    throw_if_stopped(progress_);
    return std::move(results_);
  }

  // Each matrix on every thread, through the planner or the engine asked for.
  std::vector<permanent_result> run_each() {
    compute_options each = options_;
    each.progress = one_.progress;
    for (std::int64_t k = 0; k < count_ && !failed_; ++k)
      guarded(k, [&] { results_[static_cast<std::size_t>(k)] = compute_permanent(matrix_at_(k), each); });
    return finish();
  }

  // The matrices and their routes (in parallel: converting and checking costs about what a 10 x 10
  // matrix's loop does).
  void route() {
    matrices_.resize(static_cast<std::size_t>(count_));
    routes_.assign(static_cast<std::size_t>(count_), batch_route::planned);
    parallel_for<schedule::dynamic_one>(count_, threads_, [&](std::int64_t k) {
      if (failed_.load(std::memory_order_relaxed)) return;
      try {
        const std::size_t at = static_cast<std::size_t>(k);
        matrices_[at] = matrix_at_(k);
        if (!dense_batch_eligible(matrices_[at], options_)) return;
        // gpu-sparse asked for: the GPU's route or the engine itself, never the CPU's loop
        const bool gpu = compiled_for_gpu && gpu_batch_eligible(matrices_[at], options_);
        if (is(engines::gpu_sparse{})) {
          if (gpu) routes_[at] = batch_route::dense_gpu;
        } else {
          routes_[at] = gpu && options_.engine.automatic() ? batch_route::dense_gpu : batch_route::dense_cpu;
        }
      } catch (...) {
        failures_[static_cast<std::size_t>(k)] = std::current_exception();
        failed_.store(true);
      }
    });
  }

  // The GPU's matrices where a device is there and (auto) the model says the GPU pays; else auto's
  // go to the CPU's loop and gpu-sparse's to the engine, which says why it cannot run.
  void choose_gpu() {
    for (std::int64_t k = 0; k < count_; ++k)
      if (routes_[static_cast<std::size_t>(k)] == batch_route::dense_gpu) gpu_group_.push_back(k);
    if (gpu_group_.empty()) return;
    bool on_gpu = false;
#if defined(__CUDACC__)
    on_gpu = gpu::device_count() > 0;
    if (on_gpu && options_.engine.automatic()) {
      std::vector<int> sizes;
      bool complex = false;
      for (std::int64_t k : gpu_group_) {
        sizes.push_back(matrices_[static_cast<std::size_t>(k)].n());
        complex = complex || matrices_[static_cast<std::size_t>(k)].is_complex();
      }
      on_gpu = gpu_batch_pays(sizes, complex, threads_);
    }
#endif
    if (on_gpu) return;
    for (std::int64_t k : gpu_group_)
      routes_[static_cast<std::size_t>(k)] =
          options_.engine.automatic() ? batch_route::dense_cpu : batch_route::planned;
    gpu_group_.clear();
  }

  // The CPU's matrices, while the GPU's wait for it (the GPU's host work is spread over the threads).
  void run_cpu_routes() {
    parallel_for<schedule::dynamic_one>(count_, threads_, [&](std::int64_t k) {
      const std::size_t at = static_cast<std::size_t>(k);
      if (routes_[at] == batch_route::dense_gpu) return;
      guarded(k, [&] {
        results_[at] = routes_[at] == batch_route::dense_cpu ? run_dense_cpu(matrices_[at], one_)
                                                             : compute_permanent(matrices_[at], one_);
      });
    });
  }

  void run_gpu_route() {
#if defined(__CUDACC__)
    if (gpu_group_.empty() || failed_ || stopped()) return;
    try {
      run_dense_gpu(matrices_, gpu_group_, results_,
                    {.device = options_.first_device(),
                     .engine = engines::gpu_sparse::name,
                     .threads = options_.threads,
                     .precision = options_.precision,
                     .min_n = gpu_batch_min_n,
                     .max_n = gpu_batch_max_n});
      for (std::int64_t k : gpu_group_)
        add_input_rounding(results_[static_cast<std::size_t>(k)], matrices_[static_cast<std::size_t>(k)]);
      if (progress_) progress_->done.fetch_add(gpu_group_.size(), std::memory_order_relaxed);
    } catch (...) {
      failures_[static_cast<std::size_t>(gpu_group_.front())] = std::current_exception();
    }
#endif
  }

  const std::int64_t count_;
  const MatrixAt& matrix_at_;
  const compute_options& options_;
  const int threads_;
  progress_counter* const progress_;
  progress_counter inner_;
  compute_options one_;
  std::vector<permanent_result> results_;
  std::vector<std::exception_ptr> failures_;
  std::atomic<bool> failed_{false};
  std::vector<sparse_matrix> matrices_;
  std::vector<batch_route> routes_;
  std::vector<std::int64_t> gpu_group_;
};

}  // namespace detail

// The permanents of `count` matrices, matrix_at(k) giving matrix k (it may throw: that matrix's
// error), in order. The first failing matrix (by index) is thrown as a batch_error
// (core/engine_error.cuh); a stop request (options.progress) ends the batch. progress counts matrices.
template <class MatrixAt>
std::vector<permanent_result> compute_permanents(std::int64_t count, const MatrixAt& matrix_at,
                                                 const compute_options& options) {
  return detail::batch_run<MatrixAt>(count, matrix_at, options).run();
}

}  // namespace sparseperm
