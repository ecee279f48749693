// The tool's host engines (cpu-sparse, dp, glynn, the reference) and its host module runner (a
// cpu-cached module's chunk loop for every arithmetic and sum), compiled apart from main.cpp so
// that the tool's units build in parallel (core/config.cuh: SPARSEPERM_SEPARATE_ENGINE_RUNS).
#define SPARSEPERM_ENGINE_RUNS_HERE
#include <sparseperm/engines/cpu_sparse.cuh>
#include <sparseperm/engines/dp.cuh>
#include <sparseperm/engines/glynn.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/module/host_runner.cuh>
