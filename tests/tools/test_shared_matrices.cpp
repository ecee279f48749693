// The shared SuiteSparse matrices small enough for the reference: cpu-sparse and reference agree
// exactly through the CLI. Skipped (exit 77) where ../shared/matrices is absent.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <sparseperm/detail/json.cuh>
#include "cli_runner.hpp"
#include "json_reader.hpp"

namespace json = sparseperm::json;

namespace {

std::string shared_matrix(const std::string& name) {
  return std::string(SPARSEPERM_SHARED_MATRICES) + "/" + name + ".mtx";
}

// `compute FILE ARGUMENTS --json`, which must succeed, parsed.
json::value compute_json(const std::string& file, const std::string& arguments) {
  const auto r = cli_test::run("compute " + file + " " + arguments + " --json");
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("cpu-sparse and reference agree exactly on the small shared matrices") {
  for (const std::string name : {"mycielskian3", "mycielskian4", "mycielskian5", "Trefethen_20", "can_24"}) {
    CAPTURE(name);
    const std::string file = shared_matrix(name);
    const json::value a = compute_json(file, "--engine cpu-sparse"), b = compute_json(file, "--engine reference");
    CHECK(a["exact"].as_bool());
    CHECK(b["exact"].as_bool());
    CHECK(a["permanent"].as_string() == b["permanent"].as_string());
    MESSAGE(name << ": " << a["permanent"].as_string());
  }
}

// The paper's real-life matrices (its table of SuiteSparse matrices): auto (structure, reductions, dp) and dp alone agree;
// exactly on the 0/1 ones. The small ones: dp agrees with the reference.
TEST_CASE("dp and auto on the real-life matrices") {
  for (const std::string name : {"mycielskian5", "can_24", "Trefethen_20"}) {
    CAPTURE(name);
    const std::string file = shared_matrix(name);
    const json::value dp = compute_json(file, "--engine dp"), reference = compute_json(file, "--engine reference");
    CHECK(dp["permanent"].as_string() == reference["permanent"].as_string());
  }
  for (const std::string name : {"bcspwr02", "curtis54", "d_ss", "mesh1e1", "mycielskian6"}) {
    CAPTURE(name);
    const std::string file = shared_matrix(name);
    const json::value a = compute_json(file, ""), d = compute_json(file, "--engine dp");
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
