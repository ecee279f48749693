#pragma once
// A small JSON writer (ordered objects, exact numbers): the result record travels as JSON between
// the tool, the generated GPU programs, tests and benchmarks. The reader is json_reader.cuh.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text.cuh"

namespace sparseperm::json {

// A JSON string literal of `text`. Bytes that are not well-formed UTF-8 become U+FFFD (the output is
// always valid UTF-8, whatever a file name held); controls are written as \u escapes.
inline std::string quote(std::string_view text) {
  std::string out = "\"";
  for (std::size_t at = 0; at < text.size();) {
    const auto c = detail::decode_utf8(text, at);
    if (!c) {
      out += "\\ufffd";
      ++at;
      continue;
    }
    at += c->length;
    switch (c->value) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      default:
        break;
    }
    if (detail::is_control_code_point(c->value)) {
      char buffer[16];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c->value));
      out += buffer;
    } else {
      out.append(text.substr(at - c->length, c->length));
    }
  }
  return out + "\"";
}

// %.17g reads back to the same double; JSON has no NaN or Inf, so those are a caller's bug.
inline std::string number(double value) {
  if (!std::isfinite(value)) throw std::logic_error("json::number: not finite");
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

// Six significant digits: for measurements such as seconds, where more digits are noise.
inline std::string measurement(double value) {
  if (!std::isfinite(value)) throw std::logic_error("json::measurement: not finite");
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

// An object whose fields keep their order.
class object {
 public:
  object& raw(const std::string& key, std::string json_text) {
    fields_.emplace_back(key, std::move(json_text));
    return *this;
  }
  object& string(const std::string& key, std::string_view value) { return raw(key, quote(value)); }
  object& number(const std::string& key, double value) { return raw(key, json::number(value)); }
  object& measurement(const std::string& key, double value) { return raw(key, json::measurement(value)); }
  object& integer(const std::string& key, long long value) { return raw(key, std::to_string(value)); }
  object& boolean(const std::string& key, bool value) { return raw(key, value ? "true" : "false"); }
  object& null(const std::string& key) { return raw(key, "null"); }
  object& child(const std::string& key, const object& value) { return raw(key, value.str()); }

  std::string str() const {
    std::string out = "{";
    for (std::size_t k = 0; k < fields_.size(); ++k) {
      out += (k ? ", " : "") + quote(fields_[k].first) + ": " + fields_[k].second;
    }
    return out + "}";
  }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace sparseperm::json
