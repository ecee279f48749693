// The CLI's GPU engines (label gpu): the pipeline compiles once per matrix and reuses the program,
// every GPU engine agrees with cpu-sparse, and auto takes a GPU engine where it is cheapest.
#include "../gpu/gpu_test_main.hpp"

#include <sparseperm/module/cache.cuh>
#include "json_reader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>

#include "cli_runner.hpp"

#include "../exact_dyadic.hpp"

namespace json = sparseperm::json;
using cli_test::run;

TEST_CASE("the pipeline compiles a kernel once per matrix and reuses it") {
  const std::string cache = (cli_test::scratch_dir() / "cache").string();
  const std::string file = (cli_test::scratch_dir() / "g26.mtx").string();
  REQUIRE(run("generate --n 26 --density 0.3 --seed 5 --values ones -o " + file).code == 0);
  const json::value cpu = json::parse(run("compute " + file + " --engine cpu-sparse --json").out);
  for (const char* engine : {"gpu-cached", "gpu-hybrid", "gpu-purereg"}) {
    CAPTURE(engine);
    const auto a = cli_test::run_raw("SPARSEPERM_CACHE=" + cache + " " + SPARSEPERM_CLI + " compute " + file +
                                     " --engine " + engine + " --json");
    REQUIRE(a.code == 0);
    const auto b = cli_test::run_raw("SPARSEPERM_CACHE=" + cache + " " + SPARSEPERM_CLI + " compute " + file +
                                     " --engine " + engine + " --json");
    REQUIRE(b.code == 0);
    const json::value ra = json::parse(a.out), rb = json::parse(b.out);
    CHECK(ra["engine"].as_string() == engine);
    CHECK(ra["exact"].as_bool());
    CHECK(ra["permanent"].as_string() == cpu["permanent"].as_string());
    CHECK(rb["permanent"].as_string() == cpu["permanent"].as_string());
    CHECK(rb["seconds"]["compile"].as_number() == 0);
    CHECK(rb["registers_per_thread"].as_number() > 0);
    MESSAGE(std::string(engine) << ": codegen " << ra["seconds"]["codegen"].as_number() << " s, compile "
                                << ra["seconds"]["compile"].as_number() << " s (first run), compute "
                                << rb["seconds"]["compute"].as_number() << " s");
  }
  const json::value sparse = json::parse(run("compute " + file + " --engine gpu-sparse --json").out);
  CHECK(sparse["permanent"].as_string() == cpu["permanent"].as_string());
}

// --precision exact beyond 128 bits on every GPU engine: n = 24 all-ones (24!) and derangements,
// in residues modulo 4 primes, against the known counts; the default precision alike (integer
// matrices are exact by default, in the cheapest exact arithmetic).
TEST_CASE("every GPU engine computes exactly beyond 128 bits, by default too") {
  const std::string cache = (cli_test::scratch_dir() / "cache").string();
  std::string ones = "%%MatrixMarket matrix coordinate pattern general\n24 24 576\n",
              derangements = "%%MatrixMarket matrix coordinate pattern general\n24 24 552\n";
  for (int i = 1; i <= 24; ++i) {
    for (int j = 1; j <= 24; ++j) {
      ones += std::to_string(i) + " " + std::to_string(j) + "\n";
      if (i != j) derangements += std::to_string(i) + " " + std::to_string(j) + "\n";
    }
  }
  const struct {
    std::string file, value;
  } cases[] = {{cli_test::write_file("x_ones24.mtx", ones), "620448401733239439360000"},
               {cli_test::write_file("x_der24.mtx", derangements), "228250211305338670494289"}};
  for (const auto& c : cases) {
    for (const char* precision : {" --precision exact", ""})
      for (const char* engine : {"gpu-sparse", "gpu-cached", "gpu-hybrid", "gpu-purereg"}) {
        CAPTURE(engine);
        CAPTURE(c.file);
        CAPTURE(precision);
        const auto r = cli_test::run_raw("SPARSEPERM_CACHE=" + cache + " " + SPARSEPERM_CLI + " compute " + c.file +
                                         " --engine " + engine + precision + " --json");
        REQUIRE(r.code == 0);
        const json::value v = json::parse(r.out);
        CHECK(v["exact"].as_bool());
        CHECK(v["permanent"].as_string() == c.value);
        CHECK(v["plan"].as_string().find("residues modulo") != std::string::npos);
      }
  }
}

// Floating results carry an error bound on every GPU engine, in both floating precisions, and the
// bounds of two engines overlap.
TEST_CASE("every GPU engine reports an error bound that agrees with cpu-sparse's") {
  const std::string cache = (cli_test::scratch_dir() / "cache").string();
  const std::string file = (cli_test::scratch_dir() / "real26.mtx").string();
  REQUIRE(run("generate --n 26 --density 0.3 --seed 9 --values uniform -o " + file).code == 0);
  const json::value cpu = json::parse(run("compute " + file + " --engine cpu-sparse --json").out);
  REQUIRE(!cpu["exact"].as_bool());
  for (const char* precision : {"double", "compensated"}) {
    for (const char* engine : {"gpu-sparse", "gpu-cached", "gpu-hybrid", "gpu-purereg"}) {
      CAPTURE(engine);
      CAPTURE(precision);
      const auto r = cli_test::run_raw("SPARSEPERM_CACHE=" + cache + " " + SPARSEPERM_CLI + " compute " + file +
                                       " --engine " + engine + " --precision " + precision + " --json");
      REQUIRE(r.code == 0);
      const json::value v = json::parse(r.out);
      CHECK(!v["exact"].as_bool());
      const double bound = v["error_bound"].as_number();
      CHECK(bound > 0);
      CHECK(v["trusted_digits"].as_number() >= 8);
      CHECK(std::abs(v["value"].as_number() - cpu["value"].as_number()) <= bound + cpu["error_bound"].as_number());
    }
  }
}

// A matrix as Matrix Market text with every digit of its doubles.
std::string matrix_market_of(const sparseperm::sparse_matrix& a) {
  std::string text = std::string("%%MatrixMarket matrix coordinate ") + (a.is_complex() ? "complex" : "real") +
                     " general\n" + std::to_string(a.n()) + " " + std::to_string(a.n()) + " " +
                     std::to_string(a.nnz()) + "\n";
  char line[96];
  for (int i = 0; i < a.n(); ++i) {
    const auto columns = a.row_columns(i);
    const auto re = a.row_values(i);
    const auto im = a.row_imag(i);
    for (std::size_t k = 0; k < columns.size(); ++k) {
      if (a.is_complex()) {
        std::snprintf(line, sizeof line, "%d %d %.17g %.17g\n", i + 1, columns[k] + 1, re[k], im[k]);
      } else {
        std::snprintf(line, sizeof line, "%d %d %.17g\n", i + 1, columns[k] + 1, re[k]);
      }
      text += line;
    }
  }
  return text;
}

// Dense n = 6..13 and sparse n = 15..19 (p = 0.3: a staircase of levels, rows in global memory and
// levels above the blocks kept there).
TEST_CASE("gpu-cached in double-double: the bound contains the exact permanent where terms cancel") {
  const std::string cache = (cli_test::scratch_dir() / "cache").string();
  sparseperm::random_stream stream(83);
  for (const bool complex : {false, true}) {
    for (const int n : {6, 9, 12, 15, 18}) {
      const double density = n > 12 ? 0.3 : 1;
      const sparseperm::sparse_matrix a =
          exact_dyadic::random_cancelling(stream, n + (complex ? 0 : 1), complex, density);
      const exact_dyadic::exact_complex exact = exact_dyadic::exact_complex_permanent(a);
      const std::string file = cli_test::write_file("cancelling.mtx", matrix_market_of(a));
      const auto r = cli_test::run_raw("SPARSEPERM_CACHE=" + cache + " " + SPARSEPERM_CLI + " compute " + file +
                                       " --engine gpu-cached --precision double-double --json");
      CAPTURE(complex);
      CAPTURE(n);
      CAPTURE(r.err);
      REQUIRE(r.code == 0);
      const json::value v = json::parse(r.out);
      sparseperm::permanent_result result;
      result.complex = complex;
      result.value = v[complex ? "real_value" : "value"].as_number();
      if (complex) result.imag = v["imag_value"].as_number();
      const double bound = v["error_bound"].as_number();
      const double error = exact_dyadic::error_of(result, exact);
      CAPTURE(error);
      CAPTURE(bound);
      CHECK(error <= bound);
      CHECK(v["trusted_digits"].as_number() >= 14);
    }
  }
}

TEST_CASE("auto takes a GPU engine where the planner predicts it cheapest") {
  // n = 30, p = 0.5: a frontier too wide for dp, 2^29 Ryser steps
  const std::string file = (cli_test::scratch_dir() / "g30.mtx").string();
  REQUIRE(run("generate --n 30 --density 0.5 --seed 2 -o " + file).code == 0);
  const auto r = cli_test::run_raw("SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache").string() + " " +
                                   SPARSEPERM_CLI + " compute " + file + " --json");
  REQUIRE(r.code == 0);
  const json::value v = json::parse(r.out);
  CHECK(v["engine"].as_string().rfind("gpu-", 0) == 0);
  const json::value cpu = json::parse(run("compute " + file + " --engine cpu-sparse --json").out);
  CHECK(v["value"].as_number() == doctest::Approx(cpu["value"].as_number()).epsilon(1e-10));
}

TEST_CASE("nvcc missing or failing: one clear line, exit code 2") {
  const std::string file = (cli_test::scratch_dir() / "g12.mtx").string();
  REQUIRE(run("generate --n 12 --density 0.4 --seed 9 -o " + file).code == 0);
  const std::string cache = " SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache-errors").string() + " ";
  const auto missing = cli_test::run_raw("SPARSEPERM_NVCC=/nonexistent/nvcc" + cache + SPARSEPERM_CLI + " compute " +
                                         file + " --engine gpu-hybrid");
  CHECK(missing.code == 2);
  CHECK(missing.out.empty());
  CHECK(missing.err.rfind(
            "error: engine 'gpu-hybrid' is not available: it compiles a program for each matrix and needs nvcc", 0) ==
        0);
  const auto failing = cli_test::run_raw("SPARSEPERM_NVCC=/bin/false" + cache + SPARSEPERM_CLI + " compute " + file +
                                         " --engine gpu-purereg");
  CHECK(failing.code == 2);
  CHECK(failing.out.empty());
  CHECK(failing.err.rfind("error: compiling the gpu-purereg kernel failed (nvcc exit code 1); its messages are in ",
                          0) == 0);
  CHECK(std::count(failing.err.begin(), failing.err.end(), '\n') == 1);
}

// A kernel module is loaded from verified bytes and proves it is this matrix's: another matrix's
// cubin in the entry (copied, or even sealed again with this user's key) is rebuilt, never run.
TEST_CASE("a kernel module from another matrix's entry is not run") {
  namespace fs = std::filesystem;
  const fs::path cache = cli_test::scratch_dir() / "cache-proof";
  fs::remove_all(cache);
  const std::string a = (cli_test::scratch_dir() / "proof_a.mtx").string(),
                    b = (cli_test::scratch_dir() / "proof_b.mtx").string();
  REQUIRE(run("generate --n 14 --density 0.4 --seed 3 --values ones -o " + a).code == 0);
  REQUIRE(run("generate --n 14 --density 0.4 --seed 4 --values ones -o " + b).code == 0);
  const auto compute = [&](const std::string& file) {
    const auto r = cli_test::run_raw("SPARSEPERM_CACHE=" + cache.string() + " " + SPARSEPERM_CLI + " compute " + file +
                                     " --engine gpu-cached --json");
    REQUIRE(r.code == 0);
    return json::parse(r.out);
  };
  const auto entry_of = [](const json::value& v) {
    std::smatch m;
    const std::string plan = v["plan"].as_string();
    REQUIRE(std::regex_search(plan, m, std::regex("module (?:compiled into|from the cache) (/[^;]+)")));
    return fs::path(m[1].str());
  };
  const json::value first_a = compute(a), first_b = compute(b);
  REQUIRE(first_a["permanent"].as_string() != first_b["permanent"].as_string());
  const fs::path entry_a = entry_of(first_a), entry_b = entry_of(first_b);
  fs::remove(entry_b / "module.sealed");
  fs::copy_file(entry_a / "module.sealed", entry_b / "module.sealed");
  const json::value copied = compute(b);
  CHECK(copied["permanent"].as_string() == first_b["permanent"].as_string());
  CHECK(copied["seconds"]["compile"].as_number() > 0);
  const std::string key = cli_test::read_file(cache / "key");
  const auto cubin = sparseperm::detail::unseal_module(key, entry_a.filename().string(), entry_a / "module.sealed");
  REQUIRE(cubin);
  fs::remove(entry_b / "module.sealed");
  std::ofstream(entry_b / "module.sealed", std::ios::binary)
      << sparseperm::detail::seal_module(key, entry_b.filename().string(), *cubin);
  const json::value resealed = compute(b);
  CHECK(resealed["permanent"].as_string() == first_b["permanent"].as_string());
  CHECK(resealed["seconds"]["compile"].as_number() > 0);
}

TEST_CASE("--devices and --checkpoint on the generated engines: one module, two queues, the same value") {
  const std::string cache = (cli_test::scratch_dir() / "cache").string();
  const std::string file = (cli_test::scratch_dir() / "g39.mtx").string();
  REQUIRE(run("generate --n 39 --density 0.2 --seed 7 -o " + file).code == 0);  // reals: bit for bit
  const std::string journal = (cli_test::scratch_dir() / "g39.journal").string();
  std::filesystem::remove(journal);
  const auto compute = [&](const std::string& engine, const std::string& extra) {
    const auto r = cli_test::run_raw("SPARSEPERM_CACHE=" + cache + " " + SPARSEPERM_CLI + " compute " + file +
                                     " --engine " + engine + extra + " --json");
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    return json::parse(r.out);
  };
  for (const std::string engine : {"gpu-cached", "gpu-hybrid", "gpu-sparse"}) {
    CAPTURE(engine);
    const json::value one = compute(engine, "");
    const json::value two = compute(engine, " --devices 0,0");
    const json::value all = compute(engine, " --devices all");
    CHECK(two["permanent"].as_string() == one["permanent"].as_string());
    CHECK(two["error_bound"].as_number() == one["error_bound"].as_number());
    CHECK(all["permanent"].as_string() == one["permanent"].as_string());
    // 2^38 steps: the generated engines' chunks of 2^36 steps, gpu-sparse's of 2^32 (its steps are slower)
    const std::string chunks = engine == "gpu-sparse" ? "64 chunks of 2^32" : "4 chunks of 2^36";
    CHECK(two["plan"].as_string().find(chunks + " steps from one queue") != std::string::npos);
    MESSAGE(engine << ": " << one["permanent"].as_string() << ", compute " << one["seconds"]["compute"].as_number()
                   << " s on one queue, " << two["seconds"]["compute"].as_number() << " s on two");
  }
  const json::value journaled = compute("gpu-cached", " --checkpoint " + journal);
  const json::value resumed = compute("gpu-cached", " --devices 0,0 --checkpoint " + journal);
  CHECK(resumed["permanent"].as_string() == journaled["permanent"].as_string());
  CHECK(resumed["plan"].as_string().find("4 of 4 chunks resumed from it") != std::string::npos);
  const auto bad = run("compute " + file + " --engine gpu-cached --devices 7");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("CUDA device 7 does not exist") != std::string::npos);
}

#if defined(SPARSEPERM_TEST_MPIRUN)
TEST_CASE("MPI: two ranks with --devices split (a GPU each where there are two) give one process's value") {
  const std::string cache = (cli_test::scratch_dir() / "cache").string();
  const std::string mpirun = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
                             SPARSEPERM_TEST_MPIRUN + " --oversubscribe --bind-to none -np 2 ";
  for (const char* values : {"ones", "uniform"}) {
    CAPTURE(values);
    const std::string file = (cli_test::scratch_dir() / (std::string("m39") + values + ".mtx")).string();
    REQUIRE(run("generate --n 39 --density 0.2 --seed 9 --values " + std::string(values) + " -o " + file).code == 0);
    const auto compute = [&](const std::string& launcher, const std::string& devices) {
      const auto r = cli_test::run_raw("SPARSEPERM_CACHE=" + cache + " " + launcher + SPARSEPERM_CLI + " compute " +
                                       file + " --engine gpu-cached --devices " + devices + " --json");
      CAPTURE(r.err);
      REQUIRE(r.code == 0);
      return json::parse(r.out);
    };
    const json::value alone = compute("", "0");
    const json::value ranks = compute(mpirun, "split");
    CHECK(ranks["permanent"].as_string() == alone["permanent"].as_string());
    CHECK(ranks["error_bound"].is_null() == alone["error_bound"].is_null());
    if (!alone["error_bound"].is_null()) CHECK(ranks["error_bound"].as_number() == alone["error_bound"].as_number());
    CHECK(ranks["plan"].as_string().find("2 MPI ranks, the chunks dealt out by rank 0") != std::string::npos);
    MESSAGE(std::string(values) << ": " << alone["permanent"].as_string() << "; "
                                << alone["seconds"]["compute"].as_number() << " s alone, "
                                << ranks["seconds"]["compute"].as_number() << " s on 2 ranks | "
                                << ranks["plan"].as_string());
  }
}
#endif
