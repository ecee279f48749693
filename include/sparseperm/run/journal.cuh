#pragma once
// A checkpoint journal: the finished chunks of one run and their partial sums, appended one record at a
// time and synced to the disk at most a second apart, so that a run killed at any instant (SIGKILL;
// a node failure loses the last second) resumes where its journal ends and gives the same result,
// bit for bit (the chunks' sums are reduced in chunk order).
//
// The file starts with a line "sparseperm journal 2 <key digest>\n", where the key names everything
// that decides the chunks' sums (the matrix as the engine holds it, the engine, the arithmetic, the
// chunking, the library's version); a journal with another key is refused, never mixed. Each record
// is the chunk's index (8 bytes), the length of its bytes (8), the record's bytes
// (run/record_codec.cuh) and 8 bytes of SHA-256 over all three; a record that is cut short or does
// not check (the run died while writing it) ends the journal there, and the file is cut back to its
// last good record before appending. The file is created 0600, not through a link, and locked while
// a run writes it.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "../core/engine_error.cuh"
#include "../detail/file_descriptor.cuh"
#include "../detail/sha256.cuh"
#include "../detail/text.cuh"
#include "record_codec.cuh"

namespace sparseperm::detail {

// The journals open in this process, for a signal handler (async-signal-safe: fixed slots, atomics):
// sync_journals_on_signal() syncs them and says, on stderr, that the same command resumes.
struct open_journals {
  static constexpr int slots = 8;
  static inline std::atomic<int> fds[slots] = {-1, -1, -1, -1, -1, -1, -1, -1};
  static inline char note[1024] = {};
  static inline std::atomic<std::size_t> note_length{0};

  static int add(int fd, const std::string& path) {
    const std::string line = "note: the checkpoint journal '" + printable(path) +
                             "' keeps the finished chunks: the same command resumes from them\n";
    if (line.size() < sizeof note && note_length.load() == 0) {
      std::memcpy(note, line.data(), line.size());
      note_length.store(line.size());
    }
    for (int k = 0; k < slots; ++k) {
      int empty = -1;
      if (fds[k].compare_exchange_strong(empty, fd)) return k;
    }
    return -1;
  }
  static void remove(int slot) {
    if (slot >= 0) fds[slot].store(-1);
    bool any = false;
    for (int k = 0; k < slots; ++k) any = any || fds[k].load() >= 0;
    if (!any) note_length.store(0);
  }
};

inline void sync_journals_on_signal() noexcept {
  bool any = false;
  for (int k = 0; k < open_journals::slots; ++k) {
    const int fd = open_journals::fds[k].load();
    if (fd >= 0) {
      ::fdatasync(fd);  // a record cut short by the signal is dropped when the journal is read
      any = true;
    }
  }
  if (any && ::write(2, open_journals::note, open_journals::note_length.load()) < 0) return;
}

class checkpoint_journal {
 public:
  // Opens (or creates) `path` for a run whose identity is `key`; the records already there can be
  // read with find().
  checkpoint_journal(const std::string& path, std::string_view key) : path_(path) {
    fd_ = file_descriptor(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!fd_) fail("cannot open it: " + std::string(std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) fail("it is not a regular file");
    if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) fail("another run is writing it");
    const std::string header = "sparseperm journal 2 " + hex_of(sha256::of(key)) + "\n";
    std::string content;
    char buffer[1 << 16];
    for (;;) {
      const ssize_t got = ::read(fd_.get(), buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail("cannot read it: " + std::string(std::strerror(errno)));
      if (got == 0) break;
      content.append(buffer, static_cast<std::size_t>(got));
    }
    std::size_t good = 0;
    // empty, or a header cut short by a kill during the first write: a fresh journal
    if (content.size() < header.size() && header.compare(0, content.size(), content) == 0) {
      if (::ftruncate(fd_.get(), 0) != 0 || ::lseek(fd_.get(), 0, SEEK_SET) < 0 || !write_all(fd_.get(), header) ||
          ::fsync(fd_.get()) != 0)
        fail("cannot write it");
      good = header.size();
    } else {
      if (content.compare(0, header.size(), header) != 0) {
        fail(
            "it is the journal of another run (a different matrix, engine, arithmetic, chunking or version); "
            "remove it or name another file");
      }
      good = header.size();
      for (;;) {  // index, length, bytes, check
        byte_reader in(std::string_view(content).substr(good));
        std::uint64_t chunk = 0, length = 0;
        if (!in.get(chunk) || !in.get(length) || length > in.left() || in.left() - length < check_bytes) break;
        const std::size_t body = 2 * sizeof(std::uint64_t) + static_cast<std::size_t>(length);
        const std::string_view r(content.data() + good, body + check_bytes);
        if (r.substr(body) != std::string_view(check_of(r.substr(0, body)))) break;
        sums_[chunk] = std::string(r.substr(2 * sizeof(std::uint64_t), static_cast<std::size_t>(length)));
        good += r.size();
      }
    }
    if (::ftruncate(fd_.get(), static_cast<off_t>(good)) != 0 || ::lseek(fd_.get(), 0, SEEK_END) < 0)
      fail("cannot cut it back to its last whole record");
    slot_ = open_journals::add(fd_.get(), path_);
  }

  std::size_t resumed() const { return sums_.size(); }

  // The bytes of `chunk`'s record from an earlier run, or nothing.
  const std::string* find(std::uint64_t chunk) const {
    const auto it = sums_.find(chunk);
    return it == sums_.end() ? nullptr : &it->second;
  }

  // Appends a finished chunk's record bytes (threads may call it at once). The write reaches the
  // kernel at once, so a killed process loses nothing; the disk is synced at most once a second (each
  // sync costs about as much as a small chunk), so a machine that fails loses at most the last second.
  void record(std::uint64_t chunk, std::string_view bytes) {
    byte_writer out;
    out.put(chunk).put(static_cast<std::uint64_t>(bytes.size()));
    std::string r = out.take();
    r.append(bytes);
    r += check_of(r);
    const std::lock_guard lock(mutex_);
    if (!write_all(fd_.get(), r)) fail("cannot append to it");
    const auto now = std::chrono::steady_clock::now();
    if (now - synced_ >= std::chrono::seconds(1)) {
      if (::fdatasync(fd_.get()) != 0) fail("cannot sync it");
      synced_ = now;
    }
  }

  ~checkpoint_journal() {
    open_journals::remove(slot_);
    if (fd_) ::fdatasync(fd_.get());
  }

 private:
  static constexpr std::size_t check_bytes = 8;
  static std::string check_of(std::string_view bytes) {
    const sha256::digest d = sha256::of(bytes);
    return std::string(reinterpret_cast<const char*>(d.data()), check_bytes);
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw engine_error(engine_error::kind::bad_setting, "checkpoint journal '" + path_ + "': " + why);
  }

  std::string path_;
  file_descriptor fd_;
  std::map<std::uint64_t, std::string> sums_;
  std::mutex mutex_;
  int slot_ = -1;
  std::chrono::steady_clock::time_point synced_ = std::chrono::steady_clock::now();
};

}  // namespace sparseperm::detail
