// sparseperm-fp64-rate: the FP64 rate of a CUDA device, measured, for comparing the generated
// engines' achieved FP64 operations per second against what the card can do.
//
// Every thread runs 8 independent dependency chains of one FP64 instruction (fma, mul or add), enough
// to hide the pipeline's latency; the grid fills the device. Seconds from CUDA events; the best of
// five runs after a warm-up. Then the same for complex multiplications in the two textbook forms:
// four multiplications and two additions (which the compiler fuses into 2 mul + 2 fma), and three
// multiplications and five additions (Gauss): the complex engines use the faster.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

enum class operation { fma, mul, add, complex4, complex3 };

struct complex_pair {
  double re, im;
};

__device__ complex_pair times4(complex_pair x, complex_pair y) {
  return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
}

__device__ complex_pair times3(complex_pair x, complex_pair y) {
  const double k1 = y.re * (x.re + x.im), k2 = x.re * (y.im - y.re), k3 = x.im * (y.re + y.im);
  return {k1 - k3, k1 + k2};
}

// 8 pairs of chains that multiply each other (both factors vary, as in a product of x's), values
// on the unit circle so that nothing overflows: two multiplications a pair and iteration.
template <operation Op>
__global__ void complex_chains(double* out, int iterations, double a, double) {
  complex_pair v[8], w[8];
  for (int k = 0; k < 8; ++k) {
    const double angle = a * (threadIdx.x + k);
    v[k] = {cos(angle), sin(angle)};
    w[k] = {cos(2 * angle), -sin(2 * angle)};
  }
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      v[k] = Op == operation::complex4 ? times4(v[k], w[k]) : times3(v[k], w[k]);
      w[k] = Op == operation::complex4 ? times4(w[k], v[k]) : times3(w[k], v[k]);
    }
  }
  double s = 0;
  for (int k = 0; k < 8; ++k) s += v[k].re + v[k].im + w[k].re + w[k].im;
  if (s == 12345.678) out[0] = s;
}

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
  constexpr bool complex = Op == operation::complex4 || Op == operation::complex3;
  const auto launch = [&](int count) {
    if constexpr (complex) {
      complex_chains<Op><<<blocks, threads>>>(out, count, 0.999999, 1e-7);
    } else {
      chains<Op><<<blocks, threads>>>(out, count, 0.999999, 1e-9);
    }
  };
  launch(iterations / 10);
  check(cudaDeviceSynchronize(), "warm-up");
  float best = 1e30f;
  for (int run = 0; run < 5; ++run) {
    check(cudaEventRecord(start), "cudaEventRecord");
    launch(iterations);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (ms < best) best = ms;
  }
  const double operations = (complex ? 16.0 : 8.0) * iterations * blocks * threads;
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
  std::printf("\n| complex multiplication | operations | seconds | per second |\n|---|---:|---:|---:|\n");
  rate<operation::complex4>("4 mul + 2 add", blocks, threads, 1 << 14);
  rate<operation::complex3>("3 mul + 5 add", blocks, threads, 1 << 14);
  return 0;
}
