#pragma once
// Many dense matrices at once on the GPU, a warp each (batch.cuh's GPU route): cpu-sparse's loop
// (ryser/sparse_ryser.cuh) with lane l of a warp running the aligned chunk l of its matrix's steps.
// The lanes' sums are merged on the host in order, as cpu-sparse's chunks are, into the result
// compute_permanent would certify: under the automatic precision the same arithmetic, split row sums
// and compensated sums, and the same running bound; precision double and compensated keep one grid
// a row (the fast path: the grids' rounding bounded a priori).
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/dense_batch_kernel.cuh needs nvcc"
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../detail/bits.cuh"
#include "../detail/format.cuh"
#include "../detail/threads.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/arithmetic.cuh"
#include "../ryser/cpu_sparse.cuh"
#include "../ryser/gray_code.cuh"
#include "../ryser/ryser_result.cuh"
#include "../ryser/sparse_ryser.cuh"
#include "cuda_support.cuh"

namespace sparseperm::detail {

// What a batch's GPU route runs: on which device, as which engine, its host part on how many threads,
// in which floating precision, and the sizes it takes.
struct dense_gpu_batch {
  int device = 0;
  std::string_view engine;
  int threads = 0;
  sparseperm::precision precision = sparseperm::precision::automatic;
  int min_n = 0, max_n = 0;
};

// `count` values of T left uninitialised: a batch's host buffers (hundreds of MB at 100000 small
// complex matrices), which a vector would value-initialise on one thread before the batch's threads
// write every element (and first touch their pages) in parallel.
template <class T>
class host_array {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  explicit host_array(std::size_t count)
      : data_(static_cast<T*>(std::malloc(std::max<std::size_t>(count, 1) * sizeof(T)))), size_(count) {
    if (!data_) throw std::bad_alloc();
  }
  T* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t k) const { return data_.get()[k]; }

 private:
  struct release {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, release> data_;
  std::size_t size_;
};

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
                         permanent_result* const* results, const dense_gpu_batch& batch, int threads) {
  const int device = batch.device;
  const auto start_time = std::chrono::steady_clock::now();
  constexpr int lanes = 32;
  const int n = group.front()->n();
  const std::int64_t count = static_cast<std::int64_t>(group.size());
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  host_array<X> values(nn * group.size()), x0(static_cast<std::size_t>(n) * group.size());
  std::vector<grid_rounding_facts> grids(group.size());
  std::vector<std::int32_t> start, rows;
  {
    const ryser_columns<X> first = make_ryser_columns<X>(*group.front(), order);
    start = first.start;
    rows = first.rows;
  }
  parallel_for<schedule::static_one>(count, threads, [&](std::int64_t k) {
    thread_local ryser_columns<X> c;  // its vectors' capacity kept from matrix to matrix
    fill_ryser_columns(*group[static_cast<std::size_t>(k)], order, false, c);
    if (c.rows != rows || c.start != start)
      throw engine_error(engine_error::kind::failed, "a dense batch's columns differ");
    std::copy(c.values.begin(), c.values.end(), values.data() + nn * static_cast<std::size_t>(k));
    std::copy(c.x0.begin(), c.x0.end(), x0.data() + static_cast<std::size_t>(n) * static_cast<std::size_t>(k));
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
  host_array<Sum> partial(static_cast<std::size_t>(count) * lanes);
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
    r.engine = std::string(batch.engine);
    r.n = n;
    r.nnz = static_cast<std::int64_t>(nn);
    r.threads = lanes;
    set_ryser_sum(r, n, total, chunk + lanes, {grids[at], 1, is_split_value<X>});
    r.plan = plan;
    r.seconds.compute = r.seconds.total = seconds;
  });
}

// The dense floating matrices `matrices` (*results[g] is matrices[g]'s) on the GPU, one launch per
// size and kind. With SPARSEPERM_SEPARATE_ENGINE_RUNS, compiled with the engines' runs
// (core/config.cuh).
void run_dense_gpu(const std::vector<const sparse_matrix*>& matrices, const std::vector<permanent_result*>& results,
                   const dense_gpu_batch& batch);

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN void run_dense_gpu(const std::vector<const sparse_matrix*>& matrices,
                                         const std::vector<permanent_result*>& results, const dense_gpu_batch& batch) {
  const int device = batch.device;
  const std::string_view engine = batch.engine;
  gpu::select_device(device, std::string(engine));
  const int threads = engine_threads(batch.threads);
  for (int n = batch.min_n; n <= batch.max_n; ++n) {
    for (const bool complex : {false, true}) {
      std::vector<const sparse_matrix*> these;
      std::vector<permanent_result*> out;
      for (std::size_t g = 0; g < matrices.size(); ++g) {
        const sparse_matrix& a = *matrices[g];
        if (a.n() != n || a.is_complex() != complex) continue;
        these.push_back(&a);
        out.push_back(results[g]);
      }
      if (these.empty()) continue;
      const std::vector<int> order = these.front()->columns_by_degree();
      const bool compensated = batch.precision == precision::compensated;
      if (batch.precision == precision::automatic) {  // split row sums, as cpu-sparse's
        if (complex) {
          run_dense_gpu_group<split_value<complex_double>, complex_sum<compensated_sum>>(these, order, out.data(),
                                                                                         batch, threads);
        } else {
          run_dense_gpu_group<split_value<double>, compensated_sum>(these, order, out.data(), batch, threads);
        }
      } else if (complex) {
        if (compensated) {
          run_dense_gpu_group<complex_double, complex_sum<compensated_sum>>(these, order, out.data(), batch, threads);
        } else {
          run_dense_gpu_group<complex_double, complex_sum<plain_sum>>(these, order, out.data(), batch, threads);
        }
      } else if (compensated) {
        run_dense_gpu_group<double, compensated_sum>(these, order, out.data(), batch, threads);
      } else {
        run_dense_gpu_group<double, plain_sum>(these, order, out.data(), batch, threads);
      }
    }
  }
}
#endif

}  // namespace sparseperm::detail
