#pragma once
// Why an engine cannot run: an unknown name, an engine this build or machine lacks, a matrix above
// its limits, a result that overflows, a precision it cannot keep for this matrix (refused), a
// setting that makes no sense (bad_setting: an environment variable), an interrupt (SIGINT, SIGTERM,
// SIGHUP while a module compiled), or a failure while it ran. The CLI turns `too_large` into an input
// error that points at the file's size line, and `overflow` and `refused` into ones that name the
// file; it exits with 130 after an interrupt. A batch's failing matrix is a batch_error.
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sparseperm {

class engine_error : public std::runtime_error {
 public:
  enum class kind { unknown_engine, unavailable, too_large, overflow, refused, bad_setting, interrupted, failed };

  engine_error(kind what, const std::string& message) : std::runtime_error(message), kind_(what) {}
  kind reason() const noexcept { return kind_; }

 private:
  kind kind_;
};

// An n×n matrix above an engine's limit: the error every engine gives, the limit taken from the engine.
inline engine_error beyond_limit(std::string_view engine, int n, int limit) {
  return engine_error(engine_error::kind::too_large, "n = " + std::to_string(n) + " exceeds the limit of engine '" +
                                                         std::string(engine) + "' (n <= " + std::to_string(limit) +
                                                         ")");
}

// A failure of matrix `index` of a batch (batch.cuh): its own error, prefixed "matrix K: ".
class batch_error : public std::runtime_error {
 public:
  batch_error(std::int64_t index, const std::string& message, std::exception_ptr cause)
      : std::runtime_error("matrix " + std::to_string(index) + ": " + message), index_(index), cause_(cause) {}
  std::int64_t index() const noexcept { return index_; }
  std::exception_ptr cause() const noexcept { return cause_; }  // the matrix's own exception

 private:
  std::int64_t index_;
  std::exception_ptr cause_;
};

}  // namespace sparseperm
