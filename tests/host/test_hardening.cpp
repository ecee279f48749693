// The library's defences against hostile input, piece by piece: what reaches generated code, what the
// cache trusts, what is echoed, what reading rounds, and the numbers at the edges of double's range.
// (The CLI-level attacks are in tests/tools/test_cli_hostile.cpp.)
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <sparseperm/compute.cuh>
#include <sparseperm/detail/json.cuh>
#include <sparseperm/detail/sha256.cuh>
#include <sparseperm/detail/text.cuh>
#include <sparseperm/detail/threads.cuh>
#include <sparseperm/matrix/matrix_market.cuh>
#include <sparseperm/module/cache.cuh>
#include <sparseperm/module/codegen.cuh>
#include <sparseperm/module/proof.cuh>
#include <sparseperm/numeric/decimal_rounding.cuh>
#include <sparseperm/numeric/scaled_double.cuh>
#include <sparseperm/planner.cuh>
#include <sparseperm/ryser/ryser_plan.cuh>
#include "json_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../fuzz/generated_header_check.hpp"

namespace sp = sparseperm;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("sparseperm-hardening-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  return dir / name;
}

std::string hostile_name() {
  return "evil\";\n#include <cstdlib>\nstatic int pwn = std::system(\"touch PWNED\");\nconst char* x = \"a\\\n?"
         "?=\xff\xfe\x1b[2J.mtx";
}

}  // namespace

TEST_CASE("SHA-256 and HMAC-SHA-256: the standards' vectors") {
  using sp::detail::hex_of;
  using sp::detail::sha256;
  CHECK(hex_of(sha256::of("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex_of(sha256::of("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex_of(sha256::of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hex_of(sha256::of(std::string(1000000, 'a'))) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // RFC 4231, test cases 1, 2 and 6
  CHECK(hex_of(sp::detail::hmac_sha256(std::string(20, '\x0b'), "Hi There")) ==
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  CHECK(hex_of(sp::detail::hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  CHECK(hex_of(sp::detail::hmac_sha256(std::string(131, '\xaa'),
                                       "Test Using Larger Than Block-Size Key - Hash Key First")) ==
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST_CASE("a file's name reaches a generated header only as a literal that reads back as itself") {
  const auto m = sp::sparse_matrix::from_entries(2, {{0, 0, 0.1}, {1, 1, 3}});
  for (const std::string& source : {std::string("plain.mtx"), hostile_name(), std::string("\"\\\"\\\\"),
                                    std::string(1, '\0'), std::string("a\\"), std::string("*/ /* // \\\n#define x")}) {
    CAPTURE(sp::detail::printable(source));
    const std::string header = sp::generate_matrix_header(m, "stem", source);
    CHECK(header_check::problem(header, m, "stem", source).empty());
  }
  // names become identifiers: ASCII only, keywords and reserved forms prefixed
  CHECK(sp::c_identifier("path-4") == "path_4");
  CHECK(sp::c_identifier("int") == "m_int");
  CHECK(sp::c_identifier("_Reserved") == "m__Reserved");
  CHECK(sp::c_identifier("9lives") == "m_9lives");
  CHECK(sp::c_identifier("gr\xc3\xb6\xc3\x9f"
                         "e") == "gr____e");
  CHECK(sp::c_identifier("") == "m_");
  const std::string hostile = sp::generate_matrix_header(m, hostile_name(), hostile_name());
  CHECK(header_check::problem(hostile, m, hostile_name(), hostile_name()).empty());
}

TEST_CASE("echoed text cannot leave its line or steer a terminal; JSON stays valid UTF-8") {
  using sp::detail::printable;
  CHECK(printable("plain name.mtx") == "plain name.mtx");
  CHECK(printable("a\nerror: forged") == "a\\nerror: forged");
  CHECK(printable("\x1b[31mred") == "\\x1b[31mred");
  CHECK(printable("back\\slash") == "back\\\\slash");
  CHECK(printable("\xff\xfe") == "\\xff\\xfe");
  CHECK(printable("gr\xc3\xb6\xc3\x9f"
                  "e") ==
        "gr\xc3\xb6\xc3\x9f"
        "e");  // well-formed UTF-8 stays readable
  CHECK(printable("\xc2\x9b"
                  "2J") == "\\xc2\\x9b2J");  // but not the 8-bit CSI
  CHECK(printable("\xe2\x80\xae"
                  "txt.exe") == "\\xe2\\x80\\xaetxt.exe");  // nor a bidirectional override
  CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");             // an overlong '/'
  const std::string quoted = sp::json::quote(std::string("a\xff\"\n\x1b") + "\xc3\xb6");
  CHECK(quoted == "\"a\\ufffd\\\"\\n\\u001b\xc3\xb6\"");
  for (std::size_t at = 0; at < quoted.size();) {
    const auto c = sp::detail::decode_utf8(quoted, at);
    REQUIRE(c);
    at += c->length;
  }
  CHECK(sp::json::parse(quoted).as_string() == "a\xef\xbf\xbd\"\n\x1b\xc3\xb6");
}

TEST_CASE("reading notes every value it rounds; a rounded value is not exact") {
  using sp::detail::decimal_rounding;
  const auto rounding = [](const char* text) {
    double v = 0;
    const std::string_view t(text);
    std::from_chars(t.data(), t.data() + t.size(), v);
    return decimal_rounding(t, v);
  };
  for (const std::string exact :
       {"3", "-2.5e-1", "0.125", "1e22", "9007199254740992", "1180591620717411303424",
        "0.1000000000000000055511151231257827021181583404541015625", "0",
        "44444444444444426240"}) {  // 19 digits whose product with 5 passes 2^64 (the fuzzer's find)
    CAPTURE(exact);
    CHECK(rounding(exact.c_str()) == 0);
  }
  for (const std::string inexact :
       {"0.1", "9007199254740993", "1e23", "1.0000000000000000001", "123456789012345678901234567890"}) {
    CAPTURE(inexact);
    CHECK(rounding(inexact.c_str()) == 0x1p-53);
  }
  CHECK(rounding("4e-320") > 1e-5);                 // a subnormal: much more than 2^-53 of it
  CHECK(rounding("4.9406564584124654e-324") >= 1);  // 17 digits of 2^-1074, which has 751
  CHECK(rounding("4e-320") < 1e-4);

  const auto real = sp::parse_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 9007199254740993\n2 2 1\n", "m");
  CHECK_FALSE(real.matrix.has_integer_values());
  CHECK(real.first_rounded_line == 3);
  REQUIRE(real.matrix.input_rounding().size() == 2);
  CHECK(real.matrix.input_rounding()[0] == 0x1p-53);
  CHECK(real.matrix.input_rounding()[1] == 0);
  const sp::permanent_result r = sp::compute_permanent(real.matrix);
  CHECK_FALSE(r.exact);
  REQUIRE(r.error_bound);
  CHECK(*r.error_bound >= 1);  // the file's 2^53 + 1 is within the bound of the double 2^53
  const auto integral = sp::parse_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 9007199254740992\n2 2 1\n", "m");
  CHECK(integral.matrix.has_integer_values());
  CHECK(sp::compute_permanent(integral.matrix).exact);

  // "+-5" is no number in either field
  for (const char* field : {"real", "integer"}) {
    CAPTURE(field);
    try {
      sp::parse_matrix_market(std::string("%%MatrixMarket matrix coordinate ") + field + " general\n1 1 1\n1 1 +-5\n",
                              "m");
      FAIL("+-5 was accepted");
    } catch (const sp::input_error& e) {
      CHECK(std::string(e.what()).find("m:3: value '+-5' is not") == 0);
    }
  }
}

TEST_CASE("duplicates are found by sorting, both lines named, symmetric mirrors included") {
  const auto error_of = [](const std::string& text) {
    try {
      sp::parse_matrix_market(text, "m");
    } catch (const sp::input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("%%MatrixMarket matrix coordinate real general\n3 3 3\n2 2 1\n1 1 4\n2 2 0\n") ==
        "m:5: duplicate entry (2, 2): the same position is already given on line 3");
  CHECK(error_of("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n1 2 4\n") ==
        "m:4: duplicate entry (1, 2): the same position is already given on line 3");
}

TEST_CASE("non-regular inputs are read in pieces: a NUL stops /dev/zero at once") {
  try {
    sp::read_matrix_market("/dev/zero");
    FAIL("/dev/zero was read");
  } catch (const sp::input_error& e) {
    CHECK(std::string(e.what()) == "/dev/zero:1: the line contains a NUL byte: not a text file");
  }
}

TEST_CASE("products and bounds at the ends of double's range") {
  // the reference engine's long double result below double's range: the bound holds it
  const auto tiny = sp::sparse_matrix::from_entries(2, {{0, 0, 1e-200}, {1, 1, 1e-200}});
  for (const sp::engine_choice engine :
       {sp::engine_choice(sp::engines::reference{}), sp::engine_choice{}, sp::engine_choice(sp::engines::dp{}),
        sp::engine_choice(sp::engines::cpu_sparse{})}) {
    CAPTURE(engine.name());
    sp::compute_options options;
    options.engine = engine;
    const sp::permanent_result r = sp::compute_permanent(tiny, options);
    REQUIRE(r.error_bound);
    CHECK(r.value == 0);
    CHECK(*r.error_bound > 0);  // ≥ 2^-1074 > 1e-400
    CHECK(*r.error_bound <= 1e-300);
  }
  // scaled products: no underflow on the way, the conversion's error reported
  sp::detail::scaled_double p(1e-200);
  p *= 1e-200;
  p *= 1e300;
  p *= 1e300;
  CHECK(std::fabs(p.to_double() - 1e200) <= 1e186);
  // the start term of a generated plan is computed without floating-point exceptions
  static constexpr double underflowing[] = {0x1p-600, 0x1p-600};
  CHECK(sp::detail::exception_free_product(underflowing, 2) == 0);
  const double overflowing[] = {0x1p600, 0x1p600};
  CHECK(sp::detail::exception_free_product(overflowing, 2) == std::numeric_limits<double>::infinity());
  const double subnormal[] = {0x1.8p-540, 0x1p-535};
  CHECK(sp::detail::exception_free_product(subnormal, 2) ==
        std::numeric_limits<double>::denorm_min());  // 1.5 · 2^-1075
  const double half[] = {0x1p-540, 0x1p-535};
  CHECK(sp::detail::exception_free_product(half, 2) == 0);  // 2^-1075: a tie, to even
  static_assert(sp::detail::exception_free_product(underflowing, 2) == 0, "constant evaluation takes it");
  // the planner leaves rows whose values span too much to dp and reference
  const auto wide = sp::sparse_matrix::from_entries(2, {{0, 0, 1e20}, {0, 1, 2}, {1, 0, 3}, {1, 1, 1e-20}});
  CHECK(sp::detail::row_grid_refusal(wide).has_value());
  CHECK(sp::make_plan(wide).blocks.at(0).engine->name == "dp");
  const sp::permanent_result w = sp::compute_permanent(wide);
  CHECK(w.engine == "reference");  // n <= 6: brute force, before any plan
  CHECK(w.error_bound);
}

TEST_CASE("sizes with units; estimates saturate") {
  CHECK(*sp::parse_byte_size("8G") == 8.0 * (1ull << 30));
  CHECK(*sp::parse_byte_size("512MiB") == 512.0 * (1 << 20));
  CHECK(*sp::parse_byte_size("1.5t") == 1.5 * (1ull << 40));
  CHECK(*sp::parse_byte_size("4096") == 4096);
  CHECK(*sp::parse_byte_size("2kb") == 2048);
  for (const char* junk : {"", "8X", "G", "-1G", "8 G", "nan", "1e400", "8GiBs"}) {
    CAPTURE(junk);
    CHECK_FALSE(sp::parse_byte_size(junk));
  }
  CHECK(sp::format_count(1e29) == "1e+29");
  CHECK(sp::format_count(1e300 * 1e300) == "more than 1e308");
  CHECK(sp::format_bytes(1e300 * 1e300) == "more than 1e308 bytes");
  ::setenv("SPARSEPERM_MEMORY_LIMIT", "8X", 1);
  CHECK_THROWS_AS(sp::planner_memory_limit(), sp::engine_error);
  ::setenv("SPARSEPERM_MEMORY_LIMIT", "8G", 1);
  CHECK(sp::planner_memory_limit() == 8.0 * (1ull << 30));
  ::unsetenv("SPARSEPERM_MEMORY_LIMIT");
}

TEST_CASE("an exception in an OpenMP thread reaches the caller") {
  int done = 0;
  CHECK_THROWS_AS(sp::detail::parallel_for<sp::detail::schedule::dynamic_one>(64, 2,
                                                                              [&](std::int64_t k) {
                                                                                if (k == 5) throw std::bad_alloc();
                                                                                if (k == 0) ++done;
                                                                              }),
                  std::bad_alloc);
}

TEST_CASE("the cache root: private, owned, never another user's") {
  const fs::path base = scratch("roots");
  fs::remove_all(base);
  fs::create_directories(base);
  ::chmod(base.c_str(), 0700);
  // created 0700 whatever the umask
  const mode_t old_mask = ::umask(0);
  const fs::path fresh = sp::detail::open_private_root((base / "a" / "b").string());
  ::umask(old_mask);
  struct stat status {};
  REQUIRE(::stat(fresh.c_str(), &status) == 0);
  CHECK((status.st_mode & 0777) == 0700);
  REQUIRE(::stat((base / "a").c_str(), &status) == 0);
  CHECK((status.st_mode & 0777) == 0700);
  // readable by others only: tightened; writable by others: refused
  const fs::path loose = base / "loose";
  fs::create_directory(loose);
  ::chmod(loose.c_str(), 0755);
  sp::detail::open_private_root(loose.string());
  REQUIRE(::stat(loose.c_str(), &status) == 0);
  CHECK((status.st_mode & 0777) == 0700);
  const fs::path open_to_all = base / "open";
  fs::create_directory(open_to_all);
  ::chmod(open_to_all.c_str(), 0777);
  CHECK_THROWS_WITH_AS(sp::detail::open_private_root(open_to_all.string()),
                       doctest::Contains("may be written by others"), sp::engine_error);
  // under a directory others may write to (not sticky): refused
  const fs::path shared = base / "shared";
  fs::create_directory(shared);
  ::chmod(shared.c_str(), 0777);
  CHECK_THROWS_WITH_AS(sp::detail::open_private_root((shared / "cache").string()),
                       doctest::Contains("which others may write to"), sp::engine_error);
  // owned by another user: refused (root can make one; others cannot, and skip this part)
  if (::geteuid() == 0) {
    const fs::path theirs = base / "theirs";
    fs::create_directory(theirs);
    ::chmod(theirs.c_str(), 0700);
    REQUIRE(::chown(theirs.c_str(), 65534, 65534) == 0);
    CHECK_THROWS_WITH_AS(sp::detail::open_private_root(theirs.string()), doctest::Contains("belongs to another user"),
                         sp::engine_error);
  }
  // without SPARSEPERM_CACHE, XDG_CACHE_HOME and HOME: the password database's home, not a shared /tmp
  const char* saved_home = std::getenv("HOME");
  const std::string home = saved_home ? saved_home : "";
  ::unsetenv("SPARSEPERM_CACHE");
  ::unsetenv("XDG_CACHE_HOME");
  ::unsetenv("HOME");
  const std::string fallback = sp::detail::default_cache_dir();
  if (saved_home) ::setenv("HOME", home.c_str(), 1);
  CHECK(fallback.find("/tmp/sparseperm-cache") == std::string::npos);
  CHECK(fallback.size() > std::string("/.cache/sparseperm").size());
}

TEST_CASE("the key, sealed modules and the proof of a loaded module") {
  const fs::path root_dir = scratch("sealed");
  fs::remove_all(root_dir);
  const fs::path root = sp::detail::open_private_root(root_dir.string());
  const std::string key = sp::detail::cache_key(root);
  CHECK(key.size() == 32);
  CHECK(sp::detail::cache_key(root) == key);  // made once
  struct stat status {};
  REQUIRE(::stat((root / "key").c_str(), &status) == 0);
  CHECK((status.st_mode & 0777) == 0600);

  const std::string module = std::string(
      "\x7f"
      "ELF module bytes\0with a zero",
      28);
  fs::create_directory(root / "entry-a");
  sp::detail::write_new_file(root / "entry-a" / "module.sealed", sp::detail::seal_module(key, "entry-a", module));
  CHECK(sp::detail::unseal_module(key, "entry-a", root / "entry-a" / "module.sealed") == module);
  // another entry's seal, another key, a truncated file, a link: nothing
  CHECK_FALSE(sp::detail::unseal_module(key, "entry-b", root / "entry-a" / "module.sealed"));
  CHECK_FALSE(sp::detail::unseal_module(std::string(32, 'k'), "entry-a", root / "entry-a" / "module.sealed"));
  const std::string sealed = sp::detail::seal_module(key, "entry-a", module);
  fs::create_directory(root / "entry-c");
  sp::detail::write_new_file(root / "entry-c" / "module.sealed", sealed.substr(0, sealed.size() - 3));
  CHECK_FALSE(sp::detail::unseal_module(key, "entry-c", root / "entry-c" / "module.sealed"));
  fs::create_symlink(root / "entry-a" / "module.sealed", root / "entry-c" / "link.sealed");
  CHECK_FALSE(sp::detail::unseal_module(key, "entry-a", root / "entry-c" / "link.sealed"));
  // new files are never written through a link
  fs::create_symlink(root / "victim", root / "planted");
  CHECK_THROWS_AS(sp::detail::write_new_file(root / "planted", "x"), sp::engine_error);
  CHECK_FALSE(fs::exists(root / "victim"));

  // a module's exported matrix must be this matrix, bit for bit, and the engine and precision its own
  const auto m = sp::sparse_matrix::from_entries(2, {{0, 0, 1.5}, {1, 0, 2}, {1, 1, -3}});
  sp::module_matrix<2, 3> exported;
  const std::int64_t starts[] = {0, 2, 3}, rows[] = {0, 1, 1};
  const double values[] = {1.5, 2, -3};
  for (int k = 0; k < 3; ++k) exported.start[k] = starts[k], exported.rows[k] = rows[k], exported.values[k] = values[k];
  sp::module_info info;
  std::strcpy(info.engine, "cpu-cached");
  info.n = 2;
  info.nnz = 3;
  info.precision = static_cast<int>(sp::precision::automatic);
  CHECK_FALSE(sp::detail::module_mismatch(info, &exported, sizeof exported, m, "cpu-cached", sp::precision::automatic));
  CHECK(sp::detail::module_mismatch(info, &exported, sizeof exported, m, "gpu-cached", sp::precision::automatic));
  CHECK(sp::detail::module_mismatch(info, &exported, sizeof exported, m, "cpu-cached", sp::precision::exact));
  exported.values[2] = std::nextafter(-3.0, 0.0);
  CHECK(sp::detail::module_mismatch(info, &exported, sizeof exported, m, "cpu-cached", sp::precision::automatic) ==
        "it was built for other values");
  exported.values[2] = -3;
  exported.rows[1] = 0;
  CHECK(sp::detail::module_mismatch(info, &exported, sizeof exported, m, "cpu-cached", sp::precision::automatic) ==
        "it was built for another pattern");
}

namespace {

// The permanent as a long double (its range reaches 1e4932) by brute force, and Σ|terms| for its
// rounding: a truth for matrices whose values span more than double's range.
std::pair<long double, long double> wide_brute_force(const std::vector<long double>& a, int n) {
  std::vector<int> sigma(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) sigma[k] = k;
  long double sum = 0, magnitude = 0;
  do {
    long double term = 1;
    for (int i = 0; i < n; ++i) term *= a[static_cast<std::size_t>(i) * n + sigma[i]];
    sum += term;
    magnitude += std::fabs(term);
  } while (std::next_permutation(sigma.begin(), sigma.end()));
  return {sum, magnitude};
}

sp::compute_options named_engine(std::string_view name) {
  sp::compute_options options;
  if (name != "auto") options.engine = sp::engine_choice(sp::find_engine(name));
  return options;
}

}  // namespace

TEST_CASE("rows spanning more binary orders than double: scaled, the tiny values dropped within the bound") {
  // [[1e200, 1e-200], [1e-200, 1e200]]: perm 1e400 + 1e-400, refused as "not finite" before
  const auto wide = sp::sparse_matrix::from_entries(2, {{0, 0, 1e200}, {0, 1, 1e-200}, {1, 0, 1e-200}, {1, 1, 1e200}});
  for (const std::string engine : {"auto", "reference", "dp", "cpu-sparse", "glynn"}) {
    CAPTURE(engine);
    const sp::permanent_result r = sp::compute_permanent(wide, named_engine(engine));
    REQUIRE(r.scale_exponent != 0);
    const long double value = std::ldexp(static_cast<long double>(r.scaled_value), static_cast<int>(r.scale_exponent));
    const long double bound =
        std::ldexp(static_cast<long double>(r.scaled_error_bound), static_cast<int>(r.scale_exponent));
    const auto [truth, magnitude] = wide_brute_force({1e200, 1e-200, 1e-200, 1e200}, 2);  // of the doubles
    CHECK(std::fabs(value - truth) <= bound + magnitude * 0x1p-58L);
    CHECK(bound <= 1e-12L * 1e400L);  // and it says something: 12 digits or more
    CHECK(r.plan.find("dropped in the scaling") != std::string::npos);
  }
  // complex: only the part that falls below goes, 1e200 + 1e-200i keeps its real part (perm
  // 1e400 + 1i + 1e-400)
  const auto part = sp::sparse_matrix::from_entries(
      2, {{0, 0, 1e200, 1e-200}, {0, 1, 1e-200, 0}, {1, 0, 1e-200, 0}, {1, 1, 1e200, 0}});
  for (const std::string engine : {"auto", "reference", "dp", "cpu-sparse"}) {
    CAPTURE(engine);
    const sp::permanent_result r = sp::compute_permanent(part, named_engine(engine));
    REQUIRE(r.scale_exponent != 0);
    const int e = static_cast<int>(r.scale_exponent);
    const long double bound = std::ldexp(static_cast<long double>(r.scaled_error_bound), e);
    const auto [truth, magnitude] = wide_brute_force({1e200, 1e-200, 1e-200, 1e200}, 2);
    CHECK(std::fabs(std::ldexp(static_cast<long double>(r.scaled_value), e) - truth) <= bound + magnitude * 0x1p-58L);
    CHECK(std::fabs(std::ldexp(static_cast<long double>(r.scaled_imag), e) - 1) <= bound);
    CHECK(bound <= 1e-12L * truth);
    CHECK(r.complex);   // a complex matrix's result, though every imaginary part was dropped
    CHECK(r.nnz == 4);  // the matrix's, not the scaled one's
  }
  // random signed 4 x 4 with magnitudes 10^±250: every engine within its bound of the long double truth
  std::mt19937_64 random(36);
  std::uniform_real_distribution<double> exponent(-250, 250), mantissa(1, 10);
  int dropped = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 4;
    std::vector<sp::matrix_entry> entries;
    std::vector<long double> dense(n * n, 0);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (random() % 4 == 0 && i != j) continue;
        const double v = (random() % 2 ? -1 : 1) * mantissa(random) * std::pow(10.0, std::floor(exponent(random)));
        entries.push_back({i, j, v});
        dense[static_cast<std::size_t>(i) * n + j] = v;
      }
    }
    const auto a = sp::sparse_matrix::from_entries(n, std::move(entries));
    const auto [truth, magnitude] = wide_brute_force(dense, n);
    for (const std::string engine : {"auto", "dp", "reference"}) {
      CAPTURE(trial);
      CAPTURE(engine);
      const sp::permanent_result r = sp::compute_permanent(a, named_engine(engine));
      const long double value = r.scale_exponent == 0 ? r.value
                                                      : std::ldexp(static_cast<long double>(r.scaled_value),
                                                                   static_cast<int>(r.scale_exponent));
      const long double bound = r.scale_exponent == 0 ? r.error_bound.value_or(0)
                                                      : std::ldexp(static_cast<long double>(r.scaled_error_bound),
                                                                   static_cast<int>(r.scale_exponent));
      CHECK(std::fabs(value - truth) <= bound + magnitude * 0x1p-58L);
      dropped += r.plan.find("dropped in the scaling") != std::string::npos;
    }
  }
  CHECK(dropped > 0);  // the case this is about occurred
  // a run whose drops left no perfect matching: 0, not exactly 0, within the drops' bound
  sp::permanent_result zero;
  sp::set_exact_value(zero, 0, "structurally singular");
  sp::detail::unit_scaling drops;
  drops.dropped = 2;
  drops.perturbation = 1e-300;
  sp::detail::add_dropped_values(zero, drops, sp::sparse_matrix::from_entries(1, {{0, 0, 1e-300}}));
  CHECK_FALSE(zero.exact);
  CHECK(*zero.error_bound >= 1e-300);
}

TEST_CASE("a refusal for values too spread for row grids names engines that can") {
  const auto spread = [](int n) {  // a cycle of 1e-300 beside a diagonal of ones: no scaling needed
    std::vector<sp::matrix_entry> entries;
    for (int i = 0; i < n; ++i) entries.push_back({i, i, 1}), entries.push_back({i, (i + 1) % n, 1e-300});
    return sp::sparse_matrix::from_entries(n, std::move(entries));
  };
  for (const int n : {4, 30}) {
    CAPTURE(n);
    const auto a = spread(n);
    try {
      sp::compute_permanent(a, named_engine("cpu-sparse"));
      FAIL("cpu-sparse certified values 300 decades apart");
    } catch (const sp::engine_error& e) {
      const std::string named = n <= 26 ? "; dp and reference can" : "; dp can";
      CHECK(std::string(e.what()).find(named) != std::string::npos);
    }
    for (const std::string engine : {"dp", "reference"}) {
      if (engine == "reference" && n > 26) continue;
      const sp::permanent_result r = sp::compute_permanent(a, named_engine(engine));
      CHECK(std::fabs(r.value - 1) <= *r.error_bound);
    }
  }
}
