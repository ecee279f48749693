#pragma once
// Runs a kernel module (module.cuh) compiled to a cubin: loads it with the CUDA runtime's library
// API, reads its module_info, and drives its kernel like any generated kernel (occupancy, Algorithm 2,
// CUDA events, the host reduction).
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/module_runner.cuh needs nvcc"
#endif

#include <cuda_runtime.h>

#include <string>

#include "../detail/accumulators.cuh"
#include "../detail/generated_arithmetic.cuh"
#include "../module_info.cuh"
#include "../result.cuh"
#include "cuda_support.cuh"
#include "ryser_launcher.cuh"

namespace sparseperm::gpu {

class loaded_library {
 public:
  explicit loaded_library(const std::string& path) {
    check(cudaLibraryLoadFromFile(&library_, path.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
          ("loading the kernel module " + path).c_str());
  }
  ~loaded_library() { cudaLibraryUnload(library_); }
  loaded_library(const loaded_library&) = delete;
  loaded_library& operator=(const loaded_library&) = delete;
  cudaLibrary_t get() const { return library_; }

 private:
  cudaLibrary_t library_{};
};

inline permanent_result run_module(const std::string& cubin, const std::string& engine, const launch_options& options) {
  select_device(options.device, engine);
  const loaded_library library(cubin);
  cudaKernel_t kernel{};
  check(cudaLibraryGetKernel(&kernel, library.get(), "sparseperm_module_kernel"), "cudaLibraryGetKernel");
  void* info_address = nullptr;
  std::size_t info_bytes = 0;
  check(cudaLibraryGetGlobal(&info_address, &info_bytes, library.get(), "sparseperm_module"), "cudaLibraryGetGlobal");
  module_info info;
  const std::string foreign = "the kernel module " + cubin + " was built by another sparseperm version";
  if (info_bytes != sizeof info) throw engine_error(engine_error::kind::failed, foreign);
  check(cudaMemcpy(&info, info_address, sizeof info, cudaMemcpyDeviceToHost), "reading the module's information");
  if (info.version != module_info{}.version) throw engine_error(engine_error::kind::failed, foreign);

  permanent_result result;
  result.engine = engine;
  result.n = info.n;
  result.nnz = info.nnz;
  if (info.singular) {
    set_exact_value(result, 0, "structurally singular (no perfect matching, found at compile time)");
    return result;
  }
  const void* function = reinterpret_cast<const void*>(kernel);
  sparseperm::detail::visit_module_arithmetic<false>(info, [&]<class Arith, class Sum>() {
    result.plan = generated_plan_text(info) + "; " + Sum::description();
    run_ryser_kernel<Sum, typename Arith::value>(result, sparseperm::detail::module_start_term<Arith>(info), function,
                                                 info.global_rows, options, sparseperm::detail::floating_facts_of(info));
  });
  return result;
}

}  // namespace sparseperm::gpu
