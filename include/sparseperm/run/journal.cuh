#pragma once
// A checkpoint journal: the finished chunks of one run and their partial sums, appended one record at a
// time and synced to the disk at most a second apart, so that a run killed at any instant (SIGKILL;
// a node failure loses the last second) resumes where its journal ends and gives the same result,
// bit for bit (the chunks' sums are reduced in chunk order).
//
//   the file      must be a regular file of this user that no one else may write (one that others
//                 may only read is made 0600); it is created 0600, never opened through a link, and
//                 locked while a run writes it. Anything else is refused with the reason.
//   the header    "sparseperm journal 3 <seal> <check>\n": the seal is HMAC-SHA-256 under the user's
//                 key (detail/private_store.cuh) of the run's key, which names everything that decides
//                 the chunks' sums (the matrix as the engine holds it, the engine, the arithmetic, the
//                 chunking, the library's version); the check is 4 bytes of SHA-256 of the text before
//                 it, so that a damaged header is told from another run's. The header is read first:
//                 a file that is not this run's journal is refused without reading the rest.
//   a record      the chunk's index (8 bytes), the length of its bytes (8), the bytes
//                 (run/record_codec.cuh), then HMAC-SHA-256 under the user's key of the header's seal
//                 and all three. Whoever cannot read the key cannot make a record that is accepted.
//   reading       a record whose seal does not hold, that the caller does not accept (a value the
//                 arithmetic cannot produce, a chunk out of range), or that contradicts another for
//                 the same chunk is dropped, and its chunk runs again; the others are kept. A record cut
//                 short (the run died while writing it) ends the journal. Where anything was dropped
//                 or cut, the file is rewritten with the kept records before appending.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "../core/engine_error.cuh"
#include "../detail/file_descriptor.cuh"
#include "../detail/private_store.cuh"
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

// The user's key (detail/private_store.cuh) that seals the journal at `path`, or a refusal naming it.
inline std::string journal_user_key(const std::string& path) {
  try {
    return user_key();
  } catch (const engine_error& e) {
    throw engine_error(engine_error::kind::bad_setting,
                       "checkpoint journal '" + printable(path) + "': no key to seal it with: " + e.what());
  }
}

class checkpoint_journal {
 public:
  // accept(chunk, bytes): whether a record read back may be used (its chunk in range, its value one
  // the run's arithmetic can produce).
  using accept_function = std::function<bool(std::uint64_t, std::string_view)>;

  // Opens (or creates) `path` for the run whose identity is `key`, its records sealed with
  // `user_key`; the records already there that check and are accepted can be read with find().
  checkpoint_journal(const std::string& path, std::string_view key, std::string user_key, const accept_function& accept)
      : path_(path), user_key_(std::move(user_key)) {
    open_private(false);
    const std::string head = header(key);
    const std::string first = read_at_most(head.size());
    if (file_size_ < head.size() && head.compare(0, first.size(), first) == 0) {
      // empty, or a header cut short by a kill during the first write: a fresh journal
      if (::ftruncate(fd_.get(), 0) != 0 || ::lseek(fd_.get(), 0, SEEK_SET) < 0 || !write_all(fd_.get(), head) ||
          ::fsync(fd_.get()) != 0)
        fail("cannot write it");
    } else {
      if (first != head) fail(why_not_this_run(first));
      read_records(head.size(), accept, true);
    }
    slot_ = open_journals::add(fd_.get(), path_);
  }

  // The records of the journal at `path` of the run `key`, read without writing anything (another
  // rank count's journals of the same chunks); none where it is missing, is being written or is not
  // that run's journal.
  static std::map<std::uint64_t, std::string> records_of(const std::string& path, std::string_view key,
                                                         std::string user_key, const accept_function& accept) {
    try {
      checkpoint_journal journal(path, std::move(user_key));
      const std::string head = journal.header(key);
      if (journal.read_at_most(head.size()) != head) return {};
      journal.read_records(head.size(), accept, false);
      return std::move(journal.sums_);
    } catch (const engine_error&) {
      return {};
    }
  }

  std::size_t resumed() const { return sums_.size(); }
  // The records read back that were dropped (not sealed with this key, not accepted, or contradicting
  // another record of their chunk).
  std::size_t dropped() const { return dropped_; }

  // The bytes of `chunk`'s record from an earlier run, or nothing.
  const std::string* find(std::uint64_t chunk) const {
    const auto it = sums_.find(chunk);
    return it == sums_.end() ? nullptr : &it->second;
  }

  // Appends a finished chunk's record bytes (threads may call it at once). The write reaches the
  // kernel at once, so a killed process loses nothing; the disk is synced at most once a second (each
  // sync costs about as much as a small chunk), so a machine that fails loses at most the last second.
  void record(std::uint64_t chunk, std::string_view bytes) {
    const std::string r = sealed_record(chunk, bytes);
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

  static constexpr std::string_view prefix = "sparseperm journal 3";
  static constexpr std::size_t max_record_bytes = std::size_t{1} << 20;

 private:
  static constexpr std::size_t mac_bytes = 32;

  checkpoint_journal(const std::string& path, std::string user_key) : path_(path), user_key_(std::move(user_key)) {
    open_private(true);
  }
  static constexpr std::size_t index_bytes = 2 * sizeof(std::uint64_t);

  // The header line of the run `key`; its seal is kept, as every record's seal covers it.
  std::string header(std::string_view key) {
    std::string message = "sparseperm journal";
    message += '\0';
    message.append(key);
    seal_ = hex_of(hmac_sha256(user_key_, message));
    const std::string line = std::string(prefix) + " " + seal_;
    return line + " " + hex_of(sha256::of(line), 4) + "\n";
  }

  // Why a first line that is not this run's header is refused: not a journal, another version, a
  // damaged header, or another run's (or another key's).
  static std::string why_not_this_run(std::string_view first) {
    const std::string_view magic = "sparseperm journal ";
    if (first.substr(0, magic.size()) != magic) {
      const std::string_view begins = first.substr(0, std::min<std::size_t>(first.find('\n'), 32));
      return "it is not a checkpoint journal (it begins \"" + printable(begins) +
             "\"); name a new file, or remove this one if it is an old journal";
    }
    const std::string_view rest = first.substr(magic.size());
    const std::string_view version = rest.substr(0, rest.find_first_of(" \n"));
    if (version != prefix.substr(magic.size())) {
      return "it is the journal of another version of sparseperm (format " + printable(version) +
             "); remove it to start afresh";
    }
    const std::size_t check_at = prefix.size() + 1 + 64;
    const std::string_view line = first.substr(0, check_at);
    if (first.size() < check_at + 10 || first[check_at] != ' ' || first[check_at + 9] != '\n' ||
        first.substr(check_at + 1, 8) != hex_of(sha256::of(line), 4)) {
      return "its header is damaged; remove it to start afresh";
    }
    return "it is the journal of another run (a different matrix, engine, arithmetic, chunking or version), or "
           "was sealed with another user's key; remove it or name another file";
  }

  std::string sealed_record(std::uint64_t chunk, std::string_view bytes) const {
    byte_writer out;
    out.put(chunk).put(static_cast<std::uint64_t>(bytes.size()));
    std::string r = out.take();
    r.append(bytes);
    const sha256::digest mac = hmac_sha256(user_key_, seal_ + r);
    r.append(reinterpret_cast<const char*>(mac.data()), mac.size());
    return r;
  }

  // Opens the file: a regular file of this user that no one else may write, made private (read only:
  // an existing one, shared with other readers, left as it is).
  void open_private(bool read_only) {
    const int flags = read_only ? O_RDONLY : O_RDWR | O_CREAT;
    fd_ = file_descriptor(::open(path_.c_str(), flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600));
    if (!fd_ && errno == ELOOP) fail("it is a symbolic link (a journal is never opened through one)");
    if (!fd_) fail("cannot open it: " + std::string(std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0 || !S_ISREG(st.st_mode)) fail("it is not a regular file");
    if (st.st_uid != ::geteuid()) {
      fail("it belongs to another user (uid " + std::to_string(st.st_uid) +
           "): a journal must be your own; name another file");
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
      fail("others may write to it (mode " + std::to_string((st.st_mode >> 6) & 7) +
           std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) +
           "), so its records cannot be trusted; remove it or name another file");
    }
    if (!read_only && (st.st_mode & 077) != 0 && ::fchmod(fd_.get(), 0600) != 0)
      fail("cannot make it private (mode 600)");
    if (::flock(fd_.get(), read_only ? LOCK_SH | LOCK_NB : LOCK_EX | LOCK_NB) != 0) fail("another run is writing it");
    file_size_ = static_cast<std::uint64_t>(st.st_size);
  }

  std::string read_at_most(std::size_t bytes) {
    std::string content;
    char buffer[1 << 16];
    while (content.size() < bytes) {
      const ssize_t got = ::read(fd_.get(), buffer, std::min(sizeof buffer, bytes - content.size()));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail("cannot read it: " + std::string(std::strerror(errno)));
      if (got == 0) break;
      content.append(buffer, static_cast<std::size_t>(got));
    }
    return content;
  }

  // The records after the header (see the top of this file); the file rewritten where any was dropped.
  void read_records(std::size_t header_size, const accept_function& accept, bool rewrite) {
    const std::string content = read_at_most(static_cast<std::size_t>(file_size_) - header_size);
    std::size_t at = 0;
    std::map<std::uint64_t, bool> conflicted;
    while (at < content.size()) {  // index, length, bytes, seal
      byte_reader in(std::string_view(content).substr(at));
      std::uint64_t chunk = 0, length = 0;
      if (!in.get(chunk) || !in.get(length) || length > max_record_bytes || in.left() < length + mac_bytes) break;
      const std::size_t body = index_bytes + static_cast<std::size_t>(length);
      const std::string_view r(content.data() + at, body + mac_bytes);
      at += r.size();
      sha256::digest mac{};
      std::memcpy(mac.data(), r.data() + body, mac.size());
      const std::string_view bytes = r.substr(index_bytes, static_cast<std::size_t>(length));
      if (!same_digest(mac, hmac_sha256(user_key_, seal_ + std::string(r.substr(0, body)))) || !accept(chunk, bytes)) {
        ++dropped_;
        continue;
      }
      const auto [it, inserted] = sums_.emplace(chunk, std::string(bytes));
      if (!inserted && it->second != bytes) conflicted[chunk] = true;
    }
    for (const auto& [chunk, _] : conflicted) {
      sums_.erase(chunk);
      dropped_ += 2;
    }
    if (!rewrite) return;
    if (dropped_ == 0 && at == content.size()) {
      if (::lseek(fd_.get(), 0, SEEK_END) < 0) fail("cannot seek to its end");
      return;
    }
    // a record cut short, or some dropped: the header and the kept records, then appending
    bool written = ::ftruncate(fd_.get(), static_cast<off_t>(header_size)) == 0 && ::lseek(fd_.get(), 0, SEEK_END) >= 0;
    for (auto it = sums_.begin(); written && it != sums_.end(); ++it)
      written = write_all(fd_.get(), sealed_record(it->first, it->second));
    if (!written || ::fsync(fd_.get()) != 0) fail("cannot rewrite it with its good records");
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw engine_error(engine_error::kind::bad_setting, "checkpoint journal '" + printable(path_) + "': " + why);
  }

  std::string path_;
  std::string user_key_;
  std::string seal_;  // the header's seal (hex), which every record's seal covers
  file_descriptor fd_;
  std::uint64_t file_size_ = 0;
  std::map<std::uint64_t, std::string> sums_;
  std::size_t dropped_ = 0;
  std::mutex mutex_;
  int slot_ = -1;
  std::chrono::steady_clock::time_point synced_ = std::chrono::steady_clock::now();
};

}  // namespace sparseperm::detail
