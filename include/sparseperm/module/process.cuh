#pragma once
// Running a compiler without a shell, and stopping it when the user asks.
//
//   run_program(argv, output_fd)   runs argv[0] (a path) with argv, stdin from /dev/null and stdout
//                                  and stderr into output_fd; its exit code, or −1 if a signal ended it
//   program_output(argv)           the same, its output captured (at most 1 MiB): `nvcc --version`
//   interrupt_scope                SIGINT, SIGTERM and SIGHUP are recorded instead of acted on while
//                                  it lives (a disposition of SIG_IGN stays ignored); when one came,
//                                  the program in progress and everything in its process group is
//                                  stopped (SIGTERM, then SIGKILL after a second), run_program throws
//                                  interrupted_error, and the scope's end puts the old dispositions
//                                  back and raises the signal again, so the caller's own handling
//                                  (the CLI's message and exit code 130, or the default) still happens
//                                  after the caller's cleanup.
//
// The program gets a process group of its own: a terminal's Ctrl-C reaches this process alone, which
// then stops the whole compiler (nvcc runs cicc and ptxas, g++ cc1plus) rather than leaving parts of
// it behind. Arguments are passed as they are, never through a shell, so no quoting can fail. A
// watchdog (orphan_watch) kills that group if this process is killed outright while it runs.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../core/engine_error.cuh"

extern char** environ;

namespace sparseperm {

namespace detail {
inline volatile std::sig_atomic_t interrupt_signal = 0;  // the signal interrupt_scope recorded, or 0
inline int interrupt_scopes = 0;                         // scopes alive (in any thread), under interrupt_lock
inline std::mutex interrupt_lock;
inline void record_interrupt(int signal) { interrupt_signal = signal; }
}  // namespace detail

inline const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}

class interrupted_error : public engine_error {
 public:
  explicit interrupted_error(int signal)
      : engine_error(kind::interrupted, std::string("interrupted by ") + signal_name(signal)), signal_(signal) {}
  int signal() const noexcept { return signal_; }

 private:
  int signal_;
};

class interrupt_scope {
 public:
  interrupt_scope() {
    const std::lock_guard<std::mutex> hold(detail::interrupt_lock);
    if (detail::interrupt_scopes++ > 0) return;  // the first scope installs, the last one restores
    detail::interrupt_signal = 0;
    for (std::size_t k = 0; k < std::size(signals); ++k) {
      struct sigaction now {};
      now.sa_handler = detail::record_interrupt;
      sigemptyset(&now.sa_mask);
      now.sa_flags = 0;  // no SA_RESTART: a wait or a read returns at once
      sigaction(signals[k], nullptr, &previous_[k]);
      installed_[k] = previous_[k].sa_handler != SIG_IGN;
      if (installed_[k]) sigaction(signals[k], &now, nullptr);
    }
  }
  ~interrupt_scope() {
    int signal = 0;
    {
      const std::lock_guard<std::mutex> hold(detail::interrupt_lock);
      if (--detail::interrupt_scopes > 0) return;
      for (std::size_t k = 0; k < std::size(signals); ++k) {
        if (installed_[k]) sigaction(signals[k], &previous_[k], nullptr);
      }
      signal = detail::interrupt_signal;
      detail::interrupt_signal = 0;
    }
    if (signal) ::raise(signal);  // the caller's own disposition, now that the cleanup is done
  }
  interrupt_scope(const interrupt_scope&) = delete;
  interrupt_scope& operator=(const interrupt_scope&) = delete;

  // Throws interrupted_error when a signal came.
  static void check() {
    if (const int signal = detail::interrupt_signal) throw interrupted_error(signal);
  }

 private:
  // what the first scope found and installed (the one whose destructor restores them is the last)
  static constexpr int signals[] = {SIGINT, SIGTERM, SIGHUP};
  static inline struct sigaction previous_[3]{};
  static inline bool installed_[3] = {};
};

namespace detail {

// Stops process group `group` (SIGTERM, then SIGKILL after a second) and reaps `pid`.
inline void stop_process_group(pid_t pid) {
  ::kill(-pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-pid, SIGKILL);  // whatever of the group outlived its leader
}

// Starts argv[0] in a process group of its own, stdout and stderr into output_fd and stdin from
// input_fd (−1: /dev/null for either).
inline pid_t spawn_program(const std::vector<std::string>& argv, int output_fd, int input_fd = -1) {
  if (argv.empty()) throw std::invalid_argument("spawn_program: no program");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  if (input_fd < 0) {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  } else {
    posix_spawn_file_actions_adddup2(&actions, input_fd, 0);
  }
  for (const int to : {1, 2}) {
    if (output_fd < 0) {
      posix_spawn_file_actions_addopen(&actions, to, "/dev/null", O_WRONLY, 0);
    } else {
      posix_spawn_file_actions_adddup2(&actions, output_fd, to);
    }
  }
  sigset_t defaults, none;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  sigaddset(&defaults, SIGPIPE);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    throw engine_error(engine_error::kind::unavailable, "cannot run " + argv[0] + ": " + std::strerror(error));
  }
  return pid;
}

// A watchdog for a program's process group that outlives this process: /bin/sh in a group of its
// own, reading a socket whose other end only this process holds. When the program is done, release()
// tells it so and it exits; when this process dies first (SIGKILL, where no scope runs), the socket
// ends without a word and it kills the program's whole group, so no compiler runs on orphaned. The
// group's number is its argument, never part of the script. Without /bin/sh the program runs unwatched.
class orphan_watch {
 public:
  explicit orphan_watch(pid_t group) {
    int ends[2];  // a socket pair, not a pipe: send() without SIGPIPE should the watchdog be gone
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return;
    const char* script = "IFS= read -r said; [ \"$said\" = done ] || kill -s KILL -- \"-$1\" 2>/dev/null; exit 0";
    try {  // in a process group of its own: a terminal's or a job's signal to ours misses it
      watchdog_ = spawn_program({"/bin/sh", "-c", script, "sparseperm-watch", std::to_string(group)}, -1, ends[0]);
    } catch (const engine_error&) {
      ::close(ends[0]);
      ::close(ends[1]);
      return;
    }
    ::close(ends[0]);
    write_end_ = ends[1];
  }
  ~orphan_watch() { release(); }
  orphan_watch(const orphan_watch&) = delete;
  orphan_watch& operator=(const orphan_watch&) = delete;

  // The program was reaped (or stopped): the watchdog goes without killing anything.
  void release() {
    if (write_end_ < 0) return;
    const char done[] = "done\n";
    [[maybe_unused]] const ssize_t sent = ::send(write_end_, done, sizeof done - 1, MSG_NOSIGNAL);
    ::close(write_end_);
    write_end_ = -1;
    while (::waitpid(watchdog_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }

 private:
  pid_t watchdog_ = -1;
  int write_end_ = -1;
};

// Waits for `pid`; stops it and throws interrupted_error when a signal comes first.
inline int wait_for_program(pid_t pid) {
  for (;;) {
    if (const int signal = interrupt_signal) {
      stop_process_group(pid);
      throw interrupted_error(signal);
    }
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (done < 0 && errno != EINTR) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a signal cuts the sleep short
  }
}

}  // namespace detail

inline int run_program(const std::vector<std::string>& argv, int output_fd) {
  const pid_t pid = detail::spawn_program(argv, output_fd);
  const detail::orphan_watch watch(pid);
  return detail::wait_for_program(pid);
}

// What argv prints (stdout and stderr, at most 1 MiB), and its exit code in `status`.
inline std::string program_output(const std::vector<std::string>& argv, int* status = nullptr) {
  int pipe_ends[2];
  if (::pipe2(pipe_ends, O_CLOEXEC) != 0)
    throw engine_error(engine_error::kind::failed, "pipe: " + std::string(std::strerror(errno)));
  pid_t pid = 0;
  try {
    pid = detail::spawn_program(argv, pipe_ends[1]);
  } catch (...) {
    ::close(pipe_ends[0]);
    ::close(pipe_ends[1]);
    throw;
  }
  ::close(pipe_ends[1]);
  const detail::orphan_watch watch(pid);
  std::string output;
  char buffer[4096];
  for (;;) {
    if (const int signal = detail::interrupt_signal) {
      ::close(pipe_ends[0]);
      detail::stop_process_group(pid);
      throw interrupted_error(signal);
    }
    pollfd ready{pipe_ends[0], POLLIN, 0};
    if (::poll(&ready, 1, 50) <= 0) continue;
    const ssize_t got = ::read(pipe_ends[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    if (output.size() < (std::size_t{1} << 20)) output.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(pipe_ends[0]);
  const int code = detail::wait_for_program(pid);
  if (status) *status = code;
  return output;
}

}  // namespace sparseperm
