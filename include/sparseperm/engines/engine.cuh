#pragma once
// What an engine is. Each engine is a tag type in its own header (engines/<name>.cuh) whose static
// members are its traits; engines/catalog.cuh is the only list of them. compute, the planner, the
// pipeline, `inspect` and the JSON record read the traits through engine_description; names turn
// into engines only at the edges (the CLI's --engine, JSON), C++ callers pick a tag.
//
//   name, summary          what the CLI, the JSON record and `inspect` call it and say of it
//   placement              host | gpu | host_generated | gpu_generated (generated: a module per matrix,
//                          compiled by the pipeline, which <sparseperm/pipeline.cuh> brings)
//   max_n                  the largest n it takes
//   exact                  which integer matrices it keeps exact (numeric/arithmetic.cuh's exact_reach)
//   rounds_to_grids        a Ryser engine: values rounded to row grids, so its bound needs certified grids
//   run(task, options)     the permanent of a matrix with a perfect matching (not for generated engines)
//   cpu_threads            optional, true: it runs on options.threads CPU threads (bench varies them)
//   journals               optional, true: it resumes from and appends to options.checkpoint's journal,
//                          and shares its chunks over options.processes (MPI ranks)
//   complex_values         optional, true: it computes complex matrices' permanents too (the others
//                          are not given them: compute refuses, the planner passes them over)
//   double_double          optional, true: it runs --precision double-double (numeric/double_double.cuh)
//   a_priori_bound         optional, true: its floating bound is a priori, through perm(|A|) (dp's);
//                          compute_options::running_bounds_only passes it over
//   unavailable(options)   optional: why it cannot run here (nothing: it can)
//   estimate(block, e)     optional: the planner's estimate of seconds and memory for a block, or why
//                          not; engines without one are run only when asked for
//   plan_note(task)        optional: what the planner's summary adds for a block it runs
// generated engines instead of run:
//   module_type, module_header   the tag's C++ name and header, which the module's source includes
//   plan_text(module_info)       the plan line of a result
//   plan<M, Arith>, split_signs, describe<Plan>(info), steps<Plan>(...): module/definition.cuh
#include <algorithm>
#include <concepts>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../core/config.cuh"
#include "../core/process_group.cuh"
#include "../core/progress.cuh"
#include "../core/result.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../module/module_info.cuh"
#include "../module/pipeline_options.cuh"
#include "../numeric/arithmetic.cuh"
#include "../run/sharing.cuh"
#include "../structure/frontier_order.cuh"
#if defined(__CUDACC__)
#  include "../gpu/cuda_support.cuh"
#endif

namespace sparseperm {

enum class engine_placement { host, gpu, host_generated, gpu_generated };

constexpr bool is_generated(engine_placement p) {
  return p == engine_placement::host_generated || p == engine_placement::gpu_generated;
}
constexpr bool runs_on_gpu(engine_placement p) {
  return p == engine_placement::gpu || p == engine_placement::gpu_generated;
}

struct compute_options;
struct engine_description;
struct module_runner;

// What an engine runs on: a matrix with a perfect matching, and the column order of small frontier
// where the planner found one (engines that need it compute it when it is absent).
struct engine_task {
  const sparse_matrix& matrix;
  const frontier_order* order = nullptr;
};

// The planner's view of one engine on one block.
struct engine_estimate {
  const engine_description* engine = nullptr;
  std::optional<double> seconds;  // empty: cannot run this block here (see `why`)
  double memory_bytes = 0;        // what it would hold, where that matters
  std::string why;
  bool module_cached = false;  // a generated engine whose module for this block is in the cache: no compile
  // a generated engine: what generating and compiling its module for this block costs (its estimate
  // may model it; the planner fills in the tag's compile_seconds where it does not)
  std::optional<double> compile_seconds;
  std::optional<arithmetic_choice> arithmetic;  // a Ryser engine: what it would run (priced in `seconds`)
  std::string arithmetic_why;                   // and why that exact arithmetic, where it is one
};

struct planner_block {
  const sparse_matrix& matrix;
  const frontier_order& order;
  const compute_options& options;
  double memory_limit = 0;  // bytes the planner may use
};

template <class E>
concept Engine = requires {
  { E::name } -> std::convertible_to<std::string_view>;
  { E::summary } -> std::convertible_to<std::string_view>;
  { E::placement } -> std::convertible_to<engine_placement>;
  { E::max_n } -> std::convertible_to<int>;
  { E::exact } -> std::convertible_to<exact_reach>;
  { E::rounds_to_grids } -> std::convertible_to<bool>;
}
&& (is_generated(E::placement) ? requires(const module_info& info) {
  { E::module_type } -> std::convertible_to<std::string_view>;
  { E::module_header } -> std::convertible_to<std::string_view>;
  { E::plan_text(info) } -> std::convertible_to<std::string>;
} : requires(const engine_task& task, const compute_options& options) {
  { E::run(task, options) } -> std::same_as<permanent_result>;
});

// The fixed cost of a GPU engine's run, the same whichever engine runs: the CUDA context, loading the
// kernels and their first launches (one H100, fresh processes: a run's total less its compute time,
// 0.11 to 0.17 s on gpu-dense and gpu-sparse). Engine-specific setups (gpu-cached's compile) come on top.
inline constexpr double gpu_setup_seconds = 0.15;

// Why this program cannot run GPU work here (built without nvcc, or no CUDA device), or nothing: the
// GPU engines' common reason, run-time and generated alike.
inline std::optional<std::string> gpu_unavailable() {
#if defined(__CUDACC__)
  if (gpu::device_count() == 0) return "there is no CUDA device on this machine";
  return std::nullopt;
#else
  return "this build of sparseperm has no CUDA support (it was compiled without nvcc)";
#endif
}

// A GPU engine's run where this program has no GPU work (compute refuses such an engine before it
// runs; a caller of run() itself learns why here).
[[noreturn]] inline permanent_result gpu_unavailable_run(std::string_view engine) {
  throw engine_error(engine_error::kind::unavailable, "engine '" + std::string(engine) + "' is not available: " +
                                                          gpu_unavailable().value_or("no CUDA device is usable"));
}

// What the six Ryser engines share (a tag derives from it): n ≤ 64 (a column's rows in one word),
// exact in 128-bit integers or residues (Gaussian integers in 128 bits), values rounded to row
// grids, complex values, chunks that a journal keeps and MPI ranks share (run/chunk_dispatch.cuh).
struct ryser_engine {
  static constexpr int max_n = max_ryser_n;
  static constexpr bool journals = true;
  static constexpr exact_reach exact = exact_reach::within_128_bits_or_residues;
  static constexpr bool rounds_to_grids = true;
  static constexpr bool complex_values = true;
};

// What the three GPU-generated engines share besides: a kernel module, sums kept in registers (an
// engine whose runs touch their total once a run keeps it in memory instead: partial_in_memory).
struct gpu_generated_engine : ryser_engine {
  static constexpr engine_placement placement = engine_placement::gpu_generated;
  static constexpr bool split_signs = false;
  template <class Sum>
  static constexpr bool partial_in_memory = false;
};

// An engine's traits at run time (description_of<E>): what everything but the engine's own code uses.
struct engine_description {
  std::string_view name;
  std::string_view summary;
  engine_placement placement;
  int max_n;
  exact_reach exact;
  bool rounds_to_grids;
  bool cpu_threads;
  bool complex_values;
  permanent_result (*run)(const engine_task&, const compute_options&);  // null: generated
  std::optional<std::string> (*unavailable)(const compute_options&);    // null: always available
  void (*estimate)(const planner_block&, engine_estimate&);             // null: not planned
  std::string (*plan_note)(const engine_task&);                         // null: nothing to add
  std::string_view module_type;                                         // generated engines
  std::string_view module_header;
  std::string (*plan_text)(const module_info&);
  double compile_seconds;       // generated engines: what generating and compiling a module costs (planner)
  bool journals = false;        // it keeps compute_options::checkpoint's journal and shares its chunks over MPI ranks
  bool double_double = false;   // it runs --precision double-double
  bool a_priori_bound = false;  // its floating bound is through perm(|A|), not from the terms it sums

  bool generated() const { return is_generated(placement); }
  bool on_gpu() const { return runs_on_gpu(placement); }
  // where its arithmetic runs, for the prices of exactness (numeric/arithmetic.cuh)
  arithmetic_site site() const {
    return on_gpu() ? (generated() ? arithmetic_site::gpu_generated : arithmetic_site::gpu_runtime)
                    : (generated() ? arithmetic_site::host_generated : arithmetic_site::host_runtime);
  }
  bool planned() const { return estimate != nullptr; }
  module_target target() const {
    return {std::string(name), placement == engine_placement::host_generated, std::string(module_type),
            std::string(module_header)};
  }
};

template <class E>
constexpr engine_description make_description() {
  static_assert(
      Engine<E>,
      "sparseperm engine: a tag needs name, summary, placement, max_n, exact and rounds_to_grids, and "
      "run(engine_task, compute_options) or, when generated, module_type, module_header and plan_text(module_info) "
      "(engines/engine.cuh)");
  engine_description d{E::name, E::summary, E::placement, E::max_n, E::exact, E::rounds_to_grids,
                       false,   false,      nullptr,      nullptr,  nullptr,  nullptr,
                       {},      {},         nullptr,      0};
  if constexpr (requires {
                  { E::cpu_threads } -> std::convertible_to<bool>;
                })
    d.cpu_threads = E::cpu_threads;
  if constexpr (requires {
                  { E::complex_values } -> std::convertible_to<bool>;
                })
    d.complex_values = E::complex_values;
  if constexpr (requires {
                  { E::journals } -> std::convertible_to<bool>;
                })
    d.journals = E::journals;
  if constexpr (requires {
                  { E::double_double } -> std::convertible_to<bool>;
                })
    d.double_double = E::double_double;
  if constexpr (requires {
                  { E::a_priori_bound } -> std::convertible_to<bool>;
                })
    d.a_priori_bound = E::a_priori_bound;
  if constexpr (is_generated(E::placement)) {
    d.module_type = E::module_type;
    d.module_header = E::module_header;
    d.plan_text = [](const module_info& info) { return std::string(E::plan_text(info)); };
    if constexpr (requires {
                    { E::compile_seconds } -> std::convertible_to<double>;
                  })
      d.compile_seconds = E::compile_seconds;
  } else {
    d.run = [](const engine_task& task, const compute_options& options) { return E::run(task, options); };
  }
  if constexpr (requires(const compute_options& o) {
                  { E::unavailable(o) } -> std::convertible_to<std::optional<std::string>>;
                }) {
    d.unavailable = [](const compute_options& o) -> std::optional<std::string> { return E::unavailable(o); };
  }
  if constexpr (requires(const planner_block& b, engine_estimate& e) { E::estimate(b, e); }) {
    d.estimate = [](const planner_block& b, engine_estimate& e) { E::estimate(b, e); };
  }
  if constexpr (requires(const engine_task& t) {
                  { E::plan_note(t) } -> std::convertible_to<std::string>;
                }) {
    d.plan_note = [](const engine_task& t) { return std::string(E::plan_note(t)); };
  }
  return d;
}

// The one description of each engine.
template <Engine E>
inline constexpr engine_description description_of = make_description<E>();

// `auto` (the planner's choice, block by block) or one engine: compute_options{.engine = engines::dp{}}.
class engine_choice {
 public:
  constexpr engine_choice() = default;
  template <Engine E>
  constexpr engine_choice(E) : engine_(&description_of<E>) {}
  constexpr explicit engine_choice(const engine_description* engine) : engine_(engine) {}
  constexpr bool automatic() const { return engine_ == nullptr; }
  constexpr const engine_description* get() const { return engine_; }
  constexpr std::string_view name() const { return engine_ ? engine_->name : std::string_view("auto"); }

 private:
  const engine_description* engine_ = nullptr;
};

// How a program runs generated engines: sparseperm::module_pipeline() (<sparseperm/pipeline.cuh>,
// which brings the compilers, the module cache and the loaders), named in compute_options::modules.
// A program that names none has the other engines only, and no process or dlopen code.
struct module_runner {
  std::optional<std::string> (*unavailable)(const engine_description&, const compute_options&);
  permanent_result (*run)(const engine_description&, const engine_task&, const compute_options&);
  // whether the engine's module for this matrix is in the cache, verified (the planner then charges
  // no compile)
  bool (*cached)(const engine_description&, const sparse_matrix&, const compute_options&);
};

struct compute_options {
  engine_choice engine;  // default: auto
  int threads = 0;       // CPU threads; 0: all that OpenMP offers
  // CUDA devices: the Ryser engines share their chunks over all of them; the others run on the first
  std::vector<int> devices = {0};
  progress_counter* progress = nullptr;
  pipeline_options pipeline = {};  // where the generated engines compile (module/pipeline_options.cuh)
  sparseperm::precision precision = sparseperm::precision::automatic;
  // Under precision::automatic, the significant digits a floating result should certify: a run that
  // certifies fewer is repeated in double-double where an engine runs it (compute.cuh)
  int digits = 10;
  // Auto's double-double run after a run whose bound was a running one: engines whose floating bound
  // is a priori (the `a_priori_bound` trait: dp's, through perm(|A|)) are passed over, since where the
  // terms cancel they certify less than the running bounds do (compute.cuh's escalation sets it)
  bool running_bounds_only = false;
  // No absurd jobs: a run estimated beyond this is refused before it starts (infinity: no limit)
  double time_limit_seconds = 24 * 3600.0;
  // A checkpoint journal to resume from and append to (engines with the `journals` trait)
  std::string checkpoint = {};
  // The MPI ranks of a distributed run (core/process_group.cuh): the engines with the `journals`
  // trait split their chunks over them, the others run whole on every rank. Null: one process.
  const process_group* processes = nullptr;
  // How the generated engines run (module_runner, below): sparseperm::module_pipeline() from
  // <sparseperm/pipeline.cuh>. Null: they are unavailable, and `auto` plans without them.
  const module_runner* modules = nullptr;

  int first_device() const { return devices.empty() ? 0 : devices.front(); }
  // The journal and the ranks, as the chunked engines take them (run/sharing.cuh).
  detail::chunk_sharing sharing() const { return {checkpoint, processes}; }
};

// Whether a generated engine's module for `matrix` is in the cache (false without a module runner).
inline bool module_in_cache(const engine_description& engine, const sparse_matrix& matrix,
                            const compute_options& options) {
  return engine.generated() && options.modules != nullptr && options.modules->cached(engine, matrix, options);
}

}  // namespace sparseperm
