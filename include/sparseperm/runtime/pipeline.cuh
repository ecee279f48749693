#pragma once
// The automated pipeline of the generated engines: matrix in, kernel generated, compiled, run,
// permanent out.
//
//   1. codegen: the matrix header (codegen.cuh) and a kernel module for the engine (module.cuh);
//   2. compile: nvcc compiles the module's device code alone (-cubin) into a cache directory
//      ($SPARSEPERM_CACHE, by default $XDG_CACHE_HOME/sparseperm or ~/.cache/sparseperm), named by a
//      hash of everything that decides the binary: the header, the module source, nvcc's version, the
//      GPU architecture and the library's headers. A second run of the same matrix finds the module
//      and compiles nothing;
//   3. run: a host program compiled once (the CLI, gpu/module_runner.cuh) loads the module and
//      launches it.
//
// Compiling only the device code takes a few seconds; a whole program (host code, linking) took
// about twice as long, for host code that is the same for every matrix.
//
// nvcc missing or a failed compilation is an engine_error with a clear message (and the compiler's
// messages in a log file), never a silent fallback.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../codegen.cuh"
#include "../config.cuh"
#include "../engine_error.cuh"
#include "../result.cuh"
#include "sparse_matrix.cuh"

namespace sparseperm {

struct pipeline_options {
  std::string engine = "gpu-cached";  // gpu-cached | gpu-hybrid | gpu-purereg
  std::string arch;                   // "sm_90"; the kernel's GPU architecture
  std::string cache_dir;              // empty: $SPARSEPERM_CACHE, $XDG_CACHE_HOME/sparseperm, ~/.cache/sparseperm
  std::string nvcc;                   // empty: $SPARSEPERM_NVCC, nvcc on PATH, /usr/local/cuda/bin/nvcc
  std::string include_dir;            // empty: $SPARSEPERM_INCLUDE_DIR, beside the executable, this header's tree
};

namespace detail {

namespace fs = std::filesystem;

inline std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 14695981039346656037ull) {
  for (const unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

inline std::string hex64(std::uint64_t v) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(v));
  return buffer;
}

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw engine_error(engine_error::kind::failed, "cannot write " + temporary.string());
  }
  fs::rename(temporary, path);
}

// Runs a shell command; its exit code (or −1 when it did not exit).
inline int run_command(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline bool is_executable(const fs::path& path) { return !path.empty() && access(path.c_str(), X_OK) == 0 && fs::is_regular_file(path); }

// The nvcc to use, or "" when there is none (a given path that is not an executable counts as none).
inline std::string find_nvcc(const std::string& given) {
  if (!given.empty()) return is_executable(given) ? given : "";
  if (const char* env = std::getenv("SPARSEPERM_NVCC"); env && *env) return is_executable(env) ? env : "";
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (!dir.empty() && is_executable(fs::path(dir) / "nvcc")) return (fs::path(dir) / "nvcc").string();
    }
  }
  if (is_executable("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "";
}

inline std::string find_include_dir(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("SPARSEPERM_INCLUDE_DIR"); env && *env) return env;
  std::error_code ec;
  const fs::path executable = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = executable.parent_path().parent_path() / "include";
    if (fs::exists(installed / "sparseperm" / "permanent.cuh")) return installed.string();
  }
  // The tree this header was compiled from: <include>/sparseperm/runtime/pipeline.cuh.
  return fs::path(__FILE__).parent_path().parent_path().parent_path().string();
}

inline std::string find_cache_dir(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("SPARSEPERM_CACHE"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "sparseperm").string();
  if (const char* home = std::getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "sparseperm").string();
  return (fs::temp_directory_path() / "sparseperm-cache").string();
}

// A hash of the library's headers: a program compiled against other headers is another program.
inline std::uint64_t headers_fingerprint(const fs::path& include_dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(include_dir / "sparseperm")) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::uint64_t hash = fnv1a("sparseperm " SPARSEPERM_VERSION_STRING);
  for (const auto& f : files) hash = fnv1a(read_text(f), fnv1a(f.filename().string(), hash));
  return hash;
}

inline std::string module_source(const std::string& engine) {
  const std::string engine_type = engine == "gpu-purereg" ? "sparseperm::purereg_engine"
                                  : engine == "gpu-cached" ? "sparseperm::cached_engine"
                                                           : "sparseperm::hybrid_engine";
  return "// Generated by sparseperm: the " + engine + " kernel module of the matrix in matrix.cuh.\n"
         "#include <sparseperm/module.cuh>\n\n"
         "#include \"matrix.cuh\"\n\n"
         "SPARSEPERM_MODULE(" + engine_type + ", sparseperm::generated::input::matrix)\n";
}

}  // namespace detail

// Whether the pipeline can compile here: the nvcc it would use, or "" when there is none.
inline std::string pipeline_compiler(const pipeline_options& options = {}) { return detail::find_nvcc(options.nvcc); }

struct compiled_module {
  std::string cubin;            // the module, ready to load
  std::string directory;        // its cache directory (header, source, compile.log)
  bool cached = false;          // found in the cache: nothing was compiled
  double codegen_seconds = 0;
  double compile_seconds = 0;
};

// Steps 1 and 2: the kernel module of `engine` for the matrix, compiled or found in the cache.
inline compiled_module compile_module(const sparse_matrix& matrix, const std::string& source_name,
                                      const pipeline_options& options) {
  namespace fs = std::filesystem;
  using clock = std::chrono::steady_clock;
  if (options.engine != "gpu-purereg" && options.engine != "gpu-hybrid" && options.engine != "gpu-cached") {
    throw engine_error(engine_error::kind::unknown_engine, "the pipeline has no engine '" + options.engine + "'");
  }
  const std::string nvcc = detail::find_nvcc(options.nvcc);
  if (nvcc.empty()) {
    throw engine_error(engine_error::kind::unavailable,
                       "engine '" + options.engine + "' compiles a kernel for each matrix and needs nvcc, which was not "
                       "found (put it on PATH or set SPARSEPERM_NVCC)");
  }
  const std::string arch = options.arch.empty() ? "sm_90" : options.arch;

  // 1. Code generation, and the cache key.
  const auto start = clock::now();
  const std::string header = generate_matrix_header(matrix, "input", source_name);
  const std::string source = detail::module_source(options.engine);
  const fs::path include_dir = detail::find_include_dir(options.include_dir);
  std::string version_text;
  {
    const fs::path version_file = fs::temp_directory_path() / ("sparseperm-nvcc-version-" + std::to_string(getpid()));
    detail::run_command(detail::shell_quote(nvcc) + " --version > " + detail::shell_quote(version_file.string()) + " 2>&1");
    version_text = detail::read_text(version_file);
    std::error_code ec;
    fs::remove(version_file, ec);
  }
  std::uint64_t key = detail::fnv1a(header);
  key = detail::fnv1a(source, key);
  key = detail::fnv1a(version_text + arch, key);
  key = detail::fnv1a(detail::hex64(detail::headers_fingerprint(include_dir)), key);
  const fs::path dir = fs::path(detail::find_cache_dir(options.cache_dir)) / (options.engine + "-" + detail::hex64(key));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw engine_error(engine_error::kind::failed, "cannot create the cache directory " + dir.string() + ": " + ec.message());
  compiled_module result;
  result.directory = dir.string();
  result.cubin = (dir / "module.cubin").string();
  result.cached = fs::is_regular_file(result.cubin);
  if (!result.cached) {
    detail::write_text(dir / "matrix.cuh", header);
    detail::write_text(dir / "module.cu", source);
  }
  const auto generated = clock::now();
  result.codegen_seconds = std::chrono::duration<double>(generated - start).count();

  // 2. Compilation of the device code alone (skipped when the cache holds the module).
  if (!result.cached) {
    const fs::path log = dir / "compile.log";
    const fs::path temporary = dir / ("module.cubin.tmp" + std::to_string(getpid()));
    const std::string command = detail::shell_quote(nvcc) + " -std=c++20 -cubin -arch=" + arch + " -I" +
                                detail::shell_quote(include_dir.string()) + " -I" + detail::shell_quote(dir.string()) +
                                " -o " + detail::shell_quote(temporary.string()) + " " +
                                detail::shell_quote((dir / "module.cu").string()) + " > " + detail::shell_quote(log.string()) +
                                " 2>&1";
    const int status = detail::run_command(command);
    if (status != 0) {
      // The engine cannot run this matrix here: the user's to see to (exit code 2), with nvcc's messages.
      throw engine_error(engine_error::kind::unavailable, "compiling the " + options.engine + " kernel failed (nvcc exit code " +
                                                              std::to_string(status) + "); its messages are in " + log.string());
    }
    fs::rename(temporary, result.cubin);
    result.compile_seconds = std::chrono::duration<double>(clock::now() - generated).count();
  }
  return result;
}

}  // namespace sparseperm
