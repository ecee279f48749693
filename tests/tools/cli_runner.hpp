#pragma once
// Runs the sparseperm binary and captures its exit code, stdout and stderr.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cli_test {

struct run_result {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::filesystem::path scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("sparseperm-cli-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string write_file(const std::string& name, const std::string& text) {
  const auto path = scratch_dir() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// A whole shell command line, as written.
inline run_result run_raw(const std::string& command_line) {
  const auto out = scratch_dir() / "stdout.txt";
  const auto err = scratch_dir() / "stderr.txt";
  const std::string command = command_line + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  run_result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

// The sparseperm tool with `arguments`, passed to the shell as written.
inline run_result run(const std::string& arguments) { return run_raw(std::string(SPARSEPERM_CLI) + " " + arguments); }

}  // namespace cli_test
