#pragma once
// Runs a Ryser kernel over all Gray steps on one GPU or several: the steps cut into aligned chunks
// (ryser/device_chunks.cuh) that the devices take from one dynamic queue, each chunk as Algorithm 2's
// launches of the same thread count on every device, its per-thread sums zeroed before and copied
// back after (while the device runs the next chunk), then reduced on the host exactly into the
// chunk's record. The records are reduced in chunk order (ryser/chunk_share.cuh, which also journals
// them and shares them between MPI ranks), so one device and several give the same result, bit for
// bit. GPU time comes from CUDA events (the slowest device's).
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
#include "../ryser/chunk_share.cuh"
#include "../ryser/device_chunks.cuh"
#include "../ryser/launch_parameters.cuh"
#include "../ryser/ryser_result.cuh"
#include "cuda_support.cuh"

namespace sparseperm::gpu {

struct launch_options {
  std::vector<int> devices = {0};  // the CUDA devices to run on (a device listed twice runs two queues)
  progress_counter* progress = nullptr;
  sparseperm::precision precision = sparseperm::precision::automatic;  // gpu-sparse's arithmetic
  detail::chunk_sharing sharing = {};                                  // a journal, MPI ranks (ryser/chunk_share.cuh)
  std::string identity = {};  // what identifies the kernel's code and matrix, for the journal's key
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
  // launch_one(grid, work, partial, stride, stream): one launch of Algorithm 2
  std::function<void(unsigned, const launch&, Sum*, std::uint64_t, cudaStream_t)> launch_one;
  std::shared_ptr<void> resources;  // what the launches read and write, freed on the device's thread
};

// Runs the steps of an n×n Ryser sum on options.devices: make_kernel(device) prepares a device (on
// a thread of its own that has selected it). Fills the value, the thread count, the compute seconds
// and the plan's launch line of `result`.
template <class Sum, class Product, class MakeKernel>
void run_ryser_chunks(permanent_result& result, int n, const Product& start_term, const launch_options& options,
                      const sparseperm::detail::floating_run_facts& facts, const MakeKernel& make_kernel) {
  using record = sparseperm::detail::chunk_record<Sum, Product>;
  constexpr std::uint64_t min_chunk = 1024;
  const std::vector<int> devices = options.devices.empty() ? std::vector<int>{0} : options.devices;
  for (const int d : devices) select_device(d, result.engine);  // unknown devices fail here, before any thread
  const sparseperm::detail::device_chunking chunking = sparseperm::detail::plan_device_chunks(
      n, options.min_chunk_bits, std::max(options.min_chunk_bits, options.max_chunk_bits));
  const std::size_t count = devices.size();

  // the workers: set up on each device, agree on the thread count, then take chunks until none is left
  std::mutex mutex;
  std::condition_variable changed;
  std::size_t ready = 0;
  std::uint64_t threads = ~std::uint64_t{0};
  sparseperm::detail::chunk_queue* queue = nullptr;  // chunk_share.cuh's, while it runs the chunks
  bool abandoned = false;                            // the run ends before it gave the workers a queue
  std::function<void(std::uint64_t, const record&)> finish;
  std::vector<std::exception_ptr> failures(count);
  std::vector<std::string> descriptions(count);
  std::vector<double> seconds(count, 0.0);
  std::vector<int> registers(count, 0), blocks(count, 0);
  const auto work = [&](std::size_t w) {
    std::size_t chunks_done = 0;
    std::vector<std::uint64_t> held;  // chunks taken and not yet finished
    bool counted = false;
    try {
      check(cudaSetDevice(devices[w]), "cudaSetDevice");
      device_kernel<Sum> kernel = make_kernel(devices[w]);
      descriptions[w] = kernel.description;
      registers[w] = kernel.registers;
      blocks[w] = kernel.block;
      std::uint64_t stride = 0;
      {
        std::unique_lock lock(mutex);
        threads = std::min(threads, kernel.threads);
        ++ready;
        counted = true;
        changed.notify_all();
        changed.wait(lock, [&] { return ready == count; });
        stride = threads;
        changed.wait(lock, [&] { return queue != nullptr || abandoned; });
        if (!queue) return;
      }
      const stream_handle stream;
      device_buffer<Sum> partial[2] = {device_buffer<Sum>(stride), device_buffer<Sum>(stride)};
      pinned_buffer<Sum> host[2] = {pinned_buffer<Sum>(stride), pinned_buffer<Sum>(stride)};
      const event_handle copied[2];
      event_timer timer;
      bool started = false;
      std::optional<std::uint64_t> pending;  // launched into buffer `pending_buffer`, not yet reduced
      int pending_buffer = 0, next = 0;
      const auto reduce_pending = [&] {
        check(cudaEventSynchronize(copied[pending_buffer].get()), "the kernel");
        if (static_cast<int>(w) == options.failing_device && static_cast<int>(chunks_done) >= options.failing_after)
          throw engine_error(engine_error::kind::failed, "a failure injected for the test of device failures");
        const record r = record::of(host[pending_buffer].data(), stride);
        finish(*pending, r);
        held.erase(std::find(held.begin(), held.end(), *pending));
        queue->finished();
        ++chunks_done;
        pending.reset();
      };
      for (;;) {
        const std::optional<std::uint64_t> c = queue->take(!pending);
        if (!c) {
          if (!pending) break;
          // the device's work ends here unless a failing device gives chunks back: its GPU time
          timer.stop(stream.get());
          reduce_pending();  // then wait for chunks that a failing device may give back
          continue;
        }
        held.push_back(*c);
        if (!started) timer.start(stream.get());
        started = true;
        const launch_plan plan = plan_range_launches(chunking.first_of(*c), chunking.end_of(*c), stride, min_chunk);
        check(cudaMemsetAsync(partial[next].data(), 0, stride * sizeof(Sum), stream.get()), "cudaMemsetAsync");
        for (int l = 0; l < plan.count; ++l) {
          kernel.launch_one(static_cast<unsigned>((plan[l].threads + kernel.block - 1) / kernel.block), plan[l],
                            partial[next].data(), stride, stream.get());
          check(cudaGetLastError(), "the kernel launch");
        }
        check(cudaMemcpyAsync(host[next].data(), partial[next].data(), stride * sizeof(Sum), cudaMemcpyDeviceToHost,
                              stream.get()),
              "cudaMemcpyAsync from the device");
        check(cudaEventRecord(copied[next].get(), stream.get()), "cudaEventRecord");
        if (pending) reduce_pending();  // while the device runs chunk c
        pending = *c;
        pending_buffer = next;
        next ^= 1;
      }
      if (started) seconds[w] = timer.seconds();
    } catch (...) {
      failures[w] = std::current_exception();
      for (const std::uint64_t c : held) queue->give_back(c);
      if (!counted) {  // failed before the others could wait for it
        const std::lock_guard lock(mutex);
        ++ready;
        changed.notify_all();
      }
    }
  };
  std::vector<std::thread> workers;
  const auto join_all = [&] {
    {
      const std::lock_guard lock(mutex);
      abandoned = true;
      if (queue) queue->call_off();
      changed.notify_all();
    }
    for (std::thread& t : workers)
      if (t.joinable()) t.join();
  };
  struct joiner {
    const decltype(join_all)& join;
    ~joiner() { join(); }
  } join_on_exit{join_all};
  for (std::size_t w = 0; w < count; ++w) workers.emplace_back(work, w);
  {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return ready == count; });
  }
  const auto first_failure = [&]() -> std::exception_ptr {
    for (const auto& f : failures)
      if (f) return f;
    return nullptr;
  };
  if (threads == ~std::uint64_t{0}) std::rethrow_exception(first_failure());  // no device could start

  // the chunks: those no journal holds, this rank's share of them (chunk_share.cuh)
  sparseperm::detail::shared_chunks shared{
      options.sharing,
      sparseperm::detail::chunk_key(result.engine, Sum::description(), n) + "; chunks " +
          std::to_string(chunking.chunks) + " of " + std::to_string(chunking.chunk) + "; " +
          (std::is_floating_point_v<Product> || std::is_same_v<Product, complex_double>
               ? std::to_string(threads) + " threads a device, chunks of at least " + std::to_string(min_chunk) + "; "
               : "") +
          options.identity};
  const std::vector<record> records = sparseperm::detail::run_chunk_share<record>(
      chunking.chunks, shared, options.progress, [&](std::uint64_t c) { return chunking.steps_of(c); }, count,
      [&](sparseperm::detail::chunk_queue& chunks, const auto& done) {
        {
          const std::lock_guard lock(mutex);
          finish = done;
          queue = &chunks;
          changed.notify_all();
        }
        for (std::thread& t : workers) t.join();
        {
          const std::lock_guard lock(mutex);
          queue = nullptr;
        }
        if (std::all_of(failures.begin(), failures.end(), [](const auto& f) { return f != nullptr; }))
          std::rethrow_exception(first_failure());  // every device failed
      });
  result.seconds.compute = *std::max_element(seconds.begin(), seconds.end());
  result.threads = static_cast<int>(threads * count);
  result.registers_per_thread = *std::max_element(registers.begin(), registers.end());
  sparseperm::detail::set_ryser_records<Sum>(
      result, n, start_term, records, sparseperm::detail::longest_chunk_chain(chunking, threads, min_chunk), facts);

  std::string where;
  for (std::size_t w = 0; w < count; ++w) {
    where +=
        (w == 0 ? "" : " + ") + (descriptions[w].empty() ? "device " + std::to_string(devices[w]) : descriptions[w]);
  }
  result.plan += "; " + where + ", " + std::to_string(result.registers_per_thread) + " registers; " +
                 std::to_string(chunking.chunks) + " chunk" + (chunking.chunks == 1 ? "" : "s") + " of 2^" +
                 std::to_string(sparseperm::detail::highest_bit(chunking.chunk)) +
                 " steps from one queue, each Algorithm 2's launches of " + std::to_string(threads) +
                 " threads a device, " + std::to_string(blocks[0]) + " per block";
  for (std::size_t w = 0; w < count; ++w) {
    if (!failures[w]) continue;
    std::string why = "an unknown error";
    try {
      std::rethrow_exception(failures[w]);
    } catch (const std::exception& e) {
      why = e.what();
    } catch (...) {
    }
    result.plan += "; device " + std::to_string(devices[w]) + " failed (" + why + ") and its chunks went to the others";
  }
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
