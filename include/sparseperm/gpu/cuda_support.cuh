#pragma once
// Host-side CUDA plumbing of the GPU engines: error checks that become engine_error, device
// queries that never throw, owning device buffers, streams, events, pinned host memory, and event
// timing.
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/cuda_support.cuh needs nvcc"
#endif

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

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

// A stream of its own (non-blocking: it does not wait for the legacy default stream).
class stream_handle {
 public:
  stream_handle() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~stream_handle() { cudaStreamDestroy(stream_); }
  stream_handle(const stream_handle&) = delete;
  stream_handle& operator=(const stream_handle&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_{};
};

// An event, and page-locked host memory (what cudaMemcpyAsync needs to overlap the kernels).
class event_handle {
 public:
  event_handle() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~event_handle() { cudaEventDestroy(event_); }
  event_handle(const event_handle&) = delete;
  event_handle& operator=(const event_handle&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

// Page-locked host memory that runs borrow and give back. cudaMallocHost and cudaFreeHost cost about
// 0.66 ms together whatever the size (H200 host, 16 KB to 1 MB), paid twice a run: most of a small
// run's time, and a batch's whole-GPU route paid it for every matrix. Blocks given back are kept, up
// to `kept_limit` bytes in all, and lent again for a request of at least half their size. (With
// unified addressing, memory from cudaMallocHost is mapped and portable: any device may use a block.)
class pinned_pool {
 public:
  static constexpr std::size_t kept_limit = std::size_t{256} << 20;

  static pinned_pool& instance() {
    static pinned_pool& pool = *new pinned_pool;  // never destroyed: the runtime may be gone at exit
    return pool;
  }

  void* take(std::size_t bytes) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      auto best = free_.end();
      for (auto b = free_.begin(); b != free_.end(); ++b) {
        if (b->bytes >= bytes && b->bytes / 2 <= bytes && (best == free_.end() || b->bytes < best->bytes)) best = b;
      }
      if (best != free_.end()) {
        const block lent = *best;
        kept_ -= lent.bytes;
        free_.erase(best);
        lent_.push_back(lent);
        return lent.data;
      }
    }
    void* data = nullptr;
    check(cudaMallocHost(&data, bytes), "cudaMallocHost");
    const std::lock_guard<std::mutex> lock(mutex_);
    lent_.push_back({data, bytes});
    return data;
  }

  void give_back(void* data) {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto b = std::find_if(lent_.begin(), lent_.end(), [&](const block& l) { return l.data == data; });
    if (b == lent_.end()) return;
    const block given = *b;
    lent_.erase(b);
    if (kept_ + given.bytes <= kept_limit) {
      free_.push_back(given);
      kept_ += given.bytes;
      return;
    }
    lock.unlock();
    cudaFreeHost(given.data);
  }

 private:
  struct block {
    void* data;
    std::size_t bytes;
  };
  std::mutex mutex_;
  std::vector<block> free_, lent_;
  std::size_t kept_ = 0;
};

template <class T>
class pinned_buffer {
 public:
  explicit pinned_buffer(std::size_t count)
      : data_(static_cast<T*>(pinned_pool::instance().take(std::max<std::size_t>(count, 1) * sizeof(T)))) {}
  ~pinned_buffer() { pinned_pool::instance().give_back(data_); }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  T* data() const { return data_; }

 private:
  T* data_ = nullptr;
};

// Elapsed GPU time between two points of a stream (the default stream unless named).
class event_timer {
 public:
  void start(cudaStream_t stream = nullptr) { check(cudaEventRecord(start_.get(), stream), "cudaEventRecord"); }
  void stop(cudaStream_t stream = nullptr) { check(cudaEventRecord(stop_.get(), stream), "cudaEventRecord"); }
  // the time from start() to the last stop(), once the stream has reached it
  double seconds() const {
    check(cudaEventSynchronize(stop_.get()), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_.get(), stop_.get()), "cudaEventElapsedTime");
    return ms / 1000.0;
  }
  double stop_seconds() {
    stop();
    return seconds();
  }

 private:
  event_handle start_, stop_;
};

inline std::string device_description(const cudaDeviceProp& p) {
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs)";
}

}  // namespace sparseperm::gpu
