// Checkpoint journals (run/journal.cuh, run/chunk_dispatch.cuh): only the user's own file, sealed with
// the user's key; every record read back is checked, and a bad one is dropped and its chunk run again
// while the others are kept; a file that is not this run's journal is refused from its header alone.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sparseperm/run/chunk_dispatch.cuh>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ranks_in_threads.hpp"

namespace sp = sparseperm;

namespace {

namespace d = sparseperm::detail;
namespace fs = std::filesystem;

constexpr std::uint64_t journal_test_chunks = 16;
const std::string journal_test_key = "a test's chunks";

double journal_test_value(std::uint64_t c) { return 0.5 + static_cast<double>(c); }

std::string journal_test_read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void journal_test_write(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// A fresh directory whose cache (the user's key) is its own; SPARSEPERM_CACHE names it while alive.
struct journal_test_dir {
  fs::path dir;
  std::optional<std::string> old_cache;
  journal_test_dir() {
    dir = fs::temp_directory_path() / ("sparseperm-journal-test-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    ::chmod(dir.c_str(), 0700);
    if (const char* c = std::getenv("SPARSEPERM_CACHE")) old_cache = c;
    ::setenv("SPARSEPERM_CACHE", (dir / "cache").c_str(), 1);
  }
  ~journal_test_dir() {
    if (old_cache) {
      ::setenv("SPARSEPERM_CACHE", old_cache->c_str(), 1);
    } else {
      ::unsetenv("SPARSEPERM_CACHE");
    }
    fs::remove_all(dir);
  }
};

// One single-process run over a journal at `path`: the chunks it ran (the others came from the
// journal); every record must come out right either way.
std::vector<std::uint64_t> journal_test_run(d::shared_chunks& shared) {
  std::vector<std::uint64_t> ran;
  const std::vector<double> records =
      d::chunk_dispatch<double>(journal_test_chunks, shared, nullptr, [](std::uint64_t) {
        return std::uint64_t{1};
      }).run(1, [&](d::chunk_queue& queue, const auto& finish) {
        while (const std::optional<std::uint64_t> c = queue.take(true)) {
          ran.push_back(*c);
          finish(*c, journal_test_value(*c));
          queue.finished();
        }
      });
  for (std::uint64_t c = 0; c < journal_test_chunks; ++c) CHECK(records[c] == journal_test_value(c));
  return ran;
}

std::vector<std::uint64_t> journal_test_run(const std::string& path, std::size_t* dropped = nullptr) {
  d::shared_chunks shared{{path, nullptr}, journal_test_key};
  const std::vector<std::uint64_t> ran = journal_test_run(shared);
  if (dropped) *dropped = shared.dropped;
  return ran;
}

// The journal the dispatch opens for `path` (the rank's words appended to the key), to plant records.
d::checkpoint_journal journal_test_open(const std::string& path) {
  return d::checkpoint_journal(path, journal_test_key + "; rank 0 of 1", d::journal_user_key(path),
                               [](std::uint64_t, std::string_view) { return true; });
}

std::string journal_test_error(const std::string& path) {
  try {
    journal_test_run(path);
  } catch (const sp::engine_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("journals: created 0600, resumed whole; a record changed on the disk is run again, the others kept") {
  const journal_test_dir scratch;
  const std::string path = (scratch.dir / "j").string();
  CHECK(journal_test_run(path).size() == journal_test_chunks);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(journal_test_run(path).empty());

  // chunk 3's value changed, sealed with the SHA-256 that anyone can compute (what the unkeyed check
  // of journal format 2 accepted): dropped, run again; the 15 others are kept
  std::string bytes = journal_test_read(path);
  const std::size_t header = bytes.find('\n') + 1;
  const std::size_t record = 16 + sizeof(double) + 32;  // index, length, the value, the seal
  REQUIRE(bytes.size() == header + journal_test_chunks * record);
  std::string body = bytes.substr(header + 3 * record, 16 + sizeof(double));
  const double forged = 1e9;
  std::memcpy(body.data() + 16, &forged, sizeof forged);
  const d::sha256::digest digest = d::sha256::of(body);
  bytes.replace(header + 3 * record, record, body + std::string(reinterpret_cast<const char*>(digest.data()), 32));
  journal_test_write(path, bytes);
  std::size_t dropped = 0;
  CHECK(journal_test_run(path, &dropped) == std::vector<std::uint64_t>{3});
  CHECK(dropped == 1);
  CHECK(journal_test_run(path, &dropped).empty());  // the file was rewritten with its good records
  CHECK(dropped == 0);

  // a record cut short (a kill while writing it) ends the journal; the chunk runs again
  bytes = journal_test_read(path);
  journal_test_write(path, bytes.substr(0, bytes.size() - 5));
  CHECK(journal_test_run(path, &dropped).size() == 1);
}

TEST_CASE(
    "journals: sealed records the run cannot use are dropped: non-finite, out of range, contradicting, "
    "not a record") {
  const journal_test_dir scratch;
  const std::string path = (scratch.dir / "planted").string();
  {
    d::checkpoint_journal planted = journal_test_open(path);
    for (std::uint64_t c = 0; c < journal_test_chunks; ++c) {
      if (c != 5 && c != 6 && c != 7 && c != 9) planted.record(c, d::record_bytes(journal_test_value(c)));
    }
    planted.record(5, d::record_bytes(std::numeric_limits<double>::quiet_NaN()));
    planted.record(6, d::record_bytes(-std::numeric_limits<double>::infinity()));
    planted.record(7, d::record_bytes(journal_test_value(7)));
    planted.record(7, d::record_bytes(journal_test_value(7) + 1));  // two records of chunk 7 that disagree
    planted.record(8, d::record_bytes(journal_test_value(8)));      // the same again: kept
    planted.record(99, d::record_bytes(1.0));                       // beyond the run's chunks
    planted.record(9, "short");                                     // not a double's bytes
  }
  std::size_t dropped = 0;
  CHECK(journal_test_run(path, &dropped) == std::vector<std::uint64_t>{5, 6, 7, 9});
  CHECK(dropped == 6);  // NaN, -inf, chunk 7's two, chunk 99, the short one
  CHECK(journal_test_run(path, &dropped).empty());
  CHECK(dropped == 0);

  // what each arithmetic's record may hold
  CHECK(d::valid_record(d::compensated_sum{}));
  d::compensated_sum negative_magnitude;
  negative_magnitude.magnitude = -1;
  CHECK_FALSE(d::valid_record(negative_magnitude));
  d::residue_sum<2> residues;
  residues.s[0] = 12345;
  residues.s[1] = -(1 << 30);
  CHECK(d::valid_record(residues));
  for (const double bad : {0.5, std::ldexp(1.0, 60), std::numeric_limits<double>::quiet_NaN()}) {
    d::residue_sum<2> wrong = residues;
    wrong.s[1] = bad;
    CHECK_FALSE(d::valid_record(wrong));
  }
  CHECK_FALSE(d::valid_record(sp::complex_double{1, std::numeric_limits<double>::infinity()}));
}

TEST_CASE("journals: only the user's own file that no one else may write; anything else refused with why") {
  const journal_test_dir scratch;
  const std::string path = (scratch.dir / "j").string();
  journal_test_run(path);
  // others may write it: refused; others may only read it: made private
  ::chmod(path.c_str(), 0666);
  CHECK(journal_test_error(path) ==
        "checkpoint journal '" + path +
            "': others may write to it (mode 666), so its records cannot be trusted; remove it or name another file");
  ::chmod(path.c_str(), 0644);
  CHECK(journal_test_run(path).empty());
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  if (::geteuid() == 0) {  // another user's file (root can make one)
    const std::string theirs = (scratch.dir / "theirs").string();
    fs::copy_file(path, theirs);
    REQUIRE(::chown(theirs.c_str(), 65534, 65534) == 0);
    CHECK(journal_test_error(theirs).find("it belongs to another user (uid 65534): a journal must be your own") !=
          std::string::npos);
  }
  // through a link
  const std::string link = (scratch.dir / "link").string();
  fs::create_symlink(path, link);
  CHECK(journal_test_error(link) ==
        "checkpoint journal '" + link + "': it is a symbolic link (a journal is never opened through one)");
}

TEST_CASE("journals: the header alone tells another file, another version, a damaged header and another run") {
  const journal_test_dir scratch;
  const std::string path = (scratch.dir / "j").string();
  journal_test_run(path);
  const std::string journal = journal_test_read(path);
  const std::string header = journal.substr(0, journal.find('\n') + 1);
  CHECK(header.rfind("sparseperm journal 3 ", 0) == 0);

  // a matrix file named as the journal: refused, left as it was
  const std::string matrix = (scratch.dir / "a.mtx").string();
  const std::string text = "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 2\n";
  journal_test_write(matrix, text);
  ::chmod(matrix.c_str(), 0600);
  CHECK(journal_test_error(matrix) == "checkpoint journal '" + matrix +
                                          "': it is not a checkpoint journal (it begins \"%%MatrixMarket matrix "
                                          "coordinate\"); name a new file, or remove this one if it is an old journal");
  CHECK(journal_test_read(matrix) == text);

  // one bit flipped in the header's seal
  std::string flipped = journal;
  flipped[30] = static_cast<char>(flipped[30] ^ 1);
  const std::string damaged = (scratch.dir / "damaged").string();
  journal_test_write(damaged, flipped);
  ::chmod(damaged.c_str(), 0600);
  CHECK(journal_test_error(damaged) ==
        "checkpoint journal '" + damaged + "': its header is damaged; remove it to start afresh");

  // an older version's journal
  const std::string old = (scratch.dir / "old").string();
  journal_test_write(old, "sparseperm journal 2 " + std::string(64, 'a') + "\n");
  ::chmod(old.c_str(), 0600);
  CHECK(journal_test_error(old) ==
        "checkpoint journal '" + old +
            "': it is the journal of another version of sparseperm (format 2); remove it to start afresh");

  // another run, or another user's key: the same file read with another key
  ::setenv("SPARSEPERM_CACHE", (scratch.dir / "another-cache").c_str(), 1);
  CHECK(journal_test_error(path).find("it is the journal of another run (a different matrix, engine, arithmetic, "
                                      "chunking or version), or was sealed with another user's key") !=
        std::string::npos);
  ::setenv("SPARSEPERM_CACHE", (scratch.dir / "cache").c_str(), 1);

  // 3 GB that are not a journal: refused from the first bytes, without reading the rest
  const std::string big = (scratch.dir / "big").string();
  journal_test_write(big, "hello");
  ::chmod(big.c_str(), 0600);
  fs::resize_file(big, std::uintmax_t{3} << 30);
  const auto start = std::chrono::steady_clock::now();
  CHECK(journal_test_error(big).find("it is not a checkpoint journal (it begins \"hello") != std::string::npos);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 0.5);
  MESSAGE("a 3 GB file refused in " << seconds * 1e3 << " ms");
  fs::remove(big);
}

TEST_CASE("journals: the journals of another rank count give their chunks (the chunks are the same)") {
  const journal_test_dir scratch;
  const std::string path = (scratch.dir / "j").string();
  CHECK(journal_test_run(path).size() == journal_test_chunks);  // one process: FILE
  test_support::ranks_in_threads ranks(2);
  std::vector<std::size_t> ran(2), adopted(2);
  const std::vector<std::string> results = ranks.each([&](int r) {
    d::shared_chunks shared{{path, ranks.rank(r)}, journal_test_key};
    ran[static_cast<std::size_t>(r)] = journal_test_run(shared).size();
    adopted[static_cast<std::size_t>(r)] = shared.adopted;
    return std::string("done");
  });
  CHECK(results == std::vector<std::string>{"done", "done"});
  CHECK(ran[0] + ran[1] == 0);
  CHECK(adopted[0] == journal_test_chunks);  // rank 0 read FILE, and keeps its records in FILE.0-of-2
  CHECK(fs::exists(path + ".0-of-2"));
  CHECK(fs::exists(path + ".1-of-2"));
  // one process again, FILE gone: the ranks' journals give every chunk
  fs::remove(path);
  d::shared_chunks alone{{path, nullptr}, journal_test_key};
  CHECK(journal_test_run(alone).empty());
  CHECK(alone.adopted == journal_test_chunks);
  CHECK(d::sharing_text(alone, journal_test_chunks)
            .find("0 of 16 chunks resumed from it, 16 taken from the journals of a run on another rank count") !=
        std::string::npos);
}
