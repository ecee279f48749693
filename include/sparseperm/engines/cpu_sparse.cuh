#pragma once
// The `cpu-sparse` engine: the paper's CPU-SparsePerman (Algorithm 1), with OpenMP over chunks.
//
//   - columns sorted by ascending degree, so the most often flipped columns touch the fewest rows;
//   - step g updates only the rows of column ctz(g) (CSC), in the direction of Theorem 1;
//   - zero tracking: the number of exactly-zero entries of x is kept up to date, and the product
//     is skipped while it is not 0 (0/1 matrices hit zeros all the time);
//   - the steps [1, 2^(n−1)) are cut into aligned power-of-two chunks; a thread rebuilds its start
//     state x_{first−1} from gray(first − 1) (the paper's Section II-A), and chunks go to threads
//     dynamically. Partial sums are kept per chunk and reduced in chunk order, so the result does not
//     depend on the thread count's scheduling.
//
// Arithmetic (options.precision, detail/runtime_arithmetic.cuh): by default exact for integer
// matrices whose 128-bit bound holds (x doubled to integers, 128-bit products and sums), otherwise
// double with compensated (TwoSum) sums; `exact` goes on beyond 128 bits with residues modulo primes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "../config.cuh"
#include "../detail/accumulators.cuh"
#include "../detail/bits.cuh"
#include "../detail/exact_integer.cuh"
#include "../detail/host_chunks.cuh"
#include "../detail/error_bound.cuh"
#include "../detail/ryser_result.cuh"
#include "../detail/runtime_arithmetic.cuh"
#include "../detail/sparse_ryser.cuh"
#include "../detail/threads.cuh"
#include "../engine_error.cuh"
#include "../gray_code.cuh"
#include "../progress.cuh"
#include "../result.cuh"
#include "../runtime/sparse_matrix.cuh"

namespace sparseperm {

struct cpu_sparse_options {
  int threads = 0;                                 // 0: as many as OpenMP offers
  progress_counter* progress = nullptr;            // counts Gray steps, for progress bars
  sparseperm::precision precision = sparseperm::precision::automatic;
};

namespace detail {

// The matrix as the inner loop reads it: CSC in the engine's column order, and the start state x_0.
template <class X>
struct ryser_columns {
  int n = 0;
  std::vector<std::int32_t> start;  // column j's entries are [start[j], start[j+1])
  std::vector<std::int32_t> rows;
  std::vector<X> values;
  std::vector<X> x0;
  grid_rounding_facts grid;  // floating X: what rounding the values to their row grids changed
};

// scale 1: the values on their row grids (error_bound.cuh: every x is then exact). Exact arithmetic
// (int64, or residues in doubles): scale 2, doubled values, so that x_0 = a(:, n−1) − rowsum/2
// becomes the integer 2·a(:, n−1) − rowsum.
template <class X>
ryser_columns<X> make_ryser_columns(const sparse_matrix& matrix, const std::vector<int>& column_order,
                                    X scale = std::is_floating_point_v<X> ? X{1} : X{2}) {
  const int n = matrix.n();
  ryser_columns<X> m;
  m.n = n;
  const bool on_grid = std::is_floating_point_v<X> && scale == X{1};
  const row_grids<double> grids = on_grid ? row_grids_of<double>(matrix) : row_grids<double>{};
  if (on_grid) m.grid = grids.facts;
  m.start.push_back(0);
  m.x0.assign(n, X{0});
  for (int position = 0; position < n; ++position) {
    const int j = column_order[position];
    const auto rows = matrix.column_rows(j);
    const auto values = matrix.column_values(j);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const X v = on_grid ? static_cast<X>(grids.value(rows[k], values[k])) : static_cast<X>(values[k]) * scale;
      m.rows.push_back(rows[k]);
      m.values.push_back(v);
      m.x0[rows[k]] += position == n - 1 ? v / 2 : -v / 2;  // a(i, n−1) − Σ_j a(i, j) / 2
    }
    m.start.push_back(static_cast<std::int32_t>(m.rows.size()));
  }
  return m;
}

// Σ_{g ≥ 0} (−1)^g Π x_g on `threads` threads (detail/host_chunks.cuh).
template <class X, class Sum, class Product = plain_product>
Sum sum_all_steps(const ryser_columns<X>& m, int threads, progress_counter* progress, host_chunking& chunking) {
  const sparse_columns_view<X> view{m.n, m.start.data(), m.rows.data(), m.values.data(), m.x0.data()};
  Sum sum;
  sum.add(Product{}(m.x0.data(), m.n, 1));  // step 0: x_0 itself, sign +
  sum_host_chunks(
      m.n, threads, progress,
      [&](std::uint64_t first, std::uint64_t end, Sum& local) {
        X x[max_ryser_n];
        sparse_ryser_steps(view, x, 1, first, end, local, Product{});
      },
      sum, chunking);
  return sum;
}

}  // namespace detail

inline constexpr int cpu_sparse_max_n = max_ryser_n;

inline permanent_result permanent_cpu_sparse(const sparse_matrix& matrix, const cpu_sparse_options& options = {}) {
  const auto start = std::chrono::steady_clock::now();
  const int n = matrix.n();
  if (n > cpu_sparse_max_n) {
    throw engine_error(engine_error::kind::too_large,
                       "n = " + std::to_string(n) + " exceeds the limit of engine 'cpu-sparse' (n <= 64)");
  }
  permanent_result result;
  result.engine = "cpu-sparse";
  result.n = n;
  result.nnz = matrix.nnz();
  result.threads = options.threads > 0 ? options.threads : detail::available_threads();
  auto finish = [&] {
    result.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (n == 0 || matrix.has_empty_line()) {  // the 0×0 matrix has permanent 1; an empty row or column gives 0
    set_exact_value(result, n == 0 ? 1 : 0, n == 0 ? "empty matrix" : "an empty row or column");
    return finish();
  }
  const std::vector<int> column_order = matrix.columns_by_degree();

  detail::host_chunking chunking;
  std::string arithmetic;
  const detail::ryser_arithmetic_choice choice = detail::choose_ryser_arithmetic(matrix, options.precision, result.engine);
  detail::visit_ryser_arithmetic(choice, [&]<class X, class Sum, class Product>(X scale) {
    const auto columns = detail::make_ryser_columns<X>(matrix, column_order, scale);
    const Sum sum = detail::sum_all_steps<X, Sum, Product>(columns, result.threads, options.progress, chunking);
    detail::set_ryser_sum(result, n, sum, chunking.longest_chain(), {columns.grid});
    arithmetic = Sum::description();
  });
  result.plan = "columns by ascending degree; 2^" + std::to_string(n - 1) + " Gray steps in chunks of 2^" +
                std::to_string(detail::highest_bit(chunking.chunk)) + "; zero tracking; " + arithmetic;
  return finish();
}

}  // namespace sparseperm
