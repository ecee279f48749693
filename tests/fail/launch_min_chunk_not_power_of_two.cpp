// expect: MinChunk must be a power of two
#include <sparseperm/ryser/launch_parameters.cuh>
int launches = sparseperm::launch_parameters<30, 128, 1000>::value.count;
