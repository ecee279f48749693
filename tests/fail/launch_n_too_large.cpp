// expect: N must be in \[1, 64\]
#include <sparseperm/ryser/launch_parameters.cuh>
int launches = sparseperm::launch_parameters<65, 128>::value.count;
