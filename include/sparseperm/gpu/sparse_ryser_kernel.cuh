#pragma once
// GPU-SparsePerman, the paper's run-time GPU baseline (the `gpu-sparse` engine's kernel; its tag:
// engines/gpu_sparse.cuh): the algorithm of cpu-sparse (ryser/sparse_ryser.cuh: CSC, columns by
// ascending degree, zero tracking) with the matrix and every thread's x in shared memory, x laid out
// [row·blockDim + thread] so that a warp's accesses fall in distinct banks. The block size and grid
// come from the CUDA occupancy API with the shared memory each block size needs; launches from
// Algorithm 2, chunks from gpu/ryser_launcher.cuh.
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/sparse_ryser_kernel.cuh needs nvcc"
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
#include "../ryser/sparse_ryser.cuh"
#include "cuda_support.cuh"
#include "ryser_launcher.cuh"

namespace sparseperm {

namespace detail {

// Shared memory of a block of `block` threads: values, x_0 and x (X each), F_i where the sums keep
// the fine parts' (`fine` rows: n or 0), then start and rows. A functor the CUDA occupancy API can
// call (it is a __host__ __device__ template).
template <class X>
struct gpu_sparse_shared_size {
  int n;
  int nnz;
  int fine = 0;
  SPARSEPERM_HOST_DEVICE std::size_t operator()(int block) const {
    return (static_cast<std::size_t>(nnz) + n + static_cast<std::size_t>(n) * block) * sizeof(X) +
           static_cast<std::size_t>(fine) * sizeof(double) +
           (static_cast<std::size_t>(n) + 1 + nnz) * sizeof(std::int32_t);
  }
};

template <class X, class Sum, class Product>
__global__ void gpu_sparse_kernel(launch work, sparse_columns_view<X> m, int nnz, Sum* partial) {
  extern __shared__ __align__(16) unsigned char shared[];
  X* values = reinterpret_cast<X*>(shared);
  X* x0 = values + nnz;
  X* x = x0 + m.n;
  double* fine = reinterpret_cast<double*>(x + static_cast<std::size_t>(m.n) * blockDim.x);
  constexpr int fine_rows = has_fine_parts<Sum> ? 1 : 0;  // F_i a row
  std::int32_t* start = reinterpret_cast<std::int32_t*>(fine + fine_rows * m.n);
  std::int32_t* rows = start + m.n + 1;
  for (int k = threadIdx.x; k < nnz; k += blockDim.x) {
    values[k] = m.values[k];
    rows[k] = m.rows[k];
  }
  for (int k = threadIdx.x; k < m.n; k += blockDim.x) {
    x0[k] = m.x0[k];
    if constexpr (fine_rows != 0) fine[k] = m.fine[k];
  }
  for (int k = threadIdx.x; k <= m.n; k += blockDim.x) start[k] = m.start[k];
  __syncthreads();
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= work.threads) return;
  const sparse_columns_view<X> local{m.n, start, rows, values, x0, fine};
  Sum sum = partial[t];
  sparse_ryser_steps(local, x + threadIdx.x, static_cast<int>(blockDim.x), work.thread_first(t), work.thread_end(t),
                     sum, Product{});
  partial[t] = sum;
}

// The device buffers of one device's run: the columns as the kernel reads them.
template <class X>
struct gpu_sparse_columns {
  gpu::device_buffer<std::int32_t> start, rows;
  gpu::device_buffer<X> values, x0;
  gpu::device_buffer<double> fine;
  explicit gpu_sparse_columns(const ryser_columns<X>& columns)
      : start(columns.start.size()),
        rows(std::max<std::size_t>(columns.rows.size(), 1)),
        values(std::max<std::size_t>(columns.values.size(), 1)),
        x0(columns.x0.size()),
        fine(std::max<std::size_t>(columns.fine.size(), 1)) {
    start.upload(columns.start.data(), columns.start.size());
    rows.upload(columns.rows.data(), columns.rows.size());
    values.upload(columns.values.data(), columns.values.size());
    x0.upload(columns.x0.data(), columns.x0.size());
    fine.upload(columns.fine.data(), columns.fine.size());
  }
};

inline constexpr int gpu_sparse_chunk_bits_min = 32, gpu_sparse_chunk_bits_max = 34;

// grids_unchanged: the bound of the walk on the grids' values alone (what rounding the values to the
// grids changed is not counted: the caller adds it).
template <class X, class Sum, class Product>
permanent_result run_gpu_sparse_in(const sparse_matrix& matrix, const std::vector<int>& column_order,
                                   const gpu::launch_options& options, bool doubled, std::string_view engine,
                                   bool grids_unchanged = false) {
  const ryser_columns<X> columns = make_ryser_columns<X>(matrix, column_order, doubled, has_fine_parts<Sum>);
  const int n = matrix.n();
  const int nnz = static_cast<int>(matrix.nnz());
  permanent_result result;
  result.engine = std::string(engine);
  result.n = n;
  result.nnz = nnz;
  auto kernel = &gpu_sparse_kernel<X, Sum, Product>;
  const gpu_sparse_shared_size<X> bytes_for{n, nnz, has_fine_parts<Sum> ? n : 0};
  floating_run_facts facts{grids_unchanged ? without_change(columns.grid) : columns.grid, 1,
                           is_split_value<X> && !is_double_double_sum<Sum>};
  if constexpr (has_fine_parts<Sum>) {  // step 0's term is the host's, and so are its fine parts' sums
    Sum start;
    add_fine_parts_term(columns.x0.data(), columns.fine.data(), n, 1, start, false);
    facts.start_fine = start.fine;
  }
  gpu::launch_options run = options;
  run.identity = sparse_columns_identity<X, Sum>(columns);
  // about 5x gpu-cached's time a step: chunks of 2^32 to 2^34 steps take what gpu-cached's of 2^36
  // to 2^38 do (0.1 to 0.4 s at n = 46, p = 0.5), long enough to hide the reduction of a chunk's
  // sums and short enough that a stop request (Ctrl-C) ends the run within a second
  run.min_chunk_bits = std::min(run.min_chunk_bits, gpu_sparse_chunk_bits_min);
  run.max_chunk_bits = std::min(run.max_chunk_bits, gpu_sparse_chunk_bits_max);
  std::size_t shared_bytes = 0;
  gpu::run_ryser_chunks<Sum>(result, n, Product{}(columns.x0.data(), n, 1), run, facts, [&](int d) {
    cudaDeviceProp device{};
    gpu::check(cudaGetDeviceProperties(&device, d), "cudaGetDeviceProperties");
    gpu::allow_optin_shared_memory(reinterpret_cast<const void*>(kernel), device);
    int min_grid = 0, block = 0, blocks_per_sm = 0;
    gpu::check(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block, kernel, bytes_for, 0),
               "cudaOccupancyMaxPotentialBlockSizeVariableSMem");
    if (block == 0 || bytes_for(block) > device.sharedMemPerBlockOptin) {
      throw engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) + " with " + std::to_string(nnz) +
                                                            " nonzeros does not fit in the shared memory of engine '" +
                                                            std::string(engine) + "'");
    }
    gpu::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block, bytes_for(block)),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    auto buffers = std::make_shared<gpu_sparse_columns<X>>(columns);
    const sparse_columns_view<X> view{n,
                                      buffers->start.data(),
                                      buffers->rows.data(),
                                      buffers->values.data(),
                                      buffers->x0.data(),
                                      buffers->fine.data()};
    auto k = gpu::resident_kernel<Sum>(reinterpret_cast<const void*>(kernel), device, block, blocks_per_sm);
    const std::size_t bytes = bytes_for(block);
    shared_bytes = bytes;
    k.launch_one = [kernel, view, nnz, block, bytes](unsigned grid, const launch& work, Sum* partial, std::uint64_t,
                                                     cudaStream_t stream) {
      kernel<<<grid, block, bytes, stream>>>(work, view, nnz, partial);
    };
    k.resources = buffers;
    return k;
  });
  result.plan = std::string("columns by ascending degree; matrix and x in shared memory (") +
                std::to_string(shared_bytes) + " bytes per block); " + (has_fine_parts<Sum> ? "" : "zero tracking; ") +
                Sum::description() + result.plan;
  return result;
}

// Under auto on signed values the row grids round: their change is bounded a priori through perm(|A|),
// which certifies nothing where terms cancel, or from the fine parts' sums (numeric/bounds.md, "Values
// off their grids"), which cost 1.1-1.8x the run (H200: F_i loaded and P1, P0 formed every step) and
// certify up to two digits fewer than the rounding alone (n = 30, 36). So a first run on the grids'
// values; where its rounding certifies options.digits + 2 or more and the a-priori change spoils that,
// again with the fine parts' bound. Elsewhere double cannot reach the digits and auto goes on to
// double-double, having paid no more than before.
// grid: the matrix's row grids' facts.
template <class V, class Sum>
permanent_result run_with_fine_parts(const sparse_matrix& matrix, const std::vector<int>& column_order,
                                     const grid_rounding_facts& grid, const gpu::launch_options& options,
                                     std::string_view engine) {
  if (options.fine_parts_at_once) {
    return run_gpu_sparse_in<V, fine_parts_sum<Sum>, plain_product>(matrix, column_order, options, false, engine);
  }
  permanent_result first =
      run_gpu_sparse_in<V, Sum, plain_product>(matrix, column_order, options, false, engine, /*grids_unchanged=*/true);
  const double rounding = *first.error_bound;
  const int rounding_digits = trusted_digits(first).value_or(0);
  const double magnitude = first.complex ? std::hypot(first.value, first.imag) : std::fabs(first.value);
  set_error_bound(first, rounding + grid_perturbation_bound(grid, magnitude, rounding));
  const int digits = trusted_digits(first).value_or(0);
  if (digits >= options.digits || rounding_digits < options.digits + 2 || !options.sharing.checkpoint.empty()) {
    return first;
  }
  permanent_result second =
      run_gpu_sparse_in<V, fine_parts_sum<Sum>, plain_product>(matrix, column_order, options, false, engine);
  second.seconds.compute += first.seconds.compute;
  second.plan = "the grids' a-priori change left " + std::to_string(digits) + " of the digits that the run's " +
                "rounding certifies (" + std::to_string(rounding_digits) +
                "), so again with the fine parts' running bound: " + second.plan;
  return second;
}

// GPU-SparsePerman on `matrix`, as engine `engine` (its name in the result, the journal's key and
// messages). With SPARSEPERM_SEPARATE_ENGINE_RUNS, compiled with the engines' runs (core/config.cuh).
permanent_result run_gpu_sparse(const sparse_matrix& matrix, const gpu::launch_options& options,
                                std::string_view engine);

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result run_gpu_sparse(const sparse_matrix& matrix, const gpu::launch_options& options,
                                                      std::string_view engine) {
  const auto start = std::chrono::steady_clock::now();
  const int n = matrix.n();
  if (n > max_ryser_n) {
    throw beyond_limit(engine, n, max_ryser_n);
  }
  permanent_result result;
  if (n == 0 || matrix.has_empty_line()) {  // 0×0: 1; an empty row or column: 0 (and Ryser needs n ≥ 1)
    result.engine = std::string(engine);
    result.n = n;
    result.nnz = matrix.nnz();
    set_trivial_value(result, n);
  } else {
    const std::vector<int> column_order = matrix.columns_by_degree();
    const auto run = [&]<class X, class Sum, class Product>(bool doubled) {
      return run_gpu_sparse_in<X, Sum, Product>(matrix, column_order, options, doubled, engine);
    };
    // double-double on split row sums (a running bound, as cpu-sparse's). Double and compensated
    // keep one grid a row: split row sums took 3x their time on an H200 (twice the shared memory a
    // thread, half the threads; complex n = 36, p = 0.3: 3.77 s against 1.05 s), and auto runs
    // double-double where their bound certifies too few digits.
    const auto floating = [&]<class V, class Sum>() {
      if (options.precision != precision::automatic) return run.template operator()<V, Sum, plain_product>(false);
      const grid_rounding_facts grid = row_grids_of<double>(matrix).facts;
      if (!grids_round_signed_values(grid)) return run.template operator()<V, Sum, plain_product>(false);
      return run_with_fine_parts<V, Sum>(matrix, column_order, grid, options, engine);
    };
    if (options.precision == precision::double_double) {
      result =
          matrix.is_complex()
              ? run.template operator()<split_value<complex_double>, complex_sum<dd_sum>, double_double_product>(false)
              : run.template operator()<split_value<double>, dd_sum, double_double_product>(false);
    } else {
      const arithmetic_choice choice =
          choose_ryser_arithmetic(matrix, options.precision, engine, arithmetic_site::gpu_runtime);
      if (matrix.is_complex()) {
        result = visit_complex_arithmetic(choice, [&]<class Arith, class Sum>() {
          if constexpr (Arith::exact) {
            return run.template operator()<typename Arith::value, Sum, plain_product>(true);
          } else {
            return floating.template operator()<typename Arith::value, Sum>();
          }
        });
      } else {
        result = visit_arithmetic<false, runtime_prime_counts>(choice, [&]<class Arith, class Sum>() {
          if constexpr (Arith::exact) {
            return run.template operator()<typename Arith::value, Sum, product_type_of<Arith>>(true);
          } else {
            return floating.template operator()<typename Arith::value, Sum>();
          }
        });
      }
    }
  }
  result.seconds.total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}
#endif

}  // namespace detail

}  // namespace sparseperm
