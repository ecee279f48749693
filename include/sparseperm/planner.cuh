#pragma once
// The `auto` planner: make the matrix smaller, then run the cheapest engine per block.
//
//   1. maximum matching: none perfect → permanent 0;
//   2. Dulmage–Mendelsohn fine blocks: perm = Π perm(block) (entries between blocks dropped);
//   3. degree reductions in each block (structure/reductions.cuh), and the fine blocks again where
//      they changed it;
//   4. for each remaining block, every planned engine of the catalog that can run it here gives an
//      estimate of its seconds and memory (its tag's estimate: dp from predicted transitions, the
//      Ryser engines from 2^(n−1) steps at measured rates, the cached engines' steps priced by their
//      cost model, plus compiling); the cheapest one that fits in memory runs.
//
// The rates are measured ones (tools/benchmarks.md): they rank engines, they do not promise times.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/engine_error.cuh"
#include "detail/format.cuh"
#include "engines/catalog.cuh"
#include "matrix/exactness.cuh"
#include "matrix/row_grids.cuh"
#include "matrix/sparse_matrix.cuh"
#include "numeric/big_integer.cuh"
#include "numeric/scaled_double.cuh"
#include "ryser/ordering.cuh"
#include "structure/block_decomposition.cuh"
#include "structure/matching.cuh"
#include "structure/reductions.cuh"

namespace sparseperm {

struct block_plan {
  sparse_matrix matrix;
  std::vector<engine_estimate> estimates;      // one per planned engine of the catalog
  const engine_description* engine = nullptr;  // the choice
  frontier_order order;                        // the column order of smallest frontier found
};

struct permanent_plan {
  int n = 0;
  std::int64_t nnz = 0;
  bool zero = false;  // the permanent is 0 for a structural reason
  std::string zero_reason;
  bool integer = false;
  bool complex = false;                   // a complex matrix: no degree reductions, complex factors
  detail::big_integer factor{1ll};        // Π of the degree-1 factors and 1 × 1 blocks (integer matrices)
  detail::big_integer factor_imag{0ll};   // its imaginary part (Gaussian integer matrices)
  detail::scaled_double factor_value;     // the same in floating point (scaled: no underflow, no overflow)
  detail::scaled_complex factor_complex;  // complex matrices: the factor in floating point
  int fine_blocks = 0;                    // of the first decomposition
  std::vector<int> fine_block_sizes;
  int trivial_blocks = 0;  // 1 × 1 blocks, factors
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
  static constexpr std::pair<const char*, int> units[] = {{"", 0},   {"b", 0},  {"k", 10},
                                                          {"m", 20}, {"g", 30}, {"t", 40}};
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
// memory_limit_setting(): the variable's size, or nothing where it is not set (checked even where no
// plan is made: the settings a user gave are never ignored).
inline std::optional<double> memory_limit_setting() {
  if (const char* limit = std::getenv("SPARSEPERM_MEMORY_LIMIT"); limit && *limit) {
    if (const auto v = parse_byte_size(limit)) return *v;
    throw engine_error(engine_error::kind::bad_setting,
                       "SPARSEPERM_MEMORY_LIMIT='" + std::string(limit) +
                           "' is not a size (bytes, or a number with K, M, G or T, e.g. 8G)");
  }
  return std::nullopt;
}

inline double planner_memory_limit() {
  if (const auto setting = memory_limit_setting()) return *setting;
  // C stdio, not a stream's number parsing: in a Python extension built by nvcc, istream's
  // extraction of a double crashed where the interpreter had loaded another libstdc++ (an H100's
  // PyTorch environment)
  double available = 4.0 * (1ull << 30);
  if (std::FILE* meminfo = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    double kib = 0;
    while (std::fgets(line, sizeof line, meminfo)) {
      if (std::sscanf(line, "MemAvailable: %lf", &kib) == 1) {
        available = 0.8 * kib * 1024;
        break;
      }
    }
    std::fclose(meminfo);
  }
  return available;
}

using detail::format_bytes;
using detail::format_count;
using detail::format_seconds;

namespace detail {

// One engine on one block: why it cannot (too large, unavailable here, no certified bound), or its
// own estimate (engines/engine.cuh), priced in the arithmetic it would run and with its compile.
// What running a generated engine's cached module costs before its first step: reading and
// verifying the sealed module and loading it (measured: 0.5 to 0.9 ms for cpu-cached on 2 cores).
inline constexpr double module_load_seconds = 5e-4;

// `look_up_module`: whether a generated engine looks its module up in the cache (else its compile
// is counted, as for a module the cache does not hold).
inline engine_estimate estimate_engine(const planner_block& block, const engine_description& engine,
                                       bool look_up_module = true) {
  engine_estimate e;
  e.engine = &engine;
  if (engine.estimate == nullptr) {
    e.why = "it has no estimate";
  } else if (block.matrix.n() > engine.max_n) {
    e.why = "n > " + std::to_string(engine.max_n);
  } else if (block.matrix.is_complex() && !engine.complex_values) {
    e.why = "real matrices only";
  } else if (block.options.precision == precision::double_double && !engine.double_double) {
    e.why = "no double-double arithmetic";
  } else if (block.options.running_bounds_only && engine.a_priori_bound && !block.matrix.has_integer_values()) {
    e.why = "its bound is through perm(|A|), and a running bound certifies more where terms cancel";
  } else if (const auto why = engine_unavailable(engine, block.options)) {
    e.why = *why;
  } else if (const auto uncertified = engine.rounds_to_grids ? row_grid_refusal(block.matrix) : std::nullopt) {
    e.why = *uncertified;
  } else if (const auto inexact = block.options.precision == precision::exact
                                      ? exact_refusal(block.matrix, engine.name, engine.exact)
                                      : std::nullopt) {
    e.why = *inexact;
  } else {
    engine.estimate(block, e);  // in double
    // a Ryser engine's time in the arithmetic it would run: exactness has its price
    if (e.seconds && engine.exact == exact_reach::within_128_bits_or_residues) {
      const arithmetic_site site = engine.site();
      const exact_candidates candidates = exact_candidates_of(block.matrix, is_runtime(site));
      e.arithmetic = arithmetic_for(block.options.precision, candidates, site);  // exact refusals: above
      if (is_exact(e.arithmetic->kind)) e.arithmetic_why = exact_choice_reason(candidates, site);
      *e.seconds *= relative_time(*e.arithmetic, site);
    }
    // the chunked engines share their work: over the MPI ranks, and the GPU ones over the devices
    if (e.seconds && engine.journals) {
      double share = block.options.processes ? block.options.processes->size : 1;
      if (engine.on_gpu()) share *= static_cast<double>(std::max<std::size_t>(block.options.devices.size(), 1));
      *e.seconds /= share;
    }
    // a generated engine compiles its module first, unless the cache holds it
    if (e.seconds && engine.generated()) {
      if (!e.compile_seconds) e.compile_seconds = engine.compile_seconds;
      e.module_cached = look_up_module && module_in_cache(engine, block.matrix, block.options);
      *e.seconds += e.module_cached ? module_load_seconds : *e.compile_seconds;
    }
  }
  return e;
}

// Every planned engine of the catalog on one block, in the catalog's order. A generated engine looks
// its module up in the cache (hashing the generated source: about 0.1 ms) only where its run alone
// could beat the engines that need no module, or where `every_module` asks (inspect).
inline std::vector<engine_estimate> estimate_engines(const planner_block& block, bool every_module = false) {
  std::vector<const engine_description*> planned;
  for (const engine_description* engine : engine_descriptions()) {
    if (engine->planned()) planned.push_back(engine);
  }
  std::vector<engine_estimate> estimates(planned.size());
  std::optional<double> best;  // of the engines without a module
  for (std::size_t k = 0; k < planned.size(); ++k) {
    if (planned[k]->generated()) continue;
    estimates[k] = estimate_engine(block, *planned[k]);
    if (estimates[k].seconds && (!best || *estimates[k].seconds < *best)) best = estimates[k].seconds;
  }
  for (std::size_t k = 0; k < planned.size(); ++k) {
    if (!planned[k]->generated()) continue;
    if (!every_module && best && *best < module_load_seconds) {  // its load alone costs more
      estimates[k].engine = planned[k];
      estimates[k].why = "loading a compiled module takes longer than another engine's whole run";
      continue;
    }
    // estimated once with its compile; the cache is asked only where the module could make it win
    engine_estimate& e = estimates[k];
    e = estimate_engine(block, *planned[k], false);
    if (!e.seconds) continue;
    const double run = *e.seconds - *e.compile_seconds;
    if ((every_module || !best || run + module_load_seconds <= *best) &&
        module_in_cache(*planned[k], block.matrix, block.options)) {
      e.module_cached = true;
      e.seconds = run + module_load_seconds;
    }
  }
  return estimates;
}

// No absurd jobs: a run whose estimate exceeds options.time_limit_seconds is refused before it
// starts (kind too_large), saying the estimate, what it is for and the ways out.
inline void check_time_limit(double seconds, const std::string& what, const compute_options& options) {
  if (!(seconds > options.time_limit_seconds)) return;
  throw engine_error(engine_error::kind::too_large,
                     "the run is estimated at " + format_duration(seconds) + " (" + what +
                         "), beyond the time limit of " + format_duration(options.time_limit_seconds) +
                         "; --time-limit raises it ('none' lifts it), and 'sparseperm inspect' shows every "
                         "engine's estimate");
}

}  // namespace detail

// `every_module`: look every generated engine's module up in the cache (inspect shows them all);
// else only those that could be chosen.
inline permanent_plan make_plan(const sparse_matrix& a, const compute_options& options = {},
                                bool every_module = false) {
  permanent_plan plan;
  plan.n = a.n();
  plan.nnz = a.nnz();
  plan.integer = a.has_integer_values();
  plan.complex = a.is_complex();
  const double memory_limit = planner_memory_limit();
  const auto mark_zero = [&](std::string why) {
    plan.zero = true;
    plan.zero_reason = std::move(why);
    plan.blocks.clear();
  };
  const bipartite_matching matching = maximum_matching(a);
  if (matching.size < a.n()) {
    mark_zero("structurally singular: a maximum matching covers " + std::to_string(matching.size) + " of " +
              std::to_string(a.n()) + " rows, so every term has a zero factor");
    return plan;
  }
  // 1 × 1 blocks are factors at once; the others wait on a stack (a reduced block may split again)
  std::vector<matrix_block> pending;
  const auto take_fine_blocks = [&](const sparse_matrix& m, const bipartite_matching& mm) {
    fine_decomposition d = fine_decompose(m, mm);
    for (const matrix_entry& e : d.singles) {
      if (plan.complex) {
        if (plan.integer) {
          detail::big_gaussian next = detail::big_gaussian(plan.factor, plan.factor_imag)
                                          .times(static_cast<long long>(e.value), static_cast<long long>(e.imag));
          plan.factor = std::move(next.re);
          plan.factor_imag = std::move(next.im);
        }
        plan.factor_complex *= complex_double{e.value, e.imag};
      } else {
        if (plan.integer) plan.factor = plan.factor.times(static_cast<long long>(e.value));
        plan.factor_value *= e.value;
      }
      ++plan.trivial_blocks;
    }
    for (auto& b : d.blocks) pending.push_back(std::move(b));
    return d.sizes;
  };
  // a block left for an engine: its column order and every engine's estimate; the cheapest runs it
  const auto plan_block = [&](block_plan& bp) {
    bp.order = frontier_orders(bp.matrix).front();
    bp.estimates = detail::estimate_engines({bp.matrix, bp.order, options, memory_limit}, every_module);
    const engine_estimate* best = nullptr;
    for (const auto& e : bp.estimates) {
      if (e.seconds && (best == nullptr || *e.seconds < *best->seconds)) best = &e;
    }
    if (best == nullptr) {
      std::string why;
      for (const auto& e : bp.estimates) why += (why.empty() ? "" : "; ") + std::string(e.engine->name) + ": " + e.why;
      throw engine_error(engine_error::kind::too_large, "no engine can compute a " + std::to_string(bp.matrix.n()) +
                                                            " x " + std::to_string(bp.matrix.n()) + " block (" + why +
                                                            ")");
    }
    bp.engine = best->engine;
    plan.blocks.push_back(std::move(bp));
  };
  plan.fine_block_sizes = take_fine_blocks(a, matching);
  plan.fine_blocks = static_cast<int>(plan.fine_block_sizes.size());
  while (!pending.empty() && !plan.zero) {
    matrix_block block = std::move(pending.back());
    pending.pop_back();
    const sparse_matrix& m = block.matrix;
    if (plan.complex) {  // degree reductions are real (structure/reductions.cuh): the block as it is
      block_plan bp;
      bp.matrix = m;
      plan_block(bp);
      continue;
    }
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
    plan_block(bp);
  }
  std::sort(plan.blocks.begin(), plan.blocks.end(),
            [](const block_plan& x, const block_plan& y) { return x.matrix.n() > y.matrix.n(); });
  return plan;
}

// One line for the result record.
inline std::string summarize_plan(const permanent_plan& plan) {
  if (plan.zero) return plan.zero_reason;
  if (plan.n == 0) return "the 0 x 0 matrix: permanent 1 by convention";
  std::string s = std::to_string(plan.fine_blocks) + " fine block" + (plan.fine_blocks == 1 ? "" : "s") + " (" +
                  std::to_string(plan.trivial_blocks) +
                  " of 1 x 1 in the end); reductions: " + std::to_string(plan.degree_one) + " degree-1, " +
                  std::to_string(plan.degree_two) + " degree-2 merges";
  for (const auto& b : plan.blocks) {
    s += "; block " + std::to_string(b.matrix.n()) + " x " + std::to_string(b.matrix.n()) + ": " +
         std::string(b.engine->name);
    if (b.engine->plan_note) s += b.engine->plan_note({b.matrix, &b.order});
  }
  return s;
}

// The names of the engines the plan runs, joined by '+' ("structure" when none runs).
inline std::string plan_engines(const permanent_plan& plan) {
  std::vector<std::string_view> names;
  for (const auto& b : plan.blocks) {
    if (std::find(names.begin(), names.end(), b.engine->name) == names.end()) names.push_back(b.engine->name);
  }
  if (names.empty()) return std::string(structure_engine_name);
  std::string s;
  for (const auto& name : names) {
    if (!s.empty()) s += '+';
    s += name;
  }
  return s;
}

namespace detail {

// The plan's estimate: its blocks' chosen engines together (nothing where a block has none).
inline std::optional<double> plan_seconds(const permanent_plan& plan) {
  double total = 0;
  for (const block_plan& b : plan.blocks) {
    const auto chosen = std::find_if(b.estimates.begin(), b.estimates.end(),
                                     [&](const engine_estimate& e) { return e.engine == b.engine; });
    if (b.engine == nullptr || chosen == b.estimates.end() || !chosen->seconds) return std::nullopt;
    total += *chosen->seconds;
  }
  return total;
}

// The plan's estimate against options.time_limit_seconds.
inline void check_plan_time(const permanent_plan& plan, const compute_options& options) {
  double total = 0, largest = -1;
  std::string what;
  for (const block_plan& b : plan.blocks) {
    for (const engine_estimate& e : b.estimates) {
      if (e.engine != b.engine || !e.seconds) continue;
      total += *e.seconds;
      if (*e.seconds > largest) {
        largest = *e.seconds;
        what =
            std::to_string(b.matrix.n()) + " x " + std::to_string(b.matrix.n()) + " on " + std::string(e.engine->name);
      }
    }
  }
  if (plan.blocks.size() > 1) what = std::to_string(plan.blocks.size()) + " blocks, the longest " + what;
  check_time_limit(total, "auto: " + what, options);
}

}  // namespace detail

}  // namespace sparseperm
