#pragma once
// Text that came from outside (file names, tokens of a file) on its way to a terminal or a JSON
// document: UTF-8 decoding that refuses malformed sequences, and an escaped form that cannot leave
// its line or steer a terminal.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace sparseperm::detail {

// The code point that starts at text[at] and the bytes it takes, or nothing for a malformed sequence
// (a stray continuation byte, a truncated sequence, an overlong form, a surrogate, beyond U+10FFFF).
struct decoded_code_point {
  char32_t value = 0;
  std::size_t length = 0;
};

inline std::optional<decoded_code_point> decode_utf8(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return decoded_code_point{lead, 1};
  std::size_t length = 0;
  char32_t value = 0, least = 0;
  if ((lead & 0xe0) == 0xc0)
    length = 2, value = lead & 0x1f, least = 0x80;
  else if ((lead & 0xf0) == 0xe0)
    length = 3, value = lead & 0x0f, least = 0x800;
  else if ((lead & 0xf8) == 0xf0)
    length = 4, value = lead & 0x07, least = 0x10000;
  else
    return std::nullopt;
  if (at + length > text.size()) return std::nullopt;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(at + k) & 0xc0) != 0x80) return std::nullopt;
    value = (value << 6) | (byte(at + k) & 0x3f);
  }
  if (value < least || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return std::nullopt;
  return decoded_code_point{value, length};
}

// Characters a terminal acts on rather than shows: C0 and C1 controls, DEL, and the bidirectional
// overrides and isolates that reorder what follows them on the line.
constexpr bool is_control_code_point(char32_t c) {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
         c == 0x2028 || c == 0x2029;
}

// `text` as it may be echoed: printable characters (well-formed UTF-8 included) as they are, a
// backslash doubled, and every other byte as \n, \r, \t or \xNN. The result is one line that says
// exactly which bytes the text held.
inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto escape_byte = [&](unsigned char b) {
    char buffer[8];
    switch (b) {
      case '\n':
        out += "\\n";
        return;
      case '\r':
        out += "\\r";
        return;
      case '\t':
        out += "\\t";
        return;
      default:
        std::snprintf(buffer, sizeof buffer, "\\x%02x", b);
        out += buffer;
    }
  };
  for (std::size_t at = 0; at < text.size();) {
    const auto c = decode_utf8(text, at);
    if (!c || is_control_code_point(c->value)) {
      if (c) {
        for (std::size_t k = 0; k < c->length; ++k) escape_byte(static_cast<unsigned char>(text[at + k]));
        at += c->length;
      } else {
        escape_byte(static_cast<unsigned char>(text[at++]));
      }
      continue;
    }
    if (c->value == '\\') out += '\\';
    out.append(text.substr(at, c->length));
    at += c->length;
  }
  return out;
}

}  // namespace sparseperm::detail
