#pragma once
// What a run of the tool knows of where it runs, handed down to every command (tool_context), and how
// its errors and signals end it: one line on stderr and an exit code.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include <sparseperm/core/engine_error.cuh>
#include <sparseperm/core/process_group.cuh>
#include <sparseperm/detail/option_text.cuh>
#include <sparseperm/detail/text.cuh>
#include <sparseperm/matrix/input_error.cuh>
#include <sparseperm/run/journal.cuh>

#include "arguments.hpp"

namespace sparseperm {
struct module_runner;
}

namespace sparseperm::cli {

// Under mpirun (mpi_group.hpp) the ranks, this rank's place among the ranks on its host, and how one
// rank's own error ends the whole job; and how the generated engines run (the module pipeline).
struct tool_context {
  const process_group* ranks = nullptr;
  int host_rank = 0, host_ranks = 1;
  void (*abort_job)(int code) = nullptr;
  const module_runner* modules = nullptr;

  bool speaks() const { return ranks == nullptr || ranks->rank == 0; }  // under MPI, rank 0 prints
};

// One line on stderr: `message` escaped (detail/text.cuh), since it may quote a file's name or bytes.
inline void print_error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", detail::printable(message).c_str());
}

// An error's line and exit code. Under MPI an error that every rank has (rank_error) is printed by
// rank 0 alone; a rank's own error is printed with its rank and ends the job, so no rank waits for it.
inline int report_error(const tool_context& context, const std::string& message, int code, bool every_rank_has_it) {
  if (context.ranks == nullptr) {
    print_error(message);
    return code;
  }
  if (every_rank_has_it) {
    if (context.ranks->rank == 0) print_error(message);
    return code;
  }
  print_error("rank " + std::to_string(context.ranks->rank) + ": " + message);
  std::fflush(stderr);
  if (context.abort_job) context.abort_job(code);
  return code;
}

// What the signal handler reads (a handler takes no arguments, so this is the one state it shares with
// the tool; plain reads only, which are async-signal-safe).
struct interrupt_state {
  static inline const tool_context* context = nullptr;
  static inline bool terminal = false;
};

// SIGINT, SIGTERM, SIGHUP: one line, the open checkpoint journals synced, and exit code 128 + the
// signal. (Async-signal-safe: write, fdatasync and _exit only. While a module compiles, the pipeline
// holds the signal until it has cleaned up, then raises it again: module/process.cuh.)
inline void report_interrupt(int signal) {
  const char* line = signal == SIGINT    ? "error: interrupted by SIGINT\n"
                     : signal == SIGTERM ? "error: interrupted by SIGTERM\n"
                                         : "error: interrupted by SIGHUP\n";
  const tool_context* context = interrupt_state::context;
  if (context == nullptr || context->speaks()) {  // under MPI, the job's line is rank 0's
    if (interrupt_state::terminal) {
      if (::write(2, "\n", 1) < 0) ::_exit(128 + signal);
    }
    if (::write(2, line, std::strlen(line)) < 0) ::_exit(128 + signal);
  }
  detail::sync_journals_on_signal();  // and say how to resume
  ::_exit(128 + signal);
}

inline void report_interrupts(const tool_context& context) {
  interrupt_state::context = &context;
  interrupt_state::terminal = ::isatty(2) != 0;
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous {
    }, now{};
    sigaction(signal, nullptr, &previous);
    if (previous.sa_handler == SIG_IGN) continue;  // nohup and friends: keep ignoring
    now.sa_handler = report_interrupt;
    sigemptyset(&now.sa_mask);
    sigaction(signal, &now, nullptr);
  }
}

// Runs a tool's body (which may fill the context: MPI starts inside it) and turns its errors into one
// line on stderr and an exit code: 2 for bad input, bad usage and engines that cannot run this matrix
// here; 1 for failures that are ours; 128 + the signal after an interrupt.
template <class Body>
int run_tool(tool_context& context, Body body) {
  report_interrupts(context);
  try {
    return body();
  } catch (const input_error& e) {
    return report_error(context, e.what(), 2, false);
  } catch (const usage_error& e) {
    return report_error(context, e.what(), 2, false);
  } catch (const engine_error& e) {
    return report_error(context, e.what(),
                        e.reason() == engine_error::kind::failed        ? 1
                        : e.reason() == engine_error::kind::interrupted ? 130
                                                                        : 2,
                        dynamic_cast<const rank_error*>(&e) != nullptr);
  } catch (const std::bad_alloc&) {
    return report_error(context, "out of memory", 2, false);
  } catch (const std::exception& e) {
    return report_error(context, std::string("internal error: ") + e.what(), 1, false);
  }
}

}  // namespace sparseperm::cli
