// The command-line tool against an attacker and a careless user: file names that try to become code,
// a module cache others planted things in, links that try to redirect writes, names and values that
// try to steer a terminal or forge a line, numbers that must not be called exact, and inputs that used
// to crash, hang or take quadratic time. Each case names what it tries; each must end in a right answer
// or one clear line with exit code 2.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sparseperm/detail/sha256.cuh>
#include <sparseperm/detail/text.cuh>
#include <sparseperm/module/cache.cuh>
#include "json_reader.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "cli_runner.hpp"

namespace fs = std::filesystem;
namespace json = sparseperm::json;
using cli_test::read_file;
using cli_test::run_raw;

namespace {

const std::string cli = SPARSEPERM_CLI;
const std::string gen = SPARSEPERM_GEN;

// A word for sh: single-quoted, any byte but NUL.
std::string quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = cli_test::scratch_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  return dir;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// The 11 x 11 Mycielski graph M4's adjacency: permanent 250 (the example).
const char* mycielski4 =
    "%%MatrixMarket matrix coordinate pattern symmetric\n11 11 20\n2 1\n4 1\n7 1\n9 1\n3 2\n6 2\n8 2\n5 3\n7 3\n10 3\n"
    "5 4\n6 4\n10 4\n8 5\n9 5\n11 6\n11 7\n11 8\n11 9\n11 10\n";
// Permanent 2.
const char* two = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 1\n2 2 2\n";

std::string compute_in(const fs::path& cache, const std::string& file, const std::string& extra = "") {
  return "SPARSEPERM_CACHE=" + quote(cache.string()) + " " + cli + " compute " + quote(file) +
         " --engine cpu-cached --json " + extra;
}

json::value computed(const cli_test::run_result& r) {
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

// The cache entry a cpu-cached result names in its plan.
fs::path entry_of(const json::value& v) {
  const std::string plan = v["plan"].as_string();
  const std::smatch found = [&] {
    std::smatch m;
    std::regex_search(plan, m, std::regex("module (?:compiled into|from the cache) (/[^;]+)"));
    return m;
  }();
  REQUIRE(found.size() == 2);
  return fs::path(found[1].str());
}

// The files a module may be kept in, by this version's name and the one before it.
void plant(const fs::path& entry, const std::string& bytes) {
  for (const char* name : {"module.so", "module.sealed"}) {
    fs::remove(entry / name);
    write(entry / name, bytes);
  }
}

// A shared library whose constructor creates `marker`: what an attacker plants.
std::string malicious_library(const fs::path& dir, const fs::path& marker) {
  write(dir / "evil.cpp",
        "#include <cstdio>\n__attribute__((constructor)) static void pwn() { std::fclose(std::fopen(\"" +
            marker.string() + "\", \"w\")); }\nextern \"C\" int sparseperm_host_module = 0;\n");
  const auto r =
      run_raw("g++ -shared -fPIC -o " + quote((dir / "evil.so").string()) + " " + quote((dir / "evil.cpp").string()));
  REQUIRE(r.code == 0);
  return read_file(dir / "evil.so");
}

bool has_compiler() { return run_raw("g++ --version").code == 0; }

}  // namespace

TEST_CASE("a file's name never becomes code: compute --engine cpu-cached, and sparseperm-gen's header compiled") {
  if (!has_compiler()) return;
  const fs::path dir = fresh_dir("injection");
  // valid C++ both where the old header put the name (a // comment line) and inside its string
  // literal: a static initialiser that runs `touch PWNED` when the module is loaded
  const std::string name = "x\";\n#include <cstdlib>\ninline static int pwn = std::system(\"touch PWNED\");\n#pragma x";
  write(dir / name, mycielski4);
  const auto r = run_raw("cd " + quote(dir.string()) + " && " + compute_in(dir / "cache", name));
  CHECK(computed(r)["permanent"].as_string() == "250");
  CHECK_FALSE(fs::exists(dir / "PWNED"));

  const auto g = run_raw("cd " + quote(dir.string()) + " && " + gen + " " + quote(name) + " -o header.cuh");
  REQUIRE(g.code == 0);
  const std::string header = read_file(dir / "header.cuh");
  const std::smatch id = [&] {
    std::smatch m;
    std::regex_search(header, m, std::regex("namespace sparseperm::generated::([A-Za-z_0-9]+) \\{"));
    return m;
  }();
  REQUIRE(id.size() == 2);
  write(dir / "use.cpp", "#include \"header.cuh\"\n#include <cstdio>\nint main() { std::fputs(sparseperm::generated::" +
                             id[1].str() + "::matrix::source, stdout); }\n");
  const auto built = run_raw("cd " + quote(dir.string()) + " && g++ -std=c++20 -I" + quote(SPARSEPERM_SOURCE_INCLUDE) +
                             " use.cpp -o use");
  REQUIRE(built.code == 0);
  const auto used = run_raw("cd " + quote(dir.string()) + " && ./use");
  CHECK(used.out == name);  // the name, byte for byte, and nothing ran
  CHECK_FALSE(fs::exists(dir / "PWNED"));
}

namespace {

// The cache the attacks below start from: refused while others may write to it or while it is
// another user's, then holding the modules of m4 and of a second matrix. Built once: doctest runs
// the test case's body again for each subcase, and each build compiles two modules (seconds each);
// every subcase starts from a copy of the pristine entry instead.
struct attacked_cache {
  fs::path dir, cache, entry, entry2, pristine, marker;
  std::string m4, m2, evil;
};

const attacked_cache& prepared_cache() {
  static const attacked_cache prepared = [] {
    attacked_cache c;
    c.dir = fresh_dir("cache-attacks");
    c.cache = c.dir / "cache";
    c.m4 = (c.dir / "m4.mtx").string();
    c.m2 = (c.dir / "two.mtx").string();
    write(c.m4, mycielski4);
    write(c.m2, two);
    c.marker = c.dir / "PWNED";
    c.evil = malicious_library(c.dir, c.marker);
    // a cache others may write to, or another user's: refused before anything is compiled or loaded
    fs::create_directories(c.cache);
    ::chmod(c.cache.c_str(), 0777);
    const auto open_cache = run_raw(compute_in(c.cache, c.m4));
    CHECK(open_cache.code == 2);
    CHECK(open_cache.err.find("may be written by others") != std::string::npos);
    CHECK(fs::is_empty(c.cache));
    if (::geteuid() == 0) {
      const fs::path theirs = c.dir / "theirs";
      fs::create_directories(theirs);
      ::chmod(theirs.c_str(), 0700);
      REQUIRE(::chown(theirs.c_str(), 65534, 65534) == 0);
      const auto r = run_raw(compute_in(theirs, c.m4));
      CHECK(r.code == 2);
      CHECK(r.err.find("belongs to another user") != std::string::npos);
    }
    ::chmod(c.cache.c_str(), 0700);
    c.entry = entry_of(computed(run_raw(compute_in(c.cache, c.m4))));
    c.entry2 = entry_of(computed(run_raw(compute_in(c.cache, c.m2))));
    c.pristine = c.dir / "pristine-entry";
    fs::copy(c.entry, c.pristine, fs::copy_options::recursive);
    return c;
  }();
  return prepared;
}

}  // namespace

TEST_CASE("the module cache: private, verified before loading, rebuilt when anything is wrong") {
  if (!has_compiler()) return;
  const attacked_cache& prepared = prepared_cache();
  const fs::path &dir = prepared.dir, &cache = prepared.cache, &entry = prepared.entry, &entry2 = prepared.entry2,
                 &marker = prepared.marker;
  const std::string &m4 = prepared.m4, &evil = prepared.evil;
  // this subcase's entry: as m4's first run left it
  fs::remove_all(entry);
  fs::copy(prepared.pristine, entry, fs::copy_options::recursive);
  ::chmod(entry.c_str(), 0700);
  struct stat status {};
  REQUIRE(::stat(cache.c_str(), &status) == 0);
  CHECK((status.st_mode & 0777) == 0700);
  const auto again = [&] { return computed(run_raw(compute_in(cache, m4)))["permanent"].as_string(); };

  SUBCASE("a planted module is not loaded") {
    plant(entry, evil);
    CHECK(again() == "250");
    CHECK_FALSE(fs::exists(marker));
  }
  SUBCASE("a link at the module's path is not followed") {
    write(dir / "evil.so.copy", evil);
    for (const char* name : {"module.so", "module.sealed"}) {
      fs::remove(entry / name);
      fs::create_symlink(dir / "evil.so.copy", entry / name);
    }
    CHECK(again() == "250");
    CHECK_FALSE(fs::exists(marker));
  }
  SUBCASE("another matrix's module copied into the entry does not answer for this one") {
    for (const char* name : {"module.so", "module.sealed"}) {
      if (fs::exists(entry2 / name)) {
        fs::remove(entry / name);
        fs::copy_file(entry2 / name, entry / name);
      }
    }
    CHECK(again() == "250");
    // even sealed again with this user's key for this entry: the module's own matrix gives it away
    const std::string key = read_file(cache / "key");
    const auto sealed = sparseperm::detail::unseal_module(key, entry2.filename().string(), entry2 / "module.sealed");
    if (sealed) {  // (this version's layout)
      fs::remove(entry / "module.sealed");
      write(entry / "module.sealed", sparseperm::detail::seal_module(key, entry.filename().string(), *sealed));
      const json::value v = computed(run_raw(compute_in(cache, m4)));
      CHECK(v["permanent"].as_string() == "250");
      CHECK(v["seconds"]["compile"].as_number() > 0);  // rebuilt
    }
  }
  SUBCASE("a truncated module is rebuilt, not loaded") {
    for (const char* name : {"module.so", "module.sealed"}) {
      if (fs::exists(entry / name)) fs::resize_file(entry / name, fs::file_size(entry / name) / 2);
    }
    CHECK(again() == "250");
  }
  SUBCASE("a header planted in an entry does not enter a compile") {
    for (const char* name : {"module.so", "module.sealed"}) fs::remove(entry / name);
    write(entry / "cstdint", "#error planted header\n");
    CHECK(again() == "250");
  }
  SUBCASE("the compiler's log is not written through a planted link") {
    write(dir / "victim", "precious");
    for (const char* name : {"module.so", "module.sealed", "compile.log"}) fs::remove(entry / name);
    fs::create_symlink(dir / "victim", entry / "compile.log");
    CHECK(again() == "250");
    CHECK(read_file(dir / "victim") == "precious");
  }
  SUBCASE("no temporary file at a predictable name") {
    // links at the names a compiler-version file of the next few thousand processes would have had
    const fs::path tmp = dir / "tmp";
    fs::create_directories(tmp);
    write(dir / "victim", "precious");
    int last = 0;
    std::ifstream("/proc/sys/kernel/ns_last_pid") >> last;
    for (int pid = last + 1; pid < last + 3000; ++pid) {
      fs::create_symlink(dir / "victim", tmp / ("sparseperm-compiler-version-" + std::to_string(pid)));
    }
    const auto r = run_raw("TMPDIR=" + quote(tmp.string()) + " " + compute_in(dir / "cache-2", m4));
    CHECK(computed(r)["permanent"].as_string() == "250");
    CHECK(read_file(dir / "victim") == "precious");
  }
}

TEST_CASE("a private cache under a permissive umask: the compiler's output is still taken") {
  if (!has_compiler()) return;
  const fs::path dir = fresh_dir("umask");
  const std::string m4 = (dir / "m4.mtx").string();
  write(m4, mycielski4);
  for (int run = 0; run < 2; ++run) {  // compiled, then from the cache
    const json::value v = computed(run_raw("umask 002; " + compute_in(dir / "cache", m4)));
    CHECK(v["permanent"].as_string() == "250");
    CHECK((v["seconds"]["compile"].as_number() > 0) == (run == 0));
  }
}

// `compute --engine cpu-cached` on mycielski4 in dir, with a compiler that takes 30 s and has a child
// (as real ones do; its pid lands in dir/child), its stderr into dir/stderr: the tool's pid once the
// compiler runs.
pid_t start_slow_compile(const fs::path& dir) {
  const std::string m4 = (dir / "m4.mtx").string();
  write(m4, mycielski4);
  write(dir / "slow-cxx",
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo slow 1.0; exit 0; fi\nsleep 30 &\necho $! > " +
            quote((dir / "child").string()) + "\nwait\n");
  fs::permissions(dir / "slow-cxx", fs::perms::owner_all);
  const std::string command = "exec env SPARSEPERM_CXX=" + quote((dir / "slow-cxx").string()) +
                              " SPARSEPERM_CACHE=" + quote((dir / "cache").string()) + " " + cli + " compute " +
                              quote(m4) + " --engine cpu-cached 2> " + quote((dir / "stderr").string());
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  for (int k = 0; k < 500 && !fs::exists(dir / "child"); ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(fs::exists(dir / "child"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return pid;
}

TEST_CASE("an interrupt while a module compiles stops it at once, says so and leaves nothing behind") {
  const fs::path dir = fresh_dir("interrupt");
  const pid_t pid = start_slow_compile(dir);
  const auto sent = std::chrono::steady_clock::now();
  ::kill(pid, SIGINT);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  CHECK(seconds < 5);  // the compiler took 30 s
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(read_file(dir / "stderr") == "error: interrupted by SIGINT\n");
  int child = 0;
  std::ifstream(dir / "child") >> child;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // the compiler's own child is gone too (or a zombie nobody reaps yet)
  const std::string state = read_file("/proc/" + std::to_string(child) + "/stat");
  CHECK((state.empty() || state.find(") Z ") != std::string::npos));
  std::vector<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(dir / "cache")) {
    if (e.path().filename() != "key") left.push_back(e.path().filename().string());
  }
  CHECK(left.empty());
}

TEST_CASE("a compile whose process is killed outright: the compiler dies too, the next build removes its folder") {
  const fs::path dir = fresh_dir("killed");
  const pid_t pid = start_slow_compile(dir);
  write(dir / "failing-cxx", "#!/bin/sh\nif [ \"$1\" = --version ]; then echo failing 1.0; exit 0; fi\nexit 1\n");
  fs::permissions(dir / "failing-cxx", fs::perms::owner_all);
  const std::string cache = "SPARSEPERM_CACHE=" + quote((dir / "cache").string());
  const auto builds = [&] {
    int count = 0;
    for (const auto& e : fs::directory_iterator(dir / "cache"))
      count += e.path().filename().string().rfind("build-", 0) == 0;
    return count;
  };
  CHECK(builds() == 1);
  ::kill(pid, SIGKILL);  // no handler, no scope: only the watchdog and the lock speak for it
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int child = 0;
  std::ifstream(dir / "child") >> child;
  // the compiler's group (its child too) is killed within a moment, not left to run for 30 s
  bool gone = false;
  for (int k = 0; k < 100 && !gone; ++k) {
    const std::string state = read_file("/proc/" + std::to_string(child) + "/stat");
    gone = state.empty() || state.find(") Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(gone);
  CHECK(builds() == 1);  // the folder is left, unlocked
  // the next build (a compiler that fails at once) removes it
  const auto next = run_raw("SPARSEPERM_CXX=" + quote((dir / "failing-cxx").string()) + " " + cache + " " + cli +
                            " compute " + quote((dir / "m4.mtx").string()) + " --engine cpu-cached");
  CHECK(next.code == 2);
  CHECK(builds() == 0);
}

TEST_CASE("names and values cannot steer a terminal or forge a line; JSON stays valid UTF-8") {
  const fs::path dir = fresh_dir("echo");
  const std::string forged = (dir / "a\x1b[31m\nerror: forged.mtx").string();
  const auto missing = run_raw(cli + " compute " + quote(forged));
  CHECK(missing.code == 2);
  CHECK(missing.err.find('\x1b') == std::string::npos);
  CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);
  CHECK(missing.err == "error: " + sparseperm::detail::printable(forged) + ": cannot open: no such file\n");

  const std::string control = (dir / "control.mtx").string();
  write(control, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\x1b[2J\x07\n");
  const auto value = run_raw(cli + " compute " + quote(control));
  CHECK(value.code == 2);
  CHECK(value.err == "error: " + control + ":3: value '1\\x1b[2J\\x07' is not a number\n");

  const std::string latin = (dir / "caf\xe9\xff.mtx").string();
  write(latin, two);
  const auto j = run_raw(cli + " compute " + quote(latin) + " --json");
  REQUIRE(j.code == 0);
  for (std::size_t at = 0; at < j.out.size();) {
    const auto c = sparseperm::detail::decode_utf8(j.out, at);
    REQUIRE(c);
    at += c->length;
  }
  CHECK(json::parse(j.out)["file"].as_string().find("caf\xef\xbf\xbd\xef\xbf\xbd.mtx") != std::string::npos);
}

TEST_CASE("no wrong number marked exact") {
  const fs::path dir = fresh_dir("exactness");
  const std::string rounded = (dir / "rounded.mtx").string();
  write(rounded, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 9007199254740993\n2 2 1\n");
  const json::value v = computed(run_raw(cli + " compute " + quote(rounded) + " --json"));
  CHECK_FALSE(v["exact"].as_bool());
  CHECK(v["error_bound"].as_number() >= 1);  // holds the file's 2^53 + 1
  const auto refused = run_raw(cli + " compute " + quote(rounded) + " --precision exact");
  CHECK(refused.code == 2);
  CHECK(refused.err.rfind("error: " + rounded + ":3: ", 0) == 0);

  const std::string tiny = (dir / "tiny.mtx").string();
  write(tiny, "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1e-200\n2 2 1e-200\n");
  for (const char* engine : {"reference", "auto", "dp", "cpu-sparse"}) {
    CAPTURE(engine);
    const json::value t = computed(run_raw(cli + " compute " + quote(tiny) + " --json --engine " + engine));
    // the permanent is 1e-400: computed scaled by powers of two, written with its exponent
    CHECK(t["value"].is_null());
    CHECK(t["exponent"].as_number() <= -400);
    const long double p = std::stold(t["permanent"].as_string());
    CHECK(std::fabs(p / 1e-400L - 1) <= 1e-12L);
    CHECK(std::stold(t["error_bound"].as_string()) <= 1e-410L);
  }
}

TEST_CASE("inputs that crashed, hung or misled: now an answer or one line") {
  const fs::path dir = fresh_dir("crashes");
  const auto check_one_line = [](const cli_test::run_result& r, const std::string& start) {
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("error: " + start, 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  };
  // an endless stream that is not a matrix: refused at line 1 at once, not read to the size limit first
  const auto started = std::chrono::steady_clock::now();
  check_one_line(run_raw("yes | " + cli + " compute /dev/stdin"),
                 "/dev/stdin:1: missing '%%MatrixMarket' banner on the first line");
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
  // dp on two threads out of memory (a frontier of 42 rows: 10^11 states): one line naming the
  // file, not std::terminate from an OpenMP thread
  const std::string wide = (dir / "wide.mtx").string();
  REQUIRE(run_raw(cli + " generate --n 48 --density 0.17 --seed 1 --values ones -o " + quote(wide)).code == 0);
  check_one_line(run_raw("ulimit -v 2000000; " + cli + " compute " + quote(wide) + " --engine dp --threads 2"),
                 wide + ": out of memory");
  // /dev/zero: stopped at its first NUL, not after gigabytes
  check_one_line(run_raw("timeout 20 " + cli + " compute /dev/zero"), "/dev/zero:1: the line contains a NUL byte");
  // "+-5"
  const std::string sign = (dir / "sign.mtx").string();
  write(sign, "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 +-5\n");
  check_one_line(run_raw(cli + " compute " + quote(sign)), sign + ":3: value '+-5' is not an integer");
  // SPARSEPERM_MEMORY_LIMIT: units understood, junk refused
  const std::string m2 = (dir / "two.mtx").string();
  write(m2, two);
  CHECK(run_raw("SPARSEPERM_MEMORY_LIMIT=8G " + cli + " compute " + quote(m2)).code == 0);
  check_one_line(run_raw("SPARSEPERM_MEMORY_LIMIT=8X " + cli + " compute " + quote(m2)),
                 "SPARSEPERM_MEMORY_LIMIT='8X' is not a size");
  // multiplicities that would make a 10^4 x 10^4 dense copy (10^8 nonzeros: 22 GB and 5 minutes
  // before): refused before anything is allocated, under a memory limit a copy would exceed
  const std::string corner = (dir / "corner.mtx").string();
  write(corner, "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 3 1\n");
  const auto repeated_start = std::chrono::steady_clock::now();
  check_one_line(run_raw("ulimit -v 2000000; " + cli + " compute " + quote(corner) +
                         " --row-multiplicities 10000,0,0 --column-multiplicities 0,0,10000"),
                 "the multiplicities make a 10000 x 10000 matrix of more than 4194304 nonzeros");
  CHECK(std::chrono::steady_clock::now() - repeated_start < std::chrono::seconds(5));
  // within the limit, one repeated row still computes: 300 x 300 ones, 300! exactly (Glynn's 300 terms)
  const auto factorial = computed(run_raw(cli + " compute " + quote(corner) +
                                          " --row-multiplicities 300,0,0 --column-multiplicities 0,0,300 --json"));
  CHECK(factorial["exact"].as_bool());
  CHECK(factorial["permanent"].as_string().size() == 615);  // 300! has 615 digits
  CHECK(factorial["permanent"].as_string().rfind("3060575122164406360353", 0) == 0);
  // a dense 100 x 100 without repeated rows: no engine, and no negative count of states
  std::string dense = "%%MatrixMarket matrix array real general\n100 100\n";
  for (int k = 0; k < 100 * 100; ++k) dense += std::to_string(k + 1) + "\n";
  const std::string dense_file = (dir / "dense.mtx").string();
  write(dense_file, dense);
  const auto d = run_raw(cli + " compute " + quote(dense_file));
  check_one_line(d, dense_file + ":2: no engine can compute a 100 x 100 block");
  CHECK(d.err.find("-9223372036854775808") == std::string::npos);

  // huge and tiny values: an answer within a bound, beyond double's range too; never "compiling failed"
  const auto band = [](int n, const char* value) {
    std::string text = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(n) + " " + std::to_string(n) +
                       " " + std::to_string(3 * n) + "\n";
    for (int i = 1; i <= n; ++i) {
      for (int d = 0; d < 3; ++d)
        text += std::to_string(i) + " " + std::to_string((i - 1 + d) % n + 1) + " " + value + "\n";
    }
    return text;
  };
  const std::string e20 = (dir / "e20.mtx").string();
  write(e20, band(20, "1e20"));
  const std::string e0 = (dir / "e0.mtx").string();  // the same band of ones: perm(e20) = 10^400 · perm(e0)
  write(e0, band(20, "1"));
  const long double count =
      std::stold(computed(run_raw(cli + " compute " + quote(e0) + " --json --engine dp"))["permanent"].as_string());
  for (const char* engine : {"auto", "cpu-cached", "cpu-sparse", "dp"}) {
    CAPTURE(engine);
    if (std::string(engine) == "cpu-cached" && !has_compiler()) continue;
    const auto r = run_raw("SPARSEPERM_CACHE=" + quote((dir / "cache").string()) + " " + cli + " compute " +
                           quote(e20) + " --json --engine " + engine);
    const json::value v = computed(r);  // 2·10^400, scaled by powers of two
    CHECK(v["value"].is_null());
    CHECK(v["exponent"].as_number() == std::floor(400 + std::log10(count)));
    CHECK(std::fabs(std::stold(v["permanent"].as_string()) / (count * 1e400L) - 1) <= 1e-12L);
  }
  const std::string e14 = (dir / "e17.mtx").string();  // 10^17 > 2^53: not an integer matrix; 2·10^272 fits
  write(e14, band(16, "1e17"));
  const json::value by_dp = computed(run_raw(cli + " compute " + quote(e14) + " --json --engine dp"));
  for (const char* engine : {"auto", "cpu-cached"}) {
    CAPTURE(engine);
    if (std::string(engine) == "cpu-cached" && !has_compiler()) continue;
    const json::value r = computed(run_raw("SPARSEPERM_CACHE=" + quote((dir / "cache").string()) + " " + cli +
                                           " compute " + quote(e14) + " --json --engine " + engine));
    CHECK(std::fabs(r["value"].as_number() - by_dp["value"].as_number()) <=
          r["error_bound"].as_number() + by_dp["error_bound"].as_number());
  }
  for (const char* value : {"1e20", "1e-20", "4e-320"}) {
    CAPTURE(value);
    const std::string small = (dir / "small.mtx").string();
    write(small, std::string("%%MatrixMarket matrix coordinate real general\n3 3 7\n1 1 ") + value +
                     "\n1 2 2\n2 1 3\n2 2 " + value + "\n2 3 1\n3 3 " + value + "\n3 2 1.5\n");
    const json::value a = computed(run_raw(cli + " compute " + quote(small) + " --json"));
    const json::value r = computed(run_raw(cli + " compute " + quote(small) + " --json --engine reference"));
    CHECK(std::fabs(a["value"].as_number() - r["value"].as_number()) <=
          a["error_bound"].as_number() + r["error_bound"].as_number());
  }
}

TEST_CASE("planning stays near-linear: a band of n = 10^5 and a diagonal of n = 10^7") {
  const fs::path dir = fresh_dir("planning");
  const int n = 100000;
  {
    std::ofstream out(dir / "band.mtx");
    out << "%%MatrixMarket matrix coordinate integer general\n" << n << " " << n << " " << 5 * n - 6 << "\n";
    for (int j = 1; j <= n; ++j) {
      for (int i = std::max(1, j - 2); i <= std::min(n, j + 2); ++i) out << i << " " << j << " 1\n";
    }
  }
  // a guard against quadratic planning (the old one took minutes here), not a benchmark
  const auto planned = run_raw("timeout 120 " + cli + " inspect " + quote((dir / "band.mtx").string()));
  CHECK(planned.code == 0);
  CHECK(planned.out.find("dp           ") != std::string::npos);
  const int diagonal = 10000000;
  {
    std::ofstream out(dir / "diagonal.mtx");
    out << "%%MatrixMarket matrix coordinate integer general\n"
        << diagonal << " " << diagonal << " " << diagonal << "\n";
    std::string lines;
    for (int i = 1; i <= diagonal; ++i) {
      lines += std::to_string(i) + " " + std::to_string(i) + " 1\n";
      if (lines.size() > (1 << 20)) out << lines, lines.clear();
    }
    out << lines;
  }
  // within 3 GB of address space (the old planner needed 6.3 GB)
  const auto r = run_raw("ulimit -v 3000000; timeout 300 " + cli + " compute " +
                         quote((dir / "diagonal.mtx").string()) + " --json");
  fs::remove(dir / "diagonal.mtx");
  CHECK(computed(r)["permanent"].as_string() == "1");
}

// The attack: whoever could write a journal rewrote a chunk's sum and recomputed its unkeyed
// check, and the resumed run printed a wrong "exact" count. Records are now sealed with the user's key.
TEST_CASE("journals: only your own, sealed with your key; a forged record runs again; a non-journal is refused") {
  const fs::path dir = fresh_dir("journals");
  const std::string cache = "SPARSEPERM_CACHE=" + quote((dir / "cache").string()) + " ";
  const fs::path matrix = dir / "count.mtx";
  REQUIRE(run_raw(cli + " generate --n 22 --density 0.3 --values ones --seed 5 -o " + quote(matrix.string())).code ==
          0);
  const std::string original = read_file(matrix);
  const fs::path journal = dir / "count.journal";
  const auto compute = [&](const fs::path& file) {
    return run_raw(cache + cli + " compute " + quote(matrix.string()) +
                   " --engine cpu-sparse --precision exact --threads 2 --json --checkpoint " + quote(file.string()));
  };
  const std::string exact = computed(compute(journal))["permanent"].as_string();
  CHECK(exact == "8928776538");
  struct stat st {};
  REQUIRE(::stat(journal.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  // the first record's sum (Ryser's doubled sum in 128 bits) plus 2^(n-1): the permanent plus one,
  // its seal the SHA-256 of the record as anyone can compute it (format 2 printed 8928776537 "exact")
  std::string bytes = read_file(journal);
  const std::size_t header = bytes.find('\n') + 1;
  std::uint64_t length = 0;
  std::memcpy(&length, bytes.data() + header + 8, sizeof length);
  REQUIRE(length == 16);
  std::string body = bytes.substr(header, 16 + length);
  __int128 sum = 0;
  std::memcpy(&sum, body.data() + 16, sizeof sum);
  sum += __int128{1} << 21;
  std::memcpy(body.data() + 16, &sum, sizeof sum);
  const auto digest = sparseperm::detail::sha256::of(body);
  bytes.replace(header, body.size() + 32, body + std::string(reinterpret_cast<const char*>(digest.data()), 32));
  write(journal, bytes);
  const json::value again = computed(compute(journal));
  CHECK(again["permanent"].as_string() == exact);
  CHECK(again["plan"].as_string().find("(1 record of it dropped and run again") != std::string::npos);

  // a journal others may write: refused, exit code 2
  ::chmod(journal.c_str(), 0666);
  auto r = compute(journal);
  CHECK(r.code == 2);
  CHECK(r.err.find("others may write to it (mode 666), so its records cannot be trusted") != std::string::npos);
  // the matrix file named as the journal: refused from its first line, left as it was
  r = compute(matrix);
  CHECK(r.code == 2);
  CHECK(r.err.find("it is not a checkpoint journal (it begins \"%%MatrixMarket matrix coordinate\")") !=
        std::string::npos);
  CHECK(read_file(matrix) == original);
  // an empty name is a mistake, not "no journal"
  r = run_raw(cache + cli + " compute " + quote(matrix.string()) + " --engine cpu-sparse --checkpoint ''");
  CHECK(r.code == 2);
  CHECK(r.err == "error: option '--checkpoint': an empty file name; name the journal's file\n");
}
