#pragma once
// `sparseperm compute FILE [--engine NAME] [--threads N] [--json]`
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <sparseperm/perm.cuh>
#include <sparseperm/settings.cuh>

#include <sparseperm/result_json.cuh>
#include <sparseperm/structure/repeated_lines.cuh>
#include "arguments.hpp"
#include "progress_bar.hpp"
#include "tool.hpp"

namespace sparseperm::cli {

inline const char* compute_help =
    "usage: sparseperm compute FILE [--engine NAME] [--precision P] [--digits D] [--threads N]\n"
    "                          [--devices D] [--time-limit T] [--checkpoint FILE] [--json]\n"
    "                          [--row-multiplicities R1,R2,...] [--column-multiplicities C1,C2,...]\n"
    "\n"
    "The permanent of the matrix in FILE (Matrix Market: coordinate or array; real, integer, complex\n"
    "or pattern; general, symmetric, skew-symmetric or hermitian). A complex matrix's permanent is\n"
    "printed as a + bi; every engine takes complex matrices.\n"
    "\n"
    "  --engine NAME   auto (the default), gpu-cached, gpu-hybrid, gpu-purereg, gpu-sparse,\n"
    "                  gpu-dense, cpu-cached, cpu-sparse, dp, gpu-dp, glynn, gpu-glynn, reference.\n"
    "                  auto splits the matrix into blocks and runs each on the engine predicted\n"
    "                  cheapest ('inspect' shows the plan): dp, glynn (repeated rows or columns),\n"
    "                  cpu-sparse, cpu-cached (with g++) or, with a CUDA device, gpu-sparse,\n"
    "                  gpu-dense (n <= 48), gpu-dp (a frontier of at most 63 rows), gpu-glynn and\n"
    "                  (with nvcc) gpu-cached\n"
    "  --precision P   double: plain sums, the fastest; compensated: TwoSum sums; double-double:\n"
    "                  about 30 digits a term, for sums that cancel (cpu-sparse); exact: integer\n"
    "                  matrices only, 128-bit integers where they provably suffice, else residues\n"
    "                  modulo primes below 2^25 joined by the Chinese remainder theorem (dp: wide\n"
    "                  integers); refused with exit code 2 for other matrices. Default (auto): exact\n"
    "                  where 128 bits suffice (and on dp), else compensated, then double-double\n"
    "                  where that certifies fewer than --digits\n"
    "  --digits D      the significant digits auto's bound should certify (1 to 17, default 10); a\n"
    "                  run that certifies fewer runs again in double-double, and the plan says so\n"
    "  --threads N     CPU threads (default: all that are available)\n"
    "  --devices D     the CUDA devices: all, split (under MPI: the host's devices shared out between\n"
    "                  its ranks) or a list such as 0,1 (default 0). The Ryser engines share one\n"
    "                  queue of chunks over them and give the same value, bit for bit, as on one\n"
    "                  device (a device named twice runs two queues on it); the other GPU\n"
    "                  engines run on the first\n"
    "  --time-limit T  refuse a run whose estimate exceeds T (s, m, h or d: 90m, 36h, 7d; none: no\n"
    "                  limit; default 24h), with exit code 2 and the estimate\n"
    "  --checkpoint FILE  journal the finished chunks in FILE (appended and synced as they finish);\n"
    "                  the same command after a kill resumes from it and gives the same value, bit\n"
    "                  for bit. A journal of another matrix, engine, arithmetic or version is\n"
    "                  refused. FILE must be yours and writable by no one else (it is created\n"
    "                  0600); its records are sealed with your key (the module cache's key:\n"
    "                  $SPARSEPERM_CACHE or ~/.cache/sparseperm), so a record that anyone else\n"
    "                  wrote or changed is dropped and its chunk runs again. Engines: the six\n"
    "                  Ryser engines and glynn (named with --engine). SIGINT stops at once and\n"
    "                  leaves the journal to resume from\n"
    "  --row-multiplicities R1,R2,...     the permanent of the matrix with row i repeated Ri times\n"
    "  --column-multiplicities C1,C2,...  and column j Cj times (one count per line, 0 drops it; both\n"
    "                  lists sum to the same total, 1 each where one is left out). glynn and\n"
    "                  gpu-glynn then need prod(Ri + 1) terms, not 2^(total - 1); auto finds\n"
    "                  repeated rows and columns in any matrix\n"
    "  --json          print one JSON object: permanent (a string: the exact integer when exact,\n"
    "                  otherwise %.17g), value, exact, error_bound (floating results: a proven bound\n"
    "                  on |value - permanent|; null when exact), trusted_digits, engine, n, nnz,\n"
    "                  threads, plan, file, seconds {plan, codegen, compile, compute, total}. For a\n"
    "                  complex matrix: permanent \"a + bi\", value null, and complex (true), real,\n"
    "                  imag (strings), real_value, imag_value (numbers); the bound is on the modulus\n"
    "\n"
    "gpu-cached, gpu-hybrid and gpu-purereg generate a kernel for the matrix and compile it with nvcc,\n"
    "cpu-cached a module with g++ -O3 -march=native ($SPARSEPERM_CXX to choose another compiler), into\n"
    "$SPARSEPERM_CACHE (default ~/.cache/sparseperm) and run it; a second run of the same matrix\n"
    "reuses it. A 0 x 0 matrix has permanent 1; a matrix without a perfect matching has permanent 0 (found by\n"
    "matching, without running an engine). Bad input gives one line 'error: FILE:LINE: ...' and exit code 2.\n";

inline void print_result(const permanent_result& r) {
  const engine_description* engine = find_engine(r.engine);  // null for "structure" and blocks' "a+b"
  const bool gpu = engine != nullptr && engine->on_gpu();
  const std::string value = complex_text(r);  // "a + bi" for complex matrices
  const std::size_t point = r.permanent.find('.');
  if (r.exact && point != std::string::npos && value.size() > 80) {  // an exact dyadic rational, long
    const std::size_t decimals = r.permanent.size() - point - 1;
    std::string rounded = format_double(r.value);
    if (r.complex) rounded += (r.imag < 0 ? " - " : " + ") + format_double(std::fabs(r.imag)) + "i";
    std::printf("permanent  %s  (exact; rounded here from a fraction of %zu decimals, which --json prints)\n",
                rounded.c_str(), decimals);
  } else if (r.exact) {
    std::printf("permanent  %s  (exact)\n", value.c_str());
  } else if (const auto digits = trusted_digits(r); digits && *digits == 0) {
    std::printf("permanent  %s  (double precision: the bound |error| <= %s certifies no digit)\n", value.c_str(),
                error_bound_text(r).c_str());
  } else if (const auto digits = trusted_digits(r)) {
    std::printf("permanent  %s  (double precision: %d digit%s trusted, |error| <= %s)\n", value.c_str(), *digits,
                *digits == 1 ? "" : "s", error_bound_text(r).c_str());
  } else {
    std::printf("permanent  %s  (double precision)\n", value.c_str());
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
  } catch (const rank_error&) {
    throw;  // every rank has it: rank 0 alone prints it (tool.hpp)
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

// --row-multiplicities and --column-multiplicities: one count per line of the file's matrix, the
// same total; the matrix they stand for replaces the file's (its size errors then name the flags).
inline std::vector<int> parse_multiplicities(const arguments& args, const char* option, int n) {
  const auto text = args.value(option);
  if (!text) return std::vector<int>(static_cast<std::size_t>(n), 1);
  std::vector<int> counts;
  for (const std::string& item : split_list(option, *text))
    counts.push_back(static_cast<int>(parse_integer(option, item, 0, 1 << 20)));
  if (counts.size() != static_cast<std::size_t>(n)) {
    throw usage_error("option '--" + std::string(option) + "': " + std::to_string(counts.size()) +
                      " counts for a matrix of " + std::to_string(n) + " " +
                      (std::string(option).rfind("row", 0) == 0 ? "rows" : "columns"));
  }
  return counts;
}

inline void apply_multiplicities(const arguments& args, matrix_market_file& file) {
  if (!args.value("row-multiplicities") && !args.value("column-multiplicities")) return;
  const int n = file.matrix.n();
  try {
    file.matrix = expand_lines(file.matrix, parse_multiplicities(args, "row-multiplicities", n),
                               parse_multiplicities(args, "column-multiplicities", n));
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
}

inline int cuda_devices_present() {
#if defined(__CUDACC__)
  return gpu::device_count();
#else
  return 0;
#endif
}

// compute's settings (settings.cuh: the same reading as Python's), its mistakes as usage errors.
inline compute_options compute_options_of(const arguments& args, const tool_context& context) {
  if (args.value("checkpoint") && args.value("checkpoint")->empty())
    throw usage_error("option '--checkpoint': an empty file name; name the journal's file");
  const setting_texts texts{args.value("engine").value_or(""),     args.value("precision").value_or(""),
                            args.value("threads").value_or(""),    args.value("devices").value_or(""),
                            args.value("time-limit").value_or(""), args.value("checkpoint").value_or(""),
                            args.value("digits").value_or("")};
  compute_options options = as_usage([&] {
    return options_from_text(texts, {"--", cuda_devices_present(), context.host_rank, context.host_ranks});
  });
  options.processes = context.ranks;
  options.modules = context.modules;
  return options;
}

inline int run_compute(int argc, char** argv, const tool_context& context) {
  const arguments args(argc, argv, 2, {"json", "help"},
                       {"engine", "threads", "devices", "precision", "digits", "time-limit", "checkpoint",
                        "row-multiplicities", "column-multiplicities"});
  if (args.flag("help")) {
    std::fputs(compute_help, stdout);
    return 0;
  }
  if (args.positionals().size() != 1)
    throw usage_error("compute needs exactly one FILE (see 'sparseperm compute --help')");
  compute_options options = compute_options_of(args, context);

  matrix_market_file file = read_matrix_market(args.positionals()[0]);
  apply_multiplicities(args, file);
  const bool speaks = context.speaks();
  progress_counter progress;
  options.progress = &progress;
  permanent_result result;
  {
    std::optional<progress_bar> bar;
    if (speaks) bar.emplace(progress);
    result = compute_file(file, options);
  }
  if (!speaks) return 0;
  if (args.flag("json")) {
    std::printf("%s\n", to_json(result, file.path).c_str());
  } else {
    print_result(result);
  }
  return 0;
}

}  // namespace sparseperm::cli
