// Hopcroft–Karp against a simple augmenting-path matching, and the Erdős–Rényi generator.
#include <doctest/doctest.h>

#include <sparseperm/structure/matching.cuh>
#include "random_matrix.hpp"

#include <functional>
#include <set>

#include "test_support.hpp"

namespace sp = sparseperm;

namespace {

// Kuhn's algorithm: one augmenting path per row, by plain recursion. Slow and obviously right.
int simple_matching_size(const sp::sparse_matrix& m) {
  std::vector<int> row_of_column(m.n(), -1);
  int size = 0;
  for (int root = 0; root < m.n(); ++root) {
    std::vector<char> visited(m.n(), 0);
    std::function<bool(int)> augment = [&](int i) {
      for (int j : m.row_columns(i)) {
        if (visited[j]) continue;
        visited[j] = 1;
        if (row_of_column[j] == -1 || augment(row_of_column[j])) {
          row_of_column[j] = i;
          return true;
        }
      }
      return false;
    };
    size += augment(root);
  }
  return size;
}

}  // namespace

TEST_CASE("Hopcroft-Karp finds maximum matchings that are valid") {
  sp::random_stream stream(7);
  int checked = 0;
  for (int n = 1; n <= 60; n += 3) {
    for (double density : {0.02, 0.05, 0.1, 0.3}) {
      const auto m = test_support::random_matrix(stream, n, density, sp::value_kind::ones);
      const auto matching = sp::maximum_matching(m);
      CHECK(matching.size == simple_matching_size(m));
      int pairs = 0;
      for (int i = 0; i < n; ++i) {
        const int j = matching.column_of_row[i];
        if (j == -1) continue;
        ++pairs;
        CHECK(matching.row_of_column[j] == i);
        const auto columns = m.row_columns(i);
        CHECK(std::find(columns.begin(), columns.end(), j) != columns.end());
      }
      CHECK(pairs == matching.size);
      ++checked;
    }
  }
  CHECK(checked == 80);
}

TEST_CASE("structural rank of known shapes") {
  CHECK(sp::structural_rank(sp::sparse_matrix{}) == 0);
  CHECK(sp::structural_rank(test_support::derangement_matrix(5)) == 5);
  // Two rows that can only use the same column.
  const auto m = sp::sparse_matrix::from_entries(3, {{0, 0, 1}, {1, 0, 1}, {2, 1, 1}, {2, 2, 1}});
  CHECK(sp::structural_rank(m) == 2);
}

TEST_CASE("a large sparse matching does not recurse") {
  // A 200000 × 200000 band (a long augmenting path structure): the iterative search must cope.
  std::vector<sp::matrix_entry> entries;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    entries.push_back({i, i, 1});
    if (i + 1 < n) entries.push_back({i, i + 1, 1});
  }
  CHECK(sp::structural_rank(sp::sparse_matrix::from_entries(n, entries)) == n);
}

TEST_CASE("the generator is deterministic, nonsingular and honours its options") {
  sp::erdos_renyi_options options;
  options.n = 30;
  options.density = 0.2;
  options.seed = 12345;
  const auto a = sp::generate_erdos_renyi(options);
  const auto b = sp::generate_erdos_renyi(options);
  CHECK(a == b);
  CHECK(sp::structural_rank(a) == 30);
  options.seed = 12346;
  CHECK_FALSE(sp::generate_erdos_renyi(options) == a);

  // Density: over many entries the share of nonzeros is close to p (nonsingular draws bias it a little up).
  options.n = 200;
  options.density = 0.1;
  const double share = static_cast<double>(sp::generate_erdos_renyi(options).nnz()) / (200.0 * 200.0);
  CHECK(share == doctest::Approx(0.1).epsilon(0.05));

  options.n = 20;
  options.density = 0.5;
  for (const auto& e : sp::generate_erdos_renyi(options).entries()) CHECK((e.value > 0 && e.value <= 1));
  options.values = sp::value_kind::ones;
  for (const auto& e : sp::generate_erdos_renyi(options).entries()) CHECK(e.value == 1);
  options.values = sp::value_kind::integers;
  options.low = -2;
  options.high = 2;
  std::set<double> seen;
  for (const auto& e : sp::generate_erdos_renyi(options).entries()) seen.insert(e.value);
  CHECK(seen == std::set<double>{-2, -1, 1, 2});
}

TEST_CASE("the generator refuses bad options and hopeless densities") {
  sp::erdos_renyi_options options;
  options.n = 0;
  CHECK_THROWS_AS(sp::generate_erdos_renyi(options), std::invalid_argument);
  options.n = 10;
  options.density = 0;
  CHECK_THROWS_AS(sp::generate_erdos_renyi(options), std::invalid_argument);
  options.density = 1.5;
  CHECK_THROWS_AS(sp::generate_erdos_renyi(options), std::invalid_argument);
  options.density = 0.001;
  options.max_attempts = 50;
  CHECK_THROWS_AS(sp::generate_erdos_renyi(options), std::runtime_error);
}

TEST_CASE("the random stream is the same everywhere") {
  // Pinned values: a change here changes every generated benchmark and test matrix.
  sp::random_stream stream(1);
  CHECK(stream.next() == 12966619160104079557ull);
  CHECK(stream.next() == 9600361134598540522ull);
  CHECK(stream.uniform() == 0.5741057000197225);
  for (int i = 0; i < 1000; ++i) CHECK(stream.below(7) < 7);

  sp::erdos_renyi_options options;
  options.n = 6;
  options.density = 0.5;
  options.seed = 3;
  options.values = sp::value_kind::integers;
  options.low = 1;
  options.high = 9;
  const auto entries = sp::generate_erdos_renyi(options).entries();
  REQUIRE(entries.size() == 17);
  CHECK(entries[0].row == 1);
  CHECK(entries[0].column == 0);
  CHECK(entries[0].value == 7);
  CHECK(entries[16].row == 4);
  CHECK(entries[16].column == 5);
  CHECK(entries[16].value == 7);
}
