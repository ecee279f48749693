// The device's 32-bit Gray step loop (ryser/gray_steps.cuh) against the 64-bit facts, on ranges that
// cross the 2^31 and 2^32 boundaries where it switches to its 64-bit path.
#include "gpu_test_main.hpp"

#include <sparseperm/gpu/cuda_support.cuh>
#include <sparseperm/ryser/gray_code.cuh>
#include <sparseperm/ryser/gray_steps.cuh>

#include <cstdint>
#include <vector>

namespace sp = sparseperm;

__global__ void record_steps(const std::uint64_t* firsts, int per_range, int* columns, int* inclusions, int* odds) {
  const int r = blockIdx.x;
  int k = r * per_range;
  sp::detail::for_each_gray_step(firsts[r], firsts[r] + per_range, [&](int column, bool inclusion, bool odd) {
    columns[k] = column;
    inclusions[k] = inclusion;
    odds[k] = odd;
    ++k;
  });
}

TEST_CASE("the device step loop reports what the 64-bit facts say") {
  const std::vector<std::uint64_t> firsts = {1, (std::uint64_t{1} << 31) - 50, (std::uint64_t{1} << 32) - 50,
                                             (std::uint64_t{5} << 40) - 50, (std::uint64_t{1} << 62) - 50};
  constexpr int per_range = 100;
  const std::size_t total = firsts.size() * per_range;
  sp::gpu::device_buffer<std::uint64_t> d_firsts(firsts.size());
  d_firsts.upload(firsts.data(), firsts.size());
  sp::gpu::device_buffer<int> columns(total), inclusions(total), odds(total);
  record_steps<<<static_cast<unsigned>(firsts.size()), 1>>>(d_firsts.data(), per_range, columns.data(),
                                                            inclusions.data(), odds.data());
  sp::gpu::check(cudaDeviceSynchronize(), "record_steps");
  std::vector<int> c(total), i(total), o(total);
  columns.download(c.data(), total);
  inclusions.download(i.data(), total);
  odds.download(o.data(), total);
  for (std::size_t r = 0; r < firsts.size(); ++r) {
    for (int k = 0; k < per_range; ++k) {
      const std::uint64_t g = firsts[r] + k;
      const std::size_t at = r * per_range + k;
      CAPTURE(g);
      REQUIRE(c[at] == sp::changed_column(g));
      REQUIRE(i[at] == static_cast<int>(sp::is_inclusion(g)));
      REQUIRE(o[at] == static_cast<int>(g & 1u));
    }
  }
}
