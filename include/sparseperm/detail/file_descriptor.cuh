#pragma once
// A POSIX file descriptor that closes itself, and a write that finishes (the reader, the module
// cache, the loaders).
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <utility>

namespace sparseperm::detail {

class file_descriptor {
 public:
  explicit file_descriptor(int fd = -1) : fd_(fd) {}
  ~file_descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  file_descriptor(file_descriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  file_descriptor& operator=(file_descriptor&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_;
};

// All of `bytes` to fd (short writes and EINTR resumed); false on an error (errno says which).
inline bool write_all(int fd, std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    done += static_cast<std::size_t>(wrote);
  }
  return true;
}

}  // namespace sparseperm::detail
