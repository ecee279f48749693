#pragma once
// Matrix Market I/O (https://math.nist.gov/MatrixMarket/formats.html).
//
// Reads `coordinate` and `array` files with field `real`, `integer`, `complex` (two numbers an entry:
// the real and the imaginary part) or `pattern` (a pattern entry is 1) and symmetry `general`,
// `symmetric` or `skew-symmetric` (one triangle stored, the other implied: the same value, or its
// negative), or `hermitian` for complex files (the other triangle holds the conjugate; the diagonal
// must be real).
// Indices are 1-based. A stored zero is not a nonzero. Anything malformed throws input_error naming
// the file and line: a bad banner or size line, too few or too many entries, an index out of range,
// a duplicate (both lines named), a non-numeric, NaN or Inf value, a non-square matrix, a NUL byte,
// more than max_matrix_market_bytes (pipes and devices too: they are read in pieces and stopped).
//
// A `real` value is held as the nearest double. The reader records which rows it rounded and by how
// much at most (sparse_matrix::input_rounding): 0.1 is not exactly a double, and neither is
// 9007199254740993, so a matrix holding either is not exact and its error bounds include the change.
//
// The writer emits `coordinate integer|real|complex general` with each value's exact decimal
// expansion, which reads back to the same doubles.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../detail/file_descriptor.cuh"
#include "../numeric/decimal_rounding.cuh"
#include "input_error.cuh"
#include "sparse_matrix.cuh"

namespace sparseperm {

// A file's matrix and where it came from (so that later errors can point at the file).
struct matrix_market_file {
  sparse_matrix matrix;
  std::string path;
  long size_line = 0;  // the line that declares the dimensions
  std::string format;  // coordinate | array
  std::string field;   // real | integer | complex | pattern
  std::string symmetry;
  std::int64_t stored_entries = 0;  // entries listed in the file
  std::int64_t stored_zeros = 0;    // of which zero (not nonzeros)
  long first_rounded_line = 0;      // the first value not held exactly (0: none; see input_rounding)
};

// Dimensions above this are refused by the reader itself (engines have smaller limits).
inline constexpr std::int64_t max_matrix_market_dimension = 10'000'000;
// Files above this size are refused rather than read into memory.
inline constexpr std::uintmax_t max_matrix_market_bytes = std::uintmax_t{1} << 31;

namespace detail {

// The first word of a line (after spaces and tabs, up to the next): the banner's is %%MatrixMarket, in
// any case. Both the parser and the reader's early look at line 1 ask this.
inline std::string_view first_word(std::string_view line) {
  const std::size_t start = std::min(line.find_first_not_of(" \t"), line.size());
  const std::size_t end = std::min(line.find_first_of(" \t", start), line.size());
  return line.substr(start, end - start);
}
inline bool is_banner_word(std::string_view word) {
  constexpr std::string_view banner = "%%matrixmarket";
  if (word.size() != banner.size()) return false;
  for (std::size_t k = 0; k < banner.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(word[k])) != banner[k]) return false;
  }
  return true;
}
inline constexpr const char* missing_banner = "missing '%%MatrixMarket' banner on the first line";

class matrix_market_parser {
 public:
  matrix_market_parser(std::string_view text, std::string name) : text_(text), name_(std::move(name)) {}

  matrix_market_file parse() {
    matrix_market_file result;
    result.path = name_;
    read_banner(result);
    read_size(result);
    std::vector<matrix_entry> entries =
        result.format == "coordinate" ? read_coordinate_entries(result) : read_array_entries(result);
    result.matrix = sparse_matrix::from_entries(static_cast<int>(n_), std::move(entries));
    result.matrix.set_input_rounding(std::move(row_rounding_));
    result.first_rounded_line = first_rounded_line_;
    return result;
  }

 private:
  [[noreturn]] void fail(long line, const std::string& message) const { throw input_error(name_, line, message); }
  [[noreturn]] void fail(const std::string& message) const { fail(line_number_, message); }

  // Next line into line_, without its end-of-line; false at the end of the text.
  bool next_line() {
    if (position_ >= text_.size()) return false;
    std::size_t end = text_.find('\n', position_);
    if (end == std::string_view::npos) end = text_.size();
    line_ = text_.substr(position_, end - position_);
    if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
    position_ = end + 1;
    ++line_number_;
    if (line_.find('\0') != std::string_view::npos) fail("the line contains a NUL byte: not a text file");
    return true;
  }

  // Next line that is neither blank nor a comment.
  bool next_data_line() {
    while (next_line()) {
      const std::size_t first = line_.find_first_not_of(" \t");
      if (first != std::string_view::npos && line_[first] != '%') {
        split();
        return true;
      }
    }
    return false;
  }

  void split() {
    tokens_.clear();
    std::size_t i = 0;
    while (i < line_.size()) {
      while (i < line_.size() && (line_[i] == ' ' || line_[i] == '\t')) ++i;
      const std::size_t start = i;
      while (i < line_.size() && line_[i] != ' ' && line_[i] != '\t') ++i;
      if (i > start) tokens_.push_back(line_.substr(start, i - start));
    }
  }

  static std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
  }

  static std::string quoted(std::string_view token) {
    constexpr std::size_t shown = 40;
    std::string out(1, '\'');  // appends, not "'" + string: GCC 12 warns falsely (-Wrestrict) on that
    out.append(token.substr(0, shown));
    out.append(token.size() > shown ? "...'" : "'");
    return out;
  }

  void read_banner(matrix_market_file& result) {
    if (!next_line()) fail(1, "empty file: expected a '%%MatrixMarket matrix ...' banner");
    split();
    if (tokens_.empty() || !is_banner_word(tokens_[0])) fail(missing_banner);
    if (tokens_.size() != 5) {
      fail("the banner must read '%%MatrixMarket matrix FORMAT FIELD SYMMETRY' (found " +
           std::to_string(tokens_.size()) + " words)");
    }
    if (lower(tokens_[1]) != "matrix") fail("only 'matrix' objects are supported, not " + quoted(tokens_[1]));
    result.format = lower(tokens_[2]);
    result.field = lower(tokens_[3]);
    result.symmetry = lower(tokens_[4]);
    if (result.format != "coordinate" && result.format != "array") {
      fail("unknown format " + quoted(tokens_[2]) + " (expected 'coordinate' or 'array')");
    }
    if (result.field != "real" && result.field != "integer" && result.field != "complex" && result.field != "pattern") {
      fail("unknown field " + quoted(tokens_[3]) + " (expected 'real', 'integer', 'complex' or 'pattern')");
    }
    if (result.symmetry != "general" && result.symmetry != "symmetric" && result.symmetry != "skew-symmetric" &&
        result.symmetry != "hermitian") {
      fail("unknown symmetry " + quoted(tokens_[4]) +
           " (expected 'general', 'symmetric', 'skew-symmetric' or 'hermitian')");
    }
    if (result.symmetry == "hermitian" && result.field != "complex")
      fail("the 'hermitian' symmetry needs the 'complex' field (a real hermitian matrix is 'symmetric')");
    if (result.field == "pattern" && result.format == "array")
      fail("the 'pattern' field needs the 'coordinate' format");
    if (result.field == "pattern" && result.symmetry == "skew-symmetric")
      fail("a 'pattern' matrix cannot be skew-symmetric");
    symmetric_ = result.symmetry != "general";
    skew_ = result.symmetry == "skew-symmetric";
    hermitian_ = result.symmetry == "hermitian";
    complex_ = result.field == "complex";
    field_ = result.field;
  }

  std::int64_t parse_count(std::string_view token, const char* what) const {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc{} || end != token.data() + token.size()) {
      fail(std::string(what) + " " + quoted(token) + " is not a whole number");
    }
    return value;
  }

  void read_size(matrix_market_file& result) {
    if (!next_data_line()) fail(line_number_ + 1, "missing size line: the file ends after its header");
    result.size_line = line_number_;
    const bool coordinate = result.format == "coordinate";
    const std::size_t expected = coordinate ? 3 : 2;
    if (tokens_.size() != expected) {
      fail(coordinate ? "the size line must read 'ROWS COLUMNS ENTRIES'" : "the size line must read 'ROWS COLUMNS'");
    }
    const std::int64_t rows = parse_count(tokens_[0], "row count");
    const std::int64_t columns = parse_count(tokens_[1], "column count");
    if (rows < 0 || columns < 0) fail("negative dimension");
    if (rows != columns) {
      fail("the matrix is " + std::to_string(rows) + " x " + std::to_string(columns) +
           ": not square (the permanent is defined for square matrices)");
    }
    if (rows > max_matrix_market_dimension) {
      fail("dimension " + std::to_string(rows) + " exceeds the reader's limit of " +
           std::to_string(max_matrix_market_dimension));
    }
    n_ = rows;
    const std::int64_t positions = !symmetric_ ? n_ * n_ : skew_ ? n_ * (n_ - 1) / 2 : n_ * (n_ + 1) / 2;
    if (coordinate) {
      declared_ = parse_count(tokens_[2], "entry count");
      if (declared_ < 0) fail("negative entry count");
      if (declared_ > positions) {
        fail("declares " + std::to_string(declared_) + " entries but a " + std::to_string(n_) + " x " +
             std::to_string(n_) + " " + result.symmetry + " matrix has only " + std::to_string(positions) +
             " positions to store");
      }
    } else {
      declared_ = positions;
    }
  }

  int parse_index(std::string_view token, const char* what) const {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc{} || end != token.data() + token.size()) {
      fail(std::string(what) + " index " + quoted(token) + " is not a whole number");
    }
    if (value < 1 || value > n_) {
      fail(std::string(what) + " index " + std::to_string(value) + " is out of range [1, " + std::to_string(n_) + "]");
    }
    return static_cast<int>(value - 1);
  }

  // A leading '+' is allowed once; from_chars takes a '-' itself, so "+-5" must be refused here.
  static bool strip_plus(std::string_view& number) {
    if (number.empty() || number.front() != '+') return true;
    number.remove_prefix(1);
    return number.empty() || (number.front() != '-' && number.front() != '+');
  }

  double parse_value(std::string_view token) {
    if (field_ == "integer") {
      std::string_view digits = token;
      std::int64_t value = 0;
      const bool sign_ok = strip_plus(digits);
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (sign_ok && error == std::errc::result_out_of_range)
        fail("integer value " + quoted(token) + " is out of range");
      if (!sign_ok || error != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
        fail("value " + quoted(token) + " is not an integer (the field is 'integer')");
      }
      constexpr std::int64_t limit = std::int64_t{1} << 53;
      if (value > limit || value < -limit) {
        fail("integer value " + quoted(token) + " exceeds 2^53 and cannot be held exactly");
      }
      return static_cast<double>(value);
    }
    std::string_view number = token;
    double value = 0;
    const bool sign_ok = strip_plus(number);
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (sign_ok && error == std::errc::result_out_of_range) {
      fail("value " + quoted(token) + " is out of the range of double precision");
    }
    if (!sign_ok || error != std::errc{} || end != number.data() + number.size() || number.empty()) {
      fail("value " + quoted(token) + " is not a number");
    }
    if (!std::isfinite(value)) fail("value " + quoted(token) + " is not finite (NaN and Inf are not allowed)");
    rounding_ = decimal_rounding(number, value);
    return value;
  }

  // A complex value from two tokens; rounding_ becomes the larger of the two parts' (a complex
  // value's relative change is at most that).
  matrix_entry parse_complex(std::string_view re, std::string_view im) {
    matrix_entry e;
    e.value = parse_value(re);
    const double re_rounding = rounding_;
    e.imag = parse_value(im);
    rounding_ = std::max(rounding_, re_rounding);
    return e;
  }

  // The mirrored entry of a symmetric, skew-symmetric or hermitian file.
  matrix_entry mirrored(const matrix_entry& e) const {
    if (skew_) return {e.column, e.row, -e.value, -e.imag};
    if (hermitian_) return {e.column, e.row, e.value, -e.imag};
    return {e.column, e.row, e.value, e.imag};
  }

  // Refuses what the symmetry forbids on the diagonal: skew-symmetric entries, hermitian imaginary parts.
  void check_diagonal(const matrix_entry& e, std::string_view text) {
    if (e.row != e.column) return;
    if (skew_ && (e.value != 0 || e.imag != 0)) {
      fail("a skew-symmetric matrix has a zero diagonal, but entry (" + std::to_string(e.row + 1) + ", " +
           std::to_string(e.column + 1) + ") is " + quoted(text));
    }
    if (hermitian_ && e.imag != 0) {
      fail("a hermitian matrix has a real diagonal, but entry (" + std::to_string(e.row + 1) + ", " +
           std::to_string(e.column + 1) + ") has the imaginary part " + quoted(text));
    }
  }

  // Notes what reading the value of an entry of `row` rounded (parse_value's rounding_).
  void note_rounding(int row) {
    if (rounding_ == 0) return;
    if (row_rounding_.empty()) row_rounding_.assign(static_cast<std::size_t>(n_), 0.0);
    row_rounding_[static_cast<std::size_t>(row)] = std::max(row_rounding_[static_cast<std::size_t>(row)], rounding_);
    if (first_rounded_line_ == 0) first_rounded_line_ = line_number_;
  }

  // The position of an entry: symmetric files store one triangle, so (i, j) and (j, i) are one.
  std::uint64_t position_key(int row, int column) const {
    const int low = symmetric_ ? std::min(row, column) : row;
    const int high = symmetric_ ? std::max(row, column) : column;
    return static_cast<std::uint64_t>(low) * static_cast<std::uint64_t>(n_) + static_cast<std::uint64_t>(high);
  }

  std::vector<matrix_entry> read_coordinate_entries(matrix_market_file& result) {
    const bool pattern = field_ == "pattern";
    const std::size_t fields = pattern ? 2 : complex_ ? 4 : 3;
    const std::size_t data_start = position_;
    const long data_line = line_number_;
    std::vector<matrix_entry> entries;
    const auto expected = static_cast<std::size_t>(std::min<std::int64_t>(declared_, 1 << 20));
    entries.reserve(expected * (symmetric_ ? 2 : 1));
    std::vector<std::uint64_t> positions;  // of every stored entry, zeros included: duplicates are found by sorting
    positions.reserve(expected);
    std::int64_t seen = 0;
    while (next_data_line()) {
      if (seen == declared_) {
        fail("more entries than the " + std::to_string(declared_) + " declared on line " +
             std::to_string(result.size_line));
      }
      if (tokens_.size() != fields) {
        fail(pattern    ? "expected 2 fields (row column) for a pattern entry, found " + std::to_string(tokens_.size())
             : complex_ ? "expected 4 fields (row column real imaginary) for a complex entry, found " +
                              std::to_string(tokens_.size())
                        : "expected 3 fields (row column value), found " + std::to_string(tokens_.size()));
      }
      const int row = parse_index(tokens_[0], "row");
      const int column = parse_index(tokens_[1], "column");
      matrix_entry entry = pattern    ? matrix_entry{0, 0, 1.0}
                           : complex_ ? parse_complex(tokens_[2], tokens_[3])
                                      : matrix_entry{0, 0, parse_value(tokens_[2])};
      entry.row = row;
      entry.column = column;
      check_diagonal(entry, hermitian_ ? tokens_[3] : tokens_[2]);
      positions.push_back(position_key(row, column));
      ++seen;
      if (entry.value == 0 && entry.imag == 0) {
        ++result.stored_zeros;
        continue;
      }
      if (!pattern) {
        note_rounding(row);
        if (symmetric_) note_rounding(column);
      }
      entries.push_back(entry);
      if (symmetric_ && row != column) entries.push_back(mirrored(entry));
    }
    if (seen < declared_) {
      fail(line_number_ > 0 ? line_number_ : 1, "the file ends after " + std::to_string(seen) + " entries, but line " +
                                                    std::to_string(result.size_line) + " declares " +
                                                    std::to_string(declared_));
    }
    std::sort(positions.begin(), positions.end());
    if (const auto twin = std::adjacent_find(positions.begin(), positions.end()); twin != positions.end()) {
      report_duplicate(*twin, data_start, data_line);
    }
    result.stored_entries = seen;
    return entries;
  }

  // The first two lines that give `key`'s position (read again: the file's entries are known good).
  [[noreturn]] void report_duplicate(std::uint64_t key, std::size_t data_start, long data_line) {
    position_ = data_start;
    line_number_ = data_line;
    long first = 0;
    while (next_data_line()) {
      const int row = parse_index(tokens_[0], "row");
      const int column = parse_index(tokens_[1], "column");
      if (position_key(row, column) != key) continue;
      if (first == 0) {
        first = line_number_;
        continue;
      }
      fail("duplicate entry (" + std::to_string(row + 1) + ", " + std::to_string(column + 1) +
           "): the same position is already given on line " + std::to_string(first));
    }
    fail(data_line, "duplicate entry");  // not reached: the sort found two
  }

  std::vector<matrix_entry> read_array_entries(matrix_market_file& result) {
    std::vector<matrix_entry> entries;
    std::int64_t seen = 0;
    int row = skew_ ? 1 : 0;  // column-major; symmetric files list the lower triangle only
    int column = 0;
    while (next_data_line()) {
      if (seen == declared_) {
        fail("more values than the " + std::to_string(declared_) + " that the size on line " +
             std::to_string(result.size_line) + " implies");
      }
      const std::size_t fields = complex_ ? 2 : 1;
      if (tokens_.size() != fields) {
        fail(complex_ ? "expected two numbers (real imaginary) per line in a complex 'array' file, found " +
                            std::to_string(tokens_.size())
                      : "expected one value per line in the 'array' format, found " + std::to_string(tokens_.size()));
      }
      matrix_entry entry =
          complex_ ? parse_complex(tokens_[0], tokens_[1]) : matrix_entry{0, 0, parse_value(tokens_[0])};
      entry.row = row;
      entry.column = column;
      check_diagonal(entry, hermitian_ ? tokens_[1] : tokens_[0]);
      ++seen;
      if (entry.value == 0 && entry.imag == 0) {
        ++result.stored_zeros;
      } else {
        note_rounding(row);
        if (symmetric_) note_rounding(column);
        entries.push_back(entry);
        if (symmetric_ && row != column) entries.push_back(mirrored(entry));
      }
      if (++row == n_) {
        ++column;
        row = !symmetric_ ? 0 : skew_ ? column + 1 : column;
      }
    }
    if (seen < declared_) {
      fail(line_number_ > 0 ? line_number_ : 1,
           "the file ends after " + std::to_string(seen) + " values, but the size on line " +
               std::to_string(result.size_line) + " implies " + std::to_string(declared_));
    }
    result.stored_entries = seen;
    return entries;
  }

  std::string_view text_;
  std::string name_;
  std::size_t position_ = 0;
  long line_number_ = 0;
  std::string_view line_;
  std::vector<std::string_view> tokens_;
  std::string field_;
  bool symmetric_ = false;
  bool skew_ = false;
  bool hermitian_ = false;
  bool complex_ = false;
  std::int64_t n_ = 0;
  std::int64_t declared_ = 0;
  double rounding_ = 0;               // of the last value parsed
  std::vector<double> row_rounding_;  // per row, once a value rounded
  long first_rounded_line_ = 0;
};

}  // namespace detail

// Parses Matrix Market text; `name` is what errors call the file.
inline matrix_market_file parse_matrix_market(std::string_view text, const std::string& name) {
  return detail::matrix_market_parser(text, name).parse();
}

namespace detail {

// The start of a file whose first line does not begin with the banner is refused as soon as that
// line is read (or its first 4096 bytes are): `yes | sparseperm compute /dev/stdin` was read to the
// size limit before line 1 was looked at. A first word that may go on past what was read is left to
// the parser.
inline void check_banner_start(std::string_view text, const std::string& path) {
  const std::size_t newline = text.find('\n');
  const std::string_view line = text.substr(0, std::min(newline, text.size()));
  const std::string_view word = first_word(line);
  const bool whole = newline != std::string_view::npos || word.data() + word.size() < line.data() + line.size();
  if (whole && !is_banner_word(word)) throw input_error(path, 1, missing_banner);
}

// The whole text of `path`, read in pieces: a regular file, a pipe or a device alike stop at
// max_matrix_market_bytes, and a NUL byte (not a text file: /dev/zero) stops the read where it is.
inline std::string read_matrix_market_text(const std::string& path) {
  const file_descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file) {
    throw input_error(path, 0,
                      errno == ENOENT ? std::string("cannot open: no such file")
                                      : "cannot open: " + std::string(std::strerror(errno)));
  }
  const int fd = file.get();
  struct stat status {};
  if (::fstat(fd, &status) != 0) throw input_error(path, 0, "cannot read: " + std::string(std::strerror(errno)));
  if (S_ISDIR(status.st_mode)) throw input_error(path, 0, "cannot read: it is a directory");
  if (S_ISREG(status.st_mode) && static_cast<std::uintmax_t>(status.st_size) > max_matrix_market_bytes) {
    throw input_error(path, 0,
                      "cannot read: the file has " + std::to_string(status.st_size) +
                          " bytes, more than the limit of " + std::to_string(max_matrix_market_bytes));
  }
  std::string text;
  if (S_ISREG(status.st_mode)) text.reserve(static_cast<std::size_t>(status.st_size));
  long lines = 1;
  constexpr std::size_t piece = std::size_t{1} << 20;
  for (;;) {
    const std::size_t before = text.size();
    if (before >= max_matrix_market_bytes + 1) {
      throw input_error(path, 0,
                        "cannot read: more than the limit of " + std::to_string(max_matrix_market_bytes) + " bytes");
    }
    text.resize(before + std::min<std::size_t>(piece, max_matrix_market_bytes + 1 - before));
    const ssize_t got = ::read(fd, text.data() + before, text.size() - before);
    if (got < 0) {
      if (errno == EINTR) {
        text.resize(before);
        continue;
      }
      throw input_error(path, 0, "cannot read: " + std::string(std::strerror(errno)));
    }
    text.resize(before + static_cast<std::size_t>(got));
    if (got == 0) break;
    const std::string_view fresh(text.data() + before, static_cast<std::size_t>(got));
    if (const auto nul = fresh.find('\0'); nul != std::string_view::npos) {
      lines += static_cast<long>(std::count(fresh.begin(), fresh.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
      throw input_error(path, lines, "the line contains a NUL byte: not a text file");
    }
    if (lines == 1 && (fresh.find('\n') != std::string_view::npos || text.size() >= 4096))
      check_banner_start(text, path);
    lines += static_cast<long>(std::count(fresh.begin(), fresh.end(), '\n'));
  }
  return text;
}

}  // namespace detail

inline matrix_market_file read_matrix_market(const std::string& path) {
  try {
    const std::string text = detail::read_matrix_market_text(path);
    return parse_matrix_market(text, path);
  } catch (const std::bad_alloc&) {
    throw input_error(path, 0, "out of memory while reading the matrix");
  }
}

// Matrix Market text of the matrix: coordinate, general, 'complex' for complex matrices, else
// 'integer' when every value is an integer, 'real' otherwise, each value as its exact decimal expansion (%.767g: every double has one of at most
// 767 significant digits; 0.1's double is 0.1000000000000000055511151231257827021181583404541015625),
// so that reading it back rounds nothing and the file says exactly which matrix was meant. `comment`
// lines are prefixed with '%'.
inline std::string to_matrix_market(const sparse_matrix& matrix, const std::string& comment = "") {
  const bool complex = matrix.is_complex();
  const bool integer = !complex && matrix.has_integer_values();
  std::string out = std::string("%%MatrixMarket matrix coordinate ") +
                    (complex   ? "complex"
                     : integer ? "integer"
                               : "real") +
                    " general\n";
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) out += "% " + line + "\n";
  out += std::to_string(matrix.n()) + " " + std::to_string(matrix.n()) + " " + std::to_string(matrix.nnz()) + "\n";
  char buffer[1800];
  for (const matrix_entry& e : matrix.entries()) {
    if (complex) {
      std::snprintf(buffer, sizeof buffer, "%d %d %.767g %.767g\n", e.row + 1, e.column + 1, e.value, e.imag);
    } else if (integer) {
      std::snprintf(buffer, sizeof buffer, "%d %d %lld\n", e.row + 1, e.column + 1, static_cast<long long>(e.value));
    } else {
      std::snprintf(buffer, sizeof buffer, "%d %d %.767g\n", e.row + 1, e.column + 1, e.value);
    }
    out += buffer;
  }
  return out;
}

inline void write_matrix_market(const std::string& path, const sparse_matrix& matrix, const std::string& comment = "") {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw input_error(path, 0, std::string("cannot write: ") + std::strerror(errno));
  out << to_matrix_market(matrix, comment);
  out.close();
  if (!out) throw input_error(path, 0, std::string("cannot write: ") + std::strerror(errno));
}

}  // namespace sparseperm
