#pragma once
// A host engine's chunk loop run on OpenMP threads (ryser/host_chunks.cuh) from what its module_info
// says: the same whether the loop was compiled into the program (permanent_cpu_cached<M>) or loaded
// from a host module (host_runner.cuh).
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "../core/engine_error.cuh"
#include "../core/progress.cuh"
#include "../core/result.cuh"
#include "../detail/bits.cuh"
#include "../detail/threads.cuh"
#include "../run/sharing.cuh"
#include "../ryser/host_chunks.cuh"
#include "../ryser/ryser_result.cuh"
#include "module_info.cuh"

namespace sparseperm {

struct host_run_options {
  int threads = 0;                       // 0: as many as OpenMP offers
  progress_counter* progress = nullptr;  // counts Gray steps, for progress bars
  detail::chunk_sharing sharing = {};    // a journal, MPI ranks (run/sharing.cuh)
  std::string identity = {};             // what identifies the loop's code and matrix, for the journal's key
};

namespace detail {

// A whole run of a chunk loop steps(first, end, Sum&) that adds the steps [first, end) (first ≥ 1)
// to the sum, on OpenMP threads; the step-0 term is start_term.
template <class Sum, class Start, class Steps>
permanent_result run_host_chunks(std::string_view engine, int n, std::int64_t nnz, const Start& start_term,
                                 const Steps& steps, const host_run_options& options, const std::string& plan_text,
                                 const floating_run_facts& facts) {
  const auto start = std::chrono::steady_clock::now();
  permanent_result result;
  result.engine = std::string(engine);
  result.n = n;
  result.nnz = nnz;
  result.threads = engine_threads(options.threads);
  Sum sum;
  sum.add(start_term);  // step 0: x_0 itself, sign +
  host_chunking chunking;
  shared_chunks shared{options.sharing,
                       chunk_key(engine, Sum::description(), n) + "; " + plan_text + "; " + options.identity};
  if (options.sharing.fixed_chunks() && options.identity.empty()) {
    throw engine_error(engine_error::kind::bad_setting,
                       std::string(engine) + ": a journaled or distributed run needs the loop's identity (a bug)");
  }
  sum_host_chunks(n, result.threads, options.progress, steps, sum, chunking,
                  options.sharing.fixed_chunks() ? &shared : nullptr);
  set_ryser_sum(result, n, sum, chunking.longest_chain(), facts);
  result.plan = plan_text + "; 2^" + std::to_string(n - 1) + " Gray steps in chunks of 2^" +
                std::to_string(highest_bit(chunking.chunk)) + "; " + Sum::description() +
                sharing_text(shared, static_cast<std::uint64_t>(chunking.chunks));
  result.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// The run that `info` describes (structurally singular patterns give an exact 0 without a step);
// `plan_text`: the engine's plan line.
template <class Arith, class Sum, class Steps>
permanent_result run_host_module_loop(const module_info& info, const std::string& plan_text, const Steps& steps,
                                      const host_run_options& options) {
  if (info.singular) {
    permanent_result result;
    result.engine = std::string(module_engine(info));
    result.n = info.n;
    result.nnz = info.nnz;
    set_compile_time_singular(result, info.complex != 0);
    return result;
  }
  return run_host_chunks<Sum>(module_engine(info), info.n, info.nnz, module_start_term<Arith>(info), steps, options,
                              plan_text, floating_facts_of(info));
}

}  // namespace detail

}  // namespace sparseperm
