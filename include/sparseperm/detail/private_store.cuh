#pragma once
// The user's private directory and key: the module cache's root (module/cache.cuh) and the per-user
// key that seals what sparseperm keeps there and elsewhere (compiled modules, checkpoint journals).
//
//   the root      $SPARSEPERM_CACHE, else $XDG_CACHE_HOME/sparseperm, else $HOME/.cache/sparseperm,
//                 else the password database's home/.cache/sparseperm, else $TMPDIR/sparseperm-cache-UID.
//                 Missing directories are created 0700. It must be a directory owned by this user and
//                 writable by no one else (one only readable by others is tightened to 0700), and every
//                 directory above it must belong to this user or root and be writable by no one else
//                 unless sticky (/tmp): otherwise it is refused, with the reason.
//   the key       root/key: 32 random bytes, 0600, made once (written aside, then linked into place).
//                 Whoever can read it can seal; it travels with the home directory.
#include <fcntl.h>
#include <pwd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "../core/engine_error.cuh"
#include "file_descriptor.cuh"

namespace sparseperm::detail {

namespace fs = std::filesystem;

[[noreturn]] inline void refuse_cache(const std::string& why) {
  throw engine_error(engine_error::kind::unavailable, "the module cache " + why);
}

inline std::string error_text() { return std::strerror(errno); }

// The cache root the environment names (see the top of this file).
inline std::string default_cache_dir() {
  if (const char* env = std::getenv("SPARSEPERM_CACHE"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "sparseperm").string();
  if (const char* home = std::getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "sparseperm").string();
  if (const passwd* user = ::getpwuid(::geteuid()); user && user->pw_dir && *user->pw_dir) {
    return (fs::path(user->pw_dir) / ".cache" / "sparseperm").string();
  }
  return (fs::temp_directory_path() / ("sparseperm-cache-" + std::to_string(::geteuid()))).string();
}

// Creates the missing directories of `dir` with mode 0700 (not the umask's).
inline void make_private_directories(const fs::path& dir) {
  fs::path built;
  for (const auto& part : fs::absolute(dir)) {
    built /= part;
    if (::mkdir(built.c_str(), 0700) != 0 && errno != EEXIST)
      refuse_cache(built.string() + " cannot be created: " + error_text());
  }
}

// Every directory above `dir` (canonical) belongs to this user or root and no one else may write to
// it, unless it is sticky: no one else can rename or replace what leads to the cache.
inline void check_ancestors(const fs::path& dir) {
  const uid_t me = ::geteuid();
  fs::path at;
  for (const auto& part : dir.parent_path()) {
    at /= part;
    struct stat status {};
    if (::stat(at.c_str(), &status) != 0) refuse_cache("path " + at.string() + " cannot be examined: " + error_text());
    if (status.st_uid != me && status.st_uid != 0) {
      refuse_cache("directory " + dir.string() + " lies under " + at.string() + ", which belongs to another user");
    }
    if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (status.st_mode & S_ISVTX) == 0) {
      refuse_cache("directory " + dir.string() + " lies under " + at.string() + ", which others may write to");
    }
  }
}

// Opens `dir` as the cache root: created if missing, owned by this user, writable by no one else.
inline fs::path open_private_root(const std::string& dir) {
  make_private_directories(dir);
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) refuse_cache("directory " + dir + " cannot be resolved: " + ec.message());
  check_ancestors(root);
  const file_descriptor fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) refuse_cache("directory " + root.string() + " cannot be opened: " + error_text());
  struct stat status {};
  if (::fstat(fd.get(), &status) != 0 || !S_ISDIR(status.st_mode))
    refuse_cache("path " + root.string() + " is not a directory");
  if (status.st_uid != ::geteuid()) {
    refuse_cache("directory " + root.string() + " belongs to another user (uid " + std::to_string(status.st_uid) +
                 "); set SPARSEPERM_CACHE to a directory of your own");
  }
  if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    refuse_cache("directory " + root.string() + " may be written by others (mode " +
                 std::to_string((status.st_mode >> 6) & 7) + std::to_string((status.st_mode >> 3) & 7) +
                 std::to_string(status.st_mode & 7) +
                 "): what it holds cannot be trusted; remove it, or chmod 700 it if only you ever wrote to it");
  }
  if ((status.st_mode & 077) != 0 && ::fchmod(fd.get(), 0700) != 0) {
    refuse_cache("directory " + root.string() + " cannot be made private: " + error_text());
  }
  return root;
}

// Checks an open file of the cache: a regular file of this user that no one else may write.
inline bool is_own_private_file(int fd, std::uintmax_t max_bytes, struct stat& status) {
  return ::fstat(fd, &status) == 0 && S_ISREG(status.st_mode) && status.st_uid == ::geteuid() &&
         (status.st_mode & (S_IWGRP | S_IWOTH)) == 0 && static_cast<std::uintmax_t>(status.st_size) <= max_bytes;
}

// The whole of a file opened without following a link; nothing when it is missing, a link, not a
// regular file of this user, writable by others, or larger than max_bytes.
inline std::optional<std::string> read_private_file(const fs::path& path, std::uintmax_t max_bytes) {
  const file_descriptor fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat status {};
  if (!fd || !is_own_private_file(fd.get(), max_bytes, status)) return std::nullopt;
  std::string bytes(static_cast<std::size_t>(status.st_size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return std::nullopt;  // shorter than it said: changed while read
    done += static_cast<std::size_t>(got);
  }
  return bytes;
}

// Writes a new file (O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600): never through a link, never over a file.
inline void write_new_file(const fs::path& path, std::string_view bytes) {
  const file_descriptor fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) throw engine_error(engine_error::kind::failed, "cannot create " + path.string() + ": " + error_text());
  if (!write_all(fd.get(), bytes))
    throw engine_error(engine_error::kind::failed, "cannot write " + path.string() + ": " + error_text());
}

inline std::string random_bytes(std::size_t count) {
  std::string bytes(count, '\0');
  std::size_t done = 0;
  while (done < count) {
    const ssize_t got = ::getrandom(bytes.data() + done, count - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      throw engine_error(engine_error::kind::failed, "no random bytes for the module cache's key: " + error_text());
    done += static_cast<std::size_t>(got);
  }
  return bytes;
}

inline constexpr std::size_t cache_key_bytes = 32;

// root/key: read, or made once (written to a private temporary file, then linked into place, so
// that a reader never sees half a key and two first runs agree on one).
inline std::string cache_key(const fs::path& root) {
  const fs::path path = root / "key";
  for (int attempt = 0; attempt < 2; ++attempt) {
    const file_descriptor fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (fd) {
      struct stat status {};
      if (!is_own_private_file(fd.get(), cache_key_bytes, status) || (status.st_mode & 077) != 0) {
        refuse_cache("key " + path.string() + " is not a private file of this user (remove it to make a new one)");
      }
      if (static_cast<std::size_t>(status.st_size) == cache_key_bytes) {
        if (const auto key = read_private_file(path, cache_key_bytes); key && key->size() == cache_key_bytes)
          return *key;
      }
      ::unlink(path.c_str());  // a short key (an interrupted first run of an older version): replaced
      continue;
    }
    if (errno != ENOENT) refuse_cache("key " + path.string() + " cannot be opened: " + error_text());
    std::string temporary = (root / "key.XXXXXX").string();
    const file_descriptor made(::mkstemp(temporary.data()));
    if (!made) refuse_cache("key cannot be created in " + root.string() + ": " + error_text());
    const std::string key = random_bytes(cache_key_bytes);
    const bool written = write_all(made.get(), key) && ::fsync(made.get()) == 0;
    const bool linked = written && ::link(temporary.c_str(), path.c_str()) == 0;
    ::unlink(temporary.c_str());
    if (linked) return key;
    if (!written) refuse_cache("key cannot be written in " + root.string() + ": " + error_text());
    // another process linked its key first: read that one
  }
  refuse_cache("key " + path.string() + " cannot be made");
}

// The key of the default root (SPARSEPERM_CACHE or the user's cache directory).
inline std::string user_key() { return cache_key(open_private_root(default_cache_dir())); }

}  // namespace sparseperm::detail
