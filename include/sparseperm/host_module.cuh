#pragma once
// A host module: cpu-cached's chunk loop for one matrix, compiled alone into a shared library
// (g++ -O3 -march=native -fPIC -shared) and loaded by a program compiled once
// (runtime/host_module_runner.cuh): the host's counterpart of the GPU's kernel modules (module.cuh).
// The loading program owns the threads (OpenMP), the progress and the reduction; the module is the
// loop that is specialised to the matrix.
//
//   #include <sparseperm/host_module.cuh>
//   #include "matrix.cuh"
//   SPARSEPERM_HOST_MODULE(sparseperm::generated::input::matrix)
//   SPARSEPERM_HOST_MODULE_PRECISION(sparseperm::generated::input::matrix, sparseperm::precision::exact)
//
// exports, with C linkage:
//   sparseperm_host_module_steps(first, end, sum)   adds the steps [first, end) (first ≥ 1) to *sum,
//                                                   the module's accumulator (module_definition::sum)
//   sparseperm_host_module                          its module_info (engine 3)
//   sparseperm_host_module_matrix                   the matrix it was built from (module_matrix)
#include <cstdint>

#include "detail/module_definition.cuh"

#define SPARSEPERM_HOST_MODULE(MATRIX) SPARSEPERM_HOST_MODULE_PRECISION(MATRIX, ::sparseperm::precision::automatic)

#define SPARSEPERM_HOST_MODULE_PRECISION(MATRIX, PRECISION)                                                    \
  using sparseperm_host_definition =                                                                           \
      ::sparseperm::detail::module_definition<::sparseperm::cpu_cached_engine, MATRIX, PRECISION>;            \
  extern "C" void sparseperm_host_module_steps(std::uint64_t first, std::uint64_t end, void* sum) {           \
    ::sparseperm::cached_steps<sparseperm_host_definition::plan>(first, end, nullptr, 0,                        \
                                                                 *static_cast<sparseperm_host_definition::sum*>(sum)); \
  }                                                                                                            \
  extern "C" const ::sparseperm::module_info sparseperm_host_module = sparseperm_host_definition::info();          \
  extern "C" const decltype(sparseperm_host_definition::matrix()) sparseperm_host_module_matrix =                \
      sparseperm_host_definition::matrix();
