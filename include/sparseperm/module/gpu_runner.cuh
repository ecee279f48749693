#pragma once
// Runs a kernel module (kernel_module.cuh) compiled to a cubin: loads its verified bytes from memory with the
// CUDA runtime's library API, checks that it is this matrix's (module/proof.cuh), reads its
// module_info, and drives its kernel like any generated kernel (occupancy, Algorithm 2, CUDA events,
// the host reduction).
#if !defined(__CUDACC__)
#  error "sparseperm/module/gpu_runner.cuh needs nvcc"
#endif

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "../core/config.cuh"
#include "../core/result.cuh"
#include "../detail/sha256.cuh"
#include "../gpu/cuda_support.cuh"
#include "../gpu/ryser_launcher.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/arithmetic.cuh"
#include "../ryser/arithmetic_types.cuh"
#include "module_info.cuh"
#include "proof.cuh"

namespace sparseperm::gpu {

class loaded_library {
 public:
  // `image`: the cubin's bytes; `name`: what errors call it.
  loaded_library(const std::string& image, const std::string& name) {
    check(cudaLibraryLoadData(&library_, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
          ("loading the kernel module " + name).c_str());
  }
  ~loaded_library() { cudaLibraryUnload(library_); }
  loaded_library(const loaded_library&) = delete;
  loaded_library& operator=(const loaded_library&) = delete;
  cudaLibrary_t get() const { return library_; }

 private:
  cudaLibrary_t library_{};
};

// Runs the kernel module `image` (named `name` in errors) of `engine` for `matrix` in `requested`;
// plan_text(info) is the engine's plan line.
permanent_result run_module(const std::string& image, const std::string& name, const std::string& engine,
                            std::string (*plan_text)(const module_info&), const sparse_matrix& matrix,
                            precision requested, const launch_options& options);

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result run_module(const std::string& image, const std::string& name,
                                                  const std::string& engine,
                                                  std::string (*plan_text)(const module_info&),
                                                  const sparse_matrix& matrix, precision requested,
                                                  const launch_options& options) {
  select_device(options.devices.empty() ? 0 : options.devices.front(), engine);
  const loaded_library library(image, name);
  const auto global = [&](const char* symbol, std::size_t& bytes) {
    void* address = nullptr;
    if (cudaLibraryGetGlobal(&address, &bytes, library.get(), symbol) != cudaSuccess) {
      cudaGetLastError();
      throw module_mismatch_error("the kernel module " + name + " has no '" + symbol + "'");
    }
    return address;
  };
  std::size_t info_bytes = 0, matrix_bytes = 0;
  void* info_address = global("sparseperm_module", info_bytes);
  module_info info;
  if (info_bytes != sizeof info)
    throw module_mismatch_error("the kernel module " + name + " was built by another sparseperm version");
  check(cudaMemcpy(&info, info_address, sizeof info, cudaMemcpyDeviceToHost), "reading the module's information");
  void* matrix_address = global("sparseperm_module_matrix", matrix_bytes);
  std::vector<char> exported(matrix_bytes);
  check(cudaMemcpy(exported.data(), matrix_address, matrix_bytes, cudaMemcpyDeviceToHost),
        "reading the module's matrix");
  sparseperm::detail::check_module(info, exported.data(), exported.size(), matrix, engine, requested, name);
  cudaKernel_t kernel{};
  check(cudaLibraryGetKernel(&kernel, library.get(), "sparseperm_module_kernel"), "cudaLibraryGetKernel");

  permanent_result result;
  result.engine = engine;
  result.n = info.n;
  result.nnz = info.nnz;
  if (info.singular) {
    set_compile_time_singular(result, info.complex != 0);
    return result;
  }
  const void* function = reinterpret_cast<const void*>(kernel);  // the library's kernel: every device loads it
  launch_options run = options;
  run.identity = "module " + sparseperm::detail::hex_of(sparseperm::detail::sha256::of(image));
  sparseperm::detail::visit_module_arithmetic<false>(info, [&]<class Arith, class Sum>() {
    result.plan = plan_text(info) + "; " + Sum::description();
    run_ryser_kernel<Sum, typename Arith::value>(result, sparseperm::detail::module_start_term<Arith>(info), function,
                                                 info.global_rows, run, sparseperm::detail::floating_facts_of(info));
  });
  return result;
}
#endif

}  // namespace sparseperm::gpu
