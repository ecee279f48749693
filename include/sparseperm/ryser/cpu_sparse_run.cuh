#pragma once
// The `cpu-sparse` engine's run (ryser/cpu_sparse.cuh: the algorithm): in a header of its own, which
// only the engine's tag includes, so that with SPARSEPERM_SEPARATE_ENGINE_RUNS (core/config.cuh) it is
// compiled once, with the host engines' runs, and not in every unit that includes the GPU kernels'
// headers (they share the columns and the chunk loop of cpu_sparse.cuh). Every arithmetic's chunk
// loop is instantiated here: the tool's main unit took 24 s less without it.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.cuh"
#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../detail/bits.cuh"
#include "../detail/threads.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../run/sharing.cuh"
#include "arithmetic_types.cuh"
#include "cpu_sparse.cuh"
#include "host_chunks.cuh"
#include "ryser_result.cuh"

namespace sparseperm {

namespace detail {

// CPU-SparsePerman on `matrix`, as engine `engine` (its name in the result, the journal's key and
// messages).
permanent_result run_cpu_sparse(const sparse_matrix& matrix, const cpu_sparse_options& options,
                                std::string_view engine);

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result run_cpu_sparse(const sparse_matrix& matrix, const cpu_sparse_options& options,
                                                      std::string_view engine) {
  const auto start = std::chrono::steady_clock::now();
  const int n = matrix.n();
  if (n > max_ryser_n) {
    throw beyond_limit(engine, n, max_ryser_n);
  }
  permanent_result result;
  result.engine = std::string(engine);
  result.n = n;
  result.nnz = matrix.nnz();
  result.threads = options.threads > 0 ? options.threads : available_threads();
  auto finish = [&] {
    result.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };
  if (n == 0 || matrix.has_empty_line()) {  // the 0×0 matrix has permanent 1; an empty row or column gives 0
    set_trivial_value(result, n);
    return finish();
  }
  const std::vector<int> column_order = matrix.columns_by_degree();

  host_chunking chunking;
  std::string arithmetic;
  shared_chunks shared{options.sharing};
  const auto run = [&]<class X, class Sum, class Product>(bool doubled) {
    const auto columns = make_ryser_columns<X>(matrix, column_order, doubled);
    const Sum sum = sum_all_steps<X, Sum, Product>(columns, result.threads, options.progress, chunking, shared, engine);
    set_ryser_sum(result, n, sum, chunking.longest_chain(), {columns.grid, 1, is_split_value<X>});
    arithmetic = Sum::description();
  };
  // Floating values that their row grids would round: split row sums (numeric/double_double.cuh), so
  // that the bound is a running one, free of what rounding the values would change.
  const auto split = [&] { return !matrix.has_integer_values() && row_grids_of<double>(matrix).facts.change > 0; };
  const auto floating = [&]<class V, class Sum>() {
    if (split()) {
      run.template operator()<split_value<V>, Sum, plain_product>(false);
    } else {
      run.template operator()<V, Sum, plain_product>(false);
    }
  };
  if (options.precision == precision::double_double) {
    if (matrix.is_complex()) {
      run.template operator()<split_value<complex_double>, complex_sum<dd_sum>, double_double_product>(false);
    } else {
      run.template operator()<split_value<double>, dd_sum, double_double_product>(false);
    }
  } else if (matrix.is_complex()) {
    const arithmetic_choice choice =
        choose_ryser_arithmetic(matrix, options.precision, result.engine, arithmetic_site::host_runtime);
    visit_complex_arithmetic(choice, [&]<class Arith, class Sum>() {
      if constexpr (Arith::exact) {
        run.template operator()<typename Arith::value, Sum, plain_product>(true);
      } else {
        floating.template operator()<typename Arith::value, Sum>();
      }
    });
  } else {
    const arithmetic_choice choice =
        choose_ryser_arithmetic(matrix, options.precision, result.engine, arithmetic_site::host_runtime);
    visit_arithmetic<false, runtime_prime_counts>(choice, [&]<class Arith, class Sum>() {
      if constexpr (Arith::exact) {
        run.template operator()<typename Arith::value, Sum, product_type_of<Arith>>(true);  // doubled
      } else {
        floating.template operator()<typename Arith::value, Sum>();
      }
    });
  }
  result.plan = "columns by ascending degree; 2^" + std::to_string(n - 1) + " Gray steps in chunks of 2^" +
                std::to_string(highest_bit(chunking.chunk)) + "; zero tracking; " + arithmetic;
  result.plan += sharing_text(shared, static_cast<std::uint64_t>(chunking.chunks));
  return finish();
}
#endif

}  // namespace detail

}  // namespace sparseperm
