#pragma once
// The `gpu-dense` engine's kernel (its tag: engines/gpu_dense.cuh): Ryser on the whole matrix, zeros
// included, with x and the lowest Gray columns in registers (ryser/dense_ryser.cuh, compiled for
// N = 16, 24, 28, ..., 48 rows, and 30 for complex values) and the other columns in shared memory,
// which a warp reads at one address at most steps (its threads flip the same column). Chunks,
// devices, journals and ranks are gpu-sparse's (gpu/ryser_launcher.cuh); so are the arithmetic, the
// row grids and the bound.
// Floating arithmetic only: an exact run (integer matrices by default) is gpu-sparse's. Double-double
// (split row sums, double-double products: dense_dd_ryser_steps) has a kernel of its own, for
// n ≤ 40; beyond, gpu-sparse's double-double runs.
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/dense_ryser_kernel.cuh needs nvcc"
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/value_types.cuh"
#include "../ryser/arithmetic_types.cuh"
#include "../ryser/cpu_sparse.cuh"
#include "../ryser/dense_ryser.cuh"
#include "cuda_support.cuh"
#include "ryser_launcher.cuh"
#include "sparse_ryser_kernel.cuh"

namespace sparseperm::detail {

// Threads a block: with 150 to 230 registers a thread, an SM keeps two to three such blocks.
inline constexpr int gpu_dense_block = 128;
// Where the loop holds Gray columns in registers (real values; complex up to N = 24), a chunk runs
// as one launch whose threads all take the same multiple of 8 or more steps (8 ≥ 2^K, the loop's
// static blocks; plan_even_launch) and write their sums to pinned host memory: with Algorithm 2's
// power-of-two chunks (3 % of an H100's threads idle, three launches) and the sums' clearing and
// copy, a real run of 2^27 steps took 0.79 ms, now 0.73. Without held columns a thread steps through
// Gray runs whose lengths depend on where it starts, and threads starting off Algorithm 2's
// alignment run apart (a complex run took 5× as long).
inline constexpr std::uint64_t dense_launch_granule = 8;

// Columns in shared memory 16 bytes more than N values apart: where a warp's threads read different
// columns (a block's step 0 in an even launch), the same row of each is in another bank, and a
// column still starts on 16 bytes (real columns N + 1 apart loaded one double at a time: 7 % slower
// at n = 36).
template <int N, class X>
inline constexpr int dense_shared_stride = N + static_cast<int>(16 / sizeof(X));

// The plan's words for a run of n rows in the loop compiled for N.
inline std::string dense_rows_text(int N, int n) {
  return "dense: " + std::to_string(N) + " rows" + (N > n ? " (" + std::to_string(N - n) + " of padding)" : "");
}

// A dense matrix's stored columns and x_0 on a device, uploaded.
template <class X>
struct dense_device_columns {
  gpu::device_buffer<X> values, x0;
  explicit dense_device_columns(const dense_columns<X>& dense) : values(dense.values.size()), x0(dense.x0.size()) {
    values.upload(dense.values.data(), dense.values.size());
    x0.upload(dense.x0.data(), dense.x0.size());
  }
};

// The block's copy of the stored columns (Stride values apart) and x_0 in shared memory, from `shared` on.
template <int N, int Stride, class X>
__device__ dense_columns_view<X> load_dense_columns(unsigned char* shared, int stored_columns, const X* values,
                                                    const X* x0) {
  X* shared_values = reinterpret_cast<X*>(shared);
  X* shared_x0 = shared_values + static_cast<std::size_t>(stored_columns) * Stride;
  for (int k = threadIdx.x; k < stored_columns * N; k += blockDim.x) shared_values[k / N * Stride + k % N] = values[k];
  for (int k = threadIdx.x; k < N; k += blockDim.x) shared_x0[k] = x0[k];
  __syncthreads();
  return {shared_values, shared_x0};
}

// fresh: the launch is the chunk's only one, its sums start at 0 (else it adds to `partial`).
template <int N, class X, class Sum>
__global__ void __launch_bounds__(gpu_dense_block)
    gpu_dense_kernel(launch work, int stored_columns, const X* values, const X* x0, Sum* partial, bool fresh) {
  constexpr int stride = dense_shared_stride<N, X>;
  extern __shared__ __align__(16) unsigned char shared[];
  const dense_columns_view<X> view = load_dense_columns<N, stride>(shared, stored_columns, values, x0);
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= work.threads) return;
  Sum sum = fresh ? Sum{} : partial[t];
  dense_ryser_steps<N, stride>(view, work.thread_first(t), work.thread_end(t), sum);
  partial[t] = sum;
}

// The double-double kernel: split columns and x_0 in shared memory as above, and where x's fine parts
// do not stay in registers (dense_fine_in_registers), each thread's in shared memory after them,
// laid out [row·blockDim + thread]. Up to 256 threads a block: with 150 to 250 registers a thread an
// SM keeps 256, and one block of them shares one copy of the columns (complex N = 40: 51 KB of
// columns, 164 KB of fine parts).
inline constexpr int gpu_dense_dd_max_block = 256;

template <int N, class V>
struct gpu_dense_dd_shared_size {
  int stored;
  // the stored columns and x_0 (load_dense_columns); the fine parts, where in memory, start here
  SPARSEPERM_HOST_DEVICE std::size_t columns_bytes() const {
    return (static_cast<std::size_t>(stored) * dense_shared_stride<N, split_value<V>> + N) * sizeof(split_value<V>);
  }
  SPARSEPERM_HOST_DEVICE std::size_t operator()(int block) const {
    return columns_bytes() + (dense_fine_in_registers<N, V> ? 0 : static_cast<std::size_t>(N) * block * sizeof(V));
  }
};

template <int N, class V, class Sum>
__global__ void __launch_bounds__(gpu_dense_dd_max_block)
    gpu_dense_dd_kernel(launch work, int stored_columns, const split_value<V>* values, const split_value<V>* x0,
                        Sum* partial) {
  using X = split_value<V>;
  constexpr int stride = dense_shared_stride<N, X>;
  extern __shared__ __align__(16) unsigned char shared[];
  const dense_columns_view<X> view = load_dense_columns<N, stride>(shared, stored_columns, values, x0);
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= work.threads) return;
  Sum sum = partial[t];
  if constexpr (dense_fine_in_registers<N, V>) {
    dense_dd_ryser_steps<N, stride>(view, dense_register_fine<N, V>{}, work.thread_first(t), work.thread_end(t), sum);
  } else {
    V* fine =
        reinterpret_cast<V*>(shared + gpu_dense_dd_shared_size<N, V>{stored_columns}.columns_bytes()) + threadIdx.x;
    dense_dd_ryser_steps<N, stride>(view, dense_strided_fine<V>{fine, static_cast<int>(blockDim.x)},
                                    work.thread_first(t), work.thread_end(t), sum);
  }
  partial[t] = sum;
}

template <int N, class V, class Sum>
permanent_result run_gpu_dense_dd_in(const sparse_matrix& matrix, const std::vector<int>& column_order,
                                     const gpu::launch_options& options, std::string_view engine) {
  using X = split_value<V>;
  const ryser_columns<X> columns = make_ryser_columns<X>(matrix, column_order, false);
  const dense_columns<X> dense(columns, N, 0);
  const int n = matrix.n();
  permanent_result result;
  result.engine = std::string(engine);
  result.n = n;
  result.nnz = matrix.nnz();
  auto kernel = &gpu_dense_dd_kernel<N, V, Sum>;
  const gpu_dense_dd_shared_size<N, V> bytes_for{dense.stored};
  gpu::launch_options run = options;
  run.identity = sparse_columns_identity<X, Sum>(columns) + "dense rows " + std::to_string(N) + "\n";
  std::size_t shared_bytes = 0;
  gpu::run_ryser_chunks<Sum>(
      result, n, double_double_product{}(columns.x0.data(), n, 1), run, {columns.grid}, [&](int d) {
        cudaDeviceProp device{};
        gpu::check(cudaGetDeviceProperties(&device, d), "cudaGetDeviceProperties");
        gpu::allow_optin_shared_memory(reinterpret_cast<const void*>(kernel), device);
        int min_grid = 0, block = 0, blocks_per_sm = 0;
        gpu::check(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, kernel, bytes_for,
                                                                  gpu_dense_dd_max_block),
                   "cudaOccupancyMaxPotentialBlockSizeVariableSMem");
        if (block == 0 || bytes_for(block) > device.sharedMemPerBlockOptin) {
          throw engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) + " does not fit engine '" +
                                                                std::string(engine) + "' in double-double on " +
                                                                gpu::device_description(device));
        }
        gpu::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block, bytes_for(block)),
                   "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        auto held = std::make_shared<dense_device_columns<X>>(dense);
        auto k = gpu::resident_kernel<Sum>(reinterpret_cast<const void*>(kernel), device, block, blocks_per_sm);
        const std::size_t bytes = bytes_for(block);
        shared_bytes = bytes;
        k.launch_one = [kernel, stored = dense.stored, values = held->values.data(), x0 = held->x0.data(), block,
                        bytes](unsigned grid, const launch& work, Sum* partial, std::uint64_t, cudaStream_t stream) {
          kernel<<<grid, block, bytes, stream>>>(work, stored, values, x0, partial);
        };
        k.resources = held;
        return k;
      });
  result.plan = dense_rows_text(N, n) + ", split row sums (coarse + fine, exact) with " +
                (dense_fine_in_registers<N, V> ? std::string("both parts") : std::string("the coarse parts")) +
                " in registers, the matrix in shared memory (" + std::to_string(shared_bytes) + " bytes per block); " +
                Sum::description() + result.plan;
  return result;
}

template <int N, class X, class Sum>
permanent_result run_gpu_dense_in(const sparse_matrix& matrix, const std::vector<int>& column_order,
                                  const gpu::launch_options& options, std::string_view engine) {
  const ryser_columns<X> columns = make_ryser_columns<X>(matrix, column_order, false);
  const dense_columns<X> dense(columns, N, dense_held_columns<N, X>);
  static_assert((1 << dense_held_columns<N, X>) <= dense_launch_granule, "a thread's steps start on a static block");
  const int n = matrix.n();
  permanent_result result;
  result.engine = std::string(engine);
  result.n = n;
  result.nnz = matrix.nnz();
  auto kernel = &gpu_dense_kernel<N, X, Sum>;
  const std::size_t shared_bytes =
      (static_cast<std::size_t>(dense.stored) * dense_shared_stride<N, X> + dense.x0.size()) * sizeof(X);
  gpu::launch_options run = options;
  run.identity = sparse_columns_identity<X, Sum>(columns) + "dense rows " + std::to_string(N) + "\n";
  gpu::run_ryser_chunks<Sum>(result, n, plain_product{}(columns.x0.data(), n, 1), run, {columns.grid}, [&](int d) {
    cudaDeviceProp device{};
    gpu::check(cudaGetDeviceProperties(&device, d), "cudaGetDeviceProperties");
    gpu::allow_optin_shared_memory(reinterpret_cast<const void*>(kernel), device);
    int blocks_per_sm = 0;
    gpu::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, gpu_dense_block, shared_bytes),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (blocks_per_sm == 0) {
      throw engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) + " does not fit engine '" +
                                                            std::string(engine) + "' on " +
                                                            gpu::device_description(device));
    }
    auto held = std::make_shared<dense_device_columns<X>>(dense);
    auto k = gpu::resident_kernel<Sum>(reinterpret_cast<const void*>(kernel), device, gpu_dense_block, blocks_per_sm);
    // (a test's chunks of 2 or 4 steps would not start on a granule: Algorithm 2 there)
    k.even_granule = dense_held_columns<N, X> > 0 && options.min_chunk_bits >= 3 ? dense_launch_granule : 0;
    k.launch_one = [kernel, stored = dense.stored, values = held->values.data(), x0 = held->x0.data(), shared_bytes,
                    fresh = k.even_granule != 0](unsigned grid, const launch& work, Sum* partial, std::uint64_t,
                                                 cudaStream_t stream) {
      kernel<<<grid, gpu_dense_block, shared_bytes, stream>>>(work, stored, values, x0, partial, fresh);
    };
    k.resources = held;
    return k;
  });
  constexpr int held_columns = dense_held_columns<N, X>;
  const std::string in_registers = held_columns == 0 ? "x alone"
                                                     : "x and the lowest " + std::to_string(held_columns) +
                                                           " Gray column" + (held_columns == 1 ? "" : "s");
  result.plan = dense_rows_text(N, n) + ", " + in_registers + " in registers, the matrix in shared memory (" +
                std::to_string(shared_bytes) + " bytes per block); " + Sum::description() + result.plan;
  return result;
}

// The dense Ryser sum of `matrix` on the GPU, as engine `engine`, in compensated sums whatever the
// floating precision asked for (plain ones would save 6 to 9 % of a step's operations, and double
// the kernels that every program with the engine compiles: 17 now, about 30 s of nvcc); an exact arithmetic runs
// gpu-sparse's kernel.
// With SPARSEPERM_SEPARATE_ENGINE_RUNS, compiled with the engines' runs (core/config.cuh): every
// other unit of the program then instantiates none of the 17 kernels.
permanent_result run_gpu_dense(const sparse_matrix& matrix, const gpu::launch_options& options,
                               std::string_view engine);

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result run_gpu_dense(const sparse_matrix& matrix, const gpu::launch_options& options,
                                                     std::string_view engine) {
  const auto start = std::chrono::steady_clock::now();
  const int n = matrix.n();
  if (n > dense_max_n) throw beyond_limit(engine, n, dense_max_n);
  const arithmetic_choice choice =
      choose_ryser_arithmetic(matrix, options.precision, engine, arithmetic_site::gpu_runtime);
  if (n == 0 || matrix.has_empty_line() || is_exact(choice.kind)) {
    permanent_result result = run_gpu_sparse(matrix, options, engine);
    if (is_exact(choice.kind) && !result.plan.empty()) result.plan = "exact: gpu-sparse's kernel; " + result.plan;
    return result;
  }
  const std::vector<int> column_order = matrix.columns_by_degree();
  if (options.precision == precision::double_double) {
    const int rows = dense_dd_rows_for(n, matrix.is_complex());
    if (rows == 0) {
      permanent_result result = run_gpu_sparse(matrix, options, engine);
      result.plan =
          "double-double beyond n = " + std::to_string(dense_dd_max_n) + ": gpu-sparse's kernel; " + result.plan;
      return result;
    }
    permanent_result result =
        matrix.is_complex() ? with_value_in<dense_dd_complex_row_counts>(
                                  rows,
                                  [&]<int N>() {
                                    return run_gpu_dense_dd_in<N, complex_double, complex_sum<dd_sum>>(
                                        matrix, column_order, options, engine);
                                  })
                            : with_value_in<dense_dd_row_counts>(rows, [&]<int N>() {
                                return run_gpu_dense_dd_in<N, double, dd_sum>(matrix, column_order, options, engine);
                              });
    result.seconds.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  permanent_result result =
      matrix.is_complex()
          ? with_value_in<dense_complex_row_counts>(
                dense_rows_for(n, true),
                [&]<int N>() {
                  return run_gpu_dense_in<N, complex_double, complex_sum<compensated_sum>>(matrix, column_order,
                                                                                           options, engine);
                })
          : with_value_in<dense_row_counts>(dense_rows_for(n, false), [&]<int N>() {
              return run_gpu_dense_in<N, double, compensated_sum>(matrix, column_order, options, engine);
            });
  result.seconds.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}
#endif

}  // namespace sparseperm::detail
