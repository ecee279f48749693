#pragma once
// Runs a Ryser kernel over all Gray steps on one GPU or several: the steps cut into aligned chunks
// (ryser/device_chunks.cuh) that the devices take from one dynamic queue, each chunk as Algorithm 2's
// launches of the same thread count on every device, its per-thread sums zeroed before and copied
// back after (while the device runs the next chunk), then reduced on the host exactly into the
// chunk's record. The records are reduced in chunk order (run/chunk_dispatch.cuh, which also
// journals them and shares them between MPI ranks), so one device and several give the same result,
// bit for bit. GPU time comes from CUDA events (the slowest device's).
//
//   device_agent    one device's worker (its stream, its two buffers of sums, the chunk in flight)
//   device_pool     the devices of a run: prepared, the thread count agreed, an agent each
//   run_ryser_chunks / run_ryser_kernel   a whole run
//
// A device that fails (an error from the CUDA runtime) gives its unfinished chunks back to the
// queue and the others finish them; when none is left the run stops with that error, and a journal
// keeps what was finished.
//
// The kernel's signature is (launch, Sum* partial, Value* global_x, uint64_t stride); global_x has
// `global_rows` values per thread, laid out [row·stride + thread] with stride = the thread count.
#if !defined(__CUDACC__)
#  error "sparseperm/gpu/ryser_launcher.cuh needs nvcc"
#endif

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "../core/process_group.cuh"
#include "../core/progress.cuh"
#include "../core/result.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/arithmetic.cuh"
#include "../run/chunk_dispatch.cuh"
#include "../run/chunk_queue.cuh"
#include "../run/sharing.cuh"
#include "../ryser/device_chunks.cuh"
#include "../ryser/launch_parameters.cuh"
#include "../ryser/ryser_result.cuh"
#include "cuda_support.cuh"

namespace sparseperm::gpu {

struct launch_options {
  std::vector<int> devices = {0};  // the CUDA devices to run on (a device listed twice runs two queues)
  progress_counter* progress = nullptr;
  sparseperm::precision precision = sparseperm::precision::automatic;  // gpu-sparse's arithmetic
  // gpu-sparse under auto on signed values its row grids round: a first run on the grids' values,
  // again with the fine parts' bound where its rounding certifies more than `digits`; tests: that
  // run alone (fine_parts_at_once)
  int digits = 10;
  bool fine_parts_at_once = false;
  detail::chunk_sharing sharing = {};  // a journal, MPI ranks (run/sharing.cuh)
  std::string identity = {};           // what identifies the kernel's code and matrix, for the journal's key
  // For tests: chunks of at least 2^min_chunk_bits steps (small matrices in several chunks), and the
  // device at index failing_device of `devices` failing after failing_after chunks.
  int min_chunk_bits = sparseperm::detail::device_chunk_bits_min;
  // chunks of at most 2^max_chunk_bits steps: an engine slow per step (gpu-sparse) takes smaller ones,
  // which a stop request waits for
  int max_chunk_bits = sparseperm::detail::device_chunk_bits_max;
  int failing_device = -1;
  int failing_after = 0;
};

// What the occupancy API says of a kernel without dynamic shared memory: the block size that
// maximises occupancy, how many such blocks an SM keeps, the threads the whole GPU keeps, registers.
struct kernel_occupancy {
  int block = 0;
  int blocks_per_sm = 0;
  std::uint64_t threads = 0;
  int registers = 0;
};

inline kernel_occupancy occupancy_of(const void* kernel, const cudaDeviceProp& device) {
  kernel_occupancy o;
  int min_grid = 0;
  check(cudaOccupancyMaxPotentialBlockSize(&min_grid, &o.block, kernel, 0, 0), "cudaOccupancyMaxPotentialBlockSize");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o.blocks_per_sm, kernel, o.block, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
  o.registers = attributes.numRegs;
  o.threads = static_cast<std::uint64_t>(device.multiProcessorCount) * o.blocks_per_sm * o.block;
  return o;
}

// One device's part of a run, made on that device by the engine: its kernel's launch and what the
// launches use (device buffers for `threads` threads).
template <class Sum>
struct device_kernel {
  int block = 0;
  std::uint64_t threads = 0;  // what the device keeps resident; the run uses the least over its devices
  int registers = 0;
  std::string description;  // the device, the kernel's shared memory
  // 0: a chunk runs as Algorithm 2's launches into device memory, cleared before and copied back
  // after; else as one launch whose threads take the same multiple of even_granule steps
  // (plan_even_launch: kernels that walk any aligned range) and write their sums, once, straight
  // into pinned host memory (mapped: unified addressing)
  std::uint64_t even_granule = 0;
  // launch_one(grid, work, partial, stride, stream): one launch of the plan
  std::function<void(unsigned, const launch&, Sum*, std::uint64_t, cudaStream_t)> launch_one;
  std::shared_ptr<void> resources;  // what the launches read and write, freed on the device's thread
};

// Lets `kernel` take a block's whole opt-in shared memory on `device` (beyond the default 48 KiB).
inline void allow_optin_shared_memory(const void* kernel, const cudaDeviceProp& device) {
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(device.sharedMemPerBlockOptin)),
        "cudaFuncSetAttribute");
}

// A device's part with `blocks_per_sm` blocks of `block` threads on every SM; the caller adds the
// launch and its resources.
template <class Sum>
device_kernel<Sum> resident_kernel(const void* kernel, const cudaDeviceProp& device, int block, int blocks_per_sm) {
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
  device_kernel<Sum> k;
  k.block = block;
  k.threads = static_cast<std::uint64_t>(device.multiProcessorCount) * blocks_per_sm * block;
  k.registers = attributes.numRegs;
  k.description = device_description(device);
  return k;
}

// One device's worker in a run (CUB's agent): takes chunks from the queue, runs each as Algorithm 2's
// launches into one of two buffers of per-thread sums, and reduces the previous chunk's sums on the
// host into its record while the device runs the next. A failure gives the chunks it holds back.
template <class Sum, class Record>
class device_agent {
 public:
  using finish_function = typename sparseperm::detail::chunk_dispatch<Record>::finish_function;

  device_agent(const device_kernel<Sum>& kernel, std::uint64_t stride,
               const sparseperm::detail::device_chunking& chunking, std::uint64_t min_chunk,
               sparseperm::detail::chunk_queue& queue, const finish_function& finish)
      : kernel_(kernel), stride_(stride), chunking_(chunking), min_chunk_(min_chunk), queue_(queue), finish_(finish) {
    if (kernel_.even_granule != 0) {  // the threads write the pinned buffers themselves
      for (int b = 0; b < 2; ++b)
        check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_[b]), host_[b].data(), 0),
              "cudaHostGetDevicePointer");
    }
  }

  // A run that failed may leave launches in flight: they finish before the pinned buffers they write
  // go back to the pool (cudaFreeHost used to wait for the device).
  ~device_agent() { cudaStreamSynchronize(stream_.get()); }
  device_agent(const device_agent&) = delete;
  device_agent& operator=(const device_agent&) = delete;

  // Runs chunks until none is left (or a device that failed may give back none); the GPU time.
  // `fail_after`: a test's failure injected after that many chunks (negative: none).
  double run(long fail_after) {
    fail_after_ = fail_after;
    try {
      for (;;) {
        const std::optional<std::uint64_t> c = queue_.take(!pending_);
        if (!c) {
          if (!pending_) break;
          // the device's work ends here unless a failing device gives chunks back: its GPU time
          timer_.stop(stream_.get());
          reduce_pending();  // then wait for chunks that a failing device may give back
          continue;
        }
        held_.push_back(*c);
        launch(*c);
      }
    } catch (...) {
      for (const std::uint64_t c : held_) queue_.give_back(c);
      throw;
    }
    return started_ ? timer_.seconds() : 0;
  }

 private:
  void launch(std::uint64_t c) {
    if (!started_) timer_.start(stream_.get());
    started_ = true;
    const launch_plan plan =
        plan_chunk_launches(chunking_.first_of(c), chunking_.end_of(c), stride_, min_chunk_, kernel_.even_granule);
    // Only the threads the launches use hold sums, and only they are cleared, copied and reduced: a
    // small run's few threads, not the whole GPU's (the reduction on the host took about a
    // millisecond a run of a small matrix, which a batch's whole-GPU route paid for every matrix)
    std::uint64_t used = 0;
    for (int l = 0; l < plan.count; ++l) used = std::max(used, plan[l].threads);
    used_[next_] = used;
    const auto launch_into = [&](Sum* sums) {
      for (int l = 0; l < plan.count; ++l) {
        kernel_.launch_one(static_cast<unsigned>((plan[l].threads + kernel_.block - 1) / kernel_.block), plan[l], sums,
                           stride_, stream_.get());
        check(cudaGetLastError(), "the kernel launch");
      }
    };
    if (kernel_.even_granule != 0) {  // each used thread writes its sum to host_[next_] (reduced two chunks ago)
      launch_into(mapped_[next_]);
    } else {
      check(cudaMemsetAsync(partial_[next_].data(), 0, used * sizeof(Sum), stream_.get()), "cudaMemsetAsync");
      launch_into(partial_[next_].data());
      check(cudaMemcpyAsync(host_[next_].data(), partial_[next_].data(), used * sizeof(Sum), cudaMemcpyDeviceToHost,
                            stream_.get()),
            "cudaMemcpyAsync from the device");
    }
    check(cudaEventRecord(copied_[next_].get(), stream_.get()), "cudaEventRecord");
    if (pending_) reduce_pending();  // while the device runs chunk c
    pending_ = c;
    pending_buffer_ = next_;
    next_ ^= 1;
  }

  void reduce_pending() {
    check(cudaEventSynchronize(copied_[pending_buffer_].get()), "the kernel");
    if (fail_after_ >= 0 && chunks_done_ >= fail_after_)
      throw engine_error(engine_error::kind::failed, "a failure injected for the test of device failures");
    finish_(*pending_, Record::of(host_[pending_buffer_].data(), used_[pending_buffer_]));
    held_.erase(std::find(held_.begin(), held_.end(), *pending_));
    queue_.finished();
    ++chunks_done_;
    pending_.reset();
  }

  const device_kernel<Sum>& kernel_;
  const std::uint64_t stride_;
  const sparseperm::detail::device_chunking& chunking_;
  const std::uint64_t min_chunk_;
  sparseperm::detail::chunk_queue& queue_;
  const finish_function& finish_;
  const stream_handle stream_;
  // the sums in device memory (Algorithm 2's launches; none for even launches) and on the host
  device_buffer<Sum> partial_[2] = {device_buffer<Sum>(kernel_.even_granule != 0 ? 0 : stride_),
                                    device_buffer<Sum>(kernel_.even_granule != 0 ? 0 : stride_)};
  pinned_buffer<Sum> host_[2] = {pinned_buffer<Sum>(stride_), pinned_buffer<Sum>(stride_)};
  Sum* mapped_[2] = {nullptr, nullptr};  // host_ as the device sees it (even launches)
  std::uint64_t used_[2] = {0, 0};       // the threads whose sums a buffer holds
  const event_handle copied_[2];
  event_timer timer_;
  bool started_ = false;
  std::optional<std::uint64_t> pending_;  // launched into buffer `pending_buffer_`, not yet reduced
  int pending_buffer_ = 0, next_ = 0;
  long chunks_done_ = 0, fail_after_ = -1;
  std::vector<std::uint64_t> held_;  // chunks taken and not yet finished
};

// The devices of a run: each prepared on a thread of its own (make_kernel(device), with the device
// selected), the thread count agreed (the least any device keeps resident), then, for the dispatch,
// an agent a device taking chunks from one queue. A device that fails is left out, its chunks going
// to the others; the run fails when every device has.
template <class Sum>
class device_pool {
 public:
  template <class MakeKernel>
  device_pool(const std::vector<int>& devices, const MakeKernel& make_kernel)
      : devices_(devices), kernels_(devices.size()), failures_(devices.size()), seconds_(devices.size(), 0.0) {
    on_each_device([&](std::size_t w) {
      try {
        check(cudaSetDevice(devices_[w]), "cudaSetDevice");
        kernels_[w] = make_kernel(devices_[w]);
      } catch (...) {
        failures_[w] = std::current_exception();
      }
    });
    for (std::size_t w = 0; w < devices_.size(); ++w)
      if (!failures_[w]) threads_ = std::min(threads_, kernels_[w].threads);
    if (threads_ == ~std::uint64_t{0}) std::rethrow_exception(first_failure());  // no device could start
  }
  ~device_pool() {
    for (std::size_t w = 0; w < devices_.size(); ++w) release(w);
  }
  device_pool(const device_pool&) = delete;
  device_pool& operator=(const device_pool&) = delete;

  std::uint64_t threads() const { return threads_; }
  std::uint64_t even_granule() const { return kernels_[first_started()].even_granule; }  // the same kernel on each
  std::size_t size() const { return devices_.size(); }

  // The dispatch's run: an agent a device that started, until the queue is empty.
  template <class Record>
  void run(sparseperm::detail::chunk_queue& queue, const typename device_agent<Sum, Record>::finish_function& finish,
           const sparseperm::detail::device_chunking& chunking, std::uint64_t min_chunk,
           const launch_options& options) {
    on_each_device([&](std::size_t w) {
      if (failures_[w]) return;
      try {
        check(cudaSetDevice(devices_[w]), "cudaSetDevice");
        device_agent<Sum, Record> agent(kernels_[w], threads_, chunking, min_chunk, queue, finish);
        seconds_[w] = agent.run(static_cast<int>(w) == options.failing_device ? options.failing_after : -1);
      } catch (...) {
        failures_[w] = std::current_exception();
      }
      release(w);
    });
    if (std::all_of(failures_.begin(), failures_.end(), [](const auto& f) { return f != nullptr; }))
      std::rethrow_exception(first_failure());  // every device failed
  }

  // What the result says of the run: its GPU time (the slowest device's), threads, registers, and
  // the plan's words on the devices and their launches.
  void describe(permanent_result& result, const sparseperm::detail::device_chunking& chunking) const {
    result.seconds.compute = *std::max_element(seconds_.begin(), seconds_.end());
    result.threads = static_cast<int>(threads_ * devices_.size());
    int block = 0;
    std::string where;
    for (std::size_t w = 0; w < devices_.size(); ++w) {
      result.registers_per_thread = std::max(result.registers_per_thread, kernels_[w].registers);
      if (block == 0) block = kernels_[w].block;
      where += (w == 0 ? "" : " + ") +
               (kernels_[w].description.empty() ? "device " + std::to_string(devices_[w]) : kernels_[w].description);
    }
    result.plan += "; " + where + ", " + std::to_string(result.registers_per_thread) + " registers; " +
                   std::to_string(chunking.chunks) + " chunk" + (chunking.chunks == 1 ? "" : "s") + " of 2^" +
                   std::to_string(sparseperm::detail::highest_bit(chunking.chunk)) + " steps from one queue, each " +
                   (even_granule() == 0
                        ? std::string("Algorithm 2's launches")
                        : "one launch (the same multiple of " + std::to_string(even_granule()) + " steps a thread)") +
                   " of " + std::to_string(threads_) + " threads a device, " + std::to_string(block) + " per block";
    for (std::size_t w = 0; w < devices_.size(); ++w) {
      if (!failures_[w]) continue;
      std::string why = "an unknown error";
      try {
        std::rethrow_exception(failures_[w]);
      } catch (const std::exception& e) {
        why = e.what();
      } catch (...) {
      }
      result.plan +=
          "; device " + std::to_string(devices_[w]) + " failed (" + why + ") and its chunks went to the others";
    }
  }

 private:
  std::size_t first_started() const {
    std::size_t w = 0;
    while (w + 1 < failures_.size() && failures_[w]) ++w;
    return w;
  }
  std::exception_ptr first_failure() const {
    for (const auto& f : failures_)
      if (f) return f;
    return nullptr;
  }
  // f(w) for every device, at once: a thread each where there are several; on the caller's thread for
  // one (a thread and its CUDA start cost about 0.1 ms, which a batch's whole-GPU route paid twice a
  // matrix), the caller's device selected again after.
  template <class F>
  void on_each_device(const F& f) {
    if (devices_.size() == 1) {
      int caller = -1;
      const bool known = cudaGetDevice(&caller) == cudaSuccess;
      f(0);
      if (known) cudaSetDevice(caller);
      return;
    }
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < devices_.size(); ++w) threads.emplace_back([&f, w] { f(w); });
    for (std::thread& t : threads) t.join();
  }

  // A device's buffers are freed with that device selected.
  void release(std::size_t w) {
    if (!kernels_[w].resources) return;
    cudaSetDevice(devices_[w]);
    kernels_[w].resources.reset();
    kernels_[w].launch_one = nullptr;
  }

  std::vector<int> devices_;
  std::vector<device_kernel<Sum>> kernels_;
  std::vector<std::exception_ptr> failures_;
  std::vector<double> seconds_;
  std::uint64_t threads_ = ~std::uint64_t{0};
};

// Runs the steps of an n×n Ryser sum on options.devices: make_kernel(device) prepares a device (on
// a thread that has selected it). Fills the value, the thread count, the compute seconds and the
// plan's launch line of `result`.
template <class Sum, class Product, class MakeKernel>
void run_ryser_chunks(permanent_result& result, int n, const Product& start_term, const launch_options& options,
                      const sparseperm::detail::floating_run_facts& facts, const MakeKernel& make_kernel) {
  using record = sparseperm::detail::chunk_record<Sum, Product>;
  constexpr std::uint64_t min_chunk = 1024;
  const std::vector<int> devices = options.devices.empty() ? std::vector<int>{0} : options.devices;
  for (const int d : devices) select_device(d, result.engine);  // unknown devices fail here, before any thread
  const sparseperm::detail::device_chunking chunking = sparseperm::detail::plan_device_chunks(
      n, options.min_chunk_bits, std::max(options.min_chunk_bits, options.max_chunk_bits));
  device_pool<Sum> pool(devices, make_kernel);

  // the chunks: those no journal holds, this rank's share of them (run/chunk_dispatch.cuh)
  sparseperm::detail::shared_chunks shared{
      options.sharing, sparseperm::detail::chunk_key(result.engine, Sum::description(), n) + "; chunks " +
                           std::to_string(chunking.chunks) + " of " + std::to_string(chunking.chunk) + "; " +
                           (std::is_floating_point_v<Product> || std::is_same_v<Product, complex_double>
                                ? std::to_string(pool.threads()) + " threads a device, " +
                                      (pool.even_granule() == 0
                                           ? "chunks of at least " + std::to_string(min_chunk)
                                           : "one even launch in multiples of " + std::to_string(pool.even_granule())) +
                                      "; "
                                : "") +
                           options.identity};
  const std::vector<record> records =
      sparseperm::detail::chunk_dispatch<record>(chunking.chunks, shared, options.progress, [&](std::uint64_t c) {
        return chunking.steps_of(c);
      }).run(pool.size(), [&](sparseperm::detail::chunk_queue& queue, const auto& finish) {
        pool.template run<record>(queue, finish, chunking, min_chunk, options);
      });
  pool.describe(result, chunking);
  sparseperm::detail::set_ryser_records<Sum>(
      result, n, start_term, records,
      sparseperm::detail::longest_chunk_chain(chunking, pool.threads(), min_chunk, pool.even_granule()), facts);
  result.plan += sparseperm::detail::sharing_text(shared, chunking.chunks);
}

// A generated kernel (static shared memory only), compiled in or loaded from a module: occupancy
// from the CUDA API on each device, then the chunks. Appends the devices and the launches to
// result.plan.
template <class Sum, class Value, class Product>
void run_ryser_kernel(permanent_result& result, Product start_term, const void* kernel, int global_rows,
                      const launch_options& options, const sparseperm::detail::floating_run_facts& facts) {
  run_ryser_chunks<Sum>(result, result.n, start_term, options, facts, [&](int d) {
    cudaDeviceProp device{};
    check(cudaGetDeviceProperties(&device, d), "cudaGetDeviceProperties");
    const kernel_occupancy occupancy = occupancy_of(kernel, device);
    auto global =
        std::make_shared<device_buffer<Value>>(static_cast<std::size_t>(std::max(global_rows, 1)) * occupancy.threads);
    device_kernel<Sum> k;
    k.block = occupancy.block;
    k.threads = occupancy.threads;
    k.registers = occupancy.registers;
    k.description = device_description(device);
    Value* global_data = global->data();
    k.launch_one = [kernel, global_data, block = occupancy.block](unsigned grid, const launch& work, Sum* partial,
                                                                  std::uint64_t stride, cudaStream_t stream) {
      launch w = work;
      Sum* p = partial;
      Value* g = global_data;
      std::uint64_t s = stride;
      void* arguments[] = {&w, &p, &g, &s};
      check(cudaLaunchKernel(kernel, dim3(grid), dim3(block), arguments, 0, stream), "cudaLaunchKernel");
    };
    k.resources = global;
    return k;
  });
}

}  // namespace sparseperm::gpu
