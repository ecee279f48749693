// The host engines (cpu-sparse, dp, glynn, the reference) and the host module runner (a cpu-cached
// module's chunk loop for every arithmetic and sum): CMakeLists.txt here.
#define SPARSEPERM_ENGINE_RUNS_HERE
#include <sparseperm/engines/cpu_sparse.cuh>
#include <sparseperm/engines/dp.cuh>
#include <sparseperm/engines/glynn.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/module/host_runner.cuh>
