#pragma once
// The `gpu-dense` engine's kernel (its tag: engines/gpu_dense.cuh): Ryser on the whole matrix, zeros
// included, with x and the lowest Gray columns in registers (ryser/dense_ryser.cuh, compiled for
// N = 16, 24, 28, ..., 48 rows, and 30 for complex values) and the other columns in shared memory,
// which a warp reads at one address at most steps (its threads flip the same column). Chunks,
// devices, journals and ranks are gpu-sparse's (gpu/ryser_launcher.cuh); so are the arithmetic, the
// row grids and the bound.
// Floating arithmetic only: an exact run (integer matrices by default) is gpu-sparse's.
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

// fresh: the launch is the chunk's only one, its sums start at 0 (else it adds to `partial`).
template <int N, class X, class Sum>
__global__ void __launch_bounds__(gpu_dense_block)
    gpu_dense_kernel(launch work, int stored_columns, const X* values, const X* x0, Sum* partial, bool fresh) {
  constexpr int stride = dense_shared_stride<N, X>;
  extern __shared__ __align__(16) unsigned char shared[];
  X* shared_values = reinterpret_cast<X*>(shared);
  X* shared_x0 = shared_values + static_cast<std::size_t>(stored_columns) * stride;
  for (int k = threadIdx.x; k < stored_columns * N; k += blockDim.x) shared_values[k / N * stride + k % N] = values[k];
  for (int k = threadIdx.x; k < N; k += blockDim.x) shared_x0[k] = x0[k];
  __syncthreads();
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= work.threads) return;
  Sum sum = fresh ? Sum{} : partial[t];
  dense_ryser_steps<N, stride>(dense_columns_view<X>{shared_values, shared_x0}, work.thread_first(t),
                               work.thread_end(t), sum);
  partial[t] = sum;
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
    gpu::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(device.sharedMemPerBlockOptin)),
               "cudaFuncSetAttribute");
    int blocks_per_sm = 0;
    gpu::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, gpu_dense_block, shared_bytes),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (blocks_per_sm == 0) {
      throw engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) + " does not fit engine '" +
                                                            std::string(engine) + "' on " +
                                                            gpu::device_description(device));
    }
    cudaFuncAttributes attributes{};
    gpu::check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
    struct buffers {
      gpu::device_buffer<X> values, x0;
      explicit buffers(const dense_columns<X>& d) : values(d.values.size()), x0(d.x0.size()) {}
    };
    auto held = std::make_shared<buffers>(dense);
    held->values.upload(dense.values.data(), dense.values.size());
    held->x0.upload(dense.x0.data(), dense.x0.size());
    gpu::device_kernel<Sum> k;
    k.block = gpu_dense_block;
    k.threads = static_cast<std::uint64_t>(device.multiProcessorCount) * blocks_per_sm * gpu_dense_block;
    k.registers = attributes.numRegs;
    k.description = gpu::device_description(device);
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
  result.plan = "dense: " + std::to_string(N) + " rows" + (N > n ? " (" + std::to_string(N - n) + " of padding)" : "") +
                ", " + in_registers + " in registers, the matrix in shared memory (" + std::to_string(shared_bytes) +
                " bytes per block); " + Sum::description() + result.plan;
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
