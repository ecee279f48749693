#pragma once
// `sparseperm inspect FILE`: structure, orderings and the plans the engines would use.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <sparseperm/perm.cuh>

#include "arguments.hpp"
#include "tool.hpp"

namespace sparseperm::cli {

inline const char* inspect_help =
    "usage: sparseperm inspect FILE\n"
    "\n"
    "What the engines see in the matrix of FILE: size, nonzeros, degrees, structural rank, the\n"
    "column order of the sparse Ryser engines, the permanent ordering (Algorithm 3) and register\n"
    "partition (Algorithm 4) of the generated GPU kernels, gpu-cached's plan and launch plan\n"
    "(Algorithm 2) on an H100 model, cpu-cached's plan, the digits a floating run is forecast to\n"
    "certify (from sampled Ryser terms), every engine's estimate and the engine that\n"
    "'compute --engine auto' would run. Indices are 1-based, as in the file.\n";

namespace detail {

inline std::string index_list(const int* indices, int count) {
  std::string out;
  for (int k = 0; k < count; ++k) {
    if (k) out += ' ';
    out += std::to_string(indices[k] + 1);
  }
  return out;
}

struct degree_summary {
  int min = 0, max = 0;
  double mean = 0;
};

template <class Degree>
degree_summary summarize(int n, Degree degree) {
  degree_summary s;
  if (n == 0) return s;
  s.min = s.max = degree(0);
  long long total = 0;
  for (int k = 0; k < n; ++k) {
    const int d = degree(k);
    s.min = std::min(s.min, d);
    s.max = std::max(s.max, d);
    total += d;
  }
  s.mean = static_cast<double>(total) / n;
  return s;
}

inline std::string power_of_two(std::uint64_t v) { return "2^" + std::to_string(sparseperm::detail::highest_bit(v)); }

}  // namespace detail

// The file, the matrix's size, values, degrees and structural rank.
inline void print_matrix_facts(const matrix_market_file& file) {
  const sparse_matrix& m = file.matrix;
  const int n = m.n();
  std::printf("file             %s\n", sparseperm::detail::printable(file.path).c_str());
  std::printf("matrix           %d x %d, %lld nonzeros (density %.3f); %s %s %s", n, n, static_cast<long long>(m.nnz()),
              n ? static_cast<double>(m.nnz()) / (static_cast<double>(n) * n) : 0.0, file.format.c_str(),
              file.field.c_str(), file.symmetry.c_str());
  if (file.stored_zeros) std::printf(", %lld stored zeros dropped", static_cast<long long>(file.stored_zeros));
  std::printf("\nvalues           %s\n",
              m.is_complex()
                  ? (m.has_integer_values() ? "Gaussian integers (exact by default where 128 bits provably suffice)"
                                            : "complex (double precision real and imaginary parts)")
              : m.has_integer_values() ? "integers (exact by default, in the cheapest exact arithmetic that holds them)"
                                       : "real (double precision)");
  const auto rows = detail::summarize(n, [&](int i) { return m.row_degree(i); });
  const auto columns = detail::summarize(n, [&](int j) { return m.column_degree(j); });
  std::printf("row degrees      min %d, max %d, mean %.2f\n", rows.min, rows.max, rows.mean);
  std::printf("column degrees   min %d, max %d, mean %.2f\n", columns.min, columns.max, columns.mean);
  const int rank = structural_rank(m);
  std::printf("structural rank  %d%s\n", rank,
              rank == n ? " (a perfect matching exists)" : " (no perfect matching: the permanent is 0)");
}

// The column order of cpu-sparse, Algorithm 3's permanent ordering and Algorithm 4's register
// partition (on the H100 model); the partition for the plans that follow.
inline register_partition print_orderings(const sparse_matrix& m, const column_masks& pattern,
                                          const column_masks& ordered, const partition_options& options) {
  const int n = m.n();
  const matrix_order by_degree = degree_sorted_order(pattern);
  std::printf("\ncolumns by ascending degree (cpu-sparse):\n  %s\n", detail::index_list(by_degree.columns, n).c_str());
  const permanent_ordering_plan ordering = permanent_ordering(pattern);
  std::printf("\npermanent ordering (Algorithm 3):\n");
  std::printf("  columns  %s\n", detail::index_list(ordering.order.columns, n).c_str());
  std::printf("  rows     %s\n", detail::index_list(ordering.order.rows, n).c_str());
  std::string staircase;
  for (int k = 1; k <= n; ++k) {
    if (k > 1) staircase += ' ';
    staircase += std::to_string(ordering.rows_touched[k]);
  }
  std::printf("  r(m)     %s   (rows touched by the first m columns)\n", staircase.c_str());
  const register_partition partition = partition_rows(ordered, options);
  std::printf(
      "\nregister partition (Algorithm 4, GRratio %g, H100 model: %d SMs, %d registers and %d threads per SM):\n",
      options.global_register_ratio, options.device.multiprocessors, options.device.registers_per_sm,
      options.device.max_threads_per_sm);
  std::printf("  rows of x in registers     k = %d of %d (the rest in global memory)\n", partition.register_rows, n);
  if (partition.last_register_column >= 0) {
    std::printf("  register-only columns      1..%d of the order: %.6g%% of the Gray steps\n",
                partition.last_register_column + 1, 100 * partition.register_step_share);
  } else {
    std::printf("  register-only columns      none\n");
  }
  std::printf("  estimated registers        %d per thread, %d resident threads per SM\n",
              partition.registers_per_thread, partition.threads_per_sm);
  const int hybrid_bits =
      m.is_complex()
          ? sparseperm::detail::unrolled_gray_bits<complex_double_arithmetic>(
                n, partition.last_register_column + 1, -1, sparseperm::detail::hybrid_complex_bits(partition))
          : sparseperm::detail::unrolled_gray_bits<double_arithmetic>(n, partition.last_register_column + 1, -1);
  std::printf("  static Gray blocks         u = %d: blocks of %d steps unrolled (%s)\n", hybrid_bits, 1 << hybrid_bits,
              m.is_complex() ? "complex doubles" : "double; exact arithmetic 2^3 or 2^2");
  return partition;
}

// gpu-cached's plan, Algorithm 2's launches on the H100 model, and cpu-cached's plan.
inline void print_generated_plans(const sparse_matrix& m, const column_masks& ordered, const partition_options& options,
                                  const register_partition& partition) {
  const int n = m.n();
  const cached_options cached = m.is_complex() ? sparseperm::detail::cached_options_for<complex_double>(ordered)
                                               : sparseperm::detail::cached_options_for<double>(ordered);
  const cached_layout layout = plan_cached_layout(ordered, cached);
  std::string levels;
  for (int b = 0; b <= layout.static_bits; ++b) {
    if (b > 0) levels += ' ';
    levels += std::to_string(layout.level_rows[b]);
  }
  std::printf("\ngpu-cached plan (cost model in ryser/ordering.cuh):\n");
  std::printf("  static Gray blocks         b = %d: blocks of %d steps unrolled, one run-time step per block\n",
              layout.static_bits, 1 << layout.static_bits);
  std::printf("  cached levels r(0..b)      %s\n", levels.c_str());
  std::printf("  rows of x in registers     k = %d of %d (the rest in global memory)\n", layout.register_rows, n);
  std::printf("  predicted per Gray step    %.3g multiplications, %.3g additions, %.3g global accesses\n",
              layout.multiplications, layout.additions, layout.global_accesses);
  std::printf("  estimated registers        %d per thread, %d resident threads per SM\n", layout.registers_per_thread,
              layout.threads_per_sm);
  using sparseperm::detail::split_value;
  const cached_options split = m.is_complex()
                                   ? sparseperm::detail::cached_options_for<split_value<complex_double>>(ordered)
                                   : sparseperm::detail::cached_options_for<split_value<double>>(ordered);
  const cached_layout dd = plan_cached_layout(ordered, split);
  std::printf(
      "  in double-double           b = %d, k = %d, %d levels above the blocks in global memory; %.3g "
      "multiplications, %.3g global accesses a step\n",
      dd.static_bits, dd.register_rows, dd.upper_levels, dd.multiplications, dd.global_accesses);
  const std::uint64_t threads = static_cast<std::uint64_t>(options.device.multiprocessors) * partition.threads_per_sm;
  const launch_plan plan = generate_launch_parameters(n, threads);
  std::printf("\nlaunch plan (Algorithm 2, %llu threads, chunks of at least 1024 steps): %d launch%s\n",
              static_cast<unsigned long long>(threads), plan.count, plan.count == 1 ? "" : "es");
  std::printf("  %-7s %-22s %-8s %-10s %s\n", "launch", "first step", "chunk", "threads", "steps");
  for (int k = 0; k < plan.count; ++k) {
    const launch& l = plan[k];
    std::printf("  %-7d %-22llu %-8s %-10llu %llu\n", k + 1, static_cast<unsigned long long>(l.first_step),
                detail::power_of_two(l.chunk).c_str(), static_cast<unsigned long long>(l.threads),
                static_cast<unsigned long long>(l.steps()));
  }
  const cached_layout host_layout = plan_cached_layout(ordered, cached_options_on_host);
  std::printf("\ncpu-cached plan (the same loop compiled for this CPU, all of x in one array):\n");
  std::printf("  static Gray blocks         b = %d: blocks of %d steps unrolled\n", host_layout.static_bits,
              1 << host_layout.static_bits);
  std::printf("  predicted per Gray step    %.3g multiplications, %.3g additions\n", host_layout.multiplications,
              host_layout.additions);
}

// What the bound of a floating run will certify (ryser/digits_forecast.cuh): from sampled Ryser
// terms, the |perm| above which double and double-double reach 10 and 15 digits.
inline void print_digits_forecast(const sparse_matrix& m) {
  const sparseperm::detail::digits_forecast f = sparseperm::detail::forecast_digits(m);
  std::printf(
      "\ncertified digits, forecast (a floating run's bound is about c*u*sum|t|; sum|t| of the 2^%d Ryser "
      "terms\nestimated from %d sampled ones: %.3g; the digits depend on |perm|, which the run finds):\n",
      m.n() - 1, f.samples, f.term_sum);
  if (f.nonnegative)
    std::printf("  double         about %d digits whatever |perm| (nonnegative values: a relative bound)\n",
                f.nonnegative_double_digits());
  const auto line = [&](const char* name, double unit, const char* note) {
    std::printf("  %-14s 10 digits where |perm| >= %.2g, 15 where |perm| >= %.2g%s\n", name, f.permanent_for(10, unit),
                f.permanent_for(15, unit), note);
  };
  line("double", f.double_unit, m.is_complex() || !f.nonnegative ? " (cpu-sparse's split row sums)" : "");
  line("double-double", f.dd_unit, " (at most 15: the value is a double)");
  std::printf(
      "  auto asks for --digits (10 by default) and runs again in double-double, then exactly, where a run "
      "certifies fewer\n");
}

// Every engine of the catalog: whether it can run this matrix here.
inline void print_engines(int n, const compute_options& options) {
  std::printf("\nengines:\n");
  for (const engine_description* e : engine_descriptions()) {
    const auto why = engine_unavailable(*e, options);
    const std::string state = n > e->max_n ? "n > " + std::to_string(e->max_n) + ": cannot run"
                              : why        ? "not available here"
                                           : "can run this matrix";
    std::printf("  %-12s %-20s %s\n", std::string(e->name).c_str(), state.c_str(), std::string(e->summary).c_str());
    if (why && n <= e->max_n) std::printf("  %-12s %-20s (%s)\n", "", "", why->c_str());
  }
}

// One block of the plan: its size, its frontier, and every engine's estimate.
inline void print_block(const block_plan& b) {
  std::printf(
      "\n  block %d x %d, %lld nonzeros: dp frontier %d rows (%s order), %.3g states at most, %.3g transitions\n",
      b.matrix.n(), b.matrix.n(), static_cast<long long>(b.matrix.nnz()), b.order.frontier, b.order.name.c_str(),
      b.order.peak_states, b.order.transitions);
  for (const auto& e : b.estimates) {
    const std::string name(e.engine->name);
    if (!e.seconds) {
      std::printf("    %-12s cannot: %s\n", name.c_str(), e.why.c_str());
      continue;
    }
    std::string notes;
    if (e.arithmetic) notes += arithmetic_words(*e.arithmetic);
    if (e.memory_bytes > 0) notes += std::string(notes.empty() ? "" : ", ") + "memory " + format_bytes(e.memory_bytes);
    if (e.engine->generated()) {
      if (!notes.empty()) notes += ", ";
      notes += e.module_cached ? std::string("module in the cache")
                               : "with its compile (" + format_seconds(*e.compile_seconds) + ")";
    }
    std::string seconds = format_seconds(*e.seconds);
    if (seconds.size() >= 22) seconds = sparseperm::detail::format_duration(*e.seconds);  // "3.94e+05 days": years
    std::printf("    %-12s %-22s%s%s\n", name.c_str(), seconds.c_str(), notes.c_str(),
                e.engine == b.engine ? "   <- chosen" : "");
    if (e.engine == b.engine && !e.arithmetic_why.empty())
      std::printf("    %-12s %-22s(exact arithmetic: %s)\n", "", "", e.arithmetic_why.c_str());
  }
}

// The fine blocks' sizes, largest first, repeats counted: a diagonal matrix of n = 10^7 has 10^7 blocks of 1.
inline std::string block_sizes_text(std::vector<int> sizes) {
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  std::string text;
  for (std::size_t k = 0; k < sizes.size();) {
    std::size_t same = k;
    while (same < sizes.size() && sizes[same] == sizes[k]) ++same;
    if (!text.empty()) text += ' ';
    text += std::to_string(sizes[k]);
    if (same - k > 1) text += " (x" + std::to_string(same - k) + ")";
    k = same;
  }
  return text;
}

// What `compute --engine auto` would do: the structure, then each block's estimates and choice.
inline void print_auto_plan(const sparse_matrix& m, const compute_options& options) {
  std::printf("\nplan of 'compute --engine auto' (structure first, then the cheapest engine per block):\n");
  try {
    const permanent_plan plan = make_plan(m, options, true);  // every module looked up
    if (plan.zero) {
      std::printf("  permanent 0, without an engine: %s\n", plan.zero_reason.c_str());
      return;
    }
    if (m.n() == 0) {
      std::printf("  permanent 1 (the 0 x 0 matrix), without an engine\n");
      return;
    }
    std::printf("  Dulmage-Mendelsohn fine blocks   %d (sizes %s)\n", plan.fine_blocks,
                block_sizes_text(plan.fine_block_sizes).c_str());
    std::printf("  reductions                       %d degree-1, %d degree-2 merges%s\n", plan.degree_one,
                plan.degree_two, plan.integer ? "" : " (merges only on integer matrices)");
    std::printf("  1 x 1 blocks (factors)           %d\n", plan.trivial_blocks);
    std::printf("  blocks left for an engine        %zu\n", plan.blocks.size());
    for (const auto& b : plan.blocks) print_block(b);
    std::printf("\ncompute --engine auto would run: %s\n", plan_engines(plan).c_str());
    try {
      sparseperm::detail::check_plan_time(plan, options);
    } catch (const engine_error& e) {
      std::printf("  but it refuses: %s\n", e.what());
    }
  } catch (const engine_error& e) {
    std::printf("  compute --engine auto cannot run: %s\n", e.what());
  }
}

inline int run_inspect(int argc, char** argv, const tool_context& context) {
  const arguments args(argc, argv, 2, {"help"}, {});
  if (args.flag("help")) {
    std::fputs(inspect_help, stdout);
    return 0;
  }
  if (args.positionals().size() != 1)
    throw usage_error("inspect needs exactly one FILE (see 'sparseperm inspect --help')");
  const matrix_market_file file = read_matrix_market(args.positionals()[0]);
  const sparse_matrix& m = file.matrix;
  const int n = m.n();
  print_matrix_facts(file);
  if (n >= 1 && n <= max_ryser_n) {
    const column_masks pattern = m.masks();
    const column_masks ordered = reorder(pattern, permanent_ordering(pattern).order);
    // the register models count a complex value's registers as the generated kernels do
    const partition_options options = m.is_complex() ? sparseperm::detail::partition_options_for<complex_double>()
                                                     : sparseperm::detail::partition_options_for<double>();
    const register_partition partition = print_orderings(m, pattern, ordered, options);
    print_generated_plans(m, ordered, options, partition);
    if (!m.has_integer_values()) print_digits_forecast(m);
  } else if (n > max_ryser_n) {
    std::printf("\nn > %d: the Ryser engines (2^(n-1) Gray steps) do not apply\n", max_ryser_n);
  }
  compute_options options;
  options.modules = context.modules;
  print_engines(n, options);
  print_auto_plan(m, options);
  return 0;
}

}  // namespace sparseperm::cli
