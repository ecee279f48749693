#pragma once
// Runs a host module (host_module.cuh) compiled to a shared library: loads its verified bytes from
// memory (a memfd, so no path can change between the check and the load), checks that it is this
// matrix's (module/proof.cuh), and runs its chunk loop on OpenMP threads (host_run.cuh).
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "../core/config.cuh"
#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../detail/file_descriptor.cuh"
#include "../detail/sha256.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/arithmetic.cuh"
#include "../ryser/ryser_plan.cuh"
#include "host_run.cuh"
#include "module_info.cuh"
#include "proof.cuh"

namespace sparseperm {

class loaded_host_module {
 public:
  // `image`: the shared library's bytes; `name`: what errors call it.
  loaded_host_module(const std::string& image, const std::string& name) : name_(name) {
    const detail::file_descriptor memory(::memfd_create("sparseperm-module", MFD_CLOEXEC));
    if (!memory || !detail::write_all(memory.get(), image))
      fail("cannot hold the module " + name + " in memory: " + std::strerror(errno));
    const std::string path = "/proc/self/fd/" + std::to_string(memory.get());
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // the mapping keeps what it needs once memory closes
    if (handle_ == nullptr) fail("cannot load the module " + name + ": " + last_error());
  }
  ~loaded_host_module() {
    if (handle_) dlclose(handle_);
  }
  loaded_host_module(const loaded_host_module&) = delete;
  loaded_host_module& operator=(const loaded_host_module&) = delete;

  void* symbol(const char* name) const {
    dlerror();
    void* address = dlsym(handle_, name);
    if (address == nullptr)
      throw module_mismatch_error("the module " + name_ + " has no '" + name + "': " + last_error());
    return address;
  }

 private:
  static std::string last_error() {
    const char* e = dlerror();
    return e ? e : "unknown error";
  }
  [[noreturn]] static void fail(const std::string& what) { throw engine_error(engine_error::kind::failed, what); }
  std::string name_;
  void* handle_ = nullptr;
};

// Runs the host module `image` (named `name` in errors) of engine `engine` for `matrix` in `requested`;
// plan_text(info) is the engine's plan line.
permanent_result run_host_module(const std::string& image, const std::string& name, std::string_view engine,
                                 std::string (*plan_text)(const module_info&), const sparse_matrix& matrix,
                                 precision requested, const host_run_options& options);

#if SPARSEPERM_DEFINES_ENGINE_RUNS
SPARSEPERM_ENGINE_RUN permanent_result run_host_module(const std::string& image, const std::string& name,
                                                       std::string_view engine,
                                                       std::string (*plan_text)(const module_info&),
                                                       const sparse_matrix& matrix, precision requested,
                                                       const host_run_options& options) {
  const loaded_host_module module(image, name);
  const auto* info_address = static_cast<const module_info*>(module.symbol("sparseperm_host_module"));
  // The version comes first in every layout: read it before trusting the rest.
  if (info_address->version != module_info{}.version) {
    throw module_mismatch_error("the module " + name + " was built by another sparseperm version");
  }
  const module_info info = *info_address;
  const void* matrix_image = module.symbol("sparseperm_host_module_matrix");
  detail::check_module(info, matrix_image, module_matrix_bytes(info.n, info.nnz), matrix, engine, requested, name);
  using steps_function = void (*)(std::uint64_t, std::uint64_t, void*);
  const auto steps = reinterpret_cast<steps_function>(module.symbol("sparseperm_host_module_steps"));
  host_run_options run = options;
  run.identity = "module " + detail::hex_of(detail::sha256::of(image));  // its code and its matrix
  return detail::visit_module_arithmetic<true>(info, [&]<class Arith, class Sum>() {
    return detail::run_host_module_loop<Arith, Sum>(
        info, plan_text(info), [steps](std::uint64_t first, std::uint64_t end, Sum& s) { steps(first, end, &s); }, run);
  });
}
#endif

}  // namespace sparseperm
