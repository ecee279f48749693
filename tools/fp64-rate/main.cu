// sparseperm-fp64-rate: the FP64 rate of a CUDA device, measured, for comparing the generated
// engines' achieved FP64 operations per second against what the card can do.
//
// Every thread runs 8 independent dependency chains of one FP64 instruction (fma, mul or add), enough
// to hide the pipeline's latency; the grid fills the device. Seconds from CUDA events; the best of
// five runs after a warm-up.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

enum class operation { fma, mul, add };

template <operation Op>
__global__ void chains(double* out, int iterations, double a, double b) {
  double v[8];
  for (int k = 0; k < 8; ++k) v[k] = 1.0 + 1e-3 * (threadIdx.x + k);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if constexpr (Op == operation::fma)
        v[k] = fma(v[k], a, b);
      else if constexpr (Op == operation::mul)
        v[k] = v[k] * a;
      else
        v[k] = v[k] + b;
    }
  }
  double s = 0;
  for (int k = 0; k < 8; ++k) s += v[k];
  if (s == 12345.678) out[0] = s;  // keeps the chains alive
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "error: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

template <operation Op>
double rate(const char* name, int blocks, int threads, int iterations) {
  double* out = nullptr;
  check(cudaMalloc(&out, sizeof(double)), "cudaMalloc");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  chains<Op><<<blocks, threads>>>(out, iterations / 10, 0.999999, 1e-9);
  check(cudaDeviceSynchronize(), "warm-up");
  float best = 1e30f;
  for (int run = 0; run < 5; ++run) {
    check(cudaEventRecord(start), "cudaEventRecord");
    chains<Op><<<blocks, threads>>>(out, iterations, 0.999999, 1e-9);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (ms < best) best = ms;
  }
  const double operations = 8.0 * iterations * blocks * threads;
  const double per_second = operations / (best * 1e-3);
  std::printf("| %s | %.3g | %.3f | %.3g |\n", name, operations, best * 1e-3, per_second);
  cudaFree(out);
  return per_second;
}

}  // namespace

int main() {
  int device = 0;
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  const int threads = 256;
  const int blocks = p.multiProcessorCount * (p.maxThreadsPerMultiProcessor / threads);
  std::printf("%s, %d SMs; %d blocks of %d threads, 8 independent chains each\n\n", p.name, p.multiProcessorCount,
              blocks, threads);
  std::printf("| FP64 instruction | operations | seconds | per second |\n|---|---:|---:|---:|\n");
  rate<operation::fma>("fma", blocks, threads, 1 << 16);
  rate<operation::mul>("mul", blocks, threads, 1 << 16);
  rate<operation::add>("add", blocks, threads, 1 << 16);
  return 0;
}
