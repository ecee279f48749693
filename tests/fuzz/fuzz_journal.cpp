// Fuzz target: the checkpoint journal's reader (run/journal.cuh) and the records' decoding and checks
// (run/record_codec.cuh). The first byte picks what the rest is:
//   even   a whole journal file, as anyone could write it (headers, seals, lengths, cut records);
//   odd    records sealed with the key, as a run (or a bug) could write them: (chunk, length, bytes)
//          triples after a true header, then raw bytes appended, read back as one of five record types.
// Either way opening gives a journal or an engine_error (nothing else: no crash, no other exception,
// no hang); every record it keeps decodes and checks; and the file it leaves opens again with nothing
// dropped and the same records.
#include <sparseperm/core/engine_error.cuh>
#include <sparseperm/numeric/accumulators.cuh>
#include <sparseperm/numeric/big_integer.cuh>
#include <sparseperm/numeric/modular.cuh>
#include <sparseperm/run/journal.cuh>
#include <sparseperm/run/record_codec.cuh>

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

namespace {

namespace d = sparseperm::detail;

constexpr std::uint64_t fuzz_chunks = 64;
const std::string fuzz_key = "a fuzzed run";
const std::string fuzz_user_key(32, 'k');

const std::string& fuzz_path() {
  static const std::string path = [] {
    char name[] = "/tmp/sparseperm-fuzz-journal-XXXXXX";
    const int fd = ::mkstemp(name);
    if (fd < 0) std::abort();
    ::close(fd);
    return std::string(name);
  }();
  return path;
}

void fuzz_write(std::string_view bytes) {
  ::unlink(fuzz_path().c_str());
  const d::file_descriptor fd(::open(fuzz_path().c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600));
  if (!fd || !d::write_all(fd.get(), bytes)) std::abort();
}

template <class Record>
bool fuzz_accept(std::uint64_t chunk, std::string_view bytes) {
  Record r{};
  return chunk < fuzz_chunks && d::record_from_bytes(bytes, r) && d::valid_record(r);
}

// Opens the file as a journal of Record: the records kept, or nothing where it was refused.
template <class Record>
bool fuzz_open(std::map<std::uint64_t, std::string>& kept, std::size_t& dropped) {
  try {
    const d::checkpoint_journal journal(fuzz_path(), fuzz_key, fuzz_user_key, fuzz_accept<Record>);
    kept.clear();
    for (std::uint64_t c = 0; c < fuzz_chunks; ++c) {
      if (const std::string* bytes = journal.find(c)) {
        if (!fuzz_accept<Record>(c, *bytes)) std::abort();  // a record kept that does not check
        kept[c] = *bytes;
      }
    }
    if (kept.size() != journal.resumed()) std::abort();  // a record kept beyond the run's chunks
    dropped = journal.dropped();
    return true;
  } catch (const sparseperm::engine_error&) {
    return false;
  }
}

template <class Record>
void fuzz_reopen() {
  std::map<std::uint64_t, std::string> first, second;
  std::size_t dropped = 0;
  if (!fuzz_open<Record>(first, dropped)) return;
  // what the first opening left is a clean journal with the same records
  if (!fuzz_open<Record>(second, dropped) || dropped != 0 || second != first) std::abort();
}

// A true header and sealed records from the input: (chunk, length, bytes) each; what is left of the
// input is appended raw.
void fuzz_sealed(std::string_view in) {
  fuzz_write("");
  {
    d::checkpoint_journal journal(fuzz_path(), fuzz_key, fuzz_user_key,
                                  [](std::uint64_t, std::string_view) { return true; });
    while (in.size() >= 2) {
      const auto chunk = static_cast<std::uint8_t>(in[0]);
      const std::size_t length = static_cast<std::uint8_t>(in[1]);
      if (length == 255 || in.size() - 2 < length) break;  // 255: the sealed records end here
      journal.record(chunk, in.substr(2, length));
      in.remove_prefix(2 + length);
    }
  }
  if (in.size() > 2) {  // after the end mark, raw bytes
    const d::file_descriptor fd(::open(fuzz_path().c_str(), O_WRONLY | O_APPEND));
    if (!fd || !d::write_all(fd.get(), in.substr(2))) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const int mode = data[0];
  if (mode % 2 == 0) {
    fuzz_write(input);
  } else {
    fuzz_sealed(input);
  }
  switch ((mode / 2) % 5) {
    case 0:
      fuzz_reopen<double>();
      break;
    case 1:
      fuzz_reopen<d::compensated_sum>();
      break;
    case 2:
      fuzz_reopen<d::residue_sum<2>>();
      break;
    case 3:
      fuzz_reopen<d::big_integer>();
      break;
    default:
      fuzz_reopen<d::complex_sum<d::compensated_sum>>();
      break;
  }
  return 0;
}
