#pragma once
// Command-line parsing for the sparseperm tool: `--name value`, `--name=value`, flags, positionals.
// Every mistake is a usage_error with one clear line; the tool exits with code 2 on it.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <sparseperm/core/engine_error.cuh>
#include <sparseperm/core/process_group.cuh>
#include <sparseperm/detail/journal.cuh>
#include <sparseperm/detail/text.cuh>
#include <sparseperm/engines/engine.cuh>
#include <sparseperm/matrix/input_error.cuh>

namespace sparseperm::cli {

class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class arguments {
 public:
  // `flags` take no value; `options` take one. "-o" is accepted as a short name of "--output".
  arguments(int argc, char** argv, int first, std::set<std::string> flags, std::set<std::string> options) {
    for (int k = first; k < argc; ++k) {
      std::string word = argv[k];
      if (word == "-o") word = "--output";
      if (word.size() < 2 || word.rfind("--", 0) != 0 || word == "--") {
        if (!word.empty() && word[0] == '-' && word != "-") throw usage_error("unknown option '" + word + "'");
        positionals_.push_back(word);
        continue;
      }
      std::string name = word.substr(2);
      std::optional<std::string> value;
      if (const auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      if (flags.count(name)) {
        if (value) throw usage_error("option '--" + name + "' takes no value");
        flags_.insert(name);
      } else if (options.count(name)) {
        if (!value) {
          if (k + 1 >= argc) throw usage_error("option '--" + name + "' needs a value");
          value = argv[++k];
        }
        if (values_.count(name)) throw usage_error("option '--" + name + "' is given twice");
        values_[name] = *value;
      } else {
        throw usage_error("unknown option '--" + name + "'");
      }
    }
  }

  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  std::optional<std::string> value(const std::string& name) const {
    const auto it = values_.find(name);
    return it == values_.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  std::set<std::string> flags_;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positionals_;
};

inline std::int64_t parse_integer(const std::string& option, const std::string& text, std::int64_t low,
                                  std::int64_t high) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) {
    throw usage_error("option '--" + option + "': '" + text + "' is not a whole number");
  }
  if (value < low || value > high) {
    throw usage_error("option '--" + option + "': " + text + " is outside [" + std::to_string(low) + ", " +
                      std::to_string(high) + "]");
  }
  return value;
}

inline double parse_real(const std::string& option, const std::string& text, double low, double high) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty() || !(value == value)) {
    throw usage_error("option '--" + option + "': '" + text + "' is not a number");
  }
  if (!(value >= low && value <= high)) {
    throw usage_error("option '--" + option + "': " + text + " is outside [" + std::to_string(low) + ", " +
                      std::to_string(high) + "]");
  }
  return value;
}

// A duration: a positive number with a unit s, m, h or d ("90m", "24h", "7d"), or "none" (no limit:
// infinity).
inline double parse_duration(const std::string& option, const std::string& text) {
  if (text == "none") return std::numeric_limits<double>::infinity();
  static constexpr std::pair<char, double> units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  if (text.size() >= 2) {
    for (const auto& [unit, seconds] : units) {
      if (text.back() != unit) continue;
      double value = 0;
      const char* last = text.data() + text.size() - 1;
      const auto [end, error] = std::from_chars(text.data(), last, value);
      if (error == std::errc{} && end == last && value > 0 && std::isfinite(value)) return value * seconds;
    }
  }
  throw usage_error("option '--" + option + "': '" + text +
                    "' is not a duration (a positive number with s, m, h or d, e.g. 36h; or none)");
}

// "a,b,c" → {"a", "b", "c"}; empty items are refused.
inline std::vector<std::string> split_list(const std::string& option, const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw usage_error("option '--" + option + "': empty item in '" + text + "'");
    items.push_back(item);
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// --devices (engines/engine.cuh's parse_device_list), its mistakes as usage errors.
inline std::vector<int> parse_devices(const std::string& text, int present, int host_rank = 0, int host_ranks = 1) {
  try {
    return parse_device_list(text, present, host_rank, host_ranks);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("option '--devices': ") + e.what());
  }
}

// One line on stderr: `message` escaped (detail/text.cuh), since it may quote a file's name or bytes.
inline void print_error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", detail::printable(message).c_str());
}

inline bool stderr_is_terminal = false;

// Under mpirun (mpi_group.hpp): the ranks, and how one rank's own error ends the whole job.
inline const process_group* mpi_ranks = nullptr;
inline int host_rank = 0, host_ranks = 1;  // this rank's place among the ranks on its host
inline void (*abort_job)(int code) = nullptr;

// An error's line and exit code. Under MPI an error that every rank has (rank_error) is printed by
// rank 0 alone; a rank's own error is printed with its rank and ends the job, so no rank waits for it.
inline int report_error(const std::string& message, int code, bool every_rank_has_it) {
  if (mpi_ranks == nullptr) {
    print_error(message);
    return code;
  }
  if (every_rank_has_it) {
    if (mpi_ranks->rank == 0) print_error(message);
    return code;
  }
  print_error("rank " + std::to_string(mpi_ranks->rank) + ": " + message);
  std::fflush(stderr);
  if (abort_job) abort_job(code);
  return code;
}

// SIGINT, SIGTERM, SIGHUP: one line, the open checkpoint journals synced, and exit code 128 + the
// signal. (Async-signal-safe: write, fdatasync and _exit only. While a module compiles, the pipeline
// holds the signal until it has cleaned up, then raises it again: module/process.cuh.)
inline void report_interrupt(int signal) {
  const char* line = signal == SIGINT    ? "error: interrupted by SIGINT\n"
                     : signal == SIGTERM ? "error: interrupted by SIGTERM\n"
                                         : "error: interrupted by SIGHUP\n";
  if (mpi_ranks == nullptr || mpi_ranks->rank == 0) {  // under MPI, the job's line is rank 0's
    if (stderr_is_terminal) {
      if (::write(2, "\n", 1) < 0) ::_exit(128 + signal);
    }
    if (::write(2, line, std::strlen(line)) < 0) ::_exit(128 + signal);
  }
  detail::sync_journals_on_signal();  // and say how to resume
  ::_exit(128 + signal);
}

inline void report_interrupts() {
  stderr_is_terminal = ::isatty(2) != 0;
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

// Runs a tool's body and turns its errors into one line on stderr and an exit code: 2 for bad input,
// bad usage and engines that cannot run this matrix here; 1 for failures that are ours; 128 + the
// signal after an interrupt.
template <class Body>
int run_tool(Body body) {
  report_interrupts();
  try {
    return body();
  } catch (const input_error& e) {
    return report_error(e.what(), 2, false);
  } catch (const usage_error& e) {
    return report_error(e.what(), 2, false);
  } catch (const engine_error& e) {
    return report_error(e.what(),
                        e.reason() == engine_error::kind::failed        ? 1
                        : e.reason() == engine_error::kind::interrupted ? 130
                                                                        : 2,
                        dynamic_cast<const rank_error*>(&e) != nullptr);
  } catch (const std::bad_alloc&) {
    return report_error("out of memory", 2, false);
  } catch (const std::exception& e) {
    return report_error(std::string("internal error: ") + e.what(), 1, false);
  }
}

}  // namespace sparseperm::cli
