#pragma once
// `sparseperm compute FILE [--engine NAME] [--threads N] [--json]`
#include <cstdio>
#include <filesystem>
#include <string>

#include <sparseperm/perm.cuh>

#include <sparseperm/result_json.cuh>
#include "arguments.hpp"
#include "progress_bar.hpp"

namespace sparseperm::cli {

inline const char* compute_help =
    "usage: sparseperm compute FILE [--engine NAME] [--precision P] [--threads N] [--device D] [--json]\n"
    "\n"
    "The permanent of the matrix in FILE (Matrix Market: coordinate or array; real, integer or\n"
    "pattern; general, symmetric or skew-symmetric).\n"
    "\n"
    "  --engine NAME   auto (the default), gpu-cached, gpu-hybrid, gpu-purereg, gpu-sparse,\n"
    "                  cpu-cached, cpu-sparse, dp, reference. auto splits the matrix into blocks and\n"
    "                  runs each on the engine predicted cheapest ('inspect' shows the plan): dp,\n"
    "                  cpu-sparse, cpu-cached (with g++), gpu-sparse or, with nvcc and a CUDA\n"
    "                  device, gpu-cached\n"
    "  --precision P   double: plain sums, the fastest; compensated: TwoSum sums; exact: integer\n"
    "                  matrices only, 128-bit integers where they provably suffice, else residues\n"
    "                  modulo primes below 2^25 joined by the Chinese remainder theorem (dp: wide\n"
    "                  integers); refused with exit code 2 for other matrices. Default: exact where\n"
    "                  128 bits suffice (and on dp), else compensated\n"
    "  --threads N     CPU threads (default: all that are available)\n"
    "  --device D      the CUDA device of the GPU engines (default 0)\n"
    "  --json          print one JSON object: permanent (a string: the exact integer when exact,\n"
    "                  otherwise %.17g), value, exact, error_bound (floating results: a proven bound\n"
    "                  on |value - permanent|; null when exact), trusted_digits, engine, n, nnz,\n"
    "                  threads, plan, file, seconds {plan, codegen, compile, compute, total}\n"
    "\n"
    "gpu-cached, gpu-hybrid and gpu-purereg generate a kernel for the matrix and compile it with nvcc,\n"
    "cpu-cached a module with g++ -O3 -march=native ($SPARSEPERM_CXX to choose another compiler), into\n"
    "$SPARSEPERM_CACHE (default ~/.cache/sparseperm) and run it; a second run of the same matrix\n"
    "reuses it. A 0 x 0 matrix has permanent 1; a matrix without a perfect matching has permanent 0 (found by\n"
    "matching, without running an engine). Bad input gives one line 'error: FILE:LINE: ...' and exit code 2.\n";

inline void print_result(const permanent_result& r) {
  const engine_description* engine = find_engine(r.engine);  // null for "structure" and blocks' "a+b"
  const bool gpu = engine != nullptr && engine->on_gpu();
  if (r.exact) {
    std::printf("permanent  %s  (exact)\n", r.permanent.c_str());
  } else if (const auto digits = trusted_digits(r)) {
    std::printf("permanent  %s  (double precision: %d digit%s trusted, |error| <= %.2g)\n", r.permanent.c_str(),
                *digits, *digits == 1 ? "" : "s", *r.error_bound);
  } else {
    std::printf("permanent  %s  (double precision)\n", r.permanent.c_str());
  }
  if (r.engine == structure_engine_name) {
    std::printf("engine     none needed: %s\n", r.plan.c_str());
  } else {
    std::printf("engine     %s, %d %sthread%s: %s\n", r.engine.c_str(), r.threads, gpu ? "GPU " : "",
                r.threads == 1 ? "" : "s", r.plan.c_str());
  }
  std::printf("matrix     %d x %d, %lld nonzeros\n", r.n, r.n, static_cast<long long>(r.nnz));
  if (r.seconds.codegen > 0 || r.seconds.compile > 0) {
    std::printf("time       %.3f s (plan %.3f s, codegen %.3f s, compile %.3f s, compute %.3f s)\n", r.seconds.total,
                r.seconds.plan, r.seconds.codegen, r.seconds.compile, r.seconds.compute);
  } else {
    std::printf("time       %.3f s (plan %.3f s, compute %.3f s)\n", r.seconds.total, r.seconds.plan,
                r.seconds.compute);
  }
}

// Reads and computes; an engine's size limit becomes an input error at the file's size line, a
// refusal of exactness one at the first value reading rounded (if any), and running out of memory
// one that names the file.
inline permanent_result compute_file(const matrix_market_file& file, const compute_options& options) {
  try {
    return compute_permanent(file.matrix, options);
  } catch (const engine_error& e) {
    if (e.reason() == engine_error::kind::too_large) throw input_error(file.path, file.size_line, e.what());
    if (e.reason() == engine_error::kind::refused && options.precision == precision::exact &&
        file.first_rounded_line > 0) {
      throw input_error(file.path, file.first_rounded_line,
                        std::string(e.what()) + " (this line's value is not exactly a double: reading rounded it)");
    }
    if (e.reason() == engine_error::kind::overflow || e.reason() == engine_error::kind::refused) {
      throw input_error(file.path, 0, e.what());
    }
    throw;  // unknown or unavailable engines, failed runs: reported as they are
  } catch (const std::bad_alloc&) {
    throw input_error(file.path, 0,
                      "out of memory while computing the permanent (fewer --threads, or another engine, may fit)");
  }
}

inline int run_compute(int argc, char** argv) {
  const arguments args(argc, argv, 2, {"json", "help"}, {"engine", "threads", "device", "precision"});
  if (args.flag("help")) {
    std::fputs(compute_help, stdout);
    return 0;
  }
  if (args.positionals().size() != 1)
    throw usage_error("compute needs exactly one FILE (see 'sparseperm compute --help')");
  compute_options options;
  if (const auto name = args.value("engine"); name && *name != "auto") {
    const engine_description* engine = find_engine(*name);
    if (engine == nullptr) throw usage_error("unknown engine '" + *name + "' (engines: " + engine_names() + ")");
    options.engine = engine_choice(engine);
  }
  if (const auto name = args.value("precision")) {
    const auto p = parse_precision(*name);
    if (!p || *p == precision::automatic)
      throw usage_error("unknown precision '" + *name + "' (double, compensated or exact)");
    options.precision = *p;
  }
  if (const auto threads = args.value("threads"))
    options.threads = static_cast<int>(parse_integer("threads", *threads, 1, 4096));
  if (const auto device = args.value("device"))
    options.device = static_cast<int>(parse_integer("device", *device, 0, 1023));

  const matrix_market_file file = read_matrix_market(args.positionals()[0]);
  options.source_name = std::filesystem::path(file.path).filename().string();
  progress_counter progress;
  options.progress = &progress;
  permanent_result result;
  {
    progress_bar bar(progress);
    result = compute_file(file, options);
  }
  if (args.flag("json")) {
    std::printf("%s\n", to_json(result, file.path).c_str());
  } else {
    print_result(result);
  }
  return 0;
}

}  // namespace sparseperm::cli
