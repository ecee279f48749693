#pragma once
// Host-side CUDA plumbing of the GPU engines: error checks that become engine_error, device
// queries that never throw, owning device buffers, and event timing.
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/cuda_support.cuh needs nvcc"
#endif

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "../core/engine_error.cuh"

namespace sparseperm::gpu {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw engine_error(engine_error::kind::failed,
                       std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
  }
}

// Number of usable CUDA devices; 0 when there is no driver, no device or any other error.
inline int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error of a machine without a driver
    return 0;
  }
  return count;
}

// Selects `device`, or throws `unavailable` naming the engine and why.
inline cudaDeviceProp select_device(int device, const std::string& engine) {
  const int count = device_count();
  if (count == 0)
    throw engine_error(engine_error::kind::unavailable,
                       "engine '" + engine + "' needs a CUDA device, and there is none");
  if (device < 0 || device >= count) {
    throw engine_error(engine_error::kind::unavailable, "engine '" + engine + "': CUDA device " +
                                                            std::to_string(device) + " does not exist (" +
                                                            std::to_string(count) + " present)");
  }
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  return properties;
}

template <class T>
class device_buffer {
 public:
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count_ > 0) check(cudaMalloc(&data_, count_ * sizeof(T)), "cudaMalloc");
  }
  ~device_buffer() {
    if (data_) cudaFree(data_);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  void zero() {
    if (count_ > 0) check(cudaMemset(data_, 0, count_ * sizeof(T)), "cudaMemset");
  }
  void upload(const T* host, std::size_t count) {
    if (count > 0)
      check(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  }
  void download(T* host, std::size_t count) const {
    if (count > 0)
      check(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// Elapsed GPU time between two points of the default stream.
class event_timer {
 public:
  event_timer() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~event_timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  void start() { check(cudaEventRecord(start_), "cudaEventRecord"); }
  double stop_seconds() {
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms / 1000.0;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

inline std::string device_description(const cudaDeviceProp& p) {
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs)";
}

}  // namespace sparseperm::gpu
