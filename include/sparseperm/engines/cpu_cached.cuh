#pragma once
// The `cpu-cached` engine: gpu-cached's chunk loop (engines/cached.cuh) compiled for the host and run
// on OpenMP threads (detail/host_chunks.cuh). The matrix is a type, so the host compiler unrolls the
// static Gray blocks with the columns, directions and values as constants, as nvcc does for the GPU.
// x is one array (k = n): the cost model chooses b alone (cached_options_on_host).
//
//   permanent_cpu_cached<M>(options)        a generated matrix type, compiled into the caller's
//                                           program (best with -O3 -march=native -fopenmp)
//   sparseperm compute --engine cpu-cached  the pipeline: a module compiled for each matrix
//                                           (host_module.cuh, runtime/host_module_runner.cuh)
//
// Sums (detail/generated_arithmetic.cuh): by default exact 128-bit integers where the matrix's bound
// allows, else double with compensated (TwoSum) sums, one for the terms added and one for those
// subtracted: two dependency chains where one held each step at the adder's latency.
#include <chrono>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../detail/accumulators.cuh"
#include "../detail/generated_arithmetic.cuh"
#include "../detail/host_chunks.cuh"
#include "../detail/module_definition.cuh"
#include "../detail/ryser_result.cuh"
#include "../detail/threads.cuh"
#include "../module_info.cuh"
#include "../pattern.cuh"
#include "../progress.cuh"
#include "../result.cuh"
#include "../ryser_plan.cuh"
#include "../structure.cuh"
#include "cached.cuh"

namespace sparseperm {

struct cpu_cached_options {
  int threads = 0;                       // 0: as many as OpenMP offers
  progress_counter* progress = nullptr;  // counts Gray steps, for progress bars
};

namespace detail {

// A whole run given the chunk loop steps(first, end, Sum&): the library's permanent_cpu_cached and
// the pipeline's host modules (runtime/host_module_runner.cuh) share it.
template <class Sum, class Start, class Steps>
permanent_result run_cpu_cached(int n, int nnz, const Start& start_term, const Steps& steps, const cpu_cached_options& options,
                                const std::string& plan_text, const std::string& arithmetic, const floating_run_facts& facts) {
  const auto start = std::chrono::steady_clock::now();
  permanent_result result;
  result.engine = cpu_cached_engine::name;
  result.n = n;
  result.nnz = nnz;
  result.threads = engine_threads(options.threads);
  Sum sum;
  sum.add(start_term);  // step 0: x_0 itself, sign +
  host_chunking chunking;
  sum_host_chunks(n, result.threads, options.progress, steps, sum, chunking);
  set_ryser_sum(result, n, sum, chunking.longest_chain(), facts);
  result.plan = plan_text + "; 2^" + std::to_string(n - 1) + " Gray steps in chunks of 2^" +
                std::to_string(highest_bit(chunking.chunk)) + "; " + arithmetic;
  result.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// A run of the cpu-cached loop that `info` describes (module_definition<cpu_cached_engine, M>::info(),
// or a host module's): structurally singular patterns give an exact 0 without a step; otherwise
// steps(first, end, Sum&) runs the chunks. The library and the pipeline's host modules both come
// through here.
template <class Arith, class Sum, class Steps>
permanent_result run_cpu_cached_module(const module_info& info, const Steps& steps, const cpu_cached_options& options) {
  if (info.singular) {
    permanent_result result;
    result.engine = cpu_cached_engine::name;
    result.n = info.n;
    result.nnz = info.nnz;
    set_exact_value(result, 0, "structurally singular (no perfect matching, found at compile time)");
    return result;
  }
  return run_cpu_cached<Sum>(info.n, info.nnz, module_start_term<Arith>(info), steps, options, generated_plan_text(info),
                             Sum::description(), floating_facts_of(info));
}

}  // namespace detail

// The permanent of a generated matrix type on this CPU, in the arithmetic P asks for (precision.cuh).
template <CompileTimeMatrix M, precision P = precision::automatic>
permanent_result permanent_cpu_cached(const cpu_cached_options& options = {}) {
  constexpr int n = M::pattern::n;
  static_assert(n <= max_ryser_n, "sparseperm::permanent_cpu_cached<M>: the Ryser engines need n <= 64");
  if constexpr (n == 0) {
    permanent_result result;
    result.engine = cpu_cached_engine::name;
    set_exact_value(result, 1, "the 0 x 0 matrix: permanent 1 by convention");
    return result;
  } else {
    // The same definition as a host module's (host_module.cuh): plan, accumulator, module_info.
    using definition = detail::module_definition<cpu_cached_engine, M, P>;
    using plan = typename definition::plan;
    return detail::run_cpu_cached_module<typename definition::arithmetic, typename definition::sum>(
        definition::info(),
        [](std::uint64_t first, std::uint64_t end, typename definition::sum& sum) { cached_steps<plan>(first, end, nullptr, 0, sum); },
        options);
  }
}

}  // namespace sparseperm
