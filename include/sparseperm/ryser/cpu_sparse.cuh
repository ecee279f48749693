#pragma once
// The paper's CPU-SparsePerman (Algorithm 1) with OpenMP over chunks: the `cpu-sparse` engine's
// algorithm (its tag: engines/cpu_sparse.cuh), and the columns that gpu-sparse and the batches share.
//
//   - columns sorted by ascending degree, so the most often flipped columns touch the fewest rows;
//   - step g updates only the rows of column ctz(g) (CSC), in the direction of Theorem 1;
//   - zero tracking: the number of exactly-zero entries of x is kept up to date, and the product
//     is skipped while it is not 0 (0/1 matrices hit zeros all the time);
//   - the steps [1, 2^(n−1)) are cut into aligned power-of-two chunks; a thread rebuilds its start
//     state x_{first−1} from gray(first − 1) (the paper's Section II-A), and chunks go to threads
//     dynamically (host_chunks.cuh). Partial sums are kept per chunk and reduced in chunk order, so
//     the result does not depend on the thread count's scheduling.
//
// Arithmetic (choose_ryser_arithmetic, arithmetic_types.cuh): by default exact for integer matrices
// whose 128-bit bound holds (x doubled to integers, 128-bit products and sums), otherwise double with
// compensated (TwoSum) sums; `exact` goes on beyond 128 bits with residues modulo primes.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/config.cuh"
#include "../core/engine_error.cuh"
#include "../core/progress.cuh"
#include "../core/result.cuh"
#include "../detail/bits.cuh"
#include "../detail/threads.cuh"
#include "../matrix/row_grids.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/double_double.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/value_types.cuh"
#include "../run/sharing.cuh"
#include "arithmetic_types.cuh"
#include "gray_code.cuh"
#include "host_chunks.cuh"
#include "ryser_result.cuh"
#include "sparse_ryser.cuh"

namespace sparseperm {

struct cpu_sparse_options {
  int threads = 0;                       // 0: as many as OpenMP offers
  progress_counter* progress = nullptr;  // counts Gray steps, for progress bars
  sparseperm::precision precision = sparseperm::precision::automatic;
  detail::chunk_sharing sharing = {};  // a journal to resume from and append to, MPI ranks (run/sharing.cuh)
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
  // floating X on one grid a row, where asked (fine_parts): F_i = Σ_j |a_ij − â_ij| / 2 (complex:
  // |re| + |im| of a difference), rounded up (n ≤ 64 exact differences: the sum is short by less than
  // the margin); empty otherwise
  std::vector<double> fine;
};

// Floating X: the values on their row grids (error_bound.cuh: every x is then exact). Exact
// arithmetic (int64, Gaussian int64, or residues in doubles; X any of them or complex): doubled values, so that
// x_0 = a(:, n−1) − rowsum/2 becomes the integer 2·a(:, n−1) − rowsum.
// fill_ryser_columns writes them into m, keeping its vectors' capacity (a batch's thread reuses one
// for matrix after matrix: no allocation a matrix but the grids'); fine_parts: F_i too, for a walk
// that bounds the grids' rounding from its terms (gpu-sparse under auto).
template <class X>
void fill_ryser_columns(const sparse_matrix& matrix, const std::vector<int>& column_order, bool doubled,
                        ryser_columns<X>& m, bool fine_parts = false) {
  using part = part_type<X>;
  const int n = matrix.n();
  m.n = n;
  m.start.clear();
  m.rows.clear();
  m.values.clear();
  m.grid = {};
  const bool on_grid = !doubled && !is_split_value<X>;
  const row_grids<double> grids = on_grid ? row_grids_of<double>(matrix) : row_grids<double>{};
  if (on_grid) m.grid = grids.facts;
  split_row_grids split;
  if constexpr (is_split_value<X>) {
    split = split_row_grids_of(matrix);
    m.grid = split.facts;
  }
  m.start.reserve(static_cast<std::size_t>(n) + 1);
  m.rows.reserve(static_cast<std::size_t>(matrix.nnz()));
  m.values.reserve(static_cast<std::size_t>(matrix.nnz()));
  m.start.push_back(0);
  m.x0.assign(n, X{0});
  m.fine.assign(fine_parts && on_grid && std::is_floating_point_v<part> ? n : 0, 0.0);
  const auto entry = [&](int row, double re, double im) -> X {
    if constexpr (is_split_value<X>) {  // exactly the value, in two parts
      const auto [c, f] = split.split(row, re);
      if constexpr (is_complex_number<decltype(X{}.coarse)>) {
        const auto [ci, fi] = split.split(row, im);
        return X({c, ci}, {f, fi});
      } else {
        return X(c, f);
      }
    } else if constexpr (is_complex_number<X>) {
      if (on_grid) {
        const X v(grids.value(row, re, im));
        if (!m.fine.empty()) m.fine[row] += std::fabs(v.re - re) + std::fabs(v.im - im);
        return v;
      }
      return {static_cast<part>(re) * part{2}, static_cast<part>(im) * part{2}};
    } else {
      (void)im;
      if (on_grid) {
        const X v = static_cast<X>(grids.value(row, re));
        if (!m.fine.empty()) m.fine[row] += std::fabs(static_cast<double>(v) - re);
        return v;
      }
      return static_cast<X>(re) * X{2};
    }
  };
  for (int position = 0; position < n; ++position) {
    const int j = column_order[position];
    const auto rows = matrix.column_rows(j);
    const auto values = matrix.column_values(j);
    const auto imag = matrix.column_imag(j);
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const X v = entry(rows[k], values[k], imag.empty() ? 0.0 : imag[k]);
      m.rows.push_back(rows[k]);
      m.values.push_back(v);
      m.x0[rows[k]] += position == n - 1 ? v / part{2} : -v / part{2};  // a(i, n−1) − Σ_j a(i, j) / 2
    }
    m.start.push_back(static_cast<std::int32_t>(m.rows.size()));
  }
  for (double& f : m.fine) f *= 0.5 * bound_margin;
}

template <class X>
ryser_columns<X> make_ryser_columns(const sparse_matrix& matrix, const std::vector<int>& column_order,
                                    bool doubled = !std::is_floating_point_v<part_type<X>>, bool fine_parts = false) {
  ryser_columns<X> m;
  fill_ryser_columns(matrix, column_order, doubled, m, fine_parts);
  return m;
}

// The columns as the sparse loop reads them (their bytes: values after grids or doubling), for a
// journal's key (cpu-sparse's and gpu-sparse's: run/sharing.cuh's chunk_key and the chunking before).
template <class X, class Sum>
std::string sparse_columns_identity(const ryser_columns<X>& m) {
  std::string key = std::to_string(sizeof(X)) + "-byte x, " + std::to_string(sizeof(Sum)) + "-byte sums\n";
  const auto bytes = [&key](const auto& v) {
    key.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
  };
  bytes(m.start);
  bytes(m.rows);
  bytes(m.values);
  bytes(m.x0);
  bytes(m.fine);
  return key;
}

// Σ_{g ≥ 0} (−1)^g Π x_g on `threads` threads (ryser/host_chunks.cuh); with a checkpoint or ranks
// (`shared.sharing`), journaled and shared; `shared` then says what came from the journal and the ranks.
template <class X, class Sum, class Product = plain_product>
Sum sum_all_steps(const ryser_columns<X>& m, int threads, progress_counter* progress, host_chunking& chunking,
                  shared_chunks& shared, std::string_view engine) {
  const sparse_columns_view<X> view{m.n, m.start.data(), m.rows.data(), m.values.data(), m.x0.data()};
  Sum sum;
  sum.add(Product{}(m.x0.data(), m.n, 1));  // step 0: x_0 itself, sign +
  const bool fixed = shared.sharing.fixed_chunks();
  if (fixed) {
    shared.key = chunk_key(engine, Sum::description(), m.n) + "; " + sparse_columns_identity<X, Sum>(m);
  }
  sum_host_chunks(
      m.n, threads, progress,
      [&](std::uint64_t first, std::uint64_t end, Sum& local) {
        X x[max_ryser_n];
        sparse_ryser_steps(view, x, 1, first, end, local, Product{});
      },
      sum, chunking, fixed ? &shared : nullptr);
  return sum;
}

}  // namespace detail

}  // namespace sparseperm
