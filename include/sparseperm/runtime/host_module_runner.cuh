#pragma once
// Runs a host module (host_module.cuh) compiled to a shared library: loads it with dlopen, checks
// its module_info, and runs its chunk loop on OpenMP threads (engines/cpu_cached.cuh).
#include <dlfcn.h>

#include <cstdint>
#include <string>

#include "../engine_error.cuh"
#include "../engines/cpu_cached.cuh"
#include "../module_info.cuh"
#include "../result.cuh"
#include "../ryser_plan.cuh"

namespace sparseperm {

class loaded_host_module {
 public:
  explicit loaded_host_module(const std::string& path) : path_(path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) fail("cannot load the module " + path + ": " + last_error());
  }
  ~loaded_host_module() {
    if (handle_) dlclose(handle_);
  }
  loaded_host_module(const loaded_host_module&) = delete;
  loaded_host_module& operator=(const loaded_host_module&) = delete;

  void* symbol(const char* name) const {
    dlerror();
    void* address = dlsym(handle_, name);
    if (address == nullptr) fail("the module " + path_ + " has no '" + name + "': " + last_error());
    return address;
  }

 private:
  static std::string last_error() {
    const char* e = dlerror();
    return e ? e : "unknown error";
  }
  [[noreturn]] static void fail(const std::string& what) { throw engine_error(engine_error::kind::failed, what); }
  std::string path_;
  void* handle_ = nullptr;
};

inline permanent_result run_host_module(const std::string& path, const cpu_cached_options& options) {
  const loaded_host_module module(path);
  const auto* info_address = static_cast<const module_info*>(module.symbol("sparseperm_host_module"));
  // The version comes first in every layout: read it before trusting the rest.
  if (info_address->version != module_info{}.version || info_address->engine != 3) {
    throw engine_error(engine_error::kind::failed, "the module " + path + " was built by another sparseperm version");
  }
  const module_info info = *info_address;
  using steps_function = void (*)(std::uint64_t, std::uint64_t, void*);
  const auto steps = reinterpret_cast<steps_function>(module.symbol("sparseperm_host_module_steps"));
  return detail::visit_module_arithmetic<true>(info, [&]<class Arith, class Sum>() {
    return detail::run_cpu_cached_module<Arith, Sum>(
        info, [steps](std::uint64_t first, std::uint64_t end, Sum& s) { steps(first, end, &s); }, options);
  });
}

}  // namespace sparseperm
