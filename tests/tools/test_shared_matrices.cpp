// The shared SuiteSparse matrices small enough for the reference: cpu-sparse and reference agree
// exactly through the CLI. Skipped (exit 77) where ../shared/matrices is absent.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <sparseperm/detail/json.cuh>
#include <sparseperm/detail/json_reader.cuh>
#include "cli_runner.hpp"

namespace json = sparseperm::json;

TEST_CASE("cpu-sparse and reference agree exactly on the small shared matrices") {
  for (const std::string name : {"mycielskian3", "mycielskian4", "mycielskian5", "Trefethen_20", "can_24"}) {
    CAPTURE(name);
    const std::string file = std::string(SPARSEPERM_SHARED_MATRICES) + "/" + name + ".mtx";
    const auto fast = cli_test::run("compute " + file + " --engine cpu-sparse --json");
    const auto slow = cli_test::run("compute " + file + " --engine reference --json");
    REQUIRE(fast.code == 0);
    REQUIRE(slow.code == 0);
    const json::value a = json::parse(fast.out), b = json::parse(slow.out);
    CHECK(a["exact"].as_bool());
    CHECK(b["exact"].as_bool());
    CHECK(a["permanent"].as_string() == b["permanent"].as_string());
    MESSAGE(name << ": " << a["permanent"].as_string());
  }
}

// The paper's real-life matrices (DESIGN §9): auto (structure, reductions, dp) and dp alone agree;
// exactly on the 0/1 ones. The small ones: dp agrees with the reference.
TEST_CASE("dp and auto on the real-life matrices") {
  for (const std::string name : {"mycielskian5", "can_24", "Trefethen_20"}) {
    CAPTURE(name);
    const std::string file = std::string(SPARSEPERM_SHARED_MATRICES) + "/" + name + ".mtx";
    const json::value dp = json::parse(cli_test::run("compute " + file + " --engine dp --json").out);
    const json::value reference = json::parse(cli_test::run("compute " + file + " --engine reference --json").out);
    CHECK(dp["permanent"].as_string() == reference["permanent"].as_string());
  }
  for (const std::string name : {"bcspwr02", "curtis54", "d_ss", "mesh1e1", "mycielskian6"}) {
    CAPTURE(name);
    const std::string file = std::string(SPARSEPERM_SHARED_MATRICES) + "/" + name + ".mtx";
    const auto automatic = cli_test::run("compute " + file + " --json");
    const auto dp = cli_test::run("compute " + file + " --engine dp --json");
    REQUIRE(automatic.code == 0);
    REQUIRE(dp.code == 0);
    const json::value a = json::parse(automatic.out), d = json::parse(dp.out);
    CHECK(a["engine"].as_string() == "dp");
    if (a["exact"].as_bool()) {
      CHECK(d["exact"].as_bool());
      CHECK(a["permanent"].as_string() == d["permanent"].as_string());
    } else {
      CHECK(a["value"].as_number() == doctest::Approx(d["value"].as_number()).epsilon(1e-12));
    }
    MESSAGE(name << ": " << a["permanent"].as_string() << " in " << a["seconds"]["total"].as_number() << " s");
  }
}

int main(int argc, char** argv) {
  if (!std::filesystem::is_directory(SPARSEPERM_SHARED_MATRICES)) {
    std::printf("skipped: %s is not there\n", SPARSEPERM_SHARED_MATRICES);
    return 77;
  }
  return doctest::Context(argc, argv).run();
}
