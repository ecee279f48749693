// expect: sparseperm_precondition_violated
#include <sparseperm/gray_code.cuh>
constexpr int column = sparseperm::changed_column(0);
