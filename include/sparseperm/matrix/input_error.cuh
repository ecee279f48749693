#pragma once
// The one error type for bad input: it names the file and the line, and prints as
// "FILE:LINE: what is wrong" (or "FILE: what is wrong" where no line applies, as for a file that
// cannot be opened). The CLI prints it after "error: " and exits with code 2.
#include <stdexcept>
#include <string>

namespace sparseperm {

class input_error : public std::runtime_error {
 public:
  input_error(std::string file, long line, const std::string& message)
      : std::runtime_error(format(file, line, message)), file_(std::move(file)), line_(line), message_(message) {}

  const std::string& file() const noexcept { return file_; }
  long line() const noexcept { return line_; }  // 0: the file as a whole
  const std::string& message() const noexcept { return message_; }

 private:
  static std::string format(const std::string& file, long line, const std::string& message) {
    return line > 0 ? file + ":" + std::to_string(line) + ": " + message : file + ": " + message;
  }

  std::string file_;
  long line_;
  std::string message_;
};

}  // namespace sparseperm
