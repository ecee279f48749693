#pragma once
// main() of the GPU test programs: skip (exit 77, ctest's SKIP_RETURN_CODE) where no CUDA device is
// usable, unless SPARSEPERM_REQUIRE_GPU=1 asks for a failure instead (the device machine sets it).
// Without a device the program still answers --list-test-cases.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sparseperm/gpu/cuda_support.cuh>

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  bool listing = false;
  for (int k = 1; k < argc; ++k)
    listing = listing || std::strncmp(argv[k], "--list", 6) == 0 || std::strncmp(argv[k], "-l", 2) == 0;
  if (!listing && sparseperm::gpu::device_count() == 0) {
    const char* require = std::getenv("SPARSEPERM_REQUIRE_GPU");
    if (require && std::strcmp(require, "1") == 0) {
      std::printf("error: SPARSEPERM_REQUIRE_GPU=1, but no CUDA device is usable\n");
      return 1;
    }
    std::printf("skipped: no CUDA device\n");
    return 77;
  }
  return context.run();
}
