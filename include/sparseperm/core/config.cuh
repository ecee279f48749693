#pragma once
// Compiler configuration shared by every header.
//
//   SPARSEPERM_HOST_DEVICE   callable from host and device code (plain `inline` without nvcc)
//   SPARSEPERM_DEVICE        device-only code
//   SPARSEPERM_GLOBAL_CONSTANT
//                            a namespace-scope constant table readable from device code: a plain
//                            `constexpr` array is a host object to nvcc, so under __CUDA_ARCH__
//                            it must be declared `__device__ constexpr`.
//   SPARSEPERM_HOST_INLINE   always inline in host code: g++ stops inlining the unrolled Gray blocks of
//                            cpu-cached at some size, and then x and the cached products go through
//                            memory at every call (nvcc inlines device code, but see SPARSEPERM_ALWAYS_INLINE);
//                            a definition given by the build wins (the generated-loop tests: empty)
//   SPARSEPERM_ALWAYS_INLINE always inline in host and device code: the unrolled blocks of gpu-cached,
//                            which nvcc once made a call with a 624-byte stack frame (complex
//                            n = 32, p = 0.5, 2^6 steps: 6.7× slower than inlined), and every step
//                            of the generated loops (complex double-double n = 40: 92 s as calls,
//                            54 s inlined; complex double unchanged, 2.17 s)
//   SPARSEPERM_UNROLL        `#pragma unroll` in device code (loops over a residue's primes)
//   SPARSEPERM_HAS_INT128    the compiler has a 128-bit integer (exact integer engines use it)
//   SPARSEPERM_ENGINE_RUN, SPARSEPERM_DEFINES_ENGINE_RUNS
//                            the engines' run functions, the module runners and the GPU launchers
//                            that instantiate kernels compiled apart, in a
//                            program of several translation units (the tool): with
//                            SPARSEPERM_SEPARATE_ENGINE_RUNS defined everywhere, their headers only
//                            declare them, but in a unit that also defines SPARSEPERM_ENGINE_RUNS_HERE,
//                            which includes the headers whose runs it compiles (each in one unit).
//                            Without it (the default) they are `inline` in the headers.
//
// constexpr functions called from device code must carry SPARSEPERM_HOST_DEVICE: the library is
// built without --expt-relaxed-constexpr, and must not force that flag on its users.

#if defined(__CUDACC__)
#  define SPARSEPERM_HOST_DEVICE __host__ __device__
#  define SPARSEPERM_DEVICE      __device__
#else
#  define SPARSEPERM_HOST_DEVICE
#  define SPARSEPERM_DEVICE
#endif

#if defined(__CUDA_ARCH__)
#  define SPARSEPERM_GLOBAL_CONSTANT __device__ constexpr
#else
#  define SPARSEPERM_GLOBAL_CONSTANT constexpr
#endif

#if defined(SPARSEPERM_HOST_INLINE)
// defined by the build (empty: a unit that only checks values compiles in half the time)
#elif !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__))
#  define SPARSEPERM_HOST_INLINE __attribute__((always_inline))
#else
#  define SPARSEPERM_HOST_INLINE
#endif

#if defined(__CUDACC__)
#  define SPARSEPERM_ALWAYS_INLINE __forceinline__
#else
#  define SPARSEPERM_ALWAYS_INLINE SPARSEPERM_HOST_INLINE
#endif

// Loops over a residue's K primes, fully unrolled in device code: left as loops in the large
// generated kernels they indexed their arrays at run time and moved them to local memory (measured:
// an 800-byte stack frame at n = 48, p = 0.5, K = 7).
#if defined(__CUDA_ARCH__)
#  define SPARSEPERM_UNROLL _Pragma("unroll")
#else
#  define SPARSEPERM_UNROLL
#endif

#if defined(__SIZEOF_INT128__)
#  define SPARSEPERM_HAS_INT128 1
#else
#  define SPARSEPERM_HAS_INT128 0
#endif

#if !defined(SPARSEPERM_SEPARATE_ENGINE_RUNS)
#  define SPARSEPERM_ENGINE_RUN          inline
#  define SPARSEPERM_DEFINES_ENGINE_RUNS 1
#elif defined(SPARSEPERM_ENGINE_RUNS_HERE)
#  define SPARSEPERM_ENGINE_RUN
#  define SPARSEPERM_DEFINES_ENGINE_RUNS 1
#else
#  define SPARSEPERM_DEFINES_ENGINE_RUNS 0
#endif

#define SPARSEPERM_VERSION_MAJOR  0
#define SPARSEPERM_VERSION_MINOR  1
#define SPARSEPERM_VERSION_PATCH  0
#define SPARSEPERM_VERSION_STRING "0.1.0"

namespace sparseperm {

// The Ryser engines keep a column's row set in one 64-bit word and a Gray step in another.
inline constexpr int max_ryser_n = 64;

}  // namespace sparseperm
