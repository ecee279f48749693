#pragma once
// The catalog: the only list of the engines. Everything that walks engines (compute, the planner,
// `inspect`, the CLI's --engine, JSON) walks this list; adding an engine is its header and one line
// here, or, for an engine that lives outside the library (a test's, a user's), a header named by
// SPARSEPERM_EXTRA_ENGINES_HEADER that defines sparseperm::extra_engines = engine_list<...> (the same
// in every translation unit of a program).
//
//   engine_catalog               engine_list<the library's engines..., the extra ones...>
//   engine_descriptions()        their run-time descriptions (engines/engine.cuh), in catalog order
//   find_engine(name)            the engine called `name`, or nullptr: the CLI's and JSON's door
//   engine_names()               "auto, gpu-cached, ..." for messages
//   complex_engine_names()       those that take complex matrices, likewise
//   engine_unavailable(e, opt)   why e cannot run on this machine with this build, or nothing
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "cpu_cached.cuh"
#include "cpu_sparse.cuh"
#include "dp.cuh"
#include "engine.cuh"
#include "glynn.cuh"
#include "gpu_cached.cuh"
#include "gpu_dense.cuh"
#include "gpu_dp.cuh"
#include "gpu_glynn.cuh"
#include "gpu_hybrid.cuh"
#include "gpu_purereg.cuh"
#include "gpu_sparse.cuh"
#include "reference.cuh"

namespace sparseperm {

template <Engine... Engines>
struct engine_list {
  static constexpr std::array<const engine_description*, sizeof...(Engines)> descriptions{&description_of<Engines>...};
};

template <class First, class Second>
struct engine_list_join;
template <Engine... First, Engine... Second>
struct engine_list_join<engine_list<First...>, engine_list<Second...>> {
  using type = engine_list<First..., Second...>;
};

}  // namespace sparseperm

#if defined(SPARSEPERM_EXTRA_ENGINES_HEADER)
#  include SPARSEPERM_EXTRA_ENGINES_HEADER
#else
namespace sparseperm {
using extra_engines = engine_list<>;
}  // namespace sparseperm
#endif

namespace sparseperm {

// In the order `inspect` and the CLI's help show them.
using library_engines = engine_list<engines::gpu_cached, engines::gpu_hybrid, engines::gpu_purereg, engines::gpu_sparse,
                                    engines::gpu_dense, engines::cpu_cached, engines::cpu_sparse, engines::dp,
                                    engines::gpu_dp, engines::glynn, engines::gpu_glynn, engines::reference>;

using engine_catalog = typename engine_list_join<library_engines, extra_engines>::type;

inline constexpr const auto& engine_descriptions() { return engine_catalog::descriptions; }

inline const engine_description* find_engine(std::string_view name) {
  for (const engine_description* e : engine_descriptions()) {
    if (e->name == name) return e;
  }
  return nullptr;
}

inline std::string engine_names() {
  std::string names = "auto";
  for (const engine_description* e : engine_descriptions()) names += ", " + std::string(e->name);
  return names;
}

// The engines that compute complex matrices' permanents, for messages.
inline std::string complex_engine_names() {
  std::string names;
  for (const engine_description* e : engine_descriptions()) {
    if (e->complex_values) names += (names.empty() ? "" : ", ") + std::string(e->name);
  }
  return names;
}

// The engines that run --precision double-double, for messages.
inline std::string double_double_engine_names() {
  std::string names;
  for (const engine_description* e : engine_descriptions()) {
    if (e->double_double) names += (names.empty() ? "" : ", ") + std::string(e->name);
  }
  return names;
}

// Why an engine cannot run on this machine with this build, or nothing when it can.
inline std::optional<std::string> engine_unavailable(const engine_description& engine,
                                                     const compute_options& options = {}) {
  if (engine.generated()) {
    if (options.modules == nullptr) {
      return "it compiles a module for each matrix, and no module runner was named (compute_options::modules = "
             "sparseperm::module_pipeline(), from <sparseperm/pipeline.cuh>)";
    }
    return options.modules->unavailable(engine, options);
  }
  if (engine.unavailable != nullptr) return engine.unavailable(options);
  return std::nullopt;
}

}  // namespace sparseperm
