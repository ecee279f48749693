#pragma once
// Many independent permanents in one call: samplers compute millions of small ones, where a plan per
// matrix would cost more than the matrix.
//
// A matrix with every entry nonzero has no structure for the planner to find (no blocks, no small
// frontier), so the Ryser loop is its engine: such a "dense" matrix (n from tiny_matrix_n + 1 to
// dense_batch_max_n) skips the planner and runs cpu-sparse's loop on one CPU thread, the matrices
// `options.threads` at a time; or, for floating values on a CUDA build with a device, that same loop
// (ryser/sparse_ryser.cuh) on the GPU with one warp per matrix, when gpu_batch_pays says the GPU is
// the faster. Every other matrix goes through compute_permanent on one thread; and when the batch
// has fewer matrices than threads, each matrix gets them all (one after the other).
//
// Either way each result is the one compute_permanent would certify: the same arithmetic choice,
// row grids and error bound (the lanes of a warp are chunks whose sums are merged in order on the
// host, as cpu-sparse's chunks are).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "compute.cuh"
#include "core/engine_error.cuh"
#include "core/progress.cuh"
#include "detail/format.cuh"
#include "detail/threads.cuh"
#include "engines/cpu_sparse.cuh"
#include "engines/gpu_sparse.cuh"
#include "matrix/input_error.cuh"
#include "matrix/sparse_matrix.cuh"
#if defined(__CUDACC__)
#  include "gpu/cuda_support.cuh"
#endif

namespace sparseperm {

// The largest dense matrix a batch runs without a plan: 2^29 steps on one thread is seconds.
inline constexpr int dense_batch_max_n = 30;

// One warp per matrix on the GPU from n = 7 (64 steps: two a lane) to this n (2^18 steps a lane).
inline constexpr int gpu_batch_min_n = detail::tiny_matrix_n + 1;
inline constexpr int gpu_batch_max_n = 24;

// A failure of matrix `index` of a batch: its own error, prefixed "matrix K: ".
class batch_error : public std::runtime_error {
 public:
  batch_error(std::int64_t index, const std::string& message, std::exception_ptr cause)
      : std::runtime_error("matrix " + std::to_string(index) + ": " + message), index_(index), cause_(cause) {}
  std::int64_t index() const noexcept { return index_; }
  std::exception_ptr cause() const noexcept { return cause_; }  // the matrix's own exception

 private:
  std::int64_t index_;
  std::exception_ptr cause_;
};

namespace detail {

#if defined(__CUDACC__)
inline constexpr bool compiled_for_gpu = true;  // nvcc compiled this: the GPU route exists
#else
inline constexpr bool compiled_for_gpu = false;
#endif

// The batch routes' model, fitted to an H100 host (16 threads; tools/benchmarks.md, "Batches"): a
// matrix on a CPU thread costs its conversion and checks plus its steps; on the GPU, its share of the
// host's preparation (conversion, grids, columns, results) plus its lanes' steps, the warps running
// in waves of about 1000 (132 SMs) at a lane step per row much slower than a whole-GPU engine's.
inline constexpr double cpu_batch_matrix_seconds = 4e-5;
inline constexpr double cpu_batch_step_per_row_seconds = 3.2e-9;
inline constexpr double gpu_batch_setup_seconds = 2e-4;
inline constexpr double gpu_batch_prepare_per_entry_seconds = 7e-8;
inline constexpr double gpu_batch_lane_step_per_row_seconds = 1.2e-7;
inline constexpr double gpu_batch_resident_warps = 1024;

// The batch route a matrix takes.
enum class batch_route { planned, dense_cpu, dense_gpu };

// A dense matrix cpu-sparse's loop certifies without a plan, as compute_permanent would (no unit
// scaling needed, the arithmetic it would choose holds it), or nothing.
// Whether the run is in floating arithmetic: non-integer values, or a floating precision asked for.
inline bool floating_run(const sparse_matrix& a, const compute_options& options) {
  return options.precision != precision::exact &&
         (!a.has_integer_values() || options.precision == precision::double_sums ||
          options.precision == precision::compensated);
}

inline bool dense_batch_eligible(const sparse_matrix& a, const compute_options& options) {
  const int n = a.n();
  if (n <= tiny_matrix_n || n > dense_batch_max_n || a.nnz() != static_cast<std::int64_t>(n) * n) return false;
  if (needs_unit_scaling(a)) return false;
  if (floating_run(a, options)) return !ryser_bound_refusal(a);
  // exact: integer values only, in an arithmetic cpu-sparse has
  return a.has_integer_values() &&
         !exact_refusal(a, engines::cpu_sparse::name, description_of<engines::cpu_sparse>.exact);
}

inline bool gpu_batch_eligible(const sparse_matrix& a, const compute_options& options) {
  return a.n() >= gpu_batch_min_n && a.n() <= gpu_batch_max_n && floating_run(a, options);
}

inline double dense_batch_steps(int n) { return std::ldexp(1.0, n - 1) * (n + 2); }

// Whether the GPU runs the dense matrices of these sizes sooner than `threads` CPU threads would.
inline bool gpu_batch_pays(const std::vector<int>& sizes, bool complex, int threads) {
  const double factor = complex ? engines::cpu_sparse::complex_factor : 1;
  std::vector<double> count(gpu_batch_max_n + 1, 0);
  double cpu = 0, gpu = gpu_batch_setup_seconds;
  for (int n : sizes) {
    cpu += (cpu_batch_matrix_seconds + dense_batch_steps(n) * cpu_batch_step_per_row_seconds * factor) /
           std::max(threads, 1);
    gpu += gpu_batch_prepare_per_entry_seconds * n * n;
    ++count[static_cast<std::size_t>(n)];
  }
  for (int n = gpu_batch_min_n; n <= gpu_batch_max_n; ++n) {
    const double waves = std::ceil(count[static_cast<std::size_t>(n)] / gpu_batch_resident_warps);
    gpu += waves * dense_batch_steps(n) / 32 * gpu_batch_lane_step_per_row_seconds * factor;
  }
  return gpu < cpu;
}

inline permanent_result run_dense_cpu(const sparse_matrix& a, const compute_options& options) {
  permanent_result r =
      permanent_cpu_sparse(a, {.threads = 1, .progress = nullptr, .precision = options.precision, .sharing = {}});
  add_input_rounding(r, a);
  r.plan = "dense, no plan: " + r.plan;
  r.seconds.total = r.seconds.compute;
  return r;
}

#if defined(__CUDACC__)
// One warp per matrix, lane l running the aligned chunk l of its 2^(n−1) steps (step 0 is the
// host's) with x in shared memory at [warp][row][lane]; every matrix has the same dense columns.
template <class X, class Sum>
__global__ void dense_batch_kernel(int n, std::int64_t count, const std::int32_t* start, const std::int32_t* rows,
                                   const X* values, const X* x0, Sum* partial) {
  extern __shared__ __align__(16) unsigned char shared[];
  constexpr int lanes = 32;
  const int lane = static_cast<int>(threadIdx.x) % lanes, warp = static_cast<int>(threadIdx.x) / lanes;
  const std::int64_t m = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / lanes) + warp;
  if (m >= count) return;
  X* x = reinterpret_cast<X*>(shared) + static_cast<std::size_t>(warp) * lanes * n + lane;
  const sparse_columns_view<X> view{n, start, rows, values + m * n * n, x0 + m * n};
  const std::uint64_t chunk = step_count(n) / lanes;
  Sum sum;
  sparse_ryser_steps(view, x, lanes, lane == 0 ? 1 : lane * chunk, (lane + 1) * chunk, sum, plain_product{});
  partial[m * lanes + lane] = sum;
}

// The dense matrices `group` (of one size and kind, columns in `order`) on device `device`, their
// results into *results[k]; the host's part on `threads` threads.
template <class X, class Sum>
void run_dense_gpu_group(const std::vector<const sparse_matrix*>& group, const std::vector<int>& order,
                         permanent_result* const* results, int device, int threads) {
  const auto start_time = std::chrono::steady_clock::now();
  constexpr int lanes = 32;
  const int n = group.front()->n();
  const std::int64_t count = static_cast<std::int64_t>(group.size());
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<X> values(nn * group.size()), x0(static_cast<std::size_t>(n) * group.size());
  std::vector<grid_rounding_facts> grids(group.size());
  std::vector<std::int32_t> start, rows;
  {
    const ryser_columns<X> first = make_ryser_columns<X>(*group.front(), order);
    start = first.start;
    rows = first.rows;
  }
  parallel_for<schedule::static_one>(count, threads, [&](std::int64_t k) {
    const ryser_columns<X> c = make_ryser_columns<X>(*group[static_cast<std::size_t>(k)], order);
    if (c.rows != rows || c.start != start)
      throw engine_error(engine_error::kind::failed, "a dense batch's columns differ");
    std::copy(c.values.begin(), c.values.end(), values.begin() + static_cast<std::ptrdiff_t>(nn * k));
    std::copy(c.x0.begin(), c.x0.end(), x0.begin() + static_cast<std::ptrdiff_t>(n * k));
    grids[static_cast<std::size_t>(k)] = c.grid;
  });
  gpu::check(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp properties{};
  gpu::check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  gpu::device_buffer<std::int32_t> start_d(start.size()), rows_d(rows.size());
  gpu::device_buffer<X> values_d(values.size()), x0_d(x0.size());
  gpu::device_buffer<Sum> partial_d(static_cast<std::size_t>(count) * lanes);
  start_d.upload(start.data(), start.size());
  rows_d.upload(rows.data(), rows.size());
  values_d.upload(values.data(), values.size());
  x0_d.upload(x0.data(), x0.size());
  constexpr int warps = 4;  // per block: 4·32·n x's of shared memory (n = 24, complex: 48 KiB)
  const std::size_t shared_bytes = static_cast<std::size_t>(warps) * lanes * n * sizeof(X);
  auto kernel = &dense_batch_kernel<X, Sum>;
  gpu::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(properties.sharedMemPerBlockOptin)),
             "cudaFuncSetAttribute");
  const auto blocks = static_cast<unsigned>((count + warps - 1) / warps);
  const gpu::event_handle launched, finished;
  gpu::check(cudaEventRecord(launched.get()), "cudaEventRecord");
  kernel<<<blocks, warps * lanes, shared_bytes>>>(n, count, start_d.data(), rows_d.data(), values_d.data(), x0_d.data(),
                                                  partial_d.data());
  gpu::check(cudaGetLastError(), "the dense batch kernel's launch");
  gpu::check(cudaEventRecord(finished.get()), "cudaEventRecord");
  std::vector<Sum> partial(static_cast<std::size_t>(count) * lanes);
  partial_d.download(partial.data(), partial.size());  // waits for the kernel
  float kernel_ms = 0;
  gpu::check(cudaEventElapsedTime(&kernel_ms, launched.get(), finished.get()), "cudaEventElapsedTime");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count() / static_cast<double>(count);
  const std::uint64_t chunk = step_count(n) / lanes;
  const std::string plan =
      "dense, no plan: " + std::to_string(count) + " matrices, a warp each on " + gpu::device_description(properties) +
      " (32 lanes of 2^" + std::to_string(highest_bit(chunk)) + " Gray steps; the kernel " +
      format_seconds(kernel_ms / 1e3) + " by CUDA events, the GPU part " +
      format_seconds(seconds * static_cast<double>(count)) + " in all); zero tracking; " + Sum::description();
  parallel_for<schedule::static_one>(count, threads, [&](std::int64_t k) {
    const std::size_t at = static_cast<std::size_t>(k);
    Sum total;
    total.add(plain_product{}(x0.data() + n * at, n, 1));  // step 0
    for (int lane = 0; lane < lanes; ++lane) total.merge(partial[at * lanes + static_cast<std::size_t>(lane)]);
    permanent_result& r = *results[at];
    r.engine = engines::gpu_sparse::name;
    r.n = n;
    r.nnz = static_cast<std::int64_t>(nn);
    r.threads = lanes;
    set_ryser_sum(r, n, total, chunk + lanes, {grids[at]});
    add_input_rounding(r, *group[at]);
    r.plan = plan;
    r.seconds.compute = r.seconds.total = seconds;
  });
}

// The dense floating matrices `group` (indices into `matrices`) on the GPU, one launch per size and
// kind.
inline void run_dense_gpu(const std::vector<sparse_matrix>& matrices, const std::vector<std::int64_t>& group,
                          std::vector<permanent_result>& results, const compute_options& options) {
  const int device = options.devices.empty() ? 0 : options.devices.front();
  gpu::select_device(device, std::string(engines::gpu_sparse::name));
  const int threads = engine_threads(options.threads);
  for (int n = gpu_batch_min_n; n <= gpu_batch_max_n; ++n) {
    for (const bool complex : {false, true}) {
      std::vector<const sparse_matrix*> these;
      std::vector<permanent_result*> out;
      for (std::int64_t k : group) {
        const sparse_matrix& a = matrices[static_cast<std::size_t>(k)];
        if (a.n() != n || a.is_complex() != complex) continue;
        these.push_back(&a);
        out.push_back(&results[static_cast<std::size_t>(k)]);
      }
      if (these.empty()) continue;
      const std::vector<int> order = these.front()->columns_by_degree();
      const bool compensated = options.precision == precision::compensated;
      if (complex) {
        if (compensated) {
          run_dense_gpu_group<complex_double, complex_sum<compensated_sum>>(these, order, out.data(), device, threads);
        } else {
          run_dense_gpu_group<complex_double, complex_sum<plain_sum>>(these, order, out.data(), device, threads);
        }
      } else if (compensated) {
        run_dense_gpu_group<double, compensated_sum>(these, order, out.data(), device, threads);
      } else {
        run_dense_gpu_group<double, plain_sum>(these, order, out.data(), device, threads);
      }
    }
  }
}
#endif

}  // namespace detail

// The permanents of `count` matrices, matrix_at(k) giving matrix k (it may throw: that matrix's
// error), in order. The first failing matrix (by index) is thrown as a batch_error; a stop request
// (options.progress) ends the batch. options.engine: automatic (the routes above), cpu-sparse (every
// dense matrix on the CPU), gpu-sparse (every dense floating one on the GPU), or any engine for every
// matrix through compute_permanent. progress counts matrices.
template <class MatrixAt>
std::vector<permanent_result> compute_permanents(std::int64_t count, const MatrixAt& matrix_at,
                                                 const compute_options& options) {
  const int threads = detail::engine_threads(options.threads);
  progress_counter* progress = options.progress;
  if (progress) progress->total.store(static_cast<std::uint64_t>(count), std::memory_order_relaxed);
  compute_options one = options;
  one.threads = 1;
  one.progress = nullptr;
  // a stop request reaches every matrix's loop (cpu-sparse and the planner's engines check it)
  progress_counter inner;
  if (progress) one.progress = &inner;
  const auto stopped = [&] {
    if (stop_requested(progress)) inner.stop.store(true, std::memory_order_relaxed);
    return stop_requested(progress);
  };
  std::vector<permanent_result> results(static_cast<std::size_t>(count));
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(count));
  std::atomic<bool> failed{false};
  const auto guarded = [&](std::int64_t k, const auto& body) {
    if (failed.load(std::memory_order_relaxed) || stopped()) return;
    try {
      body();
    } catch (...) {
      failures[static_cast<std::size_t>(k)] = std::current_exception();
      failed.store(true);
    }
    if (progress) progress->done.fetch_add(1, std::memory_order_relaxed);
  };
  const auto finish = [&] {
    for (std::size_t k = 0; k < failures.size(); ++k) {
      if (!failures[k]) continue;
      try {
        std::rethrow_exception(failures[k]);
      } catch (const std::exception& e) {
        throw batch_error(static_cast<std::int64_t>(k), e.what(), failures[k]);
      }
    }
    throw_if_stopped(progress);
    return std::move(results);
  };

  const std::string_view engine = options.engine.automatic() ? "auto" : options.engine.get()->name;
  const bool routed = engine == "auto" || engine == engines::cpu_sparse::name || engine == engines::gpu_sparse::name;
  if (count < threads || !routed) {  // each matrix on every thread, through the planner or the engine asked for
    compute_options each = options;
    each.progress = one.progress;
    for (std::int64_t k = 0; k < count; ++k) {
      guarded(k, [&] { results[static_cast<std::size_t>(k)] = compute_permanent(matrix_at(k), each); });
      if (failed) break;
    }
    return finish();
  }

  // the matrices and their routes (in parallel: converting and checking costs about what a
  // 10 x 10 matrix's loop does)
  std::vector<sparse_matrix> matrices(static_cast<std::size_t>(count));
  std::vector<detail::batch_route> routes(static_cast<std::size_t>(count), detail::batch_route::planned);
  detail::parallel_for<detail::schedule::dynamic_one>(count, threads, [&](std::int64_t k) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      const std::size_t at = static_cast<std::size_t>(k);
      matrices[at] = matrix_at(k);
      if (detail::dense_batch_eligible(matrices[at], options)) {
        // gpu-sparse asked for: the GPU's route or the engine itself, never the CPU's loop
        const bool gpu = detail::compiled_for_gpu && detail::gpu_batch_eligible(matrices[at], options);
        if (engine == engines::gpu_sparse::name) {
          if (gpu) routes[at] = detail::batch_route::dense_gpu;
        } else {
          routes[at] = gpu && engine == "auto" ? detail::batch_route::dense_gpu : detail::batch_route::dense_cpu;
        }
      }
    } catch (...) {
      failures[static_cast<std::size_t>(k)] = std::current_exception();
      failed.store(true);
    }
  });
  if (failed) return finish();

  std::vector<std::int64_t> gpu_group;
#if defined(__CUDACC__)
  for (std::int64_t k = 0; k < count; ++k)
    if (routes[static_cast<std::size_t>(k)] == detail::batch_route::dense_gpu) gpu_group.push_back(k);
  bool on_gpu = !gpu_group.empty() && gpu::device_count() > 0;
  if (on_gpu && engine == "auto") {
    std::vector<int> sizes;
    bool complex = false;
    for (std::int64_t k : gpu_group) {
      sizes.push_back(matrices[static_cast<std::size_t>(k)].n());
      complex = complex || matrices[static_cast<std::size_t>(k)].is_complex();
    }
    on_gpu = detail::gpu_batch_pays(sizes, complex, threads);
  }
  if (!on_gpu) {  // auto: the CPU's loop; gpu-sparse: the engine, which says why it cannot run
    for (std::int64_t k : gpu_group)
      routes[static_cast<std::size_t>(k)] =
          engine == "auto" ? detail::batch_route::dense_cpu : detail::batch_route::planned;
    gpu_group.clear();
  }
#endif

  // the CPU's matrices, while the GPU's wait for it (the GPU's host work is spread over the threads)
  compute_options planned = one;
  if (engine != "auto") planned.engine = options.engine;
  detail::parallel_for<detail::schedule::dynamic_one>(count, threads, [&](std::int64_t k) {
    const std::size_t at = static_cast<std::size_t>(k);
    if (routes[at] == detail::batch_route::dense_gpu) return;
    guarded(k, [&] {
      results[at] = routes[at] == detail::batch_route::dense_cpu ? detail::run_dense_cpu(matrices[at], one)
                                                                 : compute_permanent(matrices[at], planned);
    });
  });
#if defined(__CUDACC__)
  if (!gpu_group.empty() && !failed && !stopped()) {
    try {
      detail::run_dense_gpu(matrices, gpu_group, results, options);
      if (progress) progress->done.fetch_add(gpu_group.size(), std::memory_order_relaxed);
    } catch (...) {
      failures[static_cast<std::size_t>(gpu_group.front())] = std::current_exception();
    }
  }
#endif
  return finish();
}

}  // namespace sparseperm
