// expect: sparseperm_precondition_violated
#include <sparseperm/matrix/column_masks.cuh>
#include <utility>
constexpr std::pair<int, int> entries[] = {{0, 0}, {3, 1}};
constexpr sparseperm::column_masks masks = sparseperm::make_column_masks(3, entries);
