#pragma once
// sparseperm::permanent_cpu_cached<M>(options): the permanent of a generated matrix type on this CPU,
// cpu-cached's loop compiled into the caller's program (best with -O3 -march=native -fopenmp) and run
// by the host modules' chunk loop (module/host_run.cuh). Apart from the engine's tag
// (engines/cpu_cached.cuh), which a host module includes: a module then compiles without the runner.
//
//   #include <sparseperm/perm.cuh>
//   #include "my_matrix.cuh"                       // written by sparseperm-gen
//   auto r = sparseperm::permanent_cpu_cached<sparseperm::generated::my_matrix::matrix>({.threads = 8});
#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.cuh"
#include "detail/sha256.cuh"
#include "engines/cpu_cached.cuh"
#include "module/definition.cuh"
#include "module/host_run.cuh"

namespace sparseperm {

// cpu-cached's accumulator: split by sign, two dependency chains on a CPU.
template <class Arith, precision P = precision::automatic>
using cpu_cached_sum = detail::generated_sum<Arith, P, true>;

using cpu_cached_options = host_run_options;

// The permanent of a generated matrix type on this CPU, in the arithmetic P asks for.
template <CompileTimeMatrix M, precision P = precision::automatic>
permanent_result permanent_cpu_cached(const cpu_cached_options& options = {}) {
  constexpr int n = M::pattern::n;
  static_assert(n <= max_ryser_n, "sparseperm::permanent_cpu_cached<M>: the Ryser engines need n <= 64");
  if constexpr (n == 0) {
    permanent_result result;
    result.engine = engines::cpu_cached::name;
    set_exact_value(result, 1, "the 0 x 0 matrix: permanent 1 by convention");
    return result;
  } else {
    // The same definition as a host module's (module/host_module.cuh): plan, accumulator, module_info.
    using definition = detail::module_definition<engines::cpu_cached, M, P>;
    using sum = typename definition::sum;
    constexpr module_info info = definition::info();
    constexpr auto matrix = definition::matrix();
    cpu_cached_options run = options;
    run.identity =
        "matrix " +
        detail::hex_of(detail::sha256::of(std::string_view(reinterpret_cast<const char*>(&matrix), sizeof matrix)));
    return detail::run_host_module_loop<typename definition::arithmetic, sum>(
        info, engines::cpu_cached::plan_text(info),
        [](std::uint64_t first, std::uint64_t end, sum& s) {
          engines::cpu_cached::steps<typename definition::plan>(first, end, nullptr, 0, s);
        },
        run);
  }
}

}  // namespace sparseperm
