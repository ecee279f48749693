// sparseperm-gen: golden headers, byte for byte; bad input and usage like the CLI.
#include <doctest/doctest.h>

#include <string>

#include "cli_runner.hpp"

using cli_test::read_file;
using cli_test::run_raw;
using cli_test::write_file;

namespace {
const std::string gen = SPARSEPERM_GEN;
const std::string golden = SPARSEPERM_GOLDEN_DIR;
}  // namespace

TEST_CASE("the generated headers match the golden files") {
  for (const char* name : {"small_real", "path-4", "empty_columns"}) {
    CAPTURE(name);
    const auto r = run_raw(gen + " " + golden + "/" + name + ".mtx -o -");
    REQUIRE(r.code == 0);
    CHECK(r.out == read_file(golden + "/" + name + ".cuh"));
  }
  // Values are exact: 0.1 and 1/3 as the hexadecimal literals of their doubles, not six decimals.
  const std::string header = read_file(golden + "/small_real.cuh");
  CHECK(header.find("0x1.999999999999ap-4") != std::string::npos);
  CHECK(header.find("0x1.5555555555555p-2") != std::string::npos);
}

TEST_CASE("names and output files") {
  const std::string out = (cli_test::scratch_dir() / "named.cuh").string();
  REQUIRE(run_raw(gen + " " + golden + "/path-4.mtx --name my_graph -o " + out).code == 0);
  CHECK(read_file(out).find("namespace sparseperm::generated::my_graph {") != std::string::npos);
  const auto bad = run_raw(gen + " " + golden + "/path-4.mtx --name 'not-an-identifier' -o " + out);
  CHECK(bad.code == 2);
  CHECK(bad.err == "error: option '--name': 'not-an-identifier' is not a C++ identifier\n");
}

TEST_CASE("bad input and usage: one line, exit code 2") {
  const std::string file = write_file("gen_nan.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n");
  const auto r = run_raw(gen + " " + file + " -o -");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: " + file + ":3: value 'nan' is not finite (NaN and Inf are not allowed)\n");
  CHECK(run_raw(gen + " /nonexistent.mtx -o -").err == "error: /nonexistent.mtx: cannot open: no such file\n");
  const std::string complex =
      write_file("gen_complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 2\n");
  const auto z = run_raw(gen + " " + complex + " -o -");  // complex: the imaginary parts beside the values
  CHECK(z.code == 0);
  CHECK(z.out.find("static constexpr double values[] = {\n      0x1p+0,  // column 0") != std::string::npos);
  CHECK(z.out.find("static constexpr double imag_values[] = {\n      0x1p+1,  // column 0") != std::string::npos);
  CHECK(run_raw(gen + " " + golden + "/path-4.mtx").err ==
        "error: sparseperm-gen needs -o HEADER (see 'sparseperm-gen --help')\n");
  CHECK(run_raw(gen + " --help").out.rfind("usage: sparseperm-gen", 0) == 0);
}
