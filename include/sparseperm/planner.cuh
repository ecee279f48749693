#pragma once
// The `auto` planner (DESIGN §4): make the matrix smaller, then run the cheapest engine per block.
//
//   1. maximum matching: none perfect → permanent 0;
//   2. Dulmage–Mendelsohn fine blocks: perm = Π perm(block) (entries between blocks dropped);
//   3. degree reductions in each block (runtime/reductions.cuh), and the fine blocks again where
//      they changed it;
//   4. for each remaining block, every engine that can run it here gets an estimate of its seconds
//      (dp: predicted transitions; Ryser engines: 2^(n−1) steps at their measured step rate, the
//      cached engines' steps priced by their cost model, plus compiling) and of its memory; the
//      cheapest one that fits in memory runs.
//
// The rates are measured ones (README "Numbers"): they rank engines, they do not promise times.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "detail/big_integer.cuh"
#include "detail/scaled_double.cuh"
#include "detail/runtime_arithmetic.cuh"
#include "engine_catalog.cuh"
#include "engine_error.cuh"
#include "engines/dp.cuh"
#include "ordering.cuh"
#include "runtime/block_decomposition.cuh"
#include "runtime/matching.cuh"
#include "runtime/reductions.cuh"
#include "runtime/sparse_matrix.cuh"

namespace sparseperm {

// Measured rates behind the estimates (seconds).
struct planner_rates {
  double dp_transition = 2e-8;              // per predicted transition, 2 cores (mesh1e1: 2.3e7 in 0.47 s)
  double dp_big_integer_factor = 4;         // big-integer states cost more
  double cpu_sparse_step_per_row = 1.2e-9;  // per Gray step and row of x, one core (n = 28: 4.3 s)
  double gpu_sparse_step = 1.2e-11;         // per Gray step on an H100 (n = 40: 6.5 s for 2^39)
  double gpu_cached_cost_rate = 1.8e13;     // gpu-cached's modelled cost units (cached_layout::cost) per second on an
                                            // H100 (n = 40, p = 0.1 / 0.3 / 0.5: 2.3e13 / 1.9e13 / 1.6e13)
  double cpu_cached_cost_rate = 4.8e9;      // cpu-cached's modelled cost units per second and core (n = 30, p = 0.1 /
                                            // 0.3: 4.8e9 / 5.0e9, AMD EPYC with AVX-512)
  double cpu_compile = 1.0;                 // generating and compiling a host module (cached: less)
  double gpu_setup = 0.3;                   // context and launches
  double gpu_compile = 2.5;                 // generating and compiling a kernel (cached: less)
};

struct engine_estimate {
  std::string engine;
  std::optional<double> seconds;  // empty: cannot run this block here (see `why`)
  double memory_bytes = 0;
  std::string why;
};

struct block_plan {
  sparse_matrix matrix;
  std::vector<engine_estimate> estimates;
  std::string engine;  // the choice
  dp_order order;      // the dp engine's best order
};

struct permanent_plan {
  int n = 0;
  std::int64_t nnz = 0;
  bool zero = false;               // the permanent is 0 for a structural reason
  std::string zero_reason;
  bool integer = false;
  detail::big_integer factor{1ll};  // Π of the degree-1 factors and 1 × 1 blocks (integer matrices)
  detail::scaled_double factor_value;  // the same in floating point (scaled: no underflow, no overflow)
  int fine_blocks = 0;             // of the first decomposition
  std::vector<int> fine_block_sizes;
  int trivial_blocks = 0;          // 1 × 1 blocks, factors
  int degree_one = 0, degree_two = 0;
  std::vector<block_plan> blocks;  // what an engine must compute
};

// A size in bytes: a number, optionally with a unit K, M, G or T (powers of 1024; "KiB", "KB" and
// "k" alike), e.g. "8G", "512MiB", "1.5T", "1048576". Nothing for anything else.
inline std::optional<double> parse_byte_size(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end == text.data() || !std::isfinite(value) || value <= 0) return std::nullopt;
  std::string unit(end, text.data() + text.size());
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::pair<const char*, int> units[] = {{"", 0}, {"b", 0}, {"k", 10}, {"m", 20}, {"g", 30}, {"t", 40}};
  for (const auto& [name, shift] : units) {
    for (const char* suffix : {"", "b", "ib"}) {
      if (shift == 0 && *suffix) continue;
      if (unit == std::string(name) + suffix) return std::ldexp(value, shift);
    }
  }
  return std::nullopt;
}

// Memory the planner may use: $SPARSEPERM_MEMORY_LIMIT (a size: parse_byte_size), else 80% of
// MemAvailable, else 4 GiB. A limit that is not a size is refused, not ignored.
inline double planner_memory_limit() {
  if (const char* limit = std::getenv("SPARSEPERM_MEMORY_LIMIT"); limit && *limit) {
    if (const auto v = parse_byte_size(limit)) return *v;
    throw engine_error(engine_error::kind::bad_setting, "SPARSEPERM_MEMORY_LIMIT='" + std::string(limit) +
                                                            "' is not a size (bytes, or a number with K, M, G or T, e.g. 8G)");
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return 0.8 * kib * 1024;
  }
  return 4.0 * (1ull << 30);
}

inline std::string format_bytes(double bytes) {
  char buffer[40];
  if (bytes < 1 << 20) std::snprintf(buffer, sizeof buffer, "%.0f KiB", bytes / 1024);
  else if (bytes < 1ull << 30) std::snprintf(buffer, sizeof buffer, "%.1f MiB", bytes / (1 << 20));
  else if (bytes < 0x1p50) std::snprintf(buffer, sizeof buffer, "%.1f GiB", bytes / (1ull << 30));
  else if (std::isfinite(bytes)) std::snprintf(buffer, sizeof buffer, "%.2g bytes", bytes);
  else std::snprintf(buffer, sizeof buffer, "more than 1e308 bytes");
  return buffer;
}

// A count that may be astronomical (predicted states, transitions): %.3g, never a conversion to an
// integer type that could overflow.
inline std::string format_count(double count) {
  if (!std::isfinite(count)) return "more than 1e308";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", count);
  return buffer;
}

inline std::string format_seconds(double s) {
  char buffer[32];
  if (s < 1e-3) std::snprintf(buffer, sizeof buffer, "%.1e s", s);
  else if (s < 1e5) std::snprintf(buffer, sizeof buffer, "%.3g s", s);
  else std::snprintf(buffer, sizeof buffer, "%.1e s (%.3g days)", s, s / 86400);
  return buffer;
}

namespace detail {

inline std::vector<engine_estimate> estimate_engines(const sparse_matrix& m, const dp_order& order, const compute_options& options,
                                                     const planner_rates& rates, double memory_limit) {
  const int n = m.n();
  const double steps = std::ldexp(1.0, n - 1);
  const int threads = detail::engine_threads(options.threads);
  std::vector<engine_estimate> estimates;
  {
    engine_estimate e;
    e.engine = "dp";
    const bool big = m.has_integer_values() && !fits_int128(m, 0);
    const double words = order.frontier <= 64 ? 1 : order.frontier <= 128 ? 2 : order.frontier <= 256 ? 4 : 8;
    const double state_bytes = 8 * words + (big ? 64 : 16);
    e.memory_bytes = order.peak_states * state_bytes * 4;  // states, a table at half load, the next states
    if (order.frontier > dp_max_frontier) {
      e.why = "frontier " + std::to_string(order.frontier) + " > " + std::to_string(dp_max_frontier);
    } else if (e.memory_bytes > memory_limit) {
      e.why = "needs about " + format_bytes(e.memory_bytes) + " for " + format_count(order.peak_states) +
              " states, more than the " + format_bytes(memory_limit) + " it may use";
    } else {
      e.seconds = order.transitions * rates.dp_transition * (big ? rates.dp_big_integer_factor : 1) * 2 / std::max(1, std::min(threads, 2));
    }
    estimates.push_back(e);
  }
  for (const char* name : {"cpu-sparse", "cpu-cached", "gpu-sparse", "gpu-cached"}) {
    engine_estimate e;
    e.engine = name;
    const engine_description* d = find_engine(name);
    if (n > d->max_n) {
      e.why = "n > " + std::to_string(d->max_n);
    } else if (const auto why = engine_unavailable(*d, options)) {
      e.why = *why;
    } else if (const auto uncertified = detail::ryser_bound_refusal(m)) {
      e.why = *uncertified;
    } else if (e.engine == "cpu-sparse") {
      e.seconds = steps * (n + 2) * rates.cpu_sparse_step_per_row / std::max(1, threads);
    } else if (e.engine == "gpu-sparse") {
      e.seconds = rates.gpu_setup + steps * rates.gpu_sparse_step;
    } else {
      const column_masks pattern = m.masks();
      const column_masks ordered = reorder(pattern, permanent_ordering(pattern).order);
      if (e.engine == "cpu-cached") {
        const cached_layout layout = plan_cached_layout(ordered, cached_options_on_host);
        e.seconds = rates.cpu_compile + steps * layout.cost / (rates.cpu_cached_cost_rate * std::max(1, threads));
      } else {
        const cached_layout layout = plan_cached_layout(ordered);
        e.seconds = rates.gpu_setup + rates.gpu_compile + steps * layout.cost / rates.gpu_cached_cost_rate;
      }
    }
    estimates.push_back(e);
  }
  return estimates;
}

}  // namespace detail

inline permanent_plan make_plan(const sparse_matrix& a, const compute_options& options = {}, const planner_rates& rates = {}) {
  permanent_plan plan;
  plan.n = a.n();
  plan.nnz = a.nnz();
  plan.integer = a.has_integer_values();
  const double memory_limit = planner_memory_limit();
  const auto mark_zero = [&](std::string why) {
    plan.zero = true;
    plan.zero_reason = std::move(why);
    plan.blocks.clear();
  };
  const bipartite_matching matching = maximum_matching(a);
  if (matching.size < a.n()) {
    mark_zero("structurally singular: a maximum matching covers " + std::to_string(matching.size) + " of " + std::to_string(a.n()) +
              " rows, so every term has a zero factor");
    return plan;
  }
  // 1 × 1 blocks are factors at once; the others wait on a stack (a reduced block may split again)
  std::vector<matrix_block> pending;
  const auto take_fine_blocks = [&](const sparse_matrix& m, const bipartite_matching& mm) {
    fine_decomposition d = fine_decompose(m, mm);
    for (const matrix_entry& e : d.singles) {
      if (plan.integer) plan.factor = plan.factor.times(static_cast<long long>(e.value));
      plan.factor_value *= e.value;
      ++plan.trivial_blocks;
    }
    for (auto& b : d.blocks) pending.push_back(std::move(b));
    return d.sizes;
  };
  plan.fine_block_sizes = take_fine_blocks(a, matching);
  plan.fine_blocks = static_cast<int>(plan.fine_block_sizes.size());
  while (!pending.empty() && !plan.zero) {
    matrix_block block = std::move(pending.back());
    pending.pop_back();
    const sparse_matrix& m = block.matrix;
    reduction_result r = reduce_degrees(m);
    plan.degree_one += r.degree_one;
    plan.degree_two += r.degree_two;
    if (r.zero) {
      mark_zero("a degree-2 merge cancelled every entry of a line: the permanent is 0");
      break;
    }
    if (plan.integer) plan.factor = plan.factor * r.factor;
    plan.factor_value *= r.factor_value;
    if (r.matrix.n() == 0) continue;
    if (r.degree_one + r.degree_two > 0) {  // the reduced block may fall apart again
      const bipartite_matching again = maximum_matching(r.matrix);
      if (again.size < r.matrix.n()) {
        mark_zero("after degree reductions a block has no perfect matching: the permanent is 0");
        break;
      }
      take_fine_blocks(r.matrix, again);
      continue;
    }
    block_plan bp;
    bp.matrix = std::move(r.matrix);
    bp.order = dp_orders(bp.matrix).front();
    bp.estimates = detail::estimate_engines(bp.matrix, bp.order, options, rates, memory_limit);
    const engine_estimate* best = nullptr;
    for (const auto& e : bp.estimates) {
      if (e.seconds && (best == nullptr || *e.seconds < *best->seconds)) best = &e;
    }
    if (best == nullptr) {
      std::string why;
      for (const auto& e : bp.estimates) why += (why.empty() ? "" : "; ") + e.engine + ": " + e.why;
      throw engine_error(engine_error::kind::too_large,
                         "no engine can compute a " + std::to_string(bp.matrix.n()) + " x " + std::to_string(bp.matrix.n()) + " block (" + why + ")");
    }
    bp.engine = best->engine;
    plan.blocks.push_back(std::move(bp));
  }
  std::sort(plan.blocks.begin(), plan.blocks.end(), [](const block_plan& x, const block_plan& y) { return x.matrix.n() > y.matrix.n(); });
  return plan;
}

// One line for the result record.
inline std::string summarize_plan(const permanent_plan& plan) {
  if (plan.zero) return plan.zero_reason;
  if (plan.n == 0) return "the 0 x 0 matrix: permanent 1 by convention";
  std::string s = std::to_string(plan.fine_blocks) + " fine block" + (plan.fine_blocks == 1 ? "" : "s") + " (" +
                  std::to_string(plan.trivial_blocks) + " of 1 x 1 in the end); reductions: " + std::to_string(plan.degree_one) +
                  " degree-1, " + std::to_string(plan.degree_two) + " degree-2 merges";
  for (const auto& b : plan.blocks) {
    s += "; block " + std::to_string(b.matrix.n()) + " x " + std::to_string(b.matrix.n()) + ": " + b.engine;
    if (b.engine == "dp") s += " (" + b.order.name + ", frontier " + std::to_string(b.order.frontier) + ")";
  }
  return s;
}

// The names of the engines the plan runs, joined by '+' ("structure" when none runs).
inline std::string plan_engines(const permanent_plan& plan) {
  std::vector<std::string> names;
  for (const auto& b : plan.blocks) {
    if (std::find(names.begin(), names.end(), b.engine) == names.end()) names.push_back(b.engine);
  }
  if (names.empty()) return "structure";
  std::string s;
  for (const auto& name : names) s += (s.empty() ? "" : "+") + name;
  return s;
}

}  // namespace sparseperm
