#pragma once
// The automated pipeline of the generated engines: matrix in, code generated, compiled, run,
// permanent out.
//
//   1. codegen: the matrix header (codegen.cuh) and a module for the engine: a kernel module
//      (module.cuh) for the GPU engines, a host module (host_module.cuh) for cpu-cached;
//   2. compile: nvcc compiles a kernel module's device code alone (-cubin), the host compiler a host
//      module alone (-O3 -march=native -shared), into a cache directory ($SPARSEPERM_CACHE, by
//      default $XDG_CACHE_HOME/sparseperm or ~/.cache/sparseperm) named by a hash of everything that
//      decides the binary: the header, the module source, the compiler's version and flags, the GPU
//      architecture or the CPU (-march=native), and the library's headers. A second run of the same
//      matrix finds the module and compiles nothing;
//   3. run: a program compiled once (the CLI: gpu/module_runner.cuh, runtime/host_module_runner.cuh)
//      loads the module and runs it.
//
// Compiling only the module takes a second or two; a whole program (host code, linking) took about
// twice as long, for code that is the same for every matrix.
//
// A missing compiler or a failed compilation is an engine_error with a clear message (and the
// compiler's messages in a log file), never a silent fallback.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "../codegen.cuh"
#include "../config.cuh"
#include "../engine_error.cuh"
#include "../precision.cuh"
#include "../result.cuh"
#include "sparse_matrix.cuh"

namespace sparseperm {

struct pipeline_options {
  std::string engine = "gpu-cached";  // gpu-cached | gpu-hybrid | gpu-purereg | cpu-cached
  std::string arch;                   // "sm_90"; the kernel's GPU architecture
  std::string cache_dir;              // empty: $SPARSEPERM_CACHE, $XDG_CACHE_HOME/sparseperm, ~/.cache/sparseperm
  std::string nvcc;                   // empty: $SPARSEPERM_NVCC, nvcc on PATH, /usr/local/cuda/bin/nvcc
  std::string cxx;                    // cpu-cached's compiler; empty: $SPARSEPERM_CXX, g++ or c++ on PATH
  std::string include_dir;            // empty: $SPARSEPERM_INCLUDE_DIR, beside the executable, this header's tree
  sparseperm::precision precision = sparseperm::precision::automatic;  // the module's arithmetic
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

// A compiler: the given path, else the environment variable's, else the first of `names` on PATH,
// else `fallback`; "" when there is none (a given path that is not an executable counts as none).
inline std::string find_compiler(const std::string& given, const char* variable, std::initializer_list<const char*> names,
                                 const char* fallback = "") {
  if (!given.empty()) return is_executable(given) ? given : "";
  if (const char* env = std::getenv(variable); env && *env) return is_executable(env) ? env : "";
  if (const char* path = std::getenv("PATH")) {
    for (const char* name : names) {
      std::stringstream dirs(path);
      for (std::string dir; std::getline(dirs, dir, ':');) {
        if (!dir.empty() && is_executable(fs::path(dir) / name)) return (fs::path(dir) / name).string();
      }
    }
  }
  return *fallback && is_executable(fallback) ? fallback : "";
}

inline std::string find_nvcc(const std::string& given) {
  return find_compiler(given, "SPARSEPERM_NVCC", {"nvcc"}, "/usr/local/cuda/bin/nvcc");
}

inline std::string find_cxx(const std::string& given) { return find_compiler(given, "SPARSEPERM_CXX", {"g++", "c++"}); }

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

inline bool host_module_engine(const std::string& engine) { return engine == "cpu-cached"; }

inline std::string precision_enumerator(precision p) {
  switch (p) {
    case precision::double_sums: return "sparseperm::precision::double_sums";
    case precision::compensated: return "sparseperm::precision::compensated";
    case precision::exact: return "sparseperm::precision::exact";
    default: return "sparseperm::precision::automatic";
  }
}

inline std::string module_source(const std::string& engine, precision p) {
  if (host_module_engine(engine)) {
    return "// Generated by sparseperm: the " + engine + " host module of the matrix in matrix.cuh.\n"
           "#include <sparseperm/host_module.cuh>\n\n"
           "#include \"matrix.cuh\"\n\n"
           "SPARSEPERM_HOST_MODULE_PRECISION(sparseperm::generated::input::matrix, " + precision_enumerator(p) + ")\n";
  }
  const std::string engine_type = engine == "gpu-purereg" ? "sparseperm::purereg_engine"
                                  : engine == "gpu-cached" ? "sparseperm::cached_engine"
                                                           : "sparseperm::hybrid_engine";
  return "// Generated by sparseperm: the " + engine + " kernel module of the matrix in matrix.cuh.\n"
         "#include <sparseperm/module.cuh>\n\n"
         "#include \"matrix.cuh\"\n\n"
         "SPARSEPERM_MODULE_PRECISION(" + engine_type + ", sparseperm::generated::input::matrix, " + precision_enumerator(p) + ")\n";
}

// What -march=native means here: the CPU's model and features (a cache shared between machines must
// not hand one CPU's module to another).
inline std::string cpu_identity() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string identity;
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0 || line.rfind("flags", 0) == 0) identity += line + "\n";
    if (line.empty() && !identity.empty()) break;  // the first processor is enough
  }
  return identity;
}

// The output of `compiler --version`.
inline std::string compiler_version(const std::string& compiler) {
  const fs::path version_file = fs::temp_directory_path() / ("sparseperm-compiler-version-" + std::to_string(getpid()));
  run_command(shell_quote(compiler) + " --version > " + shell_quote(version_file.string()) + " 2>&1");
  std::string text = read_text(version_file);
  std::error_code ec;
  fs::remove(version_file, ec);
  return text;
}

}  // namespace detail

// Whether the pipeline can compile options.engine here: the compiler it would use, or "" when there is none.
inline std::string pipeline_compiler(const pipeline_options& options = {}) {
  return detail::host_module_engine(options.engine) ? detail::find_cxx(options.cxx) : detail::find_nvcc(options.nvcc);
}

struct compiled_module {
  std::string path;             // the module (a cubin or a shared library), ready to load
  std::string directory;        // its cache directory (header, source, compile.log)
  bool cached = false;          // found in the cache: nothing was compiled
  double codegen_seconds = 0;
  double compile_seconds = 0;
};

// Steps 1 and 2: the module of options.engine for the matrix, compiled or found in the cache.
inline compiled_module compile_module(const sparse_matrix& matrix, const std::string& source_name_of_matrix,
                                      const pipeline_options& options) {
  namespace fs = std::filesystem;
  using clock = std::chrono::steady_clock;
  const bool host = detail::host_module_engine(options.engine);
  if (options.engine != "gpu-purereg" && options.engine != "gpu-hybrid" && options.engine != "gpu-cached" && !host) {
    throw engine_error(engine_error::kind::unknown_engine, "the pipeline has no engine '" + options.engine + "'");
  }
  const std::string compiler = pipeline_compiler(options);
  if (compiler.empty()) {
    throw engine_error(engine_error::kind::unavailable,
                       host ? "engine '" + options.engine + "' compiles a module for each matrix and needs a C++20 compiler, "
                              "which was not found (put g++ on PATH or set SPARSEPERM_CXX)"
                            : "engine '" + options.engine + "' compiles a kernel for each matrix and needs nvcc, which was not "
                              "found (put it on PATH or set SPARSEPERM_NVCC)");
  }
  // What decides the binary besides the sources: the flags and the target (a GPU architecture, or
  // the CPU that -march=native describes).
  const std::string arch = options.arch.empty() ? "sm_90" : options.arch;
  const std::string flags = host ? "-std=c++20 -O3 -march=native -fPIC -shared" : "-std=c++20 -cubin -arch=" + arch;
  const std::string target = host ? detail::cpu_identity() : arch;
  const std::string module_name = host ? "module.so" : "module.cubin";
  const std::string source_name = host ? "module.cpp" : "module.cu";

  // 1. Code generation, and the cache key.
  const auto start = clock::now();
  const std::string header = generate_matrix_header(matrix, "input", source_name_of_matrix);
  const std::string source = detail::module_source(options.engine, options.precision);
  const fs::path include_dir = detail::find_include_dir(options.include_dir);
  std::uint64_t key = detail::fnv1a(header);
  key = detail::fnv1a(source, key);
  key = detail::fnv1a(detail::compiler_version(compiler) + flags + target, key);
  key = detail::fnv1a(detail::hex64(detail::headers_fingerprint(include_dir)), key);
  const fs::path dir = fs::path(detail::find_cache_dir(options.cache_dir)) / (options.engine + "-" + detail::hex64(key));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw engine_error(engine_error::kind::failed, "cannot create the cache directory " + dir.string() + ": " + ec.message());
  compiled_module result;
  result.directory = dir.string();
  result.path = (dir / module_name).string();
  result.cached = fs::is_regular_file(result.path);
  if (!result.cached) {
    detail::write_text(dir / "matrix.cuh", header);
    detail::write_text(dir / source_name, source);
  }
  const auto generated = clock::now();
  result.codegen_seconds = std::chrono::duration<double>(generated - start).count();

  // 2. Compilation of the module alone (skipped when the cache holds it).
  if (!result.cached) {
    const fs::path log = dir / "compile.log";
    const fs::path temporary = dir / (module_name + ".tmp" + std::to_string(getpid()));
    const std::string command = detail::shell_quote(compiler) + " " + flags + " -I" + detail::shell_quote(include_dir.string()) +
                                " -I" + detail::shell_quote(dir.string()) + " -o " + detail::shell_quote(temporary.string()) + " " +
                                detail::shell_quote((dir / source_name).string()) + " > " + detail::shell_quote(log.string()) +
                                " 2>&1";
    const int status = detail::run_command(command);
    if (status != 0) {
      // The engine cannot run this matrix here: the user's to see to (exit code 2), with the compiler's messages.
      throw engine_error(engine_error::kind::unavailable,
                         "compiling the " + options.engine + (host ? " module failed (" + fs::path(compiler).filename().string() : " kernel failed (nvcc") +
                             " exit code " + std::to_string(status) + "); its messages are in " + log.string());
    }
    fs::rename(temporary, result.path);
    result.compile_seconds = std::chrono::duration<double>(clock::now() - generated).count();
  }
  return result;
}

}  // namespace sparseperm
