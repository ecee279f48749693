#pragma once
// How many threads an SM keeps resident for a given register count: the estimate behind
// Algorithm 4 and the planners, without asking a GPU (the CUDA occupancy API refines it at launch).
#include "../core/config.cuh"

namespace sparseperm {

struct device_model {
  int multiprocessors = 132;  // H100 SXM
  int registers_per_sm = 65536;
  int max_threads_per_sm = 2048;
  int max_registers_per_thread = 255;
  int register_granularity = 256;  // registers are allocated per warp in units of 256
  int warp_size = 32;
};

inline constexpr device_model h100_sxm{};

// Resident threads per SM when each thread needs `registers` registers (0: does not fit).
SPARSEPERM_HOST_DEVICE constexpr int resident_threads_per_sm(const device_model& device, int registers) {
  if (registers < 1 || registers > device.max_registers_per_thread) return 0;
  const int per_warp_raw = registers * device.warp_size;
  const int per_warp =
      (per_warp_raw + device.register_granularity - 1) / device.register_granularity * device.register_granularity;
  const int warps = device.registers_per_sm / per_warp;
  const int max_warps = device.max_threads_per_sm / device.warp_size;
  return (warps < max_warps ? warps : max_warps) * device.warp_size;
}

}  // namespace sparseperm
