#pragma once
// sparseperm: permanents of sparse matrices. The header users include.
//
//   sparseperm::read_matrix_market(path)        a file's matrix (matrix/matrix_market.cuh)
//   sparseperm::compute_permanent(matrix, opt)  structure check, engine choice, the result record
//   sparseperm::compute_permanents(count, at, opt)  many matrices at once (batch.cuh)
//   sparseperm::make_plan(matrix)               what `auto` would do: blocks, reductions, estimates
//   sparseperm::options_from_text(texts)        compute_options from the tool's or Python's text
//   sparseperm::permanent<M>(options)           a generated matrix type on the GPU (compiled by nvcc)
//   sparseperm::permanent_cpu_cached<M>(opt)    a generated matrix type on the CPU (permanent_cpu.cuh)
//   sparseperm::engines::*, engine_catalog      the engines (engines/catalog.cuh)
//   sparseperm::to_json(result), for_each_field(result, f)   the published record
//
// The generated engines run from compute_permanent where the options name a module runner,
// sparseperm::module_pipeline() from <sparseperm/pipeline.cuh> (the compilers, the module cache, the
// loaders). The compile-time building blocks (Gray-code facts, launch plans, orderings, partitions)
// are constexpr and usable from device code. Compiled by nvcc, this header also brings the GPU
// engines. The type-level view of a generated matrix in Boost.Hana is <sparseperm/hana.cuh>, apart.
#include "batch.cuh"
#include "compute.cuh"
#include "core/config.cuh"
#include "core/engine_error.cuh"
#include "core/progress.cuh"
#include "core/result.cuh"
#include "engines/catalog.cuh"
#include "matrix/column_masks.cuh"
#include "matrix/input_error.cuh"
#include "matrix/matrix_market.cuh"
#include "matrix/pattern.cuh"
#include "matrix/sparse_matrix.cuh"
#include "module/codegen.cuh"
#include "permanent_cpu.cuh"
#include "planner.cuh"
#include "result_json.cuh"
#include "ryser/digits_forecast.cuh"
#include "ryser/gray_code.cuh"
#include "ryser/launch_parameters.cuh"
#include "ryser/occupancy.cuh"
#include "ryser/ordering.cuh"
#include "ryser/ryser_plan.cuh"
#include "settings.cuh"
#include "structure/block_decomposition.cuh"
#include "structure/matching.cuh"
#include "structure/reductions.cuh"
#include "structure/structural_rank.cuh"
#if defined(__CUDACC__)
#  include "permanent.cuh"
#endif
