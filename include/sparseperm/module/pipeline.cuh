#pragma once
// The automated pipeline of the generated engines: matrix in, code generated, compiled, run,
// permanent out.
//
//   1. codegen: the matrix header (codegen.cuh) and a module for the engine: a kernel module
//      (kernel_module.cuh) for the GPU engines, a host module (host_module.cuh) for cpu-cached;
//   2. compile: nvcc compiles a kernel module's device code alone (-cubin), the host compiler a host
//      module alone (-O3 -march=native -shared), in a fresh private build directory of the module
//      cache (module/cache.cuh), run without a shell (module/process.cuh) and stopped at
//      once by an interrupt; the sealed module becomes a cache entry named by a SHA-256 of
//      everything that decides the binary: the header, the module source, the compiler's version and
//      flags, the GPU architecture or the CPU (-march=native), and the library's headers. A second
//      run of the same matrix finds the entry, verifies its seal and compiles nothing;
//   3. run: a program compiled once (the CLI: module/gpu_runner.cuh, module/host_runner.cuh)
//      loads the verified bytes (from memory, never again from the path) and, before it runs
//      anything, checks that the module describes this very matrix (pattern, values, engine and
//      precision: module/proof.cuh).
//
// Nothing from the input reaches the compiler but the generated header, in which numbers are
// literals and the file's name a string literal of octal escapes (codegen.cuh).
//
// Compiling only the module takes a second or two; a whole program (host code, linking) took about
// twice as long, for code that is the same for every matrix.
//
// A missing compiler or a failed compilation is an engine_error with a clear message (and the
// compiler's messages in a log file), never a silent fallback.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../core/config.cuh"
#include "../core/engine_error.cuh"
#include "../core/result.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/arithmetic.cuh"
#include "cache.cuh"
#include "codegen.cuh"
#include "pipeline_options.cuh"
#include "process.cuh"

namespace sparseperm {

namespace detail {

namespace fs = std::filesystem;

inline bool is_executable(const fs::path& path) {
  return !path.empty() && access(path.c_str(), X_OK) == 0 && fs::is_regular_file(path);
}

// A compiler: the given path, else the environment variable's, else the first of `names` on PATH,
// else `fallback`; "" when there is none (a given path that is not an executable counts as none).
inline std::string find_compiler(const std::string& given, const char* variable,
                                 std::initializer_list<const char*> names, const char* fallback = "") {
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

// f(key) once a process for each key (the parts of a cache entry's name that a run of several
// blocks would otherwise compute again for each).
template <class F>
const std::string& once_per_process(const std::string& key, F f) {
  static std::mutex lock;
  static std::map<std::string, std::string> known;
  const std::lock_guard<std::mutex> hold(lock);
  if (const auto it = known.find(key); it != known.end()) return it->second;
  return known[key] = f();
}

// SHA-256 of the library's headers (names and contents): a module compiled against other headers is
// another module.
inline std::string headers_fingerprint(const fs::path& include_dir) {
  if (!fs::is_regular_file(include_dir / "sparseperm" / "permanent.cuh")) {
    throw engine_error(engine_error::kind::unavailable,
                       "the library's headers, which modules are compiled against, are not in " + include_dir.string() +
                           " (set SPARSEPERM_INCLUDE_DIR to the folder that holds sparseperm/)");
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(include_dir / "sparseperm")) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  sha256 hash;
  hash.update("sparseperm " SPARSEPERM_VERSION_STRING);
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream contents;
    contents << in.rdbuf();
    const std::string relative = fs::relative(f, include_dir).string();
    const std::string bytes = contents.str();
    hash.update(std::to_string(relative.size()) + ":" + relative + std::to_string(bytes.size()) + ":");
    hash.update(bytes);
  }
  return hex_of(hash.finish());
}

inline std::string precision_enumerator(precision p) {
  switch (p) {
    case precision::double_sums:
      return "sparseperm::precision::double_sums";
    case precision::compensated:
      return "sparseperm::precision::compensated";
    case precision::exact:
      return "sparseperm::precision::exact";
    case precision::double_double:
      return "sparseperm::precision::double_double";
    default:
      return "sparseperm::precision::automatic";
  }
}

// The module's source: the engine's header and tag (the library's constants), the matrix header.
inline std::string module_source(const module_target& target, precision p) {
  const std::string kind = target.host ? "host module" : "kernel module";
  return "// Generated by sparseperm: the " + target.name + " " + kind + " of the matrix in matrix.cuh.\n" +
         (target.host ? "#include <sparseperm/module/host_module.cuh>\n"
                      : "#include <sparseperm/module/kernel_module.cuh>\n") +
         "#include <" + target.header + ">\n\n#include \"matrix.cuh\"\n\n" +
         (target.host ? "SPARSEPERM_HOST_MODULE_PRECISION(" : "SPARSEPERM_MODULE_PRECISION(") + target.type +
         ", sparseperm::generated::input::matrix, " + precision_enumerator(p) + ")\n";
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

// The output of `compiler --version` (a failure shows when it compiles).
inline std::string compiler_version(const std::string& compiler) {
  int status = 0;
  const std::string text = program_output({compiler, "--version"}, &status);
  return text + "\nexit code " + std::to_string(status);
}

}  // namespace detail

// Whether the pipeline can compile options.target here: the compiler it would use, or "" when there is none.
inline std::string pipeline_compiler(const pipeline_options& options = {}) {
  return options.target.host ? detail::find_cxx(options.cxx) : detail::find_nvcc(options.nvcc);
}

struct compiled_module {
  std::string image;      // the module's bytes (a cubin or a shared library), verified: load these
  std::string path;       // its sealed file in the cache (module.sealed)
  std::string directory;  // its cache entry (header, source, compile.log)
  bool cached = false;    // found in the cache: nothing was compiled
  double codegen_seconds = 0;
  double compile_seconds = 0;
};

namespace detail {

// Step 1 for a matrix and a target: the generated sources, the compiler and its flags, and the
// cache entry they name (a digest of all of them).
struct module_location {
  std::string compiler;
  std::vector<std::string> flags;
  std::string header, source;  // matrix.cuh and the module's source
  std::filesystem::path include_dir, root;
  std::string key, entry;
  std::string directory, path;  // the entry, and its sealed module
};

inline module_location locate_module(const sparse_matrix& matrix, const pipeline_options& options) {
  namespace fs = std::filesystem;
  if (options.target.name.empty() || options.target.type.empty() || options.target.header.empty()) {
    throw engine_error(engine_error::kind::failed,
                       "the pipeline was given no generated engine (pipeline_options::target)");
  }
  const bool host = options.target.host;
  module_location m;
  m.compiler = pipeline_compiler(options);
  if (m.compiler.empty()) {
    throw engine_error(engine_error::kind::unavailable,
                       host ? "engine '" + options.target.name +
                                  "' compiles a module for each matrix and needs a C++20 compiler, "
                                  "which was not found (put g++ on PATH or set SPARSEPERM_CXX)"
                            : "engine '" + options.target.name +
                                  "' compiles a kernel for each matrix and needs nvcc, which was not "
                                  "found (put it on PATH or set SPARSEPERM_NVCC)");
  }
  // What decides the binary besides the sources: the flags and the target (a GPU architecture, or
  // the CPU that -march=native describes).
  const std::string arch = options.arch.empty() ? "sm_90" : options.arch;
  m.flags = host ? std::vector<std::string>{"-std=c++20", "-O3", "-march=native", "-fPIC", "-shared"}
                 : std::vector<std::string>{"-std=c++20", "-cubin", "-arch=" + arch};
  const std::string target = host ? cpu_identity() : arch;
  // The entry depends on the matrix alone, not on what its file was called: one module for every
  // name of a matrix, and no file name in generated code.
  m.header = generate_matrix_header(matrix, "input", "the input matrix");
  m.source = module_source(options.target, options.precision);
  m.include_dir = find_include_dir(options.include_dir);
  sha256 digest;
  // copies: newer g++ cannot tell that the remembered strings outlive the call (-Wdangling-reference)
  const std::string version = once_per_process("version " + m.compiler, [&] { return compiler_version(m.compiler); });
  const std::string headers =
      once_per_process("headers " + m.include_dir.string(), [&] { return headers_fingerprint(m.include_dir); });
  for (const std::string& part : {m.header, m.source, m.compiler, version, target, headers}) {
    digest.update(std::to_string(part.size()) + ":").update(part);
  }
  for (const std::string& flag : m.flags) digest.update(std::to_string(flag.size()) + ":").update(flag);
  m.entry = options.target.name + "-" + hex_of(digest.finish(), 16);
  m.root = open_private_root(options.cache_dir.empty() ? default_cache_dir() : options.cache_dir);
  m.key = cache_key(m.root);
  m.directory = (m.root / m.entry).string();
  m.path = (m.root / m.entry / "module.sealed").string();
  return m;
}

}  // namespace detail

// Whether the module of options.target for the matrix is in the cache and verifies: compile_module
// would then compile nothing.
inline bool module_is_cached(const sparse_matrix& matrix, const pipeline_options& options) {
  const detail::module_location m = detail::locate_module(matrix, options);
  return detail::unseal_module(m.key, m.entry, m.path).has_value();
}

// Steps 1 and 2: the module of options.target for the matrix, compiled or found in the cache.
inline compiled_module compile_module(const sparse_matrix& matrix, const pipeline_options& options) {
  namespace fs = std::filesystem;
  using clock = std::chrono::steady_clock;
  const bool host = options.target.host;
  const std::string& engine = options.target.name;
  // Signals while this runs are recorded; a compile in progress is stopped, the build removed, and
  // the signal raised again when this returns (module/process.cuh). Declared first: ends last.
  const interrupt_scope interrupts;
  const std::string module_name = host ? "module.so" : "module.cubin";
  const std::string source_name = host ? "module.cpp" : "module.cu";

  // 1. Code generation, and the cache entry's name.
  const auto start = clock::now();
  const detail::module_location location = detail::locate_module(matrix, options);
  const std::string& compiler = location.compiler;
  const std::vector<std::string>& flags = location.flags;
  const std::string& header = location.header;
  const std::string& source = location.source;
  const fs::path& include_dir = location.include_dir;
  const fs::path& root = location.root;
  const std::string& key = location.key;
  const std::string& entry = location.entry;
  compiled_module result;
  result.directory = location.directory;
  result.path = location.path;
  const auto generated = clock::now();
  result.codegen_seconds = std::chrono::duration<double>(generated - start).count();

  // A verified entry is used as it is; anything else there is removed and built again.
  if (auto image = detail::unseal_module(key, entry, result.path)) {
    result.image = std::move(*image);
    result.cached = true;
    return result;
  }
  detail::remove_cache_path(root / entry);

  // 2. Compilation of the module alone, in a fresh private directory that becomes the entry.
  detail::remove_stale_builds(root);
  detail::build_directory build(root);
  detail::write_new_file(build.path() / "matrix.cuh", header);
  detail::write_new_file(build.path() / source_name, source);
  const fs::path log = build.path() / "compile.log";
  const fs::path output = build.path() / module_name;
  int status = 0;
  {
    const detail::file_descriptor log_fd(
        ::open(log.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!log_fd)
      throw engine_error(engine_error::kind::failed, "cannot create " + log.string() + ": " + detail::error_text());
    std::vector<std::string> argv{compiler};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(),
                {"-I" + include_dir.string(), "-o", output.string(), (build.path() / source_name).string()});
    status = run_program(argv, log_fd.get());
  }
  if (status != 0) {
    // The engine cannot run this matrix here: the user's to see to (exit code 2), with the compiler's messages.
    const fs::path failed = root / ("failed-" + entry);
    detail::remove_cache_path(failed);
    const fs::path kept = build.move_to(failed) ? failed / "compile.log" : log;
    throw engine_error(
        engine_error::kind::unavailable,
        "compiling the " + engine +
            (host ? " module failed (" + fs::path(compiler).filename().string() : " kernel failed (nvcc") +
            " exit code " + std::to_string(status) + "); its messages are in " + kept.string());
  }
  ::chmod(output.c_str(),
          0600);  // the compiler wrote it under the umask (0664 under umask 002): the build folder is ours alone
  auto image = detail::read_private_file(output, detail::max_module_bytes);
  if (!image)
    throw engine_error(engine_error::kind::failed, "the compiler wrote no readable module at " + output.string());
  detail::write_new_file(build.path() / "module.sealed", detail::seal_module(key, entry, *image));
  fs::remove(output);
  if (!build.move_to(root / entry)) {
    // another run of the same matrix got there first: ours replaces it (built from the same sources)
    detail::remove_cache_path(root / entry);
    build.move_to(root / entry);
  }
  result.image = std::move(*image);
  result.compile_seconds = std::chrono::duration<double>(clock::now() - generated).count();
  return result;
}

}  // namespace sparseperm
