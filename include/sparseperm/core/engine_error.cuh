#pragma once
// Why an engine cannot run: an unknown name, an engine this build or machine lacks, a matrix above
// its limits, a result that overflows, a precision it cannot keep for this matrix (refused), a
// setting that makes no sense (bad_setting: an environment variable), an interrupt (SIGINT, SIGTERM,
// SIGHUP while a module compiled), or a failure while it ran. The CLI turns `too_large` into an input
// error that points at the file's size line, and `overflow` and `refused` into ones that name the
// file; it exits with 130 after an interrupt.
#include <stdexcept>
#include <string>

namespace sparseperm {

class engine_error : public std::runtime_error {
 public:
  enum class kind { unknown_engine, unavailable, too_large, overflow, refused, bad_setting, interrupted, failed };

  engine_error(kind what, const std::string& message) : std::runtime_error(message), kind_(what) {}
  kind reason() const noexcept { return kind_; }

 private:
  kind kind_;
};

}  // namespace sparseperm
