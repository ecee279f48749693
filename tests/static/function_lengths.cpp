// The length of every function in the library's headers: a function body of more than LIMIT lines fails
// (one that long does several things: split it, or make it a struct whose steps are members).
//
//   function_lengths LIMIT HEADER...   names every function body longer than LIMIT lines; exit 1 if any
//   function_lengths --self-test       the scan finds a planted long function, and no short one
//
// The scan is lexical: comments, string and character literals and preprocessor lines are skipped;
// a '{' outside any function whose statement holds a parenthesised list opens a function body (a
// function, a constructor with its initialisers, a lambda at namespace scope); everything up to its
// matching '}' belongs to it, lambdas and local classes included.
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct long_function {
  int first_line = 0, lines = 0;
  std::string signature;
};

// The code of `text` with comments, literals and preprocessor lines blanked (newlines kept).
std::string code_only(const std::string& text) {
  std::string out = text;
  enum { code, line_comment, block_comment, string, character, raw } state = code;
  std::string raw_end;
  bool line_start = true;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '\n') {
      if (state == line_comment) state = code;
      line_start = true;
      continue;
    }
    switch (state) {
      case code:
        if (line_start && c == '#') {  // a directive, with its continuation lines
          while (i < text.size() && !(text[i] == '\n' && text[i - 1] != '\\')) {
            if (text[i] != '\n') out[i] = ' ';
            ++i;
          }
          --i;
          continue;
        }
        if (c == '/' && next == '/') {
          state = line_comment;
        } else if (c == '/' && next == '*') {
          state = block_comment;
          out[i + 1] = ' ';
          ++i;
        } else if (c == 'R' && next == '"' && (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
          const std::size_t open = text.find('(', i + 2);
          raw_end = ")" + text.substr(i + 2, open - i - 2) + "\"";
          state = raw;
          for (std::size_t k = i; k <= open && k < text.size(); ++k) out[k] = ' ';
          i = open;
          continue;
        } else if (c == '"') {
          state = string;
        } else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(text[i - 1])) &&
                                  std::isxdigit(static_cast<unsigned char>(next)))) {  // not 1'000
          state = character;
        }
        if (state != code) out[i] = ' ';
        break;
      case line_comment:
      case block_comment:
        if (state == block_comment && c == '*' && next == '/') {
          out[i + 1] = ' ';
          ++i;
          state = code;
        }
        out[i] = ' ';
        break;
      case string:
      case character:
        if (c == '\\') {
          out[i] = ' ';
          if (i + 1 < out.size() && text[i + 1] != '\n') out[++i] = ' ';
          continue;
        }
        if ((state == string && c == '"') || (state == character && c == '\'')) state = code;
        out[i] = ' ';
        break;
      case raw:
        if (text.compare(i, raw_end.size(), raw_end) == 0) {
          for (std::size_t k = 0; k < raw_end.size(); ++k) out[i + k] = text[i + k] == '\n' ? '\n' : ' ';
          i += raw_end.size() - 1;
          state = code;
        } else {
          out[i] = ' ';
        }
        break;
    }
    if (c != ' ' && c != '\t') line_start = false;
  }
  return out;
}

// Function bodies longer than `limit` lines.
std::vector<long_function> long_functions(const std::string& text, int limit) {
  const std::string code = code_only(text);
  std::vector<long_function> found;
  std::vector<bool> opened_function;  // for each open brace: whether it opened a function body
  int depth_in_function = 0, line = 1, body_line = 0;
  std::size_t statement = 0;  // where the current statement began
  std::string signature;
  for (std::size_t i = 0; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '\n') ++line;
    if (c == ';' || c == '}') statement = i + 1;
    if (c == '{') {
      bool function = false;
      if (depth_in_function == 0) {
        const std::string head = code.substr(statement, i - statement);
        const std::size_t open = head.find('('), close = head.rfind(')');
        function = open != std::string::npos && close != std::string::npos && close > open && head.find('=') != 0 &&
                   head.find("namespace") == std::string::npos;
        if (function) {
          body_line = line;
          signature = head;
        }
      }
      opened_function.push_back(function);
      if (function || depth_in_function > 0) ++depth_in_function;
      statement = i + 1;
    } else if (c == '}' && !opened_function.empty()) {
      const bool was_function = opened_function.back();
      opened_function.pop_back();
      if (depth_in_function > 0) --depth_in_function;
      if (was_function && depth_in_function == 0 && line - body_line + 1 > limit) {
        std::string shown;
        std::istringstream words(signature);
        for (std::string w; words >> w;) shown += (shown.empty() ? "" : " ") + w;
        found.push_back({body_line, line - body_line + 1, shown.substr(0, 100)});
      }
    }
  }
  return found;
}

int self_test() {
  std::string planted = "namespace x {\n// a comment with a { brace\ninline int planted(int a) {\n  int s = 0;\n";
  for (int k = 0; k < 120; ++k) planted += "  s += a * " + std::to_string(k) + ";  // '}'\n";
  planted += "  const char* t = \"}{\";\n  return s;\n}\nstruct y {\n  int f() const { return 1; }\n};\n}\n";
  const auto found = long_functions(planted, 100);
  const bool ok = found.size() == 1 && found[0].first_line == 3 && found[0].lines == 125;
  std::printf("function_lengths self-test: %s (found %zu, the planted one %s)\n", ok ? "passed" : "FAILED",
              found.size(), found.empty() ? "missed" : std::to_string(found[0].lines).c_str());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--self-test") return self_test();
  if (argc < 3) {
    std::fprintf(stderr, "usage: function_lengths LIMIT HEADER... | --self-test\n");
    return 2;
  }
  const int limit = std::stoi(argv[1]);
  int failures = 0, headers = 0;
  for (int k = 2; k < argc; ++k) {
    std::ifstream in(argv[k]);
    if (!in) {
      std::fprintf(stderr, "function_lengths: cannot read %s\n", argv[k]);
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    ++headers;
    for (const long_function& f : long_functions(text.str(), limit)) {
      std::printf("%s:%d: a function of %d lines (more than %d): %s\n", argv[k], f.first_line, f.lines, limit,
                  f.signature.c_str());
      ++failures;
    }
  }
  std::printf("function_lengths: %d headers, %d function%s over %d lines\n", headers, failures,
              failures == 1 ? "" : "s", limit);
  return failures == 0 ? 0 : 1;
}
