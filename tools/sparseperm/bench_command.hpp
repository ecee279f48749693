#pragma once
// `sparseperm bench`: engines side by side on generated Erdős–Rényi matrices, in one run.
//
// Every (n, p) pair gets one matrix from the fixed seed; every engine and thread count runs it
// `repeats` times. The table quotes the median of the engine's compute seconds (min and max
// beside it), the speedup over the baseline engine, and the permanent, so that a reader sees the
// engines agree. Markdown on stdout; CSV with --csv; a PNG with --plot when python3 has matplotlib.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <sparseperm/perm.cuh>

#include <sparseperm/detail/json.cuh>

#include "arguments.hpp"
#include "generate_command.hpp"
#include "json_reader.hpp"
#include "tool.hpp"

#ifndef SPARSEPERM_BENCH_PLOT_SCRIPT
#  define SPARSEPERM_BENCH_PLOT_SCRIPT ""
#endif

namespace sparseperm::cli {

inline const char* bench_help =
    "usage: sparseperm bench [--engines LIST] [--n LIST] [--density LIST] [--threads LIST]\n"
    "                        [--seed S] [--values KIND] [--precisions LIST] [--repeats R]\n"
    "                        [--baseline ENGINE]\n"
    "                        [--csv FILE] [--plot FILE.png]\n"
    "\n"
    "Runs engines side by side on generated Erdos-Renyi matrices (one per n and density, from the\n"
    "seed) and prints a markdown table: engine, n, p, threads (CPU threads, or GPU threads per\n"
    "launch), median / min / max compute seconds over the repeats (CUDA events for GPU engines),\n"
    "registers per thread and codegen+compile seconds (generated engines), speedup over the\n"
    "baseline, and the permanent.\n"
    "\n"
    "  --engines LIST   comma-separated engines (default: cpu-sparse)\n"
    "  --n LIST         matrix sizes (default: 24,28)\n"
    "  --density LIST   densities (default: 0.2)\n"
    "  --threads LIST   CPU thread counts for the CPU engines (default: all available)\n"
    "  --seed S         generator seed (default: 1)\n"
    "  --values KIND    uniform (default), ones, int:K or int:A:B, as for 'generate'\n"
    "  --precisions LIST  arithmetic of every engine run: default (integers exact in the cheapest\n"
    "                   exact arithmetic, else compensated), double, compensated, exact; each is\n"
    "                   a row (default: default)\n"
    "  --repeats R      runs per measurement (default: 3)\n"
    "  --baseline NAME  the engine the speedups are relative to, at its first thread count and\n"
    "                   precision\n"
    "                   (default: gpu-sparse when it runs, else the first engine)\n"
    "  --csv FILE       also write the rows as CSV\n"
    "  --plot FILE.png  also draw seconds against n (needs python3 with matplotlib)\n";

struct bench_row {
  std::string engine;
  const engine_description* description = nullptr;
  std::string precision;
  int n = 0;
  double density = 0;
  int threads = 0;
  double median = 0, min = 0, max = 0;
  std::string registers = "-";
  double compile = 0;  // the generated engines' first run: seconds to generate and compile
  double speedup = 0;
  std::string permanent;
  double value = 0;
  double imag = 0;     // complex values
  std::string digits;  // "exact", or the significant digits the error bound guarantees
  double bound = 0;    // the error bound (0 when exact)
};

// The plotting script: installed beside the tool (PREFIX/share/sparseperm), else in the source tree.
inline std::string find_plot_script() {
  std::error_code ec;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = executable.parent_path().parent_path() / "share" / "sparseperm" / "bench_plot.py";
    if (std::filesystem::exists(installed)) return installed.string();
  }
  const std::string source = SPARSEPERM_BENCH_PLOT_SCRIPT;
  return !source.empty() && std::filesystem::exists(source) ? source : "";
}

inline double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t k = values.size() / 2;
  return values.size() % 2 ? values[k] : (values[k - 1] + values[k]) / 2;
}

inline std::string shorten(const std::string& permanent) {
  return permanent.size() <= 24 ? permanent : permanent.substr(0, 21) + "...";
}

inline void write_bench_csv(const std::string& path, const std::vector<bench_row>& rows, std::uint64_t seed) {
  std::ofstream out(path);
  if (!out) throw usage_error("bench: cannot write '" + path + "'");
  out << "engine,precision,n,density,threads,seed,median_seconds,min_seconds,max_seconds,registers_per_thread,compile_"
         "seconds,speedup,"
         "permanent,trusted_digits\n";
  for (const auto& r : rows) {
    out << r.engine << ',' << r.precision << ',' << r.n << ',' << r.density << ',' << r.threads << ',' << seed << ','
        << json::number(r.median) << ',' << json::number(r.min) << ',' << json::number(r.max) << ',' << r.registers
        << ',' << json::number(r.compile) << ',' << json::number(r.speedup) << ',' << r.permanent << ',' << r.digits
        << '\n';
  }
}

// What `bench` was asked to run.
struct bench_request {
  std::vector<std::string> engines;
  std::vector<int> sizes;
  std::vector<double> densities;
  std::vector<int> thread_counts;
  std::vector<precision> precisions;
  std::uint64_t seed = 1;
  int repeats = 3;
  std::string baseline;
  std::string values = "uniform";
  erdos_renyi_options generator;
};

inline bench_request bench_request_of(const arguments& args, const tool_context& context) {
  bench_request q;
  q.engines =
      split_list("engines", args.value("engines").value_or(std::string(::sparseperm::engines::cpu_sparse::name)));
  compute_options options;
  options.modules = context.modules;
  for (const auto& e : q.engines) {
    const engine_description* engine = find_engine(e);
    if (engine == nullptr) throw usage_error("bench: unknown engine '" + e + "' (engines: " + engine_names() + ")");
    if (const auto why = engine_unavailable(*engine, options))
      throw usage_error("bench: engine '" + e + "' is not available: " + *why);
  }
  for (const auto& s : split_list("n", args.value("n").value_or("24,28")))
    q.sizes.push_back(static_cast<int>(parse_integer("n", s, 1, 64)));
  for (const auto& s : split_list("density", args.value("density").value_or("0.2")))
    q.densities.push_back(parse_real("density", s, 1e-9, 1));
  if (const auto list = args.value("threads")) {
    for (const auto& s : split_list("threads", *list))
      q.thread_counts.push_back(static_cast<int>(parse_integer("threads", s, 1, 4096)));
  } else {
    q.thread_counts.push_back(sparseperm::detail::available_threads());
  }
  q.seed = static_cast<std::uint64_t>(parse_integer("seed", args.value("seed").value_or("1"), 0, INT64_MAX));
  q.repeats = static_cast<int>(parse_integer("repeats", args.value("repeats").value_or("3"), 1, 1000));
  // the paper's baseline, gpu-sparse, where it runs
  const engine_choice gpu_sparse(::sparseperm::engines::gpu_sparse{});
  const auto has_gpu_sparse = std::any_of(q.engines.begin(), q.engines.end(),
                                          [&](const std::string& e) { return find_engine(e) == gpu_sparse.get(); });
  q.baseline = args.value("baseline").value_or(has_gpu_sparse ? std::string(gpu_sparse.name()) : q.engines.front());
  if (std::find(q.engines.begin(), q.engines.end(), q.baseline) == q.engines.end()) {
    throw usage_error("bench: the baseline '" + q.baseline + "' is not among --engines");
  }
  q.generator.seed = q.seed;
  q.values = args.value("values").value_or("uniform");
  parse_values(q.values, q.generator);
  for (const auto& name : split_list("precisions", args.value("precisions").value_or("default"))) {
    const auto p = name == "default" ? std::optional<precision>(precision::automatic) : parse_precision(name);
    if (!p) throw usage_error("bench: unknown precision '" + name + "' (default, double, compensated, exact)");
    q.precisions.push_back(*p);
  }
  return q;
}

// One engine, precision and thread count on one matrix, `repeats` times: the row of the table.
inline bench_row bench_one(const sparse_matrix& matrix, const bench_request& q, const std::string& engine,
                           precision arithmetic, int threads, const tool_context& context) {
  bench_row row;
  row.engine = engine;
  row.description = find_engine(engine);
  row.precision = arithmetic == precision::automatic ? "default" : std::string(precision_name(arithmetic));
  std::vector<double> seconds;
  for (int k = 0; k < q.repeats; ++k) {
    compute_options options;
    options.engine = engine_choice(find_engine(engine));
    options.threads = threads;
    options.precision = arithmetic;
    options.modules = context.modules;
    const permanent_result r = compute_permanent(matrix, options);
    seconds.push_back(r.seconds.compute);
    if (k == 0) row.compile = r.seconds.codegen + r.seconds.compile;
    if (r.registers_per_thread > 0) row.registers = std::to_string(r.registers_per_thread);
    row.permanent = complex_text(r);  // "a + bi" for complex values
    row.value = r.value;
    row.imag = r.imag;
    const auto trusted = trusted_digits(r);
    row.digits = r.exact ? "exact" : trusted ? std::to_string(*trusted) : "-";
    row.bound = r.error_bound.value_or(0);
    row.threads = r.threads;
  }
  row.median = median_of(seconds);
  row.min = *std::min_element(seconds.begin(), seconds.end());
  row.max = *std::max_element(seconds.begin(), seconds.end());
  return row;
}

// Speedups against the baseline's first thread count on the same matrix, and a check that all agree
// within their error bounds (a disagreement is an engine bug, or a bound that does not hold).
inline void compare_rows(std::vector<bench_row>& rows, std::size_t first_row, const engine_description* baseline) {
  double base = 0;
  for (std::size_t k = first_row; k < rows.size() && base == 0; ++k) {
    if (rows[k].description == baseline) base = rows[k].median;
  }
  for (std::size_t k = first_row; k < rows.size(); ++k) {
    rows[k].speedup = rows[k].median > 0 ? base / rows[k].median : 0;
    const double distance = std::hypot(rows[k].value - rows[first_row].value, rows[k].imag - rows[first_row].imag);
    if (distance > (rows[k].bound + rows[first_row].bound) * (1 + 1e-12)) {
      std::fprintf(stderr, "bench: warning: %s and %s disagree on n=%d p=%g: %s vs %s\n", rows[k].engine.c_str(),
                   rows[first_row].engine.c_str(), rows[k].n, rows[k].density, rows[k].permanent.c_str(),
                   rows[first_row].permanent.c_str());
    }
  }
}

inline void print_bench_table(const std::vector<bench_row>& rows, const bench_request& q) {
  std::printf("Erdos-Renyi matrices, values %s, seed %llu; seconds: the engine's compute time, median of %d run%s\n\n",
              q.values.c_str(), static_cast<unsigned long long>(q.seed), q.repeats, q.repeats == 1 ? "" : "s");
  const engine_description* base = find_engine(q.baseline);
  const std::string baseline_label =
      base->cpu_threads ? q.baseline + " (" + std::to_string(q.thread_counts.front()) + " thr)" : q.baseline;
  std::printf(
      "| engine | precision | n | p | threads | seconds (median) | min | max | registers/thread | compile s | speedup "
      "vs %s | permanent | digits |\n",
      baseline_label.c_str());
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n");
  for (const auto& r : rows) {
    const std::string compile = r.compile > 0 ? json::measurement(r.compile) : "-";
    std::printf("| %s | %s | %d | %g | %d | %.4f | %.4f | %.4f | %s | %s | %.2f | %s | %s |\n", r.engine.c_str(),
                r.precision.c_str(), r.n, r.density, r.threads, r.median, r.min, r.max, r.registers.c_str(),
                compile.c_str(), r.speedup, shorten(r.permanent).c_str(), r.digits.c_str());
  }
}

// --csv and --plot (a private temporary CSV for --plot alone: mkstemp, not a fixed name in /tmp).
inline void write_bench_files(const arguments& args, const std::vector<bench_row>& rows, std::uint64_t seed) {
  std::string csv = args.value("csv").value_or("");
  const std::string plot = args.value("plot").value_or("");
  std::string temporary_csv;
  if (csv.empty() && !plot.empty()) {
    temporary_csv = (std::filesystem::temp_directory_path() / "sparseperm-bench-XXXXXX").string();
    const int fd = ::mkstemp(temporary_csv.data());
    if (fd < 0) throw usage_error("bench: cannot create a temporary file for the plot's data");
    ::close(fd);
    csv = temporary_csv;
  }
  if (!csv.empty()) write_bench_csv(csv, rows, seed);
  if (!plot.empty()) {
    const std::string script = find_plot_script();
    const std::string python = sparseperm::detail::find_compiler("", "SPARSEPERM_PYTHON", {"python3"});
    if (script.empty()) {
      std::fprintf(stderr, "bench: no plot: the plotting script is not installed\n");
    } else if (python.empty() ||
               run_program({python, script, csv, plot}, 2) != 0) {  // no shell: names pass as they are
      std::fprintf(stderr, "bench: no plot (python3 with matplotlib is needed)\n");
    }
  }
  if (!temporary_csv.empty()) std::filesystem::remove(temporary_csv);
}

inline int run_bench(int argc, char** argv, const tool_context& context) {
  const arguments args(
      argc, argv, 2, {"help"},
      {"engines", "n", "density", "threads", "seed", "values", "precisions", "repeats", "baseline", "csv", "plot"});
  if (args.flag("help")) {
    std::fputs(bench_help, stdout);
    return 0;
  }
  if (!args.positionals().empty())
    throw usage_error("bench takes no positional arguments (see 'sparseperm bench --help')");
  bench_request q = bench_request_of(args, context);
  std::vector<bench_row> rows;
  for (const int n : q.sizes) {
    for (const double density : q.densities) {
      q.generator.n = n;
      q.generator.density = density;
      const sparse_matrix matrix = generate_erdos_renyi(q.generator);
      const std::size_t first_row = rows.size();
      for (const auto& engine : q.engines) {
        for (const precision arithmetic : q.precisions) {
          for (const int threads : q.thread_counts) {
            bench_row row = bench_one(matrix, q, engine, arithmetic, threads, context);
            row.n = n;
            row.density = density;
            std::fprintf(stderr, "bench: %s (%s) n=%d p=%g threads=%d: median %.4f s\n", engine.c_str(),
                         row.precision.c_str(), n, density, row.threads, row.median);
            rows.push_back(row);
            if (!find_engine(engine)->cpu_threads) break;  // only the engines on CPU threads take a thread count
          }
        }
      }
      compare_rows(rows, first_row, find_engine(q.baseline));
    }
  }
  print_bench_table(rows, q);
  write_bench_files(args, rows, q.seed);
  return 0;
}

}  // namespace sparseperm::cli
