// Counting perfect matchings: the domino tilings of an m × k board.
//
// Colour the board like a chess board. A tiling pairs every black square with a white neighbour, so
// the tilings are the perfect matchings of the bipartite graph black × white, and their number is
// the permanent of its 0/1 adjacency matrix. Integer matrices are computed exactly.
#include <sparseperm/perm.cuh>

#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

sparseperm::sparse_matrix board(int m, int k) {
  std::map<std::pair<int, int>, int> black, white;
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < k; ++c) {
      auto& colour = (r + c) % 2 == 0 ? black : white;
      const int index = static_cast<int>(colour.size());
      colour[{r, c}] = index;
    }
  }
  std::vector<sparseperm::matrix_entry> entries;
  for (const auto& [square, row] : black) {
    for (const auto& [dr, dc] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
      const auto neighbour = white.find({square.first + dr, square.second + dc});
      if (neighbour != white.end()) entries.push_back({row, neighbour->second, 1.0});
    }
  }
  return sparseperm::sparse_matrix::from_entries(static_cast<int>(black.size()), std::move(entries));
}

int main() {
  // Known counts (OEIS A004003 for square boards, A099390 in general).
  const std::vector<std::tuple<int, int, std::string>> boards = {{2, 2, "2"},     {2, 3, "3"},     {3, 4, "11"},
                                                                 {4, 4, "36"},    {4, 5, "95"},    {6, 6, "6728"},
                                                                 {6, 7, "31529"}, {6, 8, "167089"}};
  int failures = 0;
  for (const auto& [m, k, expected] : boards) {
    const auto result = sparseperm::compute_permanent(board(m, k));
    const bool ok = result.exact && result.permanent == expected;
    std::printf("%d x %d board: %s domino tilings%s\n", m, k, result.permanent.c_str(), ok ? "" : "  <-- WRONG");
    failures += !ok;
  }
  return failures == 0 ? 0 : 1;
}
