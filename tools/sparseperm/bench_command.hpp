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

inline int run_bench(int argc, char** argv) {
  const arguments args(
      argc, argv, 2, {"help"},
      {"engines", "n", "density", "threads", "seed", "values", "precisions", "repeats", "baseline", "csv", "plot"});
  if (args.flag("help")) {
    std::fputs(bench_help, stdout);
    return 0;
  }
  if (!args.positionals().empty())
    throw usage_error("bench takes no positional arguments (see 'sparseperm bench --help')");
  const std::vector<std::string> engines =
      split_list("engines", args.value("engines").value_or(std::string(::sparseperm::engines::cpu_sparse::name)));
  for (const auto& e : engines) {
    const engine_description* engine = find_engine(e);
    if (engine == nullptr) throw usage_error("bench: unknown engine '" + e + "' (engines: " + engine_names() + ")");
    if (const auto why = engine_unavailable(*engine))
      throw usage_error("bench: engine '" + e + "' is not available: " + *why);
  }
  std::vector<int> sizes;
  for (const auto& s : split_list("n", args.value("n").value_or("24,28")))
    sizes.push_back(static_cast<int>(parse_integer("n", s, 1, 64)));
  std::vector<double> densities;
  for (const auto& s : split_list("density", args.value("density").value_or("0.2"))) {
    densities.push_back(parse_real("density", s, 1e-9, 1));
  }
  std::vector<int> thread_counts;
  if (const auto list = args.value("threads")) {
    for (const auto& s : split_list("threads", *list))
      thread_counts.push_back(static_cast<int>(parse_integer("threads", s, 1, 4096)));
  } else {
    thread_counts.push_back(sparseperm::detail::available_threads());
  }
  const std::uint64_t seed =
      static_cast<std::uint64_t>(parse_integer("seed", args.value("seed").value_or("1"), 0, INT64_MAX));
  const int repeats = static_cast<int>(parse_integer("repeats", args.value("repeats").value_or("3"), 1, 1000));
  const std::string gpu_sparse(::sparseperm::engines::gpu_sparse::name);  // the paper's baseline, where it runs
  const bool has_gpu_sparse = std::find(engines.begin(), engines.end(), gpu_sparse) != engines.end();
  const std::string baseline = args.value("baseline").value_or(has_gpu_sparse ? gpu_sparse : engines.front());
  if (std::find(engines.begin(), engines.end(), baseline) == engines.end()) {
    throw usage_error("bench: the baseline '" + baseline + "' is not among --engines");
  }
  erdos_renyi_options generator;
  generator.seed = seed;
  const std::string values = args.value("values").value_or("uniform");
  parse_values(values, generator);

  std::vector<precision> precisions;
  for (const auto& name : split_list("precisions", args.value("precisions").value_or("default"))) {
    const auto p = name == "default" ? std::optional<precision>(precision::automatic) : parse_precision(name);
    if (!p) throw usage_error("bench: unknown precision '" + name + "' (default, double, compensated, exact)");
    precisions.push_back(*p);
  }

  std::vector<bench_row> rows;
  for (const int n : sizes) {
    for (const double density : densities) {
      generator.n = n;
      generator.density = density;
      const sparse_matrix matrix = generate_erdos_renyi(generator);
      const std::size_t first_row = rows.size();
      for (const auto& engine : engines) {
        for (const precision arithmetic : precisions) {
          for (const int threads : thread_counts) {
            bench_row row;
            row.engine = engine;
            row.precision = arithmetic == precision::automatic ? "default" : std::string(precision_name(arithmetic));
            row.n = n;
            row.density = density;
            std::vector<double> seconds;
            for (int k = 0; k < repeats; ++k) {
              compute_options options;
              options.engine = engine_choice(find_engine(engine));
              options.threads = threads;
              options.precision = arithmetic;
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
            std::fprintf(stderr, "bench: %s (%s) n=%d p=%g threads=%d: median %.4f s\n", engine.c_str(),
                         row.precision.c_str(), n, density, row.threads, row.median);
            rows.push_back(row);
            if (!find_engine(engine)->cpu_threads) break;  // only the engines on CPU threads take a thread count
          }
        }
      }
      // Speedups against the baseline's first thread count on the same matrix; and a check that all agree
      // within their error bounds (a disagreement is an engine bug, or a bound that does not hold).
      double base = 0;
      for (std::size_t k = first_row; k < rows.size() && base == 0; ++k) {
        if (rows[k].engine == baseline) base = rows[k].median;
      }
      for (std::size_t k = first_row; k < rows.size(); ++k) {
        rows[k].speedup = rows[k].median > 0 ? base / rows[k].median : 0;
        const double distance = std::hypot(rows[k].value - rows[first_row].value, rows[k].imag - rows[first_row].imag);
        if (distance > (rows[k].bound + rows[first_row].bound) * (1 + 1e-12)) {
          std::fprintf(stderr, "bench: warning: %s and %s disagree on n=%d p=%g: %s vs %s\n", rows[k].engine.c_str(),
                       rows[first_row].engine.c_str(), n, density, rows[k].permanent.c_str(),
                       rows[first_row].permanent.c_str());
        }
      }
    }
  }

  std::printf("Erdos-Renyi matrices, values %s, seed %llu; seconds: the engine's compute time, median of %d run%s\n\n",
              values.c_str(), static_cast<unsigned long long>(seed), repeats, repeats == 1 ? "" : "s");
  const bool cpu_baseline = baseline.rfind("cpu", 0) == 0;
  const std::string baseline_label =
      cpu_baseline ? baseline + " (" + std::to_string(thread_counts.front()) + " thr)" : baseline;
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

  std::string csv = args.value("csv").value_or("");
  const std::string plot = args.value("plot").value_or("");
  std::string temporary_csv;  // --plot alone: a private temporary file (mkstemp), not a fixed name in /tmp
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
  return 0;
}

}  // namespace sparseperm::cli
