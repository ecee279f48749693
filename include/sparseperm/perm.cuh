#pragma once
// sparseperm: permanents of sparse matrices. The one header users include.
//
//   sparseperm::read_matrix_market(path)        a file's matrix (runtime/matrix_market.cuh)
//   sparseperm::compute_permanent(matrix, opt)  structure check, engine choice, the result record
//   sparseperm::make_plan(matrix)               what `auto` would do: blocks, reductions, estimates
//   sparseperm::permanent<M>(options)           a generated matrix type on the GPU (compiled by nvcc)
//   sparseperm::permanent_cpu_cached<M>(opt)    a generated matrix type on the CPU (cpu-cached)
//   sparseperm::permanent_cpu_sparse(...) etc.  the engines themselves (engines/)
//
// The compile-time building blocks (Gray-code facts, launch plans, orderings, partitions) are
// constexpr and usable from device code. Compiled by nvcc, this header also brings the GPU engines.
#include "column_masks.cuh"
#include "compute.cuh"
#include "config.cuh"
#include "engine_error.cuh"
#include "engine_catalog.cuh"
#include "engines/cpu_cached.cuh"
#include "engines/cpu_sparse.cuh"
#include "engines/dp.cuh"
#include "engines/reference.cuh"
#include "gray_code.cuh"
#include "launch_parameters.cuh"
#include "occupancy.cuh"
#include "ordering.cuh"
#include "planner.cuh"
#include "progress.cuh"
#include "result.cuh"
#include "result_json.cuh"
#include "runtime/block_decomposition.cuh"
#include "runtime/generator.cuh"
#include "runtime/input_error.cuh"
#include "runtime/matching.cuh"
#include "runtime/matrix_market.cuh"
#include "runtime/reductions.cuh"
#include "runtime/sparse_matrix.cuh"
#include "codegen.cuh"
#include "pattern.cuh"
#include "ryser_plan.cuh"
#include "structure.cuh"
#if defined(__CUDACC__)
#  include "engines/gpu_sparse.cuh"
#  include "gpu/module_runner.cuh"
#  include "permanent.cuh"
#endif
