#pragma once
// A host module: cpu-cached's chunk loop for one matrix, compiled alone into a shared library
// (g++ -O3 -march=native -fPIC -shared) and loaded by a program compiled once
// (module/host_runner.cuh): the host's counterpart of the GPU's kernel modules (kernel_module.cuh).
// The loading program owns the threads (OpenMP), the progress and the reduction; the module is the
// loop that is specialised to the matrix.
//
//   #include <sparseperm/module/host_module.cuh>
//   #include <sparseperm/engines/cpu_cached.cuh>
//   #include "matrix.cuh"
//   SPARSEPERM_HOST_MODULE(sparseperm::engines::cpu_cached, sparseperm::generated::input::matrix)
//   SPARSEPERM_HOST_MODULE_PRECISION(sparseperm::engines::cpu_cached, ..., sparseperm::precision::exact)
//
// exports, with C linkage:
//   sparseperm_host_module_steps(first, end, sum)   adds the steps [first, end) (first ≥ 1) to *sum,
//                                                   the module's accumulator (module_definition::sum)
//   sparseperm_host_module                          its module_info
//   sparseperm_host_module_matrix                   the matrix it was built from (module_matrix)
#include <cstdint>

#include "definition.cuh"

#define SPARSEPERM_HOST_MODULE(ENGINE, MATRIX) \
  SPARSEPERM_HOST_MODULE_PRECISION(ENGINE, MATRIX, ::sparseperm::precision::automatic)

#define SPARSEPERM_HOST_MODULE_PRECISION(ENGINE, MATRIX, PRECISION)                                       \
  using sparseperm_host_definition = ::sparseperm::detail::module_definition<ENGINE, MATRIX, PRECISION>;  \
  extern "C" void sparseperm_host_module_steps(std::uint64_t first, std::uint64_t end, void* sum) {       \
    ENGINE::steps<sparseperm_host_definition::plan>(first, end, nullptr, 0,                               \
                                                    *static_cast<sparseperm_host_definition::sum*>(sum)); \
  }                                                                                                       \
  extern "C" const ::sparseperm::module_info sparseperm_host_module = sparseperm_host_definition::info(); \
  extern "C" const decltype(sparseperm_host_definition::matrix()) sparseperm_host_module_matrix =         \
      sparseperm_host_definition::matrix();
