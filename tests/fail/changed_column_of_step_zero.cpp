// expect: sparseperm_precondition_violated
#include <sparseperm/ryser/gray_code.cuh>
constexpr int column = sparseperm::changed_column(0);
