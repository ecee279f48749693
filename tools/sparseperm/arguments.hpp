#pragma once
// Command-line parsing for the sparseperm tool: `--name value`, `--name=value`, flags, positionals.
// Every mistake is a usage_error with one clear line; the tool exits with code 2 on it.
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

#include <sparseperm/detail/option_text.cuh>

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

// The library's readings of option text (detail/option_text.cuh), their mistakes as usage errors.
template <class Read>
auto as_usage(const Read& read) {
  try {
    return read();
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
}

inline std::int64_t parse_integer(const std::string& option, const std::string& text, std::int64_t low,
                                  std::int64_t high) {
  return as_usage([&] { return detail::whole_number("--" + option, text, low, high); });
}

inline double parse_real(const std::string& option, const std::string& text, double low, double high) {
  return as_usage([&] { return detail::real_number("--" + option, text, low, high); });
}

inline std::vector<std::string> split_list(const std::string& option, const std::string& text) {
  return as_usage([&] { return detail::list_items("--" + option, text); });
}

}  // namespace sparseperm::cli
