#pragma once
// What a generated matrix header must be whatever file name and matrix it came from: printable
// ASCII lines; no line splice; the two preprocessor lines it always has and no other; the file's name
// only inside its two string literals, which read back as exactly that name; and otherwise the very
// header that a harmless name gives. Used by the fuzz target and by the host tests.
#include <sparseperm/module/codegen.cuh>

#include <string>
#include <string_view>

namespace header_check {

// The bytes of the string literal that starts at text[at] ('"'); `end` is set past its closing quote.
// Only plain characters and three-digit octal escapes are expected: anything else is a problem.
inline bool decode_literal(std::string_view text, std::size_t at, std::string& out, std::size_t& end) {
  if (at >= text.size() || text[at] != '"') return false;
  out.clear();
  for (std::size_t k = at + 1; k < text.size(); ++k) {
    const char c = text[k];
    if (c == '"') {
      end = k + 1;
      return true;
    }
    if (c == '\n') return false;
    if (c != '\\') {
      out += c;
      continue;
    }
    if (k + 3 >= text.size()) return false;
    int value = 0;
    for (int d = 1; d <= 3; ++d) {
      const char o = text[k + d];
      if (o < '0' || o > '7') return false;
      value = value * 8 + (o - '0');
    }
    if (value > 255) return false;
    out += static_cast<char>(value);
    k += 3;
  }
  return false;
}

// "" when `header` (generated from `matrix`, `name` and `source`) is as it must be, else the problem.
inline std::string problem(const std::string& header, const sparseperm::sparse_matrix& matrix, const std::string& name,
                           const std::string& source) {
  for (std::size_t k = 0; k < header.size(); ++k) {
    const auto c = static_cast<unsigned char>(header[k]);
    if (c != '\n' && (c < 0x20 || c > 0x7e)) return "a byte that is not printable ASCII at " + std::to_string(k);
    if (c == '\n' && k > 0 && header[k - 1] == '\\') return "a line splice at " + std::to_string(k);
  }
  std::size_t line_start = 0;
  int directives = 0;
  while (line_start < header.size()) {
    std::size_t line_end = header.find('\n', line_start);
    if (line_end == std::string::npos) line_end = header.size();
    const std::string_view line(header.data() + line_start, line_end - line_start);
    const std::size_t first = line.find_first_not_of(' ');
    if (first != std::string_view::npos && line[first] == '#') {
      if (line != "#pragma once" && line != "#include <sparseperm/matrix/pattern.cuh>")
        return "a preprocessor line: " + std::string(line);
      ++directives;
    }
    line_start = line_end + 1;
  }
  if (directives != 2) return "not the two preprocessor lines";
  // the two literals: in the first comment and in `source = `
  std::string replaced = header;
  int literals = 0;
  for (const std::string_view marker : {std::string_view(" from "), std::string_view("source = ")}) {
    const std::size_t at = replaced.find(marker);
    if (at == std::string::npos) return "no literal after '" + std::string(marker) + "'";
    std::string decoded;
    std::size_t end = 0;
    if (!decode_literal(replaced, at + marker.size(), decoded, end))
      return "a malformed literal after '" + std::string(marker) + "'";
    if (decoded != source) return "a literal that does not read back as the source";
    replaced.replace(at + marker.size(), end - (at + marker.size()), "\"x\"");
    ++literals;
  }
  if (literals != 2) return "not two literals";
  if (replaced != sparseperm::generate_matrix_header(matrix, name, "x"))
    return "the source changed more than its literals";
  // and the name is an identifier
  const std::string id = sparseperm::c_identifier(name);
  if (id.empty() || !(std::isalpha(static_cast<unsigned char>(id[0]))))
    return "an identifier that does not start with a letter";
  for (const char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return "an identifier with '" + std::string(1, c) + "'";
  }
  if (header.find("namespace sparseperm::generated::" + id + " {") == std::string::npos)
    return "the identifier is not the namespace";
  return "";
}

}  // namespace header_check
