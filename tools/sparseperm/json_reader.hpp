#pragma once
// A small JSON reader, for the result records that json.cuh writes.
#include <charconv>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sparseperm::json {

// The reader.
struct value;
using array_t = std::vector<value>;
using object_t = std::map<std::string, value>;

struct value {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<array_t>, std::shared_ptr<object_t>> data;

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(data); }
  bool is_bool() const { return std::holds_alternative<bool>(data); }
  bool is_number() const { return std::holds_alternative<double>(data); }
  bool is_string() const { return std::holds_alternative<std::string>(data); }
  bool is_object() const { return std::holds_alternative<std::shared_ptr<object_t>>(data); }
  bool as_bool() const { return std::get<bool>(data); }
  double as_number() const { return std::get<double>(data); }
  const std::string& as_string() const { return std::get<std::string>(data); }
  const object_t& as_object() const { return *std::get<std::shared_ptr<object_t>>(data); }
  const array_t& as_array() const { return *std::get<std::shared_ptr<array_t>>(data); }
  bool has(const std::string& key) const { return is_object() && as_object().count(key) != 0; }
  const value& operator[](const std::string& key) const {
    const auto& o = as_object();
    const auto it = o.find(key);
    if (it == o.end()) throw std::out_of_range("json: no field '" + key + "'");
    return it->second;
  }
};

class parser {
 public:
  explicit parser(std::string_view text) : text_(text) {}

  value parse_document() {
    value v = parse_value();
    skip_space();
    if (at_ != text_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("json: " + what + " at offset " + std::to_string(at_));
  }
  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\r' || text_[at_] == '\t'))
      ++at_;
  }
  bool consume(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }
  value parse_value() {
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end");
    const char c = text_[at_];
    if (c == '{') return parse_object();
    if (c == '[') return parse_array();
    if (c == '"') return value{parse_string()};
    if (consume("true")) return value{true};
    if (consume("false")) return value{false};
    if (consume("null")) return value{nullptr};
    return parse_number();
  }
  value parse_object() {
    auto result = std::make_shared<object_t>();
    ++at_;
    skip_space();
    if (consume("}")) return value{result};
    for (;;) {
      skip_space();
      if (at_ >= text_.size() || text_[at_] != '"') fail("expected a key");
      std::string key = parse_string();
      skip_space();
      if (!consume(":")) fail("expected ':'");
      (*result)[key] = parse_value();
      skip_space();
      if (consume("}")) return value{result};
      if (!consume(",")) fail("expected ',' or '}'");
    }
  }
  value parse_array() {
    auto result = std::make_shared<array_t>();
    ++at_;
    skip_space();
    if (consume("]")) return value{result};
    for (;;) {
      result->push_back(parse_value());
      skip_space();
      if (consume("]")) return value{result};
      if (!consume(",")) fail("expected ',' or ']'");
    }
  }
  std::string parse_string() {
    ++at_;
    std::string out;
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (c == '\\') {
        if (at_ >= text_.size()) fail("bad escape");
        const char e = text_[at_++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case 'b':
            c = '\b';
            break;
          case 'f':
            c = '\f';
            break;
          case 'u': {  // a code point of the Basic Multilingual Plane, in UTF-8 (surrogates: U+FFFD)
            if (at_ + 4 > text_.size()) fail("bad \\u escape");
            unsigned code = 0;
            const auto [end, error] = std::from_chars(text_.data() + at_, text_.data() + at_ + 4, code, 16);
            if (error != std::errc{} || end != text_.data() + at_ + 4) fail("bad \\u escape");
            at_ += 4;
            if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
            if (code >= 0x800) {
              out += static_cast<char>(0xe0 | (code >> 12));
              out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
              c = static_cast<char>(0x80 | (code & 0x3f));
            } else if (code >= 0x80) {
              out += static_cast<char>(0xc0 | (code >> 6));
              c = static_cast<char>(0x80 | (code & 0x3f));
            } else {
              c = static_cast<char>(code);
            }
            break;
          }
          default:
            c = e;
        }
      }
      out += c;
    }
    if (at_ >= text_.size()) fail("unterminated string");
    ++at_;
    return out;
  }
  value parse_number() {
    const std::size_t start = at_;
    while (at_ < text_.size() && std::string_view("+-0123456789.eE").find(text_[at_]) != std::string_view::npos) ++at_;
    if (start == at_) fail("unexpected character");
    // from_chars, not stod: stod refuses subnormals (an error bound of 4.9e-324 is one)
    double number = 0;
    const auto [end, error] = std::from_chars(text_.data() + start, text_.data() + at_, number);
    if (error != std::errc{} || end != text_.data() + at_) fail("bad number");
    return value{number};
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

inline value parse(std::string_view text) { return parser(text).parse_document(); }

}  // namespace sparseperm::json
