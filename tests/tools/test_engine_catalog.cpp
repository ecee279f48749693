// An engine defined here (test_engine.hpp) and registered through the catalog's door: it runs through
// compute_permanent, the planner, `inspect`, the CLI's --engine and the JSON record of a tool built
// with it, and agrees with the library's independent engines.
#include <doctest/doctest.h>

#include <string>

#include <sparseperm/detail/json.cuh>
#include <sparseperm/perm.cuh>

#include "cli_runner.hpp"
#include "json_reader.hpp"
#include "random_matrix.hpp"

namespace sp = sparseperm;
namespace json = sparseperm::json;
using cli_test::run;
using cli_test::write_file;

static_assert(sp::Engine<sp::test_engines::subset_ryser>);

TEST_CASE("the test engine is in the catalog, after the library's") {
  const auto& all = sp::engine_descriptions();
  REQUIRE(all.size() == sp::library_engines::descriptions.size() + 1);
  CHECK(all.back() == &sp::description_of<sp::test_engines::subset_ryser>);
  CHECK(sp::find_engine("test-subset-ryser") == all.back());
  CHECK(sp::engine_names().find(", test-subset-ryser") != std::string::npos);
}

TEST_CASE("compute_permanent runs it by tag and the planner chooses it; it agrees with dp and reference") {
  sp::random_stream stream(2024);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 1 + static_cast<int>(stream.below(11));
    sp::erdos_renyi_options options;
    options.n = n;
    options.density = 0.3 + 0.5 * stream.uniform();
    options.seed = 1000 + static_cast<std::uint64_t>(trial);
    options.values = trial % 2 ? sp::value_kind::ones : sp::value_kind::integers;
    options.low = -3;
    options.high = 4;
    const sp::sparse_matrix m = sp::generate_erdos_renyi(options);
    CAPTURE(n);
    const auto by_tag = sp::compute_permanent(m, {.engine = sp::test_engines::subset_ryser{}});
    CHECK(by_tag.engine == "test-subset-ryser");
    REQUIRE(by_tag.exact);
    CHECK(by_tag.permanent == sp::compute_permanent(m, {.engine = sp::engines::dp{}}).permanent);
    CHECK(by_tag.permanent == sp::compute_permanent(m, {.engine = sp::engines::reference{}}).permanent);
    const auto plan = sp::make_plan(m);
    for (const auto& block : plan.blocks) {
      if (block.matrix.n() <= 12) CHECK(block.engine == &sp::description_of<sp::test_engines::subset_ryser>);
    }
    CHECK(sp::compute_permanent(m).permanent == by_tag.permanent);
  }
}

TEST_CASE("the tool built with it: --engine, the JSON record, auto and inspect") {
  // dense 8 x 8, degrees 8: no reduction applies, one block of 8 for an engine (n <= 6 would go to
  // brute force without a plan)
  std::string text = "%%MatrixMarket matrix coordinate integer general\n8 8 64\n";
  for (int i = 1; i <= 8; ++i) {
    for (int j = 1; j <= 8; ++j)
      text += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string((i * j) % 3 + 1) + "\n";
  }
  const std::string file = write_file("engine_catalog.mtx", text);
  const auto forced = run("compute " + file + " --engine test-subset-ryser --json");
  REQUIRE(forced.code == 0);
  const json::value record = json::parse(forced.out);
  CHECK(record["engine"].as_string() == "test-subset-ryser");
  CHECK(record["exact"].as_bool());
  const json::value dp = json::parse(run("compute " + file + " --engine dp --json").out);
  CHECK(record["permanent"].as_string() == dp["permanent"].as_string());

  const json::value automatic = json::parse(run("compute " + file + " --json").out);
  CHECK(automatic["engine"].as_string() == "test-subset-ryser");  // the planner's choice: priced at nothing
  CHECK(automatic["permanent"].as_string() == dp["permanent"].as_string());

  const auto inspect = run("inspect " + file);
  REQUIRE(inspect.code == 0);
  CHECK(inspect.out.find("test-subset-ryser") != std::string::npos);
  CHECK(inspect.out.find("a test's engine") != std::string::npos);
  CHECK(inspect.out.find("<- chosen") != std::string::npos);

  // its limit is checked like any engine's: one line, exit code 2
  const auto large = run("compute " +
                         write_file(
                             "engine_catalog_17.mtx", "%%MatrixMarket matrix coordinate pattern general\n17 17 17\n" +
                                                          [] {
                                                            std::string diagonal;
                                                            for (int i = 1; i <= 17; ++i)
                                                              diagonal +=
                                                                  std::to_string(i) + " " + std::to_string(i) + "\n";
                                                            return diagonal;
                                                          }()) +
                         " --engine test-subset-ryser");
  CHECK(large.code == 2);
  CHECK(large.err.find("exceeds the limit of engine 'test-subset-ryser' (n <= 16)") != std::string::npos);
}

// This tool is also the suite's build without MPI (tools/CMakeLists.txt gives MPI to sparseperm alone):
// started by a launcher as several ranks it would run the whole job once a rank and print it twice.
TEST_CASE("a build without MPI that a launcher starts as several ranks refuses in one line, on rank 0") {
  const std::string file = write_file("engine_catalog_mpi.mtx",
                                      "%%MatrixMarket matrix coordinate pattern general\n"
                                      "2 2 3\n1 1\n1 2\n2 2\n");
  const std::string compute = std::string(SPARSEPERM_CLI) + " compute " + file + " --json";
  const auto rank0 = cli_test::run_raw("OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 " + compute);
  CHECK(rank0.code == 2);
  CHECK(rank0.out.empty());
  CHECK(rank0.err ==
        "error: a launcher started this sparseperm as one of 2 ranks, but it was built without MPI: each rank would "
        "run the whole job. Rebuild it with MPI (Open MPI's development files present when CMake configures), or "
        "run it alone\n");
  const auto rank1 = cli_test::run_raw("OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1 " + compute);
  CHECK(rank1.code == 2);
  CHECK(rank1.out.empty());
  CHECK(rank1.err.empty());
  const auto srun = cli_test::run_raw("SLURM_STEP_NUM_TASKS=3 SLURM_PROCID=0 " + compute);
  CHECK(srun.code == 2);
  const auto alone = cli_test::run_raw("SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0 " + compute);
  CHECK(alone.code == 0);
  CHECK(json::parse(alone.out)["permanent"].as_string() == "1");
}
