// The GPU Ryser engines over several devices (a device listed twice runs two queues on it, so one
// GPU tests the queue too; two GPUs are used where the host has them): the same value as one device,
// bit for bit; a device that fails gives its chunks to the others; when all fail, the journal keeps
// what was finished and the run resumes; ranks (threads here, MPI in the CLI) with a GPU each.
#include "gpu_test_main.hpp"

#include <sparseperm/perm.cuh>

#include <filesystem>
#include <string>
#include <vector>

#include "../host/ranks_in_threads.hpp"
#include "random_matrix.hpp"

namespace sp = sparseperm;

namespace {

// n = 33: 2^32 steps, in 4 chunks of 2^30 where the tests ask for chunks that small
sp::sparse_matrix random_matrix(std::uint64_t seed, bool integers) {
  sp::random_stream s(seed);
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < 33; ++i) {
    for (int j = 0; j < 33; ++j) {
      if (s.uniform() < 0.25 || i == j) entries.push_back({i, j, integers ? 1.0 : 0.5 + s.uniform(), 0});
    }
  }
  return sp::sparse_matrix::from_entries(33, std::move(entries));
}

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "sparseperm-gpu-devices";
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / name);
  return (dir / name).string();
}

}  // namespace

TEST_CASE("gpu-sparse on two queues: the same value and bound as on one, bit for bit") {
  for (const bool integers : {true, false}) {
    CAPTURE(integers);
    const sp::sparse_matrix m = random_matrix(integers ? 11 : 12, integers);
    const sp::permanent_result one = sp::permanent_gpu_sparse(m, {.devices = {0}, .min_chunk_bits = 30});
    const sp::permanent_result two = sp::permanent_gpu_sparse(m, {.devices = {0, 0}, .min_chunk_bits = 30});
    CHECK(one.exact == integers);
    CHECK(two.permanent == one.permanent);
    CHECK(two.error_bound == one.error_bound);
    CHECK(one.plan.find("4 chunks of 2^30 steps from one queue") != std::string::npos);
    CHECK(two.plan.find(" + ") != std::string::npos);
    if (integers) CHECK(one.permanent == sp::permanent_dp(m, 0).permanent);
    if (!integers) {
      const sp::permanent_result cpu = sp::permanent_cpu_sparse(m);
      CHECK(std::abs(one.value - cpu.value) <= *one.error_bound + *cpu.error_bound);
    }
    MESSAGE(one.permanent << " | " << two.plan);
  }
}

TEST_CASE("a device that fails gives its chunks back; when all fail, the journal resumes the run") {
  const sp::sparse_matrix m = random_matrix(13, false);
  const sp::permanent_result one = sp::permanent_gpu_sparse(m, {.devices = {0}, .min_chunk_bits = 30});
  // the second queue fails after its first chunk, holding a second one
  const sp::permanent_result survived =
      sp::permanent_gpu_sparse(m, {.devices = {0, 0}, .min_chunk_bits = 30, .failing_device = 1, .failing_after = 1});
  CHECK(survived.permanent == one.permanent);
  CHECK(survived.plan.find("device 0 failed (a failure injected for the test of device failures) and its chunks "
                           "went to the others") != std::string::npos);
  // the only device fails after two chunks: an error, and a journal of two chunks
  const std::string journal = scratch("fails.journal");
  CHECK_THROWS_AS(sp::permanent_gpu_sparse(m, {.devices = {0},
                                               .sharing = {journal, nullptr},
                                               .min_chunk_bits = 30,
                                               .failing_device = 0,
                                               .failing_after = 2}),
                  sp::engine_error);
  const sp::permanent_result resumed =
      sp::permanent_gpu_sparse(m, {.devices = {0}, .sharing = {journal, nullptr}, .min_chunk_bits = 30});
  CHECK(resumed.permanent == one.permanent);
  CHECK(resumed.plan.find("2 of 4 chunks resumed from it") != std::string::npos);
  MESSAGE(resumed.plan);
}

TEST_CASE("compute_permanent: --devices and --checkpoint on gpu-sparse") {
  const sp::sparse_matrix m = random_matrix(14, true);
  sp::compute_options options;
  options.engine = sp::engine_choice(sp::find_engine("gpu-sparse"));
  options.devices = {0, 0};
  options.checkpoint = scratch("compute.journal");
  const sp::permanent_result first = sp::compute_permanent(m, options);
  const sp::permanent_result again = sp::compute_permanent(m, options);
  CHECK(first.permanent == again.permanent);
  CHECK(again.plan.find("1 of 1 chunks resumed from it") != std::string::npos);  // chunks of 2^36
  CHECK(first.permanent == sp::permanent_dp(m, 0).permanent);
}

TEST_CASE("two GPUs, and two ranks with a GPU each: the same value and bound as on one, bit for bit") {
  const int present = sp::gpu::device_count();
  const int second = present >= 2 ? 1 : 0;  // one GPU: two queues on it stand in for the second
  if (present < 2) MESSAGE("one CUDA device: its two queues stand in for two GPUs");
  for (const bool integers : {true, false}) {
    CAPTURE(integers);
    const sp::sparse_matrix m = random_matrix(integers ? 21 : 22, integers);
    const sp::permanent_result one = sp::permanent_gpu_sparse(m, {.devices = {0}, .min_chunk_bits = 28});
    const sp::permanent_result two = sp::permanent_gpu_sparse(m, {.devices = {0, second}, .min_chunk_bits = 28});
    CHECK(two.permanent == one.permanent);
    CHECK(two.error_bound == one.error_bound);
    CHECK(one.plan.find("16 chunks of 2^28 steps from one queue") != std::string::npos);
    // the second GPU fails after its first chunk: the first finishes the rest
    const sp::permanent_result survived = sp::permanent_gpu_sparse(
        m, {.devices = {0, second}, .min_chunk_bits = 28, .failing_device = 1, .failing_after = 1});
    CHECK(survived.permanent == one.permanent);
    CHECK(survived.plan.find("device " + std::to_string(second) + " failed") != std::string::npos);
    // two ranks, a GPU each, the chunks dealt out between them
    test_support::ranks_in_threads ranks(2);
    const auto results = ranks.each([&](int r) {
      const sp::permanent_result shared = sp::permanent_gpu_sparse(
          m, {.devices = {r == 0 ? 0 : second}, .sharing = {"", ranks.rank(r)}, .min_chunk_bits = 28});
      CHECK(shared.plan.find("2 MPI ranks, the chunks dealt out by rank 0") != std::string::npos);
      return shared.permanent + " " + (shared.error_bound ? std::to_string(*shared.error_bound) : "exact");
    });
    for (const std::string& r : results) {
      CHECK(r == one.permanent + " " + (one.error_bound ? std::to_string(*one.error_bound) : "exact"));
    }
    MESSAGE(one.permanent << " | " << two.plan << " | compute " << one.seconds.compute << " s on one device, "
                          << two.seconds.compute << " s on two");
  }
}
