// Matrix Market reading and writing, and every malformed-input error with its line.
#include <doctest/doctest.h>

#include <sparseperm/matrix/matrix_market.cuh>
#include "random_matrix.hpp"

#include <string>

using sparseperm::input_error;
using sparseperm::parse_matrix_market;

namespace {

// The error a text gives: "name:LINE: message".
std::string error_of(const std::string& text) {
  try {
    parse_matrix_market(text, "m.mtx");
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

double at(const sparseperm::sparse_matrix& m, int i, int j) {
  return m.dense()[static_cast<std::size_t>(i) * m.n() + j];
}

}  // namespace

TEST_CASE("coordinate real general") {
  const auto f = parse_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n% a comment\n\n3 3 4\n1 1 1.5\n2 3 -2e-1\n3 2 4\n3 3 +7\n", "m");
  CHECK(f.matrix.n() == 3);
  CHECK(f.matrix.nnz() == 4);
  CHECK(f.size_line == 4);
  CHECK(at(f.matrix, 0, 0) == 1.5);
  CHECK(at(f.matrix, 1, 2) == -0.2);
  CHECK(at(f.matrix, 2, 1) == 4);
  CHECK(at(f.matrix, 2, 2) == 7);
  CHECK_FALSE(f.matrix.has_integer_values());
}

TEST_CASE("banner words are case-insensitive and CRLF line ends are accepted") {
  const auto f =
      parse_matrix_market("%%MatrixMarket MATRIX Coordinate Integer General\r\n2 2 2\r\n1 2 3\r\n2 1 -4\r\n", "m");
  CHECK(f.matrix.nnz() == 2);
  CHECK(f.matrix.has_integer_values());
  CHECK(at(f.matrix, 1, 0) == -4);
}

TEST_CASE("pattern entries are ones") {
  const auto f = parse_matrix_market("%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 1\n1 2\n2 2\n", "m");
  CHECK(f.matrix.nnz() == 3);
  CHECK(at(f.matrix, 0, 1) == 1);
  CHECK(f.matrix.has_integer_values());
}

TEST_CASE("symmetric and skew-symmetric files imply the other triangle") {
  const auto s =
      parse_matrix_market("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n2 1 5\n3 2 -1\n", "m");
  CHECK(s.matrix.nnz() == 5);
  CHECK(at(s.matrix, 0, 1) == 5);
  CHECK(at(s.matrix, 1, 0) == 5);
  CHECK(at(s.matrix, 1, 2) == -1);
  const auto k = parse_matrix_market("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n", "m");
  CHECK(at(k.matrix, 1, 0) == 3);
  CHECK(at(k.matrix, 0, 1) == -3);
  // The upper triangle is accepted too.
  const auto u = parse_matrix_market("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n1 2\n", "m");
  CHECK(u.matrix.nnz() == 2);
}

TEST_CASE("stored zeros are not nonzeros") {
  const auto f =
      parse_matrix_market("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 0\n1 2 0.0\n2 1 1\n", "m");
  CHECK(f.matrix.nnz() == 1);
  CHECK(f.stored_entries == 3);
  CHECK(f.stored_zeros == 2);
}

TEST_CASE("array format is column-major; symmetric arrays list the lower triangle") {
  const auto g = parse_matrix_market("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n0\n", "m");
  CHECK(at(g.matrix, 0, 0) == 1);
  CHECK(at(g.matrix, 1, 0) == 2);
  CHECK(at(g.matrix, 0, 1) == 3);
  CHECK(g.matrix.nnz() == 3);
  const auto s = parse_matrix_market("%%MatrixMarket matrix array integer symmetric\n2 2\n1\n2\n3\n", "m");
  CHECK(at(s.matrix, 1, 0) == 2);
  CHECK(at(s.matrix, 0, 1) == 2);
  CHECK(at(s.matrix, 1, 1) == 3);
  const auto k = parse_matrix_market("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", "m");
  CHECK(at(k.matrix, 1, 0) == 1);
  CHECK(at(k.matrix, 2, 0) == 2);
  CHECK(at(k.matrix, 2, 1) == 3);
  CHECK(at(k.matrix, 1, 2) == -3);
}

TEST_CASE("the 0 x 0 matrix") {
  const auto f = parse_matrix_market("%%MatrixMarket matrix coordinate real general\n0 0 0\n", "m");
  CHECK(f.matrix.n() == 0);
}

TEST_CASE("malformed input names the file and line") {
  const std::string head = "%%MatrixMarket matrix coordinate real general\n";
  CHECK(error_of("") == "m.mtx:1: empty file: expected a '%%MatrixMarket matrix ...' banner");
  CHECK(error_of("3 3 1\n1 1 1\n") == "m.mtx:1: missing '%%MatrixMarket' banner on the first line");
  CHECK(error_of("%%MatrixMarket matrix coordinate real\n") ==
        "m.mtx:1: the banner must read '%%MatrixMarket matrix FORMAT FIELD SYMMETRY' (found 4 words)");
  CHECK(error_of("%%MatrixMarket vector coordinate real general\n") ==
        "m.mtx:1: only 'matrix' objects are supported, not 'vector'");
  CHECK(error_of("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 4\n") ==
        "m.mtx:3: expected 4 fields (row column real imaginary) for a complex entry, found 3");
  CHECK(error_of("%%MatrixMarket matrix coordinate real hermitian\n") ==
        "m.mtx:1: the 'hermitian' symmetry needs the 'complex' field (a real hermitian matrix is 'symmetric')");
  CHECK(error_of("%%MatrixMarket matrix sparse real general\n") ==
        "m.mtx:1: unknown format 'sparse' (expected 'coordinate' or 'array')");
  CHECK(error_of("%%MatrixMarket matrix array pattern general\n") ==
        "m.mtx:1: the 'pattern' field needs the 'coordinate' format");
  CHECK(error_of(head) == "m.mtx:2: missing size line: the file ends after its header");
  CHECK(error_of(head + "% c\n3 3\n") == "m.mtx:3: the size line must read 'ROWS COLUMNS ENTRIES'");
  CHECK(error_of(head + "3 x 1\n") == "m.mtx:2: column count 'x' is not a whole number");
  CHECK(error_of(head + "3 4 1\n") ==
        "m.mtx:2: the matrix is 3 x 4: not square (the permanent is defined for square matrices)");
  CHECK(error_of(head + "-3 -3 1\n") == "m.mtx:2: negative dimension");
  CHECK(error_of(head + "2 2 5\n") ==
        "m.mtx:2: declares 5 entries but a 2 x 2 general matrix has only 4 positions to store");
  CHECK(error_of(head + "20000000 20000000 1\n") ==
        "m.mtx:2: dimension 20000000 exceeds the reader's limit of 10000000");
  CHECK(error_of(head + "2 2 2\n1 1 1\n") == "m.mtx:3: the file ends after 1 entries, but line 2 declares 2");
  CHECK(error_of(head + "2 2 1\n1 1 1\n2 2 1\n") == "m.mtx:4: more entries than the 1 declared on line 2");
  CHECK(error_of(head + "2 2 1\n3 1 1\n") == "m.mtx:3: row index 3 is out of range [1, 2]");
  CHECK(error_of(head + "2 2 1\n1 0 1\n") == "m.mtx:3: column index 0 is out of range [1, 2]");
  CHECK(error_of(head + "2 2 1\n1.0 1 1\n") == "m.mtx:3: row index '1.0' is not a whole number");
  CHECK(error_of(head + "2 2 2\n1 2 1\n% c\n1 2 5\n") ==
        "m.mtx:5: duplicate entry (1, 2): the same position is already given on line 3");
  CHECK(error_of("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n1 2 1\n") ==
        "m.mtx:4: duplicate entry (1, 2): the same position is already given on line 3");
  CHECK(error_of(head + "2 2 1\n1 1 abc\n") == "m.mtx:3: value 'abc' is not a number");
  CHECK(error_of(head + "2 2 1\n1 1 nan\n") == "m.mtx:3: value 'nan' is not finite (NaN and Inf are not allowed)");
  CHECK(error_of(head + "2 2 1\n1 1 -Inf\n") == "m.mtx:3: value '-Inf' is not finite (NaN and Inf are not allowed)");
  CHECK(error_of(head + "2 2 1\n1 1 1e999\n") == "m.mtx:3: value '1e999' is out of the range of double precision");
  CHECK(error_of(head + "2 2 1\n1 1 1.5x\n") == "m.mtx:3: value '1.5x' is not a number");
  CHECK(error_of(head + "2 2 1\n1 1\n") == "m.mtx:3: expected 3 fields (row column value), found 2");
  CHECK(error_of(head + "2 2 1\n1 1 1 1\n") == "m.mtx:3: expected 3 fields (row column value), found 4");
  CHECK(error_of("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n") ==
        "m.mtx:3: expected 2 fields (row column) for a pattern entry, found 3");
  CHECK(error_of("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n") ==
        "m.mtx:3: value '1.5' is not an integer (the field is 'integer')");
  CHECK(error_of("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 9007199254740993\n") ==
        "m.mtx:3: integer value '9007199254740993' exceeds 2^53 and cannot be held exactly");
  CHECK(error_of("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 2\n") ==
        "m.mtx:3: a skew-symmetric matrix has a zero diagonal, but entry (1, 1) is '2'");
  CHECK(error_of("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n") ==
        "m.mtx:5: the file ends after 3 values, but the size on line 2 implies 4");
  CHECK(error_of("%%MatrixMarket matrix array real general\n1 1\n1\n2\n") ==
        "m.mtx:4: more values than the 1 that the size on line 2 implies");
  CHECK(error_of("%%MatrixMarket matrix array real general\n1 1\n1 2\n") ==
        "m.mtx:3: expected one value per line in the 'array' format, found 2");
  CHECK(error_of(std::string(head) + "2 2 1\n1 1 1" + std::string(1, '\0') + "\n") ==
        "m.mtx:3: the line contains a NUL byte: not a text file");
}

TEST_CASE("files that cannot be read") {
  CHECK_THROWS_WITH_AS(sparseperm::read_matrix_market("/nonexistent/x.mtx"),
                       "/nonexistent/x.mtx: cannot open: no such file", input_error);
  CHECK_THROWS_WITH_AS(sparseperm::read_matrix_market("/tmp"), "/tmp: cannot read: it is a directory", input_error);
}

TEST_CASE("writing and reading back gives the same matrix, values exactly") {
  sparseperm::random_stream stream(42);
  std::vector<sparseperm::matrix_entry> entries;
  for (int i = 0; i < 7; ++i) {
    for (int j = 0; j < 7; ++j) {
      if (stream.uniform() < 0.4) entries.push_back({i, j, (stream.uniform() - 0.5) * 1e-3 / 3.0});
    }
  }
  const auto m = sparseperm::sparse_matrix::from_entries(7, entries);
  const auto text = sparseperm::to_matrix_market(m, "round trip\nsecond line");
  CHECK(text.rfind("%%MatrixMarket matrix coordinate real general\n% round trip\n% second line\n", 0) == 0);
  CHECK(parse_matrix_market(text, "m").matrix == m);

  const auto integer = sparseperm::sparse_matrix::from_entries(2, {{0, 1, -3}, {1, 0, 5}});
  const auto integer_text = sparseperm::to_matrix_market(integer);
  CHECK(integer_text == "%%MatrixMarket matrix coordinate integer general\n2 2 2\n2 1 5\n1 2 -3\n");
  CHECK(parse_matrix_market(integer_text, "m").matrix == integer);
}
