// The command-line tool: its JSON contract, human output, every bad-input case, generate, inspect
// and bench.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <sparseperm/detail/json.cuh>
#include "cli_runner.hpp"
#include "json_reader.hpp"

using cli_test::run;
using cli_test::write_file;
namespace json = sparseperm::json;

namespace {

const std::string general = "%%MatrixMarket matrix coordinate real general\n";

// A one-line error on stderr, nothing on stdout, exit code 2.
void check_error(const cli_test::run_result& r, const std::string& expected) {
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: " + expected + "\n");
}

std::string ones_matrix(int n) {
  std::string text = "%%MatrixMarket matrix coordinate pattern general\n" + std::to_string(n) + " " +
                     std::to_string(n) + " " + std::to_string(n * n) + "\n";
  for (int i = 1; i <= n; ++i) {
    for (int j = 1; j <= n; ++j) text += std::to_string(i) + " " + std::to_string(j) + "\n";
  }
  return text;
}

// A dense n × n integer matrix without repeated rows or columns: a_ij = 1 + i + n·j (1-based i, j).
std::string distinct_matrix(int n) {
  std::string text =
      "%%MatrixMarket matrix array integer general\n" + std::to_string(n) + " " + std::to_string(n) + "\n";
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) text += std::to_string(1 + i + n * j) + "\n";
  }
  return text;
}

// `compute FILE --engine ENGINE [extra] --json` with a module cache of the scratch folder (the tests'
// shared one unless named), for a run that must succeed: its record.
json::value compute_json(const std::string& file, const std::string& engine, const std::string& extra = "",
                         const std::string& cache = "cache") {
  const auto r = cli_test::run_raw("SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / cache).string() + " " +
                                   SPARSEPERM_CLI + " compute " + file + " --engine " + engine + extra + " --json");
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

// Runs `command` in the background until its journal holds 8000 bytes, sends it SIG`signal` and
// prints "stopped EXIT-CODE MILLISECONDS" (from the signal to its exit). A shell's background job
// starts with SIGINT ignored: env gives the command back its default.
cli_test::run_result signal_once_journaled(const std::string& command, const std::string& journal,
                                           const std::string& signal) {
  return cli_test::run_raw("(env --default-signal=INT " + command + " & pid=$!; while [ \"$(stat -c %s " + journal +
                           " 2>/dev/null || echo 0)\" -lt 8000 ]; do sleep 0.02; done; start=$(date +%s%N); kill -" +
                           signal + " $pid; wait $pid; code=$?; echo stopped $code $(( ($(date +%s%N) - start) / " +
                           "1000000 )))");
}

}  // namespace

TEST_CASE("--help everywhere") {
  for (const char* command : {"--help", "compute --help", "inspect --help", "generate --help", "bench --help"}) {
    const auto r = run(command);
    CAPTURE(command);
    CHECK(r.code == 0);
    CHECK(r.out.find("usage: sparseperm") != std::string::npos);
  }
  CHECK(run("").code == 2);
  CHECK(run("--version").out.rfind("sparseperm ", 0) == 0);
}

TEST_CASE("compute --json keeps its contract") {
  const std::string file = write_file("ones7.mtx", ones_matrix(7));
  for (const char* engine : {"cpu-sparse", "dp", "reference", "auto"}) {
    const auto r = run("compute " + file + " --engine " + engine + " --json");
    CAPTURE(engine);
    REQUIRE(r.code == 0);
    CHECK(r.err.empty());
    const json::value v = json::parse(r.out);
    CHECK(v["permanent"].as_string() == "5040");
    CHECK(v["value"].as_number() == 5040);
    CHECK(v["exact"].as_bool());
    CHECK(v["error_bound"].is_null());
    CHECK(v["engine"].as_string() == (std::string(engine) == "auto" ? "glynn" : engine));  // all rows alike
    CHECK(v["n"].as_number() == 7);
    CHECK(v["nnz"].as_number() == 49);
    CHECK(v["threads"].is_number());
    CHECK(v["plan"].is_string());
    CHECK(v["file"].as_string() == file);
    for (const char* key : {"plan", "codegen", "compile", "compute", "total"}) CHECK(v["seconds"][key].is_number());
    CHECK(v["seconds"]["total"].as_number() >= v["seconds"]["compute"].as_number());
  }
  // A real matrix: not exact, the permanent in %.17g.
  const std::string real = write_file("real.mtx", general + "2 2 4\n1 1 0.5\n1 2 0.25\n2 1 0.125\n2 2 3\n");
  const json::value v = json::parse(run("compute " + real + " --json").out);
  CHECK_FALSE(v["exact"].as_bool());
  CHECK(v["permanent"].as_string() == "1.53125");
  CHECK(v["value"].as_number() == 1.53125);
  CHECK(v["error_bound"].as_number() >= 0);
  CHECK(v["error_bound"].as_number() < 1e-14);
  CHECK(v["trusted_digits"].as_number() >= 14);
}

TEST_CASE("human output") {
  const auto r = run("compute " + write_file("ones7.mtx", ones_matrix(7)) + " --threads 1");
  CHECK(r.code == 0);
  CHECK(r.out.find("permanent  5040  (exact)") != std::string::npos);
  CHECK(r.out.find("engine     glynn, 1 thread: ") != std::string::npos);
  CHECK(r.out.find("block 7 x 7: glynn (1 distinct rows, 7 terms)") != std::string::npos);
  CHECK(r.out.find("matrix     7 x 7, 49 nonzeros") != std::string::npos);
  CHECK(r.err.empty());  // no progress bar when stderr is not a terminal
  // n <= 6: brute force, without a plan
  const auto tiny = run("compute " + write_file("ones5.mtx", ones_matrix(5)));
  CHECK(tiny.out.find("permanent  120  (exact)") != std::string::npos);
  CHECK(tiny.out.find("engine     reference") != std::string::npos);
  // a floating result says how many digits its error bound guarantees
  const std::string real = write_file("real3.mtx", general + "3 3 5\n1 1 0.3\n1 2 0.7\n2 2 0.1\n2 3 0.9\n3 3 0.5\n");
  const auto f = run("compute " + real + " --engine cpu-sparse");
  CHECK(f.code == 0);
  CHECK(f.out.find(" digits trusted, |error| <= ") != std::string::npos);
}

TEST_CASE("conventions: the empty matrix and structurally singular ones") {
  const json::value empty = json::parse(run("compute " + write_file("empty.mtx", general + "0 0 0\n") + " --json").out);
  CHECK(empty["permanent"].as_string() == "1");
  CHECK(empty["engine"].as_string() == "structure");
  // Rows 1 and 2 can only use column 1.
  const std::string singular = write_file("singular.mtx", general + "3 3 4\n1 1 2\n2 1 3\n3 2 1\n3 3 1\n");
  const json::value v = json::parse(run("compute " + singular + " --json --engine cpu-sparse").out);
  CHECK(v["permanent"].as_string() == "0");
  CHECK(v["exact"].as_bool());
  CHECK(v["plan"].as_string().find("structurally singular") != std::string::npos);
}

TEST_CASE("every malformed input: one line naming file and line, exit code 2") {
  struct bad_case {
    std::string name, text, message;
  };
  const std::vector<bad_case> cases = {
      {"empty.mtx", "", "1: empty file: expected a '%%MatrixMarket matrix ...' banner"},
      {"nobanner.mtx", "2 2 1\n1 1 1\n", "1: missing '%%MatrixMarket' banner on the first line"},
      {"badbanner.mtx", "%%MatrixMarket matrix coordinate real\n",
       "1: the banner must read '%%MatrixMarket matrix FORMAT FIELD SYMMETRY' (found 4 words)"},
      {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1\n",
       "3: expected 4 fields (row column real imaginary) for a complex entry, found 3"},
      {"hermitian.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 2\n",
       "3: a hermitian matrix has a real diagonal, but entry (1, 1) has the imaginary part '2'"},
      {"badsize.mtx", general + "2 2\n", "2: the size line must read 'ROWS COLUMNS ENTRIES'"},
      {"nonsquare.mtx", general + "2 3 1\n1 1 1\n",
       "2: the matrix is 2 x 3: not square (the permanent is defined for square matrices)"},
      {"few.mtx", general + "2 2 3\n1 1 1\n2 2 1\n", "4: the file ends after 2 entries, but line 2 declares 3"},
      {"many.mtx", general + "2 2 1\n1 1 1\n2 2 1\n", "4: more entries than the 1 declared on line 2"},
      {"range.mtx", general + "2 2 1\n1 3 1\n", "3: column index 3 is out of range [1, 2]"},
      {"duplicate.mtx", general + "2 2 2\n2 2 1\n2 2 5\n",
       "4: duplicate entry (2, 2): the same position is already given on line 3"},
      {"text.mtx", general + "2 2 1\n1 1 one\n", "3: value 'one' is not a number"},
      {"nan.mtx", general + "2 2 1\n1 1 NaN\n", "3: value 'NaN' is not finite (NaN and Inf are not allowed)"},
      {"inf.mtx", general + "2 2 1\n1 1 inf\n", "3: value 'inf' is not finite (NaN and Inf are not allowed)"},
      {"binary.mtx", general + "2 2 1\n1 1 1" + std::string(1, '\0') + "\n",
       "3: the line contains a NUL byte: not a text file"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const std::string file = write_file(c.name, c.text);
    check_error(run("compute " + file), file + ":" + c.message);
    check_error(run("inspect " + file), file + ":" + c.message);
  }
}

TEST_CASE("n above an engine's limit points at the size line") {
  const std::string big = write_file("distinct65.mtx", distinct_matrix(65));
  // auto: the planner says why no engine fits (dp's memory depends on the machine)
  const auto dense = run("compute " + big);
  CHECK(dense.code == 2);
  CHECK(dense.err.rfind("error: " + big + ":2: no engine can compute a 65 x 65 block (", 0) == 0);
  CHECK(dense.err.find("dp: needs about ") != std::string::npos);
  CHECK(dense.err.find("cpu-sparse: n > 64") != std::string::npos);
  CHECK(dense.err.find("glynn: no repeated rows or columns") != std::string::npos);
  // all ones: 65 equal rows, Glynn's 65 terms, exactly 65!
  const auto ones = run("compute " + write_file("ones65.mtx", ones_matrix(65)));
  CHECK(ones.code == 0);
  CHECK(ones.out.find("permanent  "
                      "8247650592082470666723170306785496252186258551345437492922123134388955774976000000000000000  "
                      "(exact)") != std::string::npos);
  check_error(run("compute " + big + " --engine cpu-sparse"),
              big + ":2: n = 65 exceeds the limit of engine 'cpu-sparse' (n <= 64)");
  const std::string medium = write_file("ones27.mtx", ones_matrix(27));
  check_error(run("compute " + medium + " --engine reference"),
              medium + ":2: n = 27 exceeds the limit of engine 'reference' (n <= 26)");
}

// 1e300 on a diagonal of 30: the permanent 1e9000 in decimal with its exponent, within its bound
// (scaled by powers of two; 1e300 is rounded on reading, which the bound includes).
TEST_CASE("permanents beyond double's range print with their exponent, never as a non-number") {
  std::string text = general + "30 30 30\n";
  for (int i = 1; i <= 30; ++i) text += std::to_string(i) + " " + std::to_string(i) + " 1e300\n";
  const std::string file = write_file("huge.mtx", text);
  const auto r = run("compute " + file);
  REQUIRE(r.code == 0);
  CHECK(std::regex_search(
      r.out,
      std::regex(
          R"(^permanent  (1\.0000000000|9\.9999999999)[0-9]*e\+(9000|8999)  \(double precision: 1[0-9] digits trusted, \|error\| <= [0-9.]+e\+8[0-9]{3}\))")));
  const json::value v = json::parse(run("compute " + file + " --json --engine cpu-sparse").out);
  CHECK(v["value"].is_null());
  CHECK(v["exponent"].is_number());
  CHECK(v["error_bound"].is_string());
  CHECK(v["plan"].as_string().find("scaled by powers of two") != std::string::npos);
}

TEST_CASE("GPU engines without a GPU or without CUDA say why, exit code 2") {
  const std::string file = write_file("ones4.mtx", ones_matrix(4));
  for (const char* engine : {"gpu-sparse", "gpu-dense", "gpu-purereg", "gpu-hybrid", "gpu-cached"}) {
    const auto r = run("compute " + file + " --engine " + engine);
    if (r.code == 0) continue;  // a machine with a GPU: the GPU tests check these engines
    CAPTURE(engine);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind(std::string("error: engine '") + engine + "' is not available: ", 0) == 0);
  }
}

// cpu-cached compiles a host module per matrix with g++ (CI has it): once, then from the cache.
TEST_CASE("cpu-cached: a module compiled once per matrix, reused, and equal to cpu-sparse") {
  const std::string ones = (cli_test::scratch_dir() / "c26.mtx").string();
  REQUIRE(run("generate --n 26 --density 0.3 --seed 5 --values ones -o " + ones).code == 0);
  const json::value sparse = compute_json(ones, "cpu-sparse");
  const json::value first = compute_json(ones, "cpu-cached");
  const json::value second = compute_json(ones, "cpu-cached");
  CHECK(first["engine"].as_string() == "cpu-cached");
  CHECK(first["exact"].as_bool());
  CHECK(first["permanent"].as_string() == sparse["permanent"].as_string());
  CHECK(second["permanent"].as_string() == sparse["permanent"].as_string());
  CHECK(first["seconds"]["compile"].as_number() > 0);
  CHECK(second["seconds"]["compile"].as_number() == 0);
  CHECK(second["plan"].as_string().find("; module from the cache ") != std::string::npos);
  MESSAGE("cpu-cached n = 26: compile " << first["seconds"]["compile"].as_number() << " s, compute "
                                        << second["seconds"]["compute"].as_number() << " s; cpu-sparse "
                                        << sparse["seconds"]["compute"].as_number() << " s");

  const std::string reals = (cli_test::scratch_dir() / "c24.mtx").string();
  REQUIRE(run("generate --n 24 --density 0.4 --seed 6 -o " + reals).code == 0);
  const json::value reference = compute_json(reals, "reference");
  const json::value cached = compute_json(reals, "cpu-cached");
  CHECK_FALSE(cached["exact"].as_bool());
  CHECK(cached["value"].as_number() == doctest::Approx(reference["value"].as_number()).epsilon(1e-12));
}

// The planner knows the cache: a module already compiled costs no compile in `auto`'s estimate, and
// `inspect` says so. The cache entry follows the matrix, not its file's name.
TEST_CASE("auto: a cached cpu-cached module is planned without its compile") {
  const std::string cache = "SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache-planner").string() + " ";
  const std::string dense = (cli_test::scratch_dir() / "d22.mtx").string();
  REQUIRE(run("generate --n 22 --density 1 --seed 3 -o " + dense).code == 0);
  const auto cached_line = [&](const std::string& file) {
    const auto r = cli_test::run_raw(cache + SPARSEPERM_CLI + " inspect " + file);
    REQUIRE(r.code == 0);
    const std::size_t at = r.out.find("    cpu-cached   ");
    REQUIRE(at != std::string::npos);
    return r.out.substr(at, r.out.find('\n', at) - at);
  };
  const std::string before = cached_line(dense);
  CHECK(before.find("with its compile") != std::string::npos);
  CHECK(before.find("<- chosen") == std::string::npos);  // 2^21 steps: cpu-sparse beats a compile
  const json::value built = compute_json(dense, "cpu-cached", "", "cache-planner");
  CHECK(built["seconds"]["compile"].as_number() > 0);
  const std::string after = cached_line(dense);
  CHECK(after.find("module in the cache") != std::string::npos);
  CHECK(after.find("<- chosen") != std::string::npos);
  // the same matrix under another name: the same module, and auto takes it
  const std::string renamed = (cli_test::scratch_dir() / "same-matrix-other-name.mtx").string();
  std::filesystem::copy_file(dense, renamed, std::filesystem::copy_options::overwrite_existing);
  const json::value again = compute_json(renamed, "auto", "", "cache-planner");
  CHECK(again["plan"].as_string().find(": cpu-cached") != std::string::npos);
  CHECK(again["seconds"]["compile"].as_number() == 0);
  CHECK(again["value"].as_number() == built["value"].as_number());
  MESSAGE("inspect before: " << before << "\ninspect after:  " << after);
}

// A 0/1 pattern matrix from a predicate on (row, column), 1-based.
template <class Entry>
std::string pattern_matrix(int n, Entry entry) {
  std::string entries;
  int count = 0;
  for (int i = 1; i <= n; ++i) {
    for (int j = 1; j <= n; ++j) {
      if (entry(i, j)) {
        entries += std::to_string(i) + " " + std::to_string(j) + "\n";
        ++count;
      }
    }
  }
  return "%%MatrixMarket matrix coordinate pattern general\n" + std::to_string(n) + " " + std::to_string(n) + " " +
         std::to_string(count) + "\n" + entries;
}

// cpu-cached skips the blocks whose top cached product is exactly zero (a row of x is 0, frequent on
// 0/1 matrices): exact counts equal dp's and cpu-sparse's on matrices where that fires often (bands,
// grids, a checkerboard, rows of degree 1) and on one where x is never 0 (odd row sums);
// floating runs within their bounds.
TEST_CASE("cpu-cached: zero-skipping blocks keep exact counts exact") {
  // the 6 x 6 board's domino tilings: black cells against white ones (6728)
  const auto grid = [](int i, int j) {
    const int black = i - 1, white = j - 1;  // cells numbered row by row, black ones (r + c even) first
    const auto cell = [](int k, bool odd) {
      const int r = (2 * k) / 6;
      return std::pair{r, 2 * k % 6 + ((r % 2 == 1) != odd ? 1 : 0)};
    };
    const auto [br, bc] = cell(black, false);
    const auto [wr, wc] = cell(white, true);
    return std::abs(br - wr) + std::abs(bc - wc) == 1;
  };
  struct zero_skip_case {
    std::string name, text;
    bool doubles = false;  // cpu-cached in doubles too (a module compile more)
  };
  const std::vector<zero_skip_case> cases = {
      {"band26.mtx", pattern_matrix(26, [](int i, int j) { return std::abs(i - j) <= 2; }), true},
      {"band28.mtx", pattern_matrix(28, [](int i, int j) { return j - i >= -1 && j - i <= 3; })},
      {"domino6.mtx", pattern_matrix(18, grid)},
      {"low_degree24.mtx",
       pattern_matrix(24, [](int i, int j) { return i == j || (i % 3 != 0 && (i * 7 + j * 5) % 6 == 0); }), true},
      {"checkerboard21.mtx", pattern_matrix(21, [](int i, int j) { return (i + j) % 2 == 0; })},  // 11!·10!
      {"ones21.mtx", ones_matrix(21)},  // odd row sums: no row of x is ever 0, nothing is skipped
  };
  for (const auto& [name, text, doubles] : cases) {
    CAPTURE(name);
    const std::string file = write_file(name, text);
    const json::value reference = compute_json(file, "dp", " --precision exact");
    const json::value cached = compute_json(file, "cpu-cached", " --precision exact");
    const json::value sparse = compute_json(file, "cpu-sparse", " --precision exact");
    CHECK(cached["exact"].as_bool());
    CHECK(cached["permanent"].as_string() == reference["permanent"].as_string());
    CHECK(sparse["permanent"].as_string() == reference["permanent"].as_string());
    if (doubles) {
      const json::value floating = compute_json(file, "cpu-cached", " --precision double");
      const double exact = std::stod(reference["permanent"].as_string());
      CHECK(std::fabs(floating["value"].as_number() - exact) <= floating["error_bound"].as_number() + 1e-9 * exact);
    }
    if (name == "domino6.mtx") CHECK(cached["permanent"].as_string() == "6728");
    MESSAGE(name << ": " << reference["permanent"].as_string());
  }
}

// --precision: exact beyond 128 bits (residues and the CRT) on cpu-sparse and cpu-cached, refusals
// naming the file, usage errors.
TEST_CASE("--precision exact, double and compensated") {
  const std::string cache = "SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache").string() + " ";
  const std::string ones = write_file("ones24.mtx", ones_matrix(24));  // perm = 24!, beyond the 128-bit bound
  const std::string factorial24 = "620448401733239439360000";
  for (const char* engine : {"cpu-sparse", "cpu-cached", "dp", "auto"}) {
    CAPTURE(engine);
    const auto r = cli_test::run_raw(cache + SPARSEPERM_CLI + " compute " + ones + " --engine " + engine +
                                     " --precision exact --json");
    REQUIRE(r.code == 0);
    const json::value v = json::parse(r.out);
    CHECK(v["exact"].as_bool());
    CHECK(v["permanent"].as_string() == factorial24);
    if (std::string(engine).rfind("cpu-", 0) == 0)
      CHECK(v["plan"].as_string().find("residues modulo 4 primes") != std::string::npos);
  }
  for (const char* precision : {"double", "compensated"}) {
    CAPTURE(precision);
    const auto r = run("compute " + ones + " --engine cpu-sparse --json --precision " + precision);
    REQUIRE(r.code == 0);
    const json::value v = json::parse(r.out);
    CHECK_FALSE(v["exact"].as_bool());
    CHECK(v["value"].as_number() == doctest::Approx(6.2044840173323941e23).epsilon(1e-9));
    // 24! is exact in long double (its odd part is below 2^64): the bound holds
    const long double error = std::fabs(static_cast<long double>(v["value"].as_number()) - 620448401733239439360000.0L);
    CHECK(error <= static_cast<long double>(v["error_bound"].as_number()));
    CHECK(v["trusted_digits"].as_number() >= 5);  // double's worst case over chains of 2^23 additions
  }
  // doubles are integers times powers of two: exact where each row's fit in 53 bits (0.5 · 1 · 3)
  const std::string reals = write_file("reals3.mtx", general + "3 3 3\n1 1 0.5\n2 2 1\n3 3 3\n");
  const std::string wide = write_file("wide3.mtx", general + "3 3 4\n1 1 0.5\n1 2 0.375\n2 2 1\n3 3 2\n");
  const std::string spread = write_file("spread3.mtx", general + "3 3 4\n1 1 0.5\n1 2 3e-300\n2 2 1\n3 3 2\n");
  for (const char* engine : {"cpu-sparse", "cpu-cached", "dp", "auto", "reference"}) {
    CAPTURE(engine);
    const auto r = run("compute " + reals + " --engine " + engine + " --precision exact --json");
    REQUIRE(r.code == 0);
    const json::value v = json::parse(r.out);
    CHECK(v["exact"].as_bool());
    CHECK(v["permanent"].as_string() == "1.5");
    // a row of 0.5 and 3e-300: reading rounds 3e-300, so no result is exact for the file's numbers
    const auto refused = run("compute " + spread + " --engine " + engine + " --precision exact");
    CHECK(refused.code == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err.rfind("error: " + spread + ":", 0) == 0);
    CHECK(refused.err.find("--precision exact") != std::string::npos);
    CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  }
  CHECK(json::parse(run("compute " + wide + " --precision exact --json").out)["permanent"].as_string() == "1");
  const auto bad = run("compute " + ones + " --precision quad");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("unknown precision 'quad'") != std::string::npos);
}

// The default precision: integer matrices exact on every engine that can hold them, in the cheapest
// exact arithmetic of its site (cpu-sparse: 128-bit integers where they hold, the generated engines:
// residues), compensated double where no exact arithmetic holds; inspect says which and why.
TEST_CASE("the default is exact on integer matrices, in each engine's cheapest exact arithmetic") {
  const std::string cache = "SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache").string() + " ";
  const std::string ones = write_file("ones24.mtx", ones_matrix(24));         // 24!, beyond the 128-bit bound
  const std::string small = write_file("distinct9.mtx", distinct_matrix(9));  // within it
  const json::value small_reference = compute_json(small, "reference");
  REQUIRE(small_reference["exact"].as_bool());
  for (const char* engine : {"cpu-sparse", "cpu-cached", "dp", "glynn", "auto"}) {
    CAPTURE(engine);
    const json::value big = compute_json(ones, engine);
    CHECK(big["exact"].as_bool());
    CHECK(big["permanent"].as_string() == "620448401733239439360000");
    const json::value v = compute_json(small, engine);
    CHECK(v["exact"].as_bool());
    CHECK(v["permanent"].as_string() == small_reference["permanent"].as_string());
    if (std::string(engine) == "cpu-sparse") {
      CHECK(big["plan"].as_string().find("residues modulo 4 primes") != std::string::npos);
      CHECK(v["plan"].as_string().find("128-bit") != std::string::npos);
    }
    if (std::string(engine) == "cpu-cached") {
      CHECK(big["plan"].as_string().find("residues modulo 4 primes") != std::string::npos);
      CHECK(v["plan"].as_string().find("residues modulo") != std::string::npos);
    }
  }
  // rows summing beyond 2^24 and a bound beyond 128 bits: no exact Ryser arithmetic, a bound instead
  std::string wide = "%%MatrixMarket matrix array integer general\n20 20\n";
  for (int k = 0; k < 400; ++k) wide += std::to_string(8388608 + k) + "\n";
  const json::value floating = compute_json(write_file("wide20.mtx", wide), "cpu-sparse");
  CHECK_FALSE(floating["exact"].as_bool());
  CHECK(floating["error_bound"].is_number());
  // inspect: the arithmetic of every Ryser estimate, and why the chosen engine's (a 0/1 matrix of
  // n = 26, p = 0.5, which a Ryser engine runs: 128 bits hold it, residues need 3 primes)
  const std::string graph = (cli_test::scratch_dir() / "o26.mtx").string();
  REQUIRE(run("generate --n 26 --density 0.5 --values ones --seed 3 -o " + graph).code == 0);
  const auto inspect = cli_test::run_raw(cache + "CUDA_VISIBLE_DEVICES= " + SPARSEPERM_CLI + " inspect " + graph);
  REQUIRE(inspect.code == 0);
  CHECK(std::regex_search(inspect.out, std::regex(R"(cpu-cached +[0-9.e+-]+ s +exact, residues modulo 3 primes)")));
  CHECK(std::regex_search(inspect.out, std::regex(R"(cpu-sparse +[0-9.e+-]+ s +exact, 128-bit integers)")));
  CHECK(std::regex_search(
      inspect.out,
      std::regex(
          R"(<- chosen\n +\(exact arithmetic: (128-bit integers|residues modulo 3 primes) \([0-9.]+x double\); )")));
}

TEST_CASE("auto runs cpu-cached where no GPU is there and it is predicted cheapest") {
  // n = 28, p = 0.5: a frontier too wide for dp, 2^27 Ryser steps; the GPU hidden, one thread (with
  // many cores cpu-sparse finishes before a module compiles, and the planner knows it)
  const std::string file = (cli_test::scratch_dir() / "c28.mtx").string();
  REQUIRE(run("generate --n 28 --density 0.5 --seed 2 -o " + file).code == 0);
  const auto r =
      cli_test::run_raw("CUDA_VISIBLE_DEVICES= SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache").string() + " " +
                        SPARSEPERM_CLI + " compute " + file + " --threads 1 --json --digits 8");
  REQUIRE(r.code == 0);
  const json::value v = json::parse(r.out);
  // (cpu-cached's a-priori bound certifies 9 digits here: under the default 10 auto runs the matrix
  // again in cpu-sparse's double-double)
  CHECK(v["engine"].as_string() == "cpu-cached");
  const json::value cpu = json::parse(run("compute " + file + " --engine cpu-sparse --json").out);
  CHECK(v["value"].as_number() == doctest::Approx(cpu["value"].as_number()).epsilon(1e-10));
}

TEST_CASE("cpu-cached without a compiler, or with one that fails: one clear line, exit code 2") {
  const std::string file = write_file("ones5.mtx", ones_matrix(5));
  const std::string cache = " SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache-errors").string() + " ";
  const auto missing = cli_test::run_raw("SPARSEPERM_CXX=/nonexistent/g++" + cache + SPARSEPERM_CLI + " compute " +
                                         file + " --engine cpu-cached");
  CHECK(missing.code == 2);
  CHECK(missing.out.empty());
  CHECK(missing.err.rfind(
            "error: engine 'cpu-cached' is not available: it compiles a module for each matrix and needs a C++20 "
            "compiler, which was not found",
            0) == 0);
  const auto failing = cli_test::run_raw("SPARSEPERM_CXX=/bin/false" + cache + SPARSEPERM_CLI + " compute " + file +
                                         " --engine cpu-cached");
  CHECK(failing.code == 2);
  CHECK(failing.out.empty());
  CHECK(failing.err.rfind("error: compiling the cpu-cached module failed (false exit code 1); its messages are in ",
                          0) == 0);
  CHECK(std::count(failing.err.begin(), failing.err.end(), '\n') == 1);
}

TEST_CASE("files that cannot be read, and usage mistakes") {
  check_error(run("compute /nonexistent/m.mtx"), "/nonexistent/m.mtx: cannot open: no such file");
  const std::string dir = cli_test::scratch_dir().string();
  check_error(run("compute " + dir), dir + ": cannot read: it is a directory");
  const std::string ok = write_file("ok.mtx", ones_matrix(3));
  check_error(run("compute " + ok + " --engine warp-drive"),
              "unknown engine 'warp-drive' (engines: auto, gpu-cached, gpu-hybrid, gpu-purereg, gpu-sparse, "
              "gpu-dense, cpu-cached, cpu-sparse, dp, gpu-dp, glynn, gpu-glynn, reference)");
  check_error(run("compute " + ok + " --threads two"), "option '--threads': 'two' is not a whole number");
  check_error(run("compute " + ok + " --frobnicate"), "unknown option '--frobnicate'");
  check_error(run("compute"), "compute needs exactly one FILE (see 'sparseperm compute --help')");
  check_error(run("launch"),
              "unknown command 'launch' (commands: compute, inspect, generate, bench; see 'sparseperm --help')");
}

TEST_CASE("generate is deterministic and its output computes") {
  const std::string a = (cli_test::scratch_dir() / "a.mtx").string();
  const std::string b = (cli_test::scratch_dir() / "b.mtx").string();
  const std::string c = (cli_test::scratch_dir() / "c.mtx").string();
  REQUIRE(run("generate --n 16 --density 0.3 --seed 7 -o " + a).code == 0);
  REQUIRE(run("generate --n 16 --density=0.3 --seed 7 --output " + b).code == 0);
  REQUIRE(run("generate --n 16 --density 0.3 --seed 8 -o " + c).code == 0);
  CHECK(cli_test::read_file(a) == cli_test::read_file(b));
  CHECK(cli_test::read_file(a) != cli_test::read_file(c));
  CHECK(cli_test::read_file(a).find(
            "% generated by: sparseperm generate --n 16 --density 0.3 --seed 7 --values uniform") != std::string::npos);
  // The same matrix through both engines.
  const json::value fast = json::parse(run("compute " + a + " --engine cpu-sparse --json").out);
  const json::value slow = json::parse(run("compute " + a + " --engine reference --json").out);
  CHECK(fast["value"].as_number() == doctest::Approx(slow["value"].as_number()).epsilon(1e-12));
  // Integer values are exact.
  REQUIRE(run("generate --n 12 --density 0.4 --seed 3 --values int:-3:3 -o " + a).code == 0);
  const json::value exact = json::parse(run("compute " + a + " --json").out);
  CHECK(exact["exact"].as_bool());
  CHECK(exact["permanent"].as_string() ==
        json::parse(run("compute " + a + " --engine reference --json").out)["permanent"].as_string());

  check_error(run("generate --n 16 --density 0.3 -o " + a), "generate needs --seed (see 'sparseperm generate --help')");
  check_error(run("generate --n 16 --density 2 --seed 1 -o " + a),
              "option '--density': 2 is outside [0.000000, 1.000000]");
  check_error(run("generate --n 16 --density 0.3 --seed 1 --values int:0:0 -o " + a),
              "option '--values': the range '0:0' holds no nonzero integer");
  check_error(run("generate --n 16 --density 0.3 --seed 1 --values gaussian -o " + a),
              "option '--values': 'gaussian' is not uniform, ones, complex, int:K or int:A:B");
}

TEST_CASE("inspect shows structure and plans") {
  const std::string file = write_file("ones6.mtx", ones_matrix(6));
  const auto r = run("inspect " + file);
  CHECK(r.code == 0);
  for (const char* part :
       {"matrix           6 x 6, 36 nonzeros", "structural rank  6 (a perfect matching exists)",
        "permanent ordering (Algorithm 3):", "register partition (Algorithm 4", "launch plan (Algorithm 2",
        "Dulmage-Mendelsohn fine blocks   1 (sizes 6)", "dp frontier 6 rows", "compute --engine auto would run: glynn",
        "gpu-cached plan (cost model", "static Gray blocks         b = ", "cached levels r(0..b)      0 6",
        "in double-double           b = 5, k = 6, 0 levels above the blocks"}) {
    CAPTURE(part);
    CHECK(r.out.find(part) != std::string::npos);
  }
  // a sparse complex matrix: double-double's few register rows and short blocks, levels kept above them
  const std::string sparse = (cli_test::scratch_dir() / "complex40.mtx").string();
  REQUIRE(run("generate --n 40 --density 0.3 --values complex --seed 1 -o " + sparse).code == 0);
  const auto c = run("inspect " + sparse);
  CAPTURE(c.out);
  CHECK(std::regex_search(c.out,
                          std::regex(R"(in double-double +b = [1-4], k = 1[0-9], [1-8] levels above the blocks)")));
  const std::string singular = write_file("singular2.mtx", general + "2 2 2\n1 1 1\n2 1 1\n");
  CHECK(run("inspect " + singular).out.find("permanent 0, without an engine: structurally singular") !=
        std::string::npos);
}

TEST_CASE("bench prints a table and writes CSV") {
  const std::string csv = (cli_test::scratch_dir() / "bench.csv").string();
  const auto r =
      run("bench --engines cpu-sparse,reference --n 8,10 --density 0.5 --threads 1,2 --repeats 1 --csv " + csv);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("| engine | precision | n | p | threads | seconds (median)") != std::string::npos);
  CHECK(std::regex_search(r.out, std::regex(R"(\| cpu-sparse \| default \| 10 \| 0\.5 \| 2 \|)")));
  CHECK(std::regex_search(r.out, std::regex(R"(\| reference \| default \| 8 \| 0\.5 \| 1 \|)")));
  CHECK(r.err.find("disagree") == std::string::npos);
  const std::string table = cli_test::read_file(csv);
  CHECK(table.rfind("engine,precision,n,density,threads,seed,median_seconds,min_seconds,max_seconds,registers_per_"
                    "thread,compile_seconds",
                    0) == 0);
  CHECK(std::count(table.begin(), table.end(), '\n') ==
        1 + 2 * 3);  // per n: cpu-sparse at 1 and 2 threads, reference once
  // precisions side by side: a row each, all agreeing (exact on a 0/1 matrix)
  const auto p =
      run("bench --engines cpu-sparse --n 12 --density 0.5 --values ones --precisions double,compensated,exact "
          "--repeats 1");
  REQUIRE(p.code == 0);
  CHECK(std::regex_search(p.out, std::regex(R"(\| cpu-sparse \| exact \| 12 \| 0\.5 \|)")));
  CHECK(std::regex_search(p.out, std::regex(R"(\| cpu-sparse \| compensated \| 12 \| 0\.5 \|)")));
  // the last column: exact, or the digits the error bound guarantees
  CHECK(std::regex_search(p.out, std::regex(R"(\| cpu-sparse \| exact \| 12 \| .* \| exact \|)")));
  CHECK(std::regex_search(p.out, std::regex(R"(\| cpu-sparse \| double \| 12 \| .* \| 1[0-7] \|)")));
  CHECK(p.err.find("disagree") == std::string::npos);
  check_error(run("bench --precisions quad"), "bench: unknown precision 'quad' (default, double, compensated, exact)");
  check_error(run("bench --engines cpu-sparse --baseline reference"),
              "bench: the baseline 'reference' is not among --engines");
}

TEST_CASE("complex files: a + bi, the JSON parts, and a generated engine's module for them") {
  const std::string file = write_file("z.mtx",
                                      "%%MatrixMarket matrix coordinate complex general\n2 2 3\n"
                                      "1 1 1 1\n1 2 2 0\n2 2 0 -3\n");
  const auto r = run("compute " + file);  // (1 + i)(−3i) = 3 − 3i
  CHECK(r.code == 0);
  CHECK(r.out.find("permanent  3 - 3i  (exact)") != std::string::npos);
  const json::value v = json::parse(run("compute " + file + " --json").out);
  CHECK(v["permanent"].as_string() == "3 - 3i");
  CHECK(v["value"].is_null());
  CHECK(v["complex"].as_bool());
  CHECK(v["real"].as_string() == "3");
  CHECK(v["imag"].as_string() == "-3");
  CHECK(v["imag_value"].as_number() == -3);
  const json::value cached = json::parse(run("compute " + file + " --engine cpu-cached --json").out);
  CHECK(cached["engine"].as_string() == "cpu-cached");
  CHECK(cached["permanent"].as_string() == "3 - 3i");
  CHECK(cached["exact"].as_bool());
  const std::string floating = write_file("zf.mtx",
                                          "%%MatrixMarket matrix array complex hermitian\n2 2\n"
                                          "0.5 0\n0.25 0.125\n2 0\n");
  const json::value f = json::parse(run("compute " + floating + " --json --engine cpu-sparse").out);
  CHECK_FALSE(f["exact"].as_bool());
  CHECK(f["real_value"].as_number() == doctest::Approx(1 + 0.25 * 0.25 + 0.125 * 0.125));
  CHECK(std::fabs(f["imag_value"].as_number()) <= f["error_bound"].as_number());
}

TEST_CASE("multiplicities: the repeated matrix without writing it, and mistakes in one line") {
  // [[1, 2], [3, 4]] with row 1 twice and column 2 twice: [[1, 2, 2], [1, 2, 2], [3, 4, 4]]
  const std::string file = write_file("m2.mtx", general + "2 2 4\n1 1 1\n1 2 2\n2 1 3\n2 2 4\n");
  const std::string expanded =
      write_file("m3.mtx", general + "3 3 9\n1 1 1\n1 2 2\n1 3 2\n2 1 1\n2 2 2\n2 3 2\n3 1 3\n3 2 4\n3 3 4\n");
  const json::value a =
      json::parse(run("compute " + file + " --row-multiplicities 2,1 --column-multiplicities 1,2 --json").out);
  const json::value b = json::parse(run("compute " + expanded + " --engine reference --json").out);
  CHECK(a["permanent"].as_string() == b["permanent"].as_string());
  // ten copies of each line: glynn's 110 terms, not 2^19 Gray steps
  const std::string tens = " --row-multiplicities 10,10 --column-multiplicities 10,10 --json";
  const json::value g = json::parse(run("compute " + file + tens).out);
  CHECK(g["engine"].as_string() == "glynn");
  CHECK(g["permanent"].as_string() ==
        json::parse(run("compute " + file + tens + " --engine cpu-sparse --precision exact").out)["permanent"]
            .as_string());
  check_error(run("compute " + file + " --row-multiplicities 2,1,1"),
              "option '--row-multiplicities': 3 counts for a matrix of 2 rows");
  check_error(run("compute " + file + " --row-multiplicities 2,2 --column-multiplicities 1,2"),
              "the row multiplicities sum to 4 and the column multiplicities to 3: the repeated matrix would not be "
              "square");
  check_error(run("compute " + file + " --column-multiplicities 1,x"),
              "option '--column-multiplicities': 'x' is not a whole number");
}

TEST_CASE("no absurd jobs: a run estimated beyond --time-limit is refused before it starts") {
  // the 7-cube's biadjacency, 64 x 64 with 7 a row: no block structure, a wide frontier, 2^63 Gray steps
  std::vector<int> index(128);
  int even = 0, odd = 0;
  for (int v = 0; v < 128; ++v) index[v] = __builtin_popcount(static_cast<unsigned>(v)) % 2 == 0 ? even++ : odd++;
  std::string cube = "%%MatrixMarket matrix coordinate pattern general\n64 64 448\n";
  for (int v = 0; v < 128; ++v) {
    if (__builtin_popcount(static_cast<unsigned>(v)) % 2 != 0) continue;
    for (int bit = 0; bit < 7; ++bit)
      cube += std::to_string(index[v] + 1) + " " + std::to_string(index[v ^ (1 << bit)] + 1) + "\n";
  }
  const std::string path = write_file("cube7.mtx", cube);
  const auto start = std::chrono::steady_clock::now();
  for (const std::string engine : {"", " --engine cpu-sparse", " --engine cpu-sparse --time-limit 7d"}) {
    CAPTURE(engine);
    const auto r = run("compute " + path + engine);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("error: " + path + ":2: the run is estimated at ", 0) == 0);
    CHECK(r.err.find("beyond the time limit of ") != std::string::npos);
    CHECK(r.err.find("--time-limit raises it") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  const auto r = run("compute " + path);
  CHECK(r.err.find("beyond the time limit of 24 hours") != std::string::npos);
  CHECK(run("inspect " + path).out.find("  but it refuses: the run is estimated at ") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));  // refused, not run
  // a small job under a tight limit is refused too, and runs without it; bad durations are usage errors
  const std::string ones = write_file("ones12.mtx", ones_matrix(12));
  const auto tight = run("compute " + ones + " --engine cpu-sparse --time-limit 1e-9s");
  CHECK(tight.code == 2);
  CHECK(tight.err.find("beyond the time limit of 1e-09 s") != std::string::npos);
  CHECK(run("compute " + ones + " --engine cpu-sparse --time-limit none").out.find("479001600") != std::string::npos);
  check_error(run("compute " + ones + " --time-limit 3"),
              "option '--time-limit': '3' is not a duration (a positive number with s, m, h or d, e.g. 36h; or none)");
  check_error(run("compute " + ones + " --time-limit -1h"),
              "option '--time-limit': '-1h' is not a duration (a positive number with s, m, h or d, e.g. 36h; or "
              "none)");
}

TEST_CASE("checkpoints: a killed run resumes from its journal with the same value; mismatches are refused") {
  const std::string dir = cli_test::scratch_dir().string();
  // kill -9 in the middle of an exact run (once its journal holds some chunks), then resume
  const std::string counting = dir + "/count30.mtx";
  REQUIRE(run("generate --n 30 --density 0.25 --values ones --seed 3 -o " + counting).code == 0);
  const std::string journal = dir + "/count30.journal";
  std::filesystem::remove(journal);
  const std::string command = "SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache").string() + " " +
                              SPARSEPERM_CLI + " compute " + counting +
                              " --engine cpu-sparse --threads 2 --checkpoint " + journal;  // compute_json's key
  const auto killed = signal_once_journaled(command, journal, "KILL");
  CHECK(killed.out.find("stopped 137 ") != std::string::npos);
  const auto resumed = compute_json(counting, "cpu-sparse", " --threads 1 --checkpoint " + journal);
  const auto reference = compute_json(counting, "dp");
  CHECK(resumed["permanent"].as_string() == reference["permanent"].as_string());
  std::smatch found;
  const std::string plan = resumed["plan"].as_string();
  REQUIRE(std::regex_search(plan, found, std::regex("([0-9]+) of 4096 chunks resumed")));
  const int from_journal = std::stoi(found[1]);
  CHECK(from_journal > 0);
  CHECK(from_journal < 4096);
  MESSAGE("killed after " << from_journal << " of 4096 chunks; resumed to the same count");
  // a floating run resumed from a journal cut in the middle of a record: bit for bit the same double
  // (n = 24: 2^23 steps in 4096 chunks)
  const std::string real = dir + "/real24.mtx";
  REQUIRE(run("generate --n 24 --density 0.5 --seed 9 -o " + real).code == 0);
  const std::string full = dir + "/real24.journal", cut = dir + "/real24-cut.journal";
  std::filesystem::remove(full);
  std::filesystem::remove(cut);
  const auto whole = compute_json(real, "cpu-sparse", " --precision double --checkpoint " + full);
  const auto size = std::filesystem::file_size(full);
  const std::uintmax_t header = 95, record = (size - header) / 4096;  // the header line, sealed records
  REQUIRE(header + 4096 * record == size);
  std::filesystem::copy_file(full, cut);
  std::filesystem::resize_file(cut, header + 1000 * record + record / 2);
  const auto again = compute_json(real, "cpu-sparse", " --precision double --threads 1 --checkpoint " + cut);
  CHECK(again["permanent"].as_string() == whole["permanent"].as_string());
  CHECK(again["plan"].as_string().find("1000 of 4096 chunks resumed") != std::string::npos);
  // a header cut short (killed during the journal's first write) starts a fresh journal
  const std::string torn = write_file("torn.journal", "sparseperm jour");
  const auto fresh = compute_json(real, "cpu-sparse", " --precision double --checkpoint " + torn);
  CHECK(fresh["permanent"].as_string() == whole["permanent"].as_string());
  CHECK(fresh["plan"].as_string().find("0 of 4096 chunks resumed") != std::string::npos);
  // another matrix, another arithmetic: refused; auto does not keep a journal
  const auto other = run("compute " + counting + " --engine cpu-sparse --checkpoint " + full);
  CHECK(other.code == 2);
  CHECK(other.err.find("it is the journal of another run") != std::string::npos);
  const auto arithmetic = run("compute " + real + " --engine cpu-sparse --precision compensated --checkpoint " + full);
  CHECK(arithmetic.code == 2);
  CHECK(arithmetic.err.find("it is the journal of another run") != std::string::npos);
  const auto automatic = run("compute " + real + " --checkpoint " + full);
  CHECK(automatic.code == 2);
  CHECK(automatic.err.rfind("error: --checkpoint: engine 'auto' does not keep a journal yet; name one that does "
                            "with --engine (",
                            0) == 0);
}

TEST_CASE("checkpoints: SIGINT stops at once and leaves a journal that resumes to the same value") {
  const std::string dir = cli_test::scratch_dir().string();
  const std::string counting = dir + "/count30i.mtx";
  REQUIRE(run("generate --n 30 --density 0.25 --values ones --seed 4 -o " + counting).code == 0);
  const std::string journal = dir + "/count30i.journal";
  std::filesystem::remove(journal);
  const std::string command = "SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache").string() + " " +
                              SPARSEPERM_CLI + " compute " + counting +
                              " --engine cpu-sparse --threads 2 --checkpoint " + journal;  // compute_json's key
  const auto stopped = signal_once_journaled(command, journal, "INT");
  std::smatch found;
  REQUIRE(std::regex_search(stopped.out, found, std::regex("stopped ([0-9]+) ([0-9]+)")));
  CHECK(found[1] == "130");
  CHECK(std::stoi(found[2]) < 1000);  // milliseconds from SIGINT to the exit
  CHECK(stopped.err.find("error: interrupted by SIGINT") != std::string::npos);
  CHECK(stopped.err.find("note: the checkpoint journal '" + journal +
                         "' keeps the finished chunks: the same command resumes from them") != std::string::npos);
  MESSAGE("SIGINT to exit: " << found[2] << " ms");
  const auto resumed = compute_json(counting, "cpu-sparse", " --threads 2 --checkpoint " + journal);
  CHECK(resumed["permanent"].as_string() == compute_json(counting, "dp")["permanent"].as_string());
  const std::string plan = resumed["plan"].as_string();
  REQUIRE(std::regex_search(plan, found, std::regex("([0-9]+) of 4096 chunks resumed")));
  CHECK(std::stoi(found[1]) > 0);
  // cpu-cached keeps a journal too: a second run finds every chunk in it
  const std::string small = dir + "/count22.mtx";
  REQUIRE(run("generate --n 22 --density 0.3 --values ones --seed 4 -o " + small).code == 0);
  const std::string cached_journal = dir + "/count22.journal";
  std::filesystem::remove(cached_journal);
  const auto first = compute_json(small, "cpu-cached", " --checkpoint " + cached_journal);
  const auto second = compute_json(small, "cpu-cached", " --checkpoint " + cached_journal);
  CHECK(first["permanent"].as_string() == compute_json(small, "dp")["permanent"].as_string());
  CHECK(second["permanent"].as_string() == first["permanent"].as_string());
  CHECK(second["plan"].as_string().find("journal " + cached_journal + ": 2048 of 2048 chunks resumed") !=
        std::string::npos);
}

TEST_CASE("--devices: a list, or all; mistakes in one line") {
  const std::string ones = write_file("ones5d.mtx", ones_matrix(5));
  check_error(run("compute " + ones + " --devices 0,,1"), "option '--devices': empty item in '0,,1'");
  check_error(run("compute " + ones + " --devices all,0"),
              "option '--devices': 'all' stands alone, not in a list of devices ('all,0')");
  CHECK(run("compute " + ones + " --devices x").err.rfind("error: option '--devices': 'x' is not", 0) == 0);
  CHECK(run("compute " + ones + " --devices 0,1 --engine cpu-sparse --json").code == 0);  // CPU engines ignore it
}

#if defined(SPARSEPERM_TEST_MPIRUN)
TEST_CASE("MPI: 2 to 4 ranks give the same value as one process, bit for bit; a rank's error ends the job") {
  const std::string dir = cli_test::scratch_dir().string();
  const std::string mpirun = std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") +
                             SPARSEPERM_TEST_MPIRUN + " --oversubscribe -np ";
  const auto ranks_json = [&](int ranks, const std::string& arguments) {
    const auto r =
        cli_test::run_raw("SPARSEPERM_CACHE=" + (cli_test::scratch_dir() / "cache").string() + " " + mpirun +
                          std::to_string(ranks) + " " + SPARSEPERM_CLI + " compute " + arguments + " --json");
    CAPTURE(r.err);
    REQUIRE(r.code == 0);
    return json::parse(r.out);  // rank 0 alone prints
  };
  const std::string counting = dir + "/count27m.mtx", real = dir + "/real24m.mtx";
  REQUIRE(run("generate --n 27 --density 0.3 --values ones --seed 6 -o " + counting).code == 0);
  REQUIRE(run("generate --n 24 --density 0.5 --seed 6 -o " + real).code == 0);
  const std::string exact = compute_json(counting, "dp")["permanent"].as_string();
  const std::string journal = dir + "/real24m.journal";
  std::filesystem::remove(journal);
  const auto alone = compute_json(real, "cpu-sparse", " --precision double --checkpoint " + journal);  // fixed chunks
  for (const int ranks : {2, 3, 4}) {
    CAPTURE(ranks);
    for (const char* engine : {"cpu-sparse", "cpu-cached"}) {
      CAPTURE(engine);
      const auto counted = ranks_json(ranks, counting + " --threads 1 --engine " + engine);
      CHECK(counted["permanent"].as_string() == exact);
      CHECK(counted["plan"].as_string().find(std::to_string(ranks) +
                                             " MPI ranks, the chunks dealt out by rank 0 as the ranks ask") !=
            std::string::npos);
    }
    const auto floating = ranks_json(ranks, real + " --threads 1 --engine cpu-sparse --precision double");
    CHECK(floating["permanent"].as_string() == alone["permanent"].as_string());
    CHECK(floating["error_bound"].as_number() == alone["error_bound"].as_number());
  }
  CHECK(ranks_json(2, counting)["permanent"].as_string() == exact);  // auto: the ranks plan alike
  // journals: one a rank; a resumed run finds its chunks and gives the same value
  const std::string shared_journal = dir + "/count27m.journal";
  for (const char* suffix : {".0-of-2", ".1-of-2"}) std::filesystem::remove(shared_journal + suffix);
  const auto journaled = ranks_json(2, counting + " --threads 1 --engine cpu-sparse --checkpoint " + shared_journal);
  CHECK(std::filesystem::exists(shared_journal + ".0-of-2"));
  CHECK(std::filesystem::exists(shared_journal + ".1-of-2"));
  const auto again = ranks_json(2, counting + " --threads 1 --engine cpu-sparse --checkpoint " + shared_journal);
  CHECK(again["permanent"].as_string() == exact);
  CHECK(again["plan"].as_string().find(", 4096 from the ranks' journals") != std::string::npos);
  CHECK(again["plan"].as_string().find("the ranks ran 0 to 0 chunks") != std::string::npos);
  // another rank count: the same chunks, taken from the 2 ranks' journals
  const auto alone_again = compute_json(counting, "cpu-sparse", " --threads 1 --checkpoint " + shared_journal);
  CHECK(alone_again["permanent"].as_string() == exact);
  CHECK(alone_again["plan"].as_string().find(
            "0 of 4096 chunks resumed from it, 4096 taken from the journals of a run on another rank count") !=
        std::string::npos);
  const auto three = ranks_json(3, counting + " --threads 1 --engine cpu-sparse --checkpoint " + shared_journal);
  CHECK(three["permanent"].as_string() == exact);
  CHECK(three["plan"].as_string().find(", 4096 from the ranks' journals") != std::string::npos);
  // a rank's own error: its line, with its rank, and the job ends with the tool's exit code
  const auto missing = cli_test::run_raw(mpirun + "2 " + SPARSEPERM_CLI + " compute " + dir + "/no-such.mtx");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("error: rank ") != std::string::npos);
  CHECK(missing.err.find("no-such.mtx: cannot open") != std::string::npos);
  // ranks started with different engines (dp alone would finish on rank 0 while cpu-sparse's rank
  // waited forever for its exchange) or different matrices: every rank refuses, rank 0 says why
  const std::string each = std::string(SPARSEPERM_CLI) + " compute ";
  const auto engines = cli_test::run_raw("timeout 120 env " + mpirun + "1 " + each + counting +
                                         " --engine dp : -np 1 " + each + counting + " --engine cpu-sparse");
  CHECK(engines.code == 2);
  CHECK(engines.out.empty());
  CHECK(engines.err.find("error: the MPI ranks were started differently (rank 0: engine dp, precision auto") !=
        std::string::npos);
  CHECK(engines.err.find("rank 1: engine cpu-sparse, precision auto") != std::string::npos);
  const auto matrices = cli_test::run_raw("timeout 120 env " + mpirun + "1 " + each + counting +
                                          " --engine cpu-sparse : -np 1 " + each + real + " --engine cpu-sparse");
  CHECK(matrices.code == 2);
  CHECK(matrices.err.find("a 27 x 27 matrix of") != std::string::npos);
  CHECK(matrices.err.find("a 24 x 24 matrix of") != std::string::npos);
}
#endif
