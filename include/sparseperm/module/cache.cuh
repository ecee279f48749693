#pragma once
// The module cache: where compiled per-matrix modules are kept between runs, made so that nothing in
// it can come from anyone but this user's sparseperm, and nothing is loaded that was not verified.
//
//   the root      the user's private directory, and its key (detail/private_store.cuh).
//   an entry      root/ENGINE-DIGEST/: DIGEST is SHA-256 of everything that decides the binary (the
//                 generated sources, compiler, flags, target, the library's headers), so a crafted
//                 matrix cannot share another's entry. It holds matrix.cuh, the module source,
//                 compile.log and module.sealed: "sparseperm-module 1\n", HMAC-SHA-256(key, entry name,
//                 module) and the module. A sealed module is read without following links, its MAC
//                 checked, and only the bytes that were checked are loaded (from memory: no path that
//                 could change in between); anything else (missing, truncated, another entry's, not
//                 ours) is removed and rebuilt.
//   a build       a fresh root/build-XXXXXX (mkdtemp) holds the sources, the log (created O_EXCL) and
//                 the compiler's output; sealed, it becomes the entry by one rename. A failed build is
//                 kept as root/failed-ENGINE-DIGEST for its log; an interrupted one is removed, and
//                 one a killed process left (its lock gone with it) by the next build.
#include <fcntl.h>
#include <sys/file.h>
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
#include <vector>

#include "../core/engine_error.cuh"
#include "../detail/file_descriptor.cuh"
#include "../detail/private_store.cuh"
#include "../detail/sha256.cuh"

namespace sparseperm::detail {

namespace fs = std::filesystem;

inline constexpr std::string_view sealed_magic = "sparseperm-module 1\n";
inline constexpr std::uintmax_t max_module_bytes = std::uintmax_t{1} << 30;

inline sha256::digest module_mac(const std::string& key, const std::string& entry, std::string_view module) {
  std::string message = entry;
  message += '\0';
  message.append(module);
  return hmac_sha256(key, message);
}

// The sealed form of a module for `entry`.
inline std::string seal_module(const std::string& key, const std::string& entry, std::string_view module) {
  const sha256::digest mac = module_mac(key, entry, module);
  std::string sealed(sealed_magic);
  sealed.append(reinterpret_cast<const char*>(mac.data()), mac.size());
  sealed.append(module);
  return sealed;
}

// The module of a sealed file whose MAC holds for `entry`; nothing otherwise.
inline std::optional<std::string> unseal_module(const std::string& key, const std::string& entry,
                                                const fs::path& path) {
  const auto sealed = read_private_file(path, max_module_bytes);
  if (!sealed || sealed->size() < sealed_magic.size() + 32 ||
      sealed->compare(0, sealed_magic.size(), sealed_magic) != 0) {
    return std::nullopt;
  }
  sha256::digest recorded{};
  std::memcpy(recorded.data(), sealed->data() + sealed_magic.size(), recorded.size());
  std::string module = sealed->substr(sealed_magic.size() + recorded.size());
  if (!same_digest(recorded, module_mac(key, entry, module))) return std::nullopt;
  return module;
}

// The directory at `path` (not a link), locked for this process (flock, close-on-exec: the kernel
// drops the lock with the process); nothing when it is gone or another process holds it.
inline file_descriptor locked_directory(const fs::path& path) {
  file_descriptor held(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (held && ::flock(held.get(), LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;  // for the caller's message, past the close
    held = file_descriptor();
    errno = why;
  }
  return held;
}

// A private build directory under the root, removed unless kept. It is locked (flock on the
// directory, close-on-exec) while this process lives: the kernel drops the lock when the process
// dies however it dies, so a later run can tell a live build from one a killed process left.
class build_directory {
 public:
  explicit build_directory(const fs::path& root) {
    // another run's remove_stale_builds may take a folder between mkdtemp and flock: then a new one
    for (int attempt = 0;; ++attempt) {
      std::string name = (root / "build-XXXXXX").string();
      if (::mkdtemp(name.data()) == nullptr)
        refuse_cache("build directory cannot be created in " + root.string() + ": " + error_text());
      lock_ = locked_directory(name);
      if (lock_) {
        path_ = name;
        return;
      }
      const std::string why = error_text();
      if (attempt == 7) refuse_cache("build directory " + name + " cannot be locked: " + why);
    }
  }
  ~build_directory() {
    if (!kept_) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  build_directory(const build_directory&) = delete;
  build_directory& operator=(const build_directory&) = delete;

  const fs::path& path() const { return path_; }
  // The directory now lives on as `to` (a rename): the destructor leaves it.
  bool move_to(const fs::path& to) {
    if (::rename(path_.c_str(), to.c_str()) != 0) return false;
    kept_ = true;
    path_ = to;
    return true;
  }

 private:
  fs::path path_;
  file_descriptor lock_;
  bool kept_ = false;
};

// Removes a cache path (an entry that failed verification, an old failed build) without following
// links: remove_all deletes links themselves.
inline void remove_cache_path(const fs::path& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

// Build folders that a killed process left (SIGKILL, a power cut: no scope ran): those nobody holds
// locked (a live build's process holds its lock).
inline void remove_stale_builds(const fs::path& root) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("build-", 0) != 0 || !e.is_directory(ec) || e.is_symlink(ec)) continue;
    if (locked_directory(e.path())) remove_cache_path(e.path());
  }
}

}  // namespace sparseperm::detail
