#pragma once
// The host entry point: check the structure, choose an engine, run it, time it.
//
// Every call returns the same record (result.cuh). A 0×0 matrix has permanent 1; a matrix without a
// perfect matching (structural rank < n) has permanent 0, found by matching before any engine runs.
//
// Engines: those of engines/catalog.cuh, each where it can run. The host engines (placement host)
// everywhere; the GPU ones where this translation unit is compiled by nvcc and a CUDA device is
// present; the generated ones where compute_options::modules names a module runner
// (module_pipeline(), <sparseperm/pipeline.cuh>) and the compiler they need is found at run time.
// engine_unavailable(engine, options) says why one cannot. `auto` follows the planner (planner.cuh):
// fine blocks, degree reductions, the cheapest engine for each block.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine_error.cuh"
#include "core/process_group.cuh"
#include "core/progress.cuh"
#include "core/result.cuh"
#include "detail/sha256.cuh"
#include "engines/catalog.cuh"
#include "engines/cpu_sparse.cuh"
#include "engines/dp.cuh"
#include "matrix/exactness.cuh"
#include "matrix/row_grids.cuh"
#include "matrix/sparse_matrix.cuh"
#include "numeric/big_integer.cuh"
#include "numeric/error_bound.cuh"
#include "numeric/product_bound.cuh"
#include "numeric/scaled_double.cuh"
#include "planner.cuh"
#include "ryser/dense_lanes.cuh"
#include "structure/matching.cuh"
#include "structure/repeated_lines.cuh"

namespace sparseperm {

// Refuses a complex matrix to an engine that computes real ones only.
inline void check_complex_values(const engine_description& engine, const sparse_matrix& matrix) {
  if (matrix.is_complex() && !engine.complex_values) {
    throw engine_error(engine_error::kind::refused, "engine '" + std::string(engine.name) +
                                                        "' computes real matrices only, and this one is complex "
                                                        "(engines for complex matrices: " +
                                                        complex_engine_names() + ")");
  }
}

namespace detail {
// Refuses --precision double-double to an engine that does not run it.
inline void check_double_double(const engine_description& engine, const compute_options& options) {
  if (options.precision == precision::double_double && !engine.double_double) {
    throw engine_error(engine_error::kind::refused, "engine '" + std::string(engine.name) +
                                                        "' does not run --precision double-double (engines that do: " +
                                                        double_double_engine_names() + ")");
  }
}
}  // namespace detail

// `engine` for an n×n matrix, checked: throws engine_error when it cannot run it here.
inline const engine_description& check_engine(const engine_description& engine, int n,
                                              const compute_options& options = {}) {
  const std::string name(engine.name);
  if (n > engine.max_n) {
    throw beyond_limit(engine.name, n, engine.max_n);
  }
  if (const auto why = engine_unavailable(engine, options)) {
    throw engine_error(engine_error::kind::unavailable, "engine '" + name + "' is not available: " + *why);
  }
  return engine;
}

// The engines that certify a result without row grids, whatever the values' spread, for n.
inline std::string grid_free_engines(int n) {
  std::string names(description_of<engines::dp>.name);
  if (n <= description_of<engines::reference>.max_n)
    names += " and " + std::string(description_of<engines::reference>.name);
  return names;
}

namespace detail {
// A complex matrix's result is complex, also where no arithmetic saw an imaginary part: 0 then
// (exact where the result is).
inline void keep_complex(permanent_result& result, const sparse_matrix& matrix) {
  if (matrix.is_complex() && !result.complex) set_imaginary_part(result, 0, result.exact ? "0" : "");
}
}  // namespace detail

// `engine` on a matrix with a perfect matching, in the arithmetic options.precision asks for.
inline permanent_result run_engine(const engine_task& task, const engine_description& engine,
                                   const compute_options& options) {
  const std::string name(engine.name);
  check_complex_values(engine, task.matrix);
  detail::check_double_double(engine, options);
  if (options.precision == precision::exact) {  // refused before any compiling or running
    if (const auto why = detail::exact_refusal(task.matrix, name, engine.exact))
      throw engine_error(engine_error::kind::refused, *why);
  }
  if (engine.rounds_to_grids) {  // the Ryser engines round values to row grids (numeric/error_bound.cuh)
    if (const auto why = detail::row_grid_refusal(task.matrix)) {
      throw engine_error(engine_error::kind::refused, "engine '" + name +
                                                          "' cannot certify a result for this matrix (" + *why + "); " +
                                                          grid_free_engines(task.matrix.n()) + " can");
    }
  }
  permanent_result result;
  if (engine.generated()) {
    if (options.modules == nullptr)
      throw engine_error(engine_error::kind::unavailable,
                         "engine '" + name + "' is not available: " + *engine_unavailable(engine, options));
    result = options.modules->run(engine, task, options);
  } else {
    result = engine.run(task, options);
  }
  detail::keep_complex(result, task.matrix);  // decided without arithmetic (an empty line: 0)
  return result;
}

// What a block's run adds to the plan's result: threads, registers, codegen and compile seconds.
inline void add_block_run(permanent_result& result, const permanent_result& block) {
  result.threads = std::max(result.threads, block.threads);
  result.registers_per_thread = std::max(result.registers_per_thread, block.registers_per_thread);
  result.seconds.codegen += block.seconds.codegen;
  result.seconds.compile += block.seconds.compile;
}

// The plan's factor F̂ is 1 exactly: no 1 × 1 block and no reduction multiplied it.
inline bool plan_factor_is_one(const permanent_plan& plan) {
  return plan.trivial_blocks == 0 && plan.degree_one == 0 && plan.degree_two == 0;
}

// A complex matrix's plan: the product of the blocks' complex permanents, exact for Gaussian
// integers, else with the product's bound on the modulus (product_bound with complex roundings).
inline permanent_result run_complex_plan(const permanent_plan& plan, const compute_options& options,
                                         permanent_result result) {
  bool exact = plan.integer;
  detail::big_gaussian exact_value(plan.factor, plan.factor_imag);
  detail::scaled_complex value = plan.factor_complex;
  detail::product_bound bound(plan.n, 4, plan_factor_is_one(plan));
  for (const auto& block : plan.blocks) {
    const permanent_result r = run_engine({block.matrix, &block.order}, *block.engine, options);
    exact = exact && r.exact;
    if (exact) {
      exact_value = exact_value * detail::big_gaussian(detail::big_integer::from_decimal(r.permanent),
                                                       detail::big_integer::from_decimal(r.complex ? r.permanent_imag
                                                                                                   : std::string("0")));
    }
    value *= complex_double{r.value, r.complex ? r.imag : 0.0};
    bound.factor(std::hypot(r.value, r.complex ? r.imag : 0.0) * detail::bound_margin,
                 r.exact ? 0.0 : r.error_bound.value_or(std::numeric_limits<double>::infinity()));
    add_block_run(result, r);
  }
  if (exact) {
    result.exact = true;
    result.permanent = exact_value.re.to_decimal();
    result.value = exact_value.re.to_double();
    set_imaginary_part(result, exact_value.im.to_double(), exact_value.im.to_decimal());
    return result;
  }
  if (value.overflows()) {
    throw engine_error(engine_error::kind::overflow, "the complex permanent is beyond the range of double precision");
  }
  const complex_double v = value.to_complex();
  set_floating_value(result, v.re);
  set_imaginary_part(result, v.im);
  detail::scaled_double factor_modulus = plan.factor_complex.modulus();
  set_error_bound(result, (bound.of(factor_modulus, value.modulus()) + value.conversion_error_up()) *
                              detail::bound_margin * detail::bound_margin);
  return result;
}

// Runs a plan: each block on its engine, the product of the blocks and the factors.
inline permanent_result run_plan(const permanent_plan& plan, const compute_options& options) {
  permanent_result result;
  result.engine = plan_engines(plan);
  result.n = plan.n;
  result.nnz = plan.nnz;
  result.plan = summarize_plan(plan);
  result.complex = plan.complex;
  if (plan.zero) {
    set_exact_value(result, 0, plan.zero_reason);
    return result;
  }
  if (plan.complex) return run_complex_plan(plan, options, std::move(result));
  bool exact = plan.integer;
  detail::big_integer exact_value = plan.factor;
  detail::scaled_double value = plan.factor_value;  // scaled: blocks of tiny or huge permanents multiply safely
  detail::product_bound bound(plan.n, 1, plan_factor_is_one(plan));  // the product's bound (product_bound.cuh)
  for (const auto& block : plan.blocks) {
    // exact on a block its engine cannot hold (entries beyond residues): dp, which holds any
    const engine_description* engine = block.engine;
    if (options.precision == precision::exact && detail::exact_refusal(block.matrix, engine->name, engine->exact)) {
      engine = &description_of<engines::dp>;
    }
    const permanent_result r = run_engine({block.matrix, &block.order}, *engine, options);
    exact = exact && r.exact;
    if (exact) exact_value = exact_value * detail::big_integer::from_decimal(r.permanent);
    value *= r.value;
    bound.factor(r.value, r.exact ? 0.0 : r.error_bound.value_or(std::numeric_limits<double>::infinity()));
    add_block_run(result, r);
  }
  if (exact) {
    result.exact = true;
    result.permanent = exact_value.to_decimal();
    result.value = exact_value.to_double();
  } else {
    if (value.overflows()) {
      throw engine_error(engine_error::kind::overflow, "the permanent is not finite in double precision (about 2^" +
                                                           std::to_string(value.exponent()) + ", beyond its range)");
    }
    set_floating_value(result, value.to_double());
    set_error_bound(result, (bound.of(plan.factor_value, value) + value.conversion_error_up()) * detail::bound_margin);
  }
  return result;
}

// A floating result of a matrix read from a file whose values were rounded on reading
// (sparse_matrix::input_rounding). For a nonnegative matrix the bound grows by what that rounding can
// change (numeric/error_bound.cuh: relative, at most (Π(1 + ρ_i) − 1)·(1 + ...)·perm(A)), so that it
// holds for the numbers the file wrote. Where terms cancel (signed or complex values) that change is
// bounded only through perm(|A|), which certifies nothing on such matrices: there the bound is for the
// matrix of doubles the file's numbers were read as (each the nearest double), and the plan says so.
inline void add_input_rounding(permanent_result& result, const sparse_matrix& matrix) {
  if (result.exact || !result.error_bound || matrix.input_rounding().empty()) return;
  const std::vector<double>& rho = matrix.input_rounding();
  // the sums bound the file's |a_ij| ≤ |â_ij| / (1 − ρ), not only the doubles held
  const double widen = detail::bound_margin / (1 - *std::max_element(rho.begin(), rho.end()));
  const detail::grid_rounding_facts facts = detail::perturbation_builder(
                                                matrix, [&](int i) { return rho[static_cast<std::size_t>(i)]; }, widen)
                                                .facts();
  if (!facts.nonnegative) {
    result.plan += "; the bound is for the file's values as read (each decimal rounded to the nearest double)";
    return;
  }
  const double bound = *result.error_bound;
  set_error_bound(result, (bound + detail::grid_perturbation_bound(facts, result.value, bound)) * detail::bound_margin);
  result.plan += "; the bound includes the rounding of the file's values to doubles";
}

namespace detail {

// A matrix scaled by powers of two (complex ones by their moduli), columns to balance it and rows
// to put each row's largest |a_ij| in [0.5, 1): perm(A) = 2^shift · perm(scaled). Every scaled value
// is exact where it stays a normal double; one that would fall below (a row spanning more binary
// orders than double has: [[1e200, 1e-200], [1e-200, 1e200]]) is dropped, and `perturbation` bounds
// what that changes in perm(scaled). Engines then work near 1 whatever the file's magnitudes.
struct unit_scaling {
  sparse_matrix matrix;
  std::int64_t shift = 0;
  long long dropped = 0;    // values (or parts) below 2^-1022 after scaling, set to 0
  double perturbation = 0;  // a bound on |perm(scaled) − perm(A)·2^−shift| from those
};

// Dropping values of at most d_ij (row i: D_i = Σ_j d_ij) changes the permanent by at most
// perm(|A| + D) − perm(|A|) ≤ Σ_i D_i Π_{k≠i} (R_k + D_k), R_k the row sums of |a_kj| of what is kept
// (the permanent is multilinear in the rows, and perm(|B|) ≤ Π of |B|'s row sums). In log2, rounded up.
inline double dropped_values_bound(const std::vector<double>& kept_row_sums, const std::vector<double>& dropped) {
  double log2_all = 0;
  for (std::size_t i = 0; i < kept_row_sums.size(); ++i) log2_all += std::log2(kept_row_sums[i] + dropped[i]);
  double bound = 0;
  for (std::size_t i = 0; i < dropped.size(); ++i) {
    if (dropped[i] > 0) bound += std::exp2(std::log2(dropped[i]) + log2_all - std::log2(kept_row_sums[i] + dropped[i]));
  }
  return bound * (1 + 0x1p-20);  // the logarithms' and sums' roundings, generously
}

// Σ_i log2 Σ_j |a_ij|: where it nears double's exponent range, Ryser's terms and dp's states may
// leave it (Π R_i bounds them, times 2^(n−1) in Ryser's sums).
inline constexpr double unscaled_log2_limit = 768;

// Whether Σ_i log2 R_i (R_i = Σ_j |a_ij|) is surely within ±limit, from binary exponents alone: R_i
// lies between Σ_j max(|re|, |im|) and Σ_j (|re| + |im|), and a positive x in [2^(e−1), 2^e) has
// e − 1 ≤ log2 x < e. No allocation, square root or logarithm: most of a small matrix's check.
inline bool row_sums_surely_within(const sparse_matrix& a, double limit) {
  long long low = 0, high = 0;  // Σ_i (e(lower_i) − 1) ≤ Σ_i log2 R_i < Σ_i e(upper_i)
  for (int i = 0; i < a.n(); ++i) {
    const std::span<const double> re = a.row_values(i), im = a.row_imag(i);
    double lower = 0, upper = 0;
    for (std::size_t k = 0; k < re.size(); ++k) {
      const double x = std::fabs(re[k]), y = im.empty() ? 0.0 : std::fabs(im[k]);
      lower += std::max(x, y);
      upper += x + y;
    }
    if (!(lower > 0) || !std::isfinite(upper)) return false;  // the careful check decides
    int e = 0;
    std::frexp(lower * (1 - 0x1p-30), &e);  // the sums' roundings (rows of up to 2^22 values), generously
    low += e - 1;
    std::frexp(upper * (1 + 0x1p-30), &e);
    high += e;
  }
  return static_cast<double>(low) >= -limit && static_cast<double>(high) <= limit;
}

// Whether the matrix needs scaling: its row sums' product beyond 2^±(768 − n).
inline bool needs_unit_scaling(const sparse_matrix& a) {
  const int n = a.n();
  if (n == 0 || a.has_empty_line()) return false;  // empty lines: perm 0
  if (row_sums_surely_within(a, unscaled_log2_limit - n)) return false;
  double log2_product = 0;
  for (double s : row_abs_sums(a)) log2_product += s > 0 ? std::log2(s) : 0;
  return std::fabs(log2_product) > unscaled_log2_limit - n;
}

// The scaling where the matrix needs it, else nothing.
inline std::optional<unit_scaling> scale_to_unit(const sparse_matrix& a) {
  const int n = a.n();
  if (!needs_unit_scaling(a)) return std::nullopt;
  // Binary exponents only (a value lies in [2^(x−1), 2^x)). The column exponents balance the
  // matrix in the least-squares sense (x_ij ≈ r_i + c_j, alternating means: a_ij = m_ij·2^(p_i + q_j)
  // comes out with rows near 1 however sparse), the row exponents then put each row's largest
  // value in [0.5, 1). (Scaling by row and column maxima alone stops at a fixed point whose rows may
  // still span hundreds of binary orders.)
  const std::vector<matrix_entry> entries = a.entries();
  std::vector<int> exponent(entries.size());
  for (std::size_t k = 0; k < entries.size(); ++k)  // complex values: of the modulus
    std::frexp(entries[k].imag == 0 ? entries[k].value : std::hypot(entries[k].value, entries[k].imag), &exponent[k]);
  std::vector<double> row_mean(n, 0), column_mean(n, 0), sum(n);
  std::vector<int> row_count(n, 0), column_count(n, 0);
  for (const matrix_entry& e : entries) ++row_count[e.row], ++column_count[e.column];
  for (int round = 0; round < 64; ++round) {
    std::fill(sum.begin(), sum.end(), 0.0);
    for (std::size_t k = 0; k < entries.size(); ++k)
      sum[entries[k].row] += exponent[k] - column_mean[entries[k].column];
    for (int i = 0; i < n; ++i) row_mean[i] = sum[i] / row_count[i];
    std::fill(sum.begin(), sum.end(), 0.0);
    for (std::size_t k = 0; k < entries.size(); ++k) sum[entries[k].column] += exponent[k] - row_mean[entries[k].row];
    for (int j = 0; j < n; ++j) column_mean[j] = sum[j] / column_count[j];
  }
  std::vector<int> row_exponent(n, std::numeric_limits<int>::min()), column_exponent(n);
  for (int j = 0; j < n; ++j) column_exponent[j] = static_cast<int>(std::lround(column_mean[j]));
  for (std::size_t k = 0; k < entries.size(); ++k)
    row_exponent[entries[k].row] =
        std::max(row_exponent[entries[k].row], exponent[k] - column_exponent[entries[k].column]);
  unit_scaling s;
  std::vector<matrix_entry> scaled;
  scaled.reserve(entries.size());
  std::vector<double> kept(static_cast<std::size_t>(n), 0), dropped(static_cast<std::size_t>(n), 0);
  constexpr double normal = std::numeric_limits<double>::min();  // 2^-1022
  for (const matrix_entry& e : entries) {
    const int shift = row_exponent[e.row] + column_exponent[e.column];
    // exact while normal: a part pushed into the subnormals (or rounded up to 2^-1022 from below)
    // would lose bits, so that part goes and the bound counts it; a complex value keeps the other
    matrix_entry to = e;
    const auto scale_part = [&](double part, double& to_part) {
      to_part = std::ldexp(part, -shift);
      if (part == 0 || (std::fabs(to_part) >= normal && std::ldexp(to_part, shift) == part)) return;
      to_part = 0;
      dropped[e.row] += normal;
      ++s.dropped;
    };
    scale_part(e.value, to.value);
    scale_part(e.imag, to.imag);
    if (to.value == 0 && to.imag == 0) continue;
    kept[e.row] += std::fabs(to.value) + std::fabs(to.imag);
    scaled.push_back(to);
  }
  if (s.dropped > 0) s.perturbation = dropped_values_bound(kept, dropped);
  for (int i = 0; i < n; ++i) s.shift += row_exponent[i] + column_exponent[i];
  s.matrix = sparse_matrix::from_entries(n, std::move(scaled));
  s.matrix.set_input_rounding(a.input_rounding());  // relative changes: the same after scaling
  return s;
}

// A result of the scaled matrix, values dropped in the scaling: never exact (an exact 0 of a
// structure the drops made singular is 0 within the bound), the drops' perturbation in the bound,
// and `matrix`'s shape (its nonzeros; complex where every imaginary part was dropped).
inline void add_dropped_values(permanent_result& r, const unit_scaling& s, const sparse_matrix& matrix) {
  if (s.dropped == 0) return;
  r.nnz = matrix.nnz();
  if (r.exact) {
    if (r.value != 0 || r.imag != 0)
      throw engine_error(engine_error::kind::failed, "an exact permanent of a scaled matrix");
    r.exact = false;
    r.error_bound = 0;
  }
  set_error_bound(r, (r.error_bound.value_or(0) + s.perturbation) * (1 + 0x1p-50));
  r.plan += "; " + std::to_string(s.dropped) +
            " value(s) or part(s) below 2^-1022 dropped in the scaling (the bound counts them)";
  keep_complex(r, matrix);
}

// A result of the scaled matrix as one of the matrix: times 2^shift, in double where value and
// bound stay in its normal range, else kept scaled with scale_exponent (permanent in decimal with
// its exponent).
inline void unscale_result(permanent_result& r, std::int64_t shift) {
  if (r.exact) {  // only the structure decides a scaled matrix exactly (its values are below 1): 0
    if (r.value != 0 || r.imag != 0)
      throw engine_error(engine_error::kind::failed, "an exact permanent of a scaled matrix");
    return;
  }
  scaled_double value(r.value), imag(r.imag), bound(r.error_bound.value_or(0));
  value.scale(shift);
  imag.scale(shift);
  bound.scale(shift);
  const auto in_range = [](const scaled_double& v) {
    return v.is_zero() || (v.exponent() <= 1024 && v.exponent() >= -1021);
  };
  if (in_range(value) && in_range(imag) && in_range(bound)) {
    r.value = value.to_double();
    r.permanent = format_double(r.value);
    if (r.complex) {
      r.imag = imag.to_double();
      r.permanent_imag = format_double(r.imag);
    }
    if (r.error_bound) r.error_bound = bound.magnitude_up();
  } else {
    r.scale_exponent = shift;
    r.scaled_value = r.value;
    r.scaled_imag = r.imag;
    r.scaled_error_bound = r.error_bound.value_or(0);
    r.permanent = scaled_decimal(r.value, shift);
    if (r.complex) r.permanent_imag = scaled_decimal(r.imag, shift);
    // the nearest doubles, and a bound that holds for them: ±inf above double's range (the bound
    // too), 0 or a subnormal below it, off by at most the bound and the conversions
    r.value = value.to_double();
    r.imag = imag.to_double();
    if (r.error_bound)
      r.error_bound = bound.magnitude_up() + value.conversion_error_up() + (r.complex ? imag.conversion_error_up() : 0);
  }
  r.plan += "; rows and columns scaled by powers of two (2^" + std::to_string(shift) +
            " in all) to keep every engine within double's range";
}

// --checkpoint is kept by the engines with the `journals` trait, named; auto plans blocks whose
// engines may not keep one.
inline void check_checkpoint(const engine_description* engine, const compute_options& options) {
  if (options.checkpoint.empty() || (engine != nullptr && engine->journals)) return;
  std::string journaling;
  for (const engine_description* e : engine_descriptions()) {
    if (e->journals) journaling += (journaling.empty() ? "" : ", ") + std::string(e->name);
  }
  throw engine_error(engine_error::kind::bad_setting,
                     "--checkpoint: engine '" + std::string(engine ? engine->name : "auto") +
                         "' does not keep a journal yet; name one that does with --engine (" + journaling + ")");
}

// Under MPI every rank plans for itself (the same matrix and options), and the chunked engines then
// exchange records block by block: the ranks must have chosen the same engines (a module cache that
// one host has and another lacks can change what auto prefers). One exchange says whether they did.
inline void check_ranks_agree(const std::string& engines, const compute_options& options) {
  if (options.processes == nullptr || !options.processes->distributed()) return;
  const std::vector<std::string> all = options.processes->all_gather(engines);
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r] != all[0]) {
      throw rank_error(engine_error::kind::refused, "the MPI ranks planned different engines (rank 0: " + all[0] +
                                                        "; rank " + std::to_string(r) + ": " + all[r] +
                                                        "); name one with --engine");
    }
  }
}

// What every rank of an MPI job must share before any work: the matrix (a digest of its entries; the
// CLI's multiplicities are in it) and the settings that decide the computation. A rank that named
// another engine than the others would compute alone, or wait forever in an exchange the others
// never join; one exchange at the start finds it, and every rank refuses.
inline std::string rank_call_text(const sparse_matrix& matrix, const compute_options& options) {
  sha256 digest;
  for (const matrix_entry& e : matrix.entries()) {
    const double parts[2] = {e.value, e.imag};
    const int place[2] = {e.row, e.column};
    digest.update(std::string_view(reinterpret_cast<const char*>(place), sizeof place));
    digest.update(std::string_view(reinterpret_cast<const char*>(parts), sizeof parts));
  }
  char limit[32];
  std::snprintf(limit, sizeof limit, "%.6g", options.time_limit_seconds);
  return "engine " + std::string(options.engine.automatic() ? "auto" : options.engine.get()->name) + ", precision " +
         std::string(precision_name(options.precision)) + ", checkpoint '" + options.checkpoint + "', time limit " +
         std::string(limit) + " s, a " + std::to_string(matrix.n()) + " x " + std::to_string(matrix.n()) +
         " matrix of " + std::to_string(matrix.nnz()) + " nonzeros (digest " + hex_of(digest.finish(), 6) + ")";
}

inline void check_ranks_agree_on_call(const sparse_matrix& matrix, const compute_options& options) {
  if (options.processes == nullptr || !options.processes->distributed()) return;
  const std::vector<std::string> all = options.processes->all_gather(rank_call_text(matrix, options));
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (all[r] != all[0]) {
      throw rank_error(engine_error::kind::refused, "the MPI ranks were started differently (rank 0: " + all[0] +
                                                        "; rank " + std::to_string(r) + ": " + all[r] +
                                                        "); start every rank with the same command");
    }
  }
}

// `auto` on a matrix of n <= 6 (at most 720 permutations): the reference's brute force, in long
// double with its bound or exact in 128-bit integers, costs about a microsecond, planning it tens
// (matching, blocks, orders, every engine's estimate). Not for a structurally singular matrix (the
// planner says why it is 0), integers beyond 128 bits, a precision asked for, journals or ranks.
inline constexpr int tiny_matrix_n = 6;

inline std::optional<permanent_result> run_tiny(const sparse_matrix& matrix, const compute_options& options) {
  const int n = matrix.n();
  if (n == 0 || n > tiny_matrix_n || options.precision != precision::automatic || !options.checkpoint.empty() ||
      options.processes != nullptr) {
    return std::nullopt;
  }
  if (matrix.has_integer_values() && exact_refusal(matrix, "reference", exact_reach::within_128_bits)) {
    return std::nullopt;
  }
  if (maximum_matching(matrix).size < n) return std::nullopt;
  memory_limit_setting();  // a setting that is not a size is refused here too
  return run_engine({matrix, nullptr}, description_of<engines::reference>, options);
}

// cpu-sparse's loop on one thread, without a plan: small matrices (run_small) and a batch's
// dense integer ones (batch.cuh).
inline permanent_result run_unplanned(const sparse_matrix& matrix, const compute_options& options) {
  permanent_result r = permanent_cpu_sparse(
      matrix, {.threads = 1, .progress = options.progress, .precision = options.precision, .sharing = {}});
  const bool dense = matrix.nnz() == static_cast<std::int64_t>(matrix.n()) * matrix.n();
  r.plan = (dense ? "dense, no plan: " : "small, no plan: ") + r.plan;
  return r;
}

// The sizes run_small takes (below).
inline constexpr int small_dense_max_n = 12;
inline constexpr int small_any_max_n = 8;

// A result of the SIMD lanes (ryser/dense_lanes.cuh) but its numbers: cpu-sparse's loop four dense
// matrices at a time, or one matrix alone (nnz: its nonzeros; fine: with the fine parts' sums).
inline permanent_result lanes_result_description(int n, bool complex, bool fine, bool alone = false,
                                                 std::int64_t nnz = -1) {
  permanent_result d;
  d.engine = engines::cpu_sparse::name;
  d.n = n;
  d.nnz = nnz < 0 ? static_cast<std::int64_t>(n) * n : nnz;
  d.threads = 1;
  d.complex = complex;
  d.plan = std::string(d.nnz == static_cast<std::int64_t>(n) * n ? "dense" : "small") + ", no plan: Ryser's loop on " +
           (alone ? "one matrix in " : "four matrices at once (") + (lanes_have_avx2() ? "AVX2 lanes" : "SIMD lanes") +
           (alone ? "" : ")") + "; values on row grids; double, compensated (TwoSum) sums of runs of 8 terms";
  if (fine) d.plan += "; the grids' rounding bounded from the terms' row sums";
  return d;
}

// Whether an integer matrix's lane walk will be within 1/2 of its permanent: x_i is half a
// signed sum of row i, so |x_i| ≤ R_i / 2 (R_i = Σ_j |a_ij|, |re| + |im| for complex values) and
// Σ|t| ≤ 2^(n−1)·Π R_i / 2^n; the bound is about (4n + 10)·u·2Σ|t| (numeric/error_bound.cuh), at
// most about 1/32 for n ≤ 12 where Π R_i ≤ 2^42. Beyond that the walk would most likely be wasted.
inline bool integer_lanes_reach(int n, const double* re, const double* im, int step) {
  double log2_product = 0;
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j = 0; j < n; ++j) {
      const std::size_t at = (static_cast<std::size_t>(i) * n + j) * step;
      sum += std::fabs(re[at]) + (im ? std::fabs(im[at]) : 0.0);
    }
    log2_product += std::log2(sum);
  }
  return log2_product <= 42;
}

// One n × n matrix (7 ≤ n ≤ small_dense_max_n, dense or not; row-major values `step` doubles apart,
// im null or its imaginary parts; nnz of them not 0) in a lane group, each lane walking a quarter of
// its Gray code (dense_lane_group::split_into_quarters): at n = 8 a quarter of cpu-sparse's loop's
// time (its grids and split row sums cost more than the walk).
//  - floating values: the result where its bound certifies options.digits (the lanes keep one grid
//    a row and bound the rest from the terms' row sums: one or two digits fewer than cpu-sparse's
//    split row sums);
//  - integer values (`integer`: every part an integer, as exact arithmetic takes them): the exact
//    permanent, an integer (Gaussian for complex values), where the bound is below 1/2: the one
//    integer within it (integer_lanes_reach says beforehand where it will be).
// Nothing where the grids refuse the values or the bound falls short: cpu-sparse's turn.
inline std::optional<permanent_result> run_in_lanes(int n, const double* re, const double* im, int step, bool complex,
                                                    bool integer, std::int64_t nnz, const compute_options& options) {
  static_assert(tiny_matrix_n + 1 >= 7, "split_into_quarters needs n >= 7");
  if (integer && !integer_lanes_reach(n, re, complex ? im : nullptr, step)) return std::nullopt;
  double buffer[dense_lane_group::columns_size(small_dense_max_n, true) +
                dense_lane_group::x0_size(small_dense_max_n, true)];
  dense_lane_group group;
  group.n = n;
  group.complex = complex;
  group.step = step;
  group.columns = buffer;
  group.x0 = buffer + dense_lane_group::columns_size(n, complex);
  const double* real[dense_lanes]{re};
  const double* imag[dense_lanes]{im};
  bool refused[dense_lanes]{};
  group.prepare(real, imag, 1, refused);
  if (refused[0]) return std::nullopt;
  group.split_into_quarters();
  const bool fine = group.fine_parts_pay(1);
  const dense_lane_sums sums = group.walk_quarters(fine);
  const floating_numbers v = dense_lane_group::lane_numbers(n, complex, sums, 0, group.facts[0]);
  if (!std::isfinite(v.value) || !std::isfinite(v.imag) || !std::isfinite(v.bound)) return std::nullopt;
  permanent_result r = lanes_result_description(n, complex, fine, true, nnz);
  if (integer) {
    if (!(v.bound < 0.5)) return std::nullopt;
    // |v − perm| ≤ bound < 1/2, so |v| < 2^52 (its ulp ≤ bound) and the nearest integer is perm
    char bound[32];
    std::snprintf(bound, sizeof bound, "%.2g", v.bound);
    set_exact_value(r, std::llrint(v.value),
                    r.plan + "; exact: the only integer within the bound " + bound + " of the value");
    if (complex) {
      const long long imag_part = std::llrint(v.imag);
      set_imaginary_part(r, static_cast<double>(imag_part), std::to_string(imag_part));
    }
    return r;
  }
  set_floating_numbers(r, v);
  if (trusted_digits(r).value_or(0) < options.digits) return std::nullopt;
  return r;
}

// The nonzeros of a matrix into row-major real and imaginary parts (0 for a real matrix's); the
// other entries are left as they are.
inline void write_row_major(const sparse_matrix& matrix, double* re, double* im) {
  const int n = matrix.n();
  for (int j = 0; j < n; ++j) {
    const auto rows = matrix.column_rows(j);
    const auto values = matrix.column_values(j);
    const auto imaginary = matrix.column_imag(j);
    for (std::size_t e = 0; e < rows.size(); ++e) {
      const std::size_t at = static_cast<std::size_t>(rows[e]) * n + j;
      re[at] = values[e];
      im[at] = imaginary.empty() ? 0.0 : imaginary[e];
    }
  }
}

inline std::optional<permanent_result> run_in_lanes(const sparse_matrix& matrix, const compute_options& options) {
  constexpr std::size_t most = static_cast<std::size_t>(small_dense_max_n) * small_dense_max_n;
  double re[most]{}, im[most]{};  // the zeros of a matrix of n <= small_any_max_n stay
  write_row_major(matrix, re, im);
  return run_in_lanes(matrix.n(), re, im, 1, matrix.is_complex(), matrix.has_integer_values(), matrix.nnz(), options);
}

// `auto` on a matrix of n <= 12 that is dense (every entry nonzero), or of n <= 8 of any pattern,
// without two identical rows or columns: the SIMD lanes (run_in_lanes), else cpu-sparse's loop on
// one thread, take microseconds (2^11 steps at most), where planning takes tens and a second
// thread's start as much again. A dense matrix has no structure for a plan to find; a small sparse
// one has too few steps for structure to save what planning costs. Identical lines go to the planner
// (glynn over their multiplicities), as does a structurally singular matrix (the planner says why it
// is 0). The same conditions as run_tiny.
inline std::optional<permanent_result> run_small(const sparse_matrix& matrix, const compute_options& options) {
  const int n = matrix.n();
  const bool dense = matrix.nnz() == static_cast<std::int64_t>(n) * n;
  if (n <= tiny_matrix_n || n > (dense ? small_dense_max_n : small_any_max_n) ||
      options.precision != precision::automatic || !options.checkpoint.empty() || options.processes != nullptr) {
    return std::nullopt;
  }
  if (matrix.has_integer_values() && exact_refusal(matrix, "cpu-sparse", exact_reach::within_128_bits)) {
    return std::nullopt;
  }
  if (!dense && maximum_matching(matrix).size < n) return std::nullopt;
  if (has_identical_lines(matrix)) return std::nullopt;
  memory_limit_setting();  // a setting that is not a size is refused here too
  if (auto lanes = run_in_lanes(matrix, options)) return lanes;
  if (!matrix.has_integer_values() && row_grid_refusal(matrix)) return std::nullopt;
  return run_unplanned(matrix, options);
}

}  // namespace detail

namespace detail {

// compute_permanent on the matrix as it is (scaled already, where it needed scaling).
inline permanent_result compute_permanent_as_is(const sparse_matrix& matrix, const compute_options& options) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const int n = matrix.n();
  permanent_result result;
  if (options.engine.automatic()) {
    detail::check_checkpoint(nullptr, options);
    if (options.precision == precision::exact) {  // the planner can hand any block to dp
      if (const auto why = detail::exact_refusal(matrix, "auto", exact_reach::any_integer)) {
        throw engine_error(engine_error::kind::refused, *why);
      }
    }
    std::optional<permanent_result> tiny = detail::run_tiny(matrix, options);
    if (!tiny) tiny = detail::run_small(matrix, options);
    if (tiny) {
      result = std::move(*tiny);
      add_input_rounding(result, matrix);
      result.seconds.total = std::chrono::duration<double>(clock::now() - start).count();
      result.seconds.compute = result.seconds.total;
      return result;
    }
    const permanent_plan plan = make_plan(matrix, options);
    detail::check_plan_time(plan, options);
    detail::check_ranks_agree(plan_engines(plan), options);
    const double plan_seconds = std::chrono::duration<double>(clock::now() - start).count();
    result = run_plan(plan, options);
    add_input_rounding(result, matrix);
    result.seconds.plan = plan_seconds;
    result.seconds.total = std::chrono::duration<double>(clock::now() - start).count();
    result.seconds.compute = result.seconds.total - plan_seconds - result.seconds.codegen - result.seconds.compile;
    return result;
  }
  check_complex_values(*options.engine.get(), matrix);
  const engine_description& engine = check_engine(*options.engine.get(), n, options);
  detail::check_checkpoint(&engine, options);
  const bipartite_matching matching = maximum_matching(matrix);
  const double plan_seconds = std::chrono::duration<double>(clock::now() - start).count();
  if (n == 0 || matching.size < n) {
    result.complex = matrix.is_complex();
    result.engine = std::string(structure_engine_name);
    result.n = n;
    result.nnz = matrix.nnz();
    set_exact_value(result, n == 0 ? 1 : 0,
                    n == 0 ? "the 0 x 0 matrix: permanent 1 by convention"
                           : "structurally singular: a maximum matching covers " + std::to_string(matching.size) +
                                 " of " + std::to_string(n) + " rows, so every term has a zero factor");
  } else {
    std::optional<frontier_order> order;  // found for the estimate, and then the engine's (dp, gpu-dp)
    if (engine.planned() && std::isfinite(options.time_limit_seconds)) {  // no absurd jobs
      order = frontier_orders(matrix).front();
      const engine_estimate e = detail::estimate_engine({matrix, *order, options, planner_memory_limit()}, engine);
      if (e.seconds) {
        detail::check_time_limit(*e.seconds,
                                 "engine " + std::string(engine.name) + " on the " + std::to_string(n) + " x " +
                                     std::to_string(n) + " matrix",
                                 options);
      }
    }
    result = run_engine({matrix, order ? &*order : nullptr}, engine, options);
    add_input_rounding(result, matrix);
  }
  result.seconds.plan = plan_seconds;
  result.seconds.total = std::chrono::duration<double>(clock::now() - start).count();
  return result;
}

}  // namespace detail

namespace detail {
inline permanent_result compute_once(const sparse_matrix& matrix, const compute_options& options) {
  // magnitudes beyond double's range: a floating run of the matrix scaled near 1 (exact integer
  // runs need no scaling: their integers have no range). Under the default an integer matrix stays
  // exact, unless the engine asked for has no exact arithmetic that holds it and runs it in doubles.
  // Once: a large matrix near 1 can still have row sums whose product is beyond 2^(768 − n) (a
  // 200 x 200 band of 21 values in [0.5, 1.5): about 2^700), and scaling it again recursed forever.
  const bool floating_integers =
      matrix.has_integer_values() && options.precision == precision::automatic && !options.engine.automatic() &&
      detail::exact_refusal(matrix, options.engine.get()->name, options.engine.get()->exact).has_value();
  if (options.precision != precision::exact &&
      (!matrix.has_integer_values() || options.precision != precision::automatic || floating_integers)) {
    if (const auto scaling = detail::scale_to_unit(matrix)) {
      permanent_result result = detail::compute_permanent_as_is(scaling->matrix, options);
      detail::add_dropped_values(result, *scaling, matrix);
      detail::unscale_result(result, scaling->shift);
      return result;
    }
  }
  return detail::compute_permanent_as_is(matrix, options);
}

// A matrix of doubles as an integer matrix: row i times 2^s_i, s_i the negated exponent of the lowest
// set bit among the row's values (both parts), so perm(A) = perm(B) / 2^shift with shift = Σ s_i.
// `wide` where a scaled value exceeds 2^53 (a row whose values' bits span more than 53 binary orders:
// full 53-bit values of different exponents): the doubles still hold those integers exactly, but the
// integer engines take values below 2^53 only. Nothing where a scaled value would overflow.
struct dyadic_integers {
  sparse_matrix matrix;
  std::int64_t shift = 0;
  bool wide = false;
  int bits = 0;  // the widest scaled value's bits
};

inline int lowest_bit_exponent(double v) {
  int exponent = 0;
  const double fraction = std::frexp(v, &exponent);
  const auto mantissa = static_cast<long long>(std::ldexp(std::fabs(fraction), 53));
  return exponent - 53 + __builtin_ctzll(static_cast<unsigned long long>(mantissa));
}

inline std::optional<dyadic_integers> dyadic_integers_of(const sparse_matrix& a) {
  std::vector<matrix_entry> entries = a.entries();
  std::vector<int> low(static_cast<std::size_t>(a.n()), std::numeric_limits<int>::max());
  for (const matrix_entry& e : entries) {
    for (const double part : {e.value, e.imag}) {
      if (part != 0) low[e.row] = std::min(low[e.row], lowest_bit_exponent(part));
    }
  }
  dyadic_integers d;
  for (matrix_entry& e : entries) {
    e.value = std::ldexp(e.value, -low[e.row]);
    e.imag = std::ldexp(e.imag, -low[e.row]);
    if (!std::isfinite(e.value) || !std::isfinite(e.imag)) return std::nullopt;
    for (const double part : {e.value, e.imag}) {
      int exponent = 0;
      std::frexp(part, &exponent);
      d.bits = std::max(d.bits, exponent);
    }
    d.wide = d.wide || !(std::fabs(e.value) <= max_exact_integer) || !(std::fabs(e.imag) <= max_exact_integer);
  }
  for (const int l : low) d.shift -= l == std::numeric_limits<int>::max() ? 0 : l;
  d.matrix = sparse_matrix::from_entries(a.n(), std::move(entries));
  return d;
}

// m / 2^k as an exact decimal ("-12.375"): m·5^k / 10^k once m's factors of two are taken out.
inline std::string dyadic_decimal(big_integer m, std::int64_t k) {
  for (; k < 0; k += 30) m = m.times(1ll << std::min<std::int64_t>(30, -k));
  const auto twos =
      static_cast<std::int64_t>(std::min<std::size_t>(m.trailing_zero_bits(), static_cast<std::size_t>(k)));
  m.divide_exactly_by_power_of_two(static_cast<int>(twos));
  k -= twos;
  if (k == 0 || m.is_zero()) return m.to_decimal();
  const bool negative = m.negative();
  if (negative) m = m.times(-1);                       // the digits of |m|: a sign would flip with every factor below
  for (std::int64_t left = k; left > 0; left -= 27) {  // 5^27 < 2^63
    long long five = 1;
    for (std::int64_t i = 0; i < std::min<std::int64_t>(27, left); ++i) five *= 5;
    m = m.times(five);
  }
  std::string digits = m.to_decimal();
  if (digits.size() <= static_cast<std::size_t>(k))
    digits.insert(0, static_cast<std::size_t>(k) + 1 - digits.size(), '0');
  digits.insert(digits.size() - static_cast<std::size_t>(k), ".");
  return (negative ? "-" : "") + digits;
}

// The exact permanent of a matrix of doubles (real or complex): an exact run on its integers
// (dyadic_integers_of), the result as exact decimals.
// Integers beyond 2^53 (a wide dyadic_integers): dp's big integers over the whole matrix, in its best
// column order, within the time limit; only under auto or --engine dp.
inline permanent_result exact_wide_integers(const dyadic_integers& d, const compute_options& options) {
  const std::string_view dp_name = engines::dp::name;
  if (!options.engine.automatic() && options.engine.get()->name != dp_name) {
    throw engine_error(engine_error::kind::refused,
                       "--precision exact: a row's values span more than 53 binary orders, so their integers exceed "
                       "2^53, which engine '" +
                           std::string(options.engine.get()->name) +
                           "' does not take (auto and dp compute it exactly)");
  }
  const auto start = std::chrono::steady_clock::now();
  const frontier_order order = frontier_orders(d.matrix).front();
  // dp's big-integer transitions, dearer by the width of the states' integers (n times the values')
  const double width = std::max(1.0, d.matrix.n() * static_cast<double>(d.bits) / 1024);
  const double seconds = order.transitions * engines::dp::transition_seconds * engines::dp::big_integer_factor *
                         (d.matrix.is_complex() ? engines::dp::complex_factor : 1) * width;
  check_time_limit(seconds,
                   "exact dyadic: dp in big integers on the " + std::to_string(d.matrix.n()) + " x " +
                       std::to_string(d.matrix.n()) + " matrix",
                   options);
  const dp_value v = permanent_dp_big_integers(d.matrix, order, options.threads, options.progress);
  permanent_result r = dp_result(dp_name, d.matrix, order, v);
  r.threads = engine_threads(options.threads);
  r.seconds.compute = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.seconds.total = r.seconds.compute;
  return r;
}

inline permanent_result compute_dyadic_exact(const sparse_matrix& a, const compute_options& options) {
  const std::optional<dyadic_integers> d = dyadic_integers_of(a);
  if (!d) {
    throw engine_error(engine_error::kind::refused,
                       "--precision exact: a row's values span more binary orders than a double holds (its "
                       "values times one power of two would be integers beyond 2^1024)");
  }
  compute_options exact = options;
  exact.precision = precision::exact;
  permanent_result r = d->wide ? exact_wide_integers(*d, exact) : compute_once(d->matrix, exact);
  if (!r.exact) throw engine_error(engine_error::kind::failed, "an exact run gave a floating result");
  r.permanent = dyadic_decimal(big_integer::from_decimal(r.permanent), d->shift);
  r.value = std::strtod(r.permanent.c_str(), nullptr);
  if (r.complex) {
    r.permanent_imag = dyadic_decimal(big_integer::from_decimal(r.permanent_imag), d->shift);
    r.imag = std::strtod(r.permanent_imag.c_str(), nullptr);
  }
  if (!std::isfinite(r.value) || !std::isfinite(r.imag)) {
    throw engine_error(engine_error::kind::overflow, "the exact permanent is beyond double's range");
  }
  r.plan = "exact dyadic: rows times powers of two make the values integers (the permanent times 2^" +
           std::to_string(d->shift) + "); " + r.plan;
  return r;
}

// The exact permanent of the doubles a file's numbers were read as, where reading rounded some: not
// exact for the file, so a floating result (the exact value rounded once: half an ulp a part) whose
// bound adds what the rounding of the file's numbers can change (add_input_rounding).
inline permanent_result exact_doubles_as_floating(const sparse_matrix& a, const compute_options& options) {
  permanent_result r = compute_dyadic_exact(a, options);
  const double rounding = (std::fabs(r.value) + std::fabs(r.imag)) * 0x1p-53 * bound_margin + 0x1p-1074;
  r.exact = false;
  set_floating_value(r, r.value);
  if (r.complex) set_imaginary_part(r, r.imag);
  set_error_bound(r, rounding);
  r.plan += "; exact for the doubles the file's numbers were read as";
  add_input_rounding(r, a);
  return r;
}

// "8 of the 10 digits asked for" and what was done about it, for the plan.
inline std::string digits_text(int got, int wanted) {
  return std::to_string(got) + " of the " + std::to_string(wanted) + " digit" + (wanted == 1 ? "" : "s") + " asked for";
}

// An engine error after which escalation goes on (or stops with the result it has): the arithmetic
// cannot run here, not a failure or an interruption.
inline bool gives_way(const engine_error& e) {
  const auto why = e.reason();
  return why == engine_error::kind::refused || why == engine_error::kind::too_large ||
         why == engine_error::kind::unavailable || why == engine_error::kind::overflow;
}

// Exact, where an exact engine holds the matrix's integers (exact dyadic) within the time limit; else
// `first`, whose plan says why.
inline permanent_result try_exact(const sparse_matrix& matrix, const compute_options& options, permanent_result first) {
  try {
    permanent_result exact = matrix.input_rounding().empty() ? compute_dyadic_exact(matrix, options)
                                                             : exact_doubles_as_floating(matrix, options);
    exact.seconds.total += first.seconds.total;
    exact.plan = "floating point certified " + digits_text(trusted_digits(first).value_or(0), options.digits) +
                 ", so exactly: " + exact.plan;
    if (!exact.exact && trusted_digits(exact).value_or(0) <= trusted_digits(first).value_or(0)) return first;
    return exact;
  } catch (const engine_error& e) {
    if (!gives_way(e)) throw;
    first.plan += "; no exact run either: " + std::string(e.what());
    return first;
  }
}

// Under auto, whether the exact dyadic run is planned to be cheap: at most 10 ms or twice the
// double-double one (`wider`). Then it comes first (Glynn's 62 terms of the all-0.91 62 x 62, small
// matrices), and the result is exact rather than 15 digits.
inline constexpr double cheap_exact_seconds = 0.01;

inline bool exact_is_cheap(const sparse_matrix& matrix, const compute_options& wider) {
  if (!wider.engine.automatic()) return false;
  const std::optional<dyadic_integers> d = dyadic_integers_of(matrix);
  if (!d || d->wide) return false;
  compute_options exact = wider;
  exact.precision = precision::exact;
  const auto planned = [](const sparse_matrix& m, const compute_options& o) -> std::optional<double> {
    try {
      return plan_seconds(make_plan(m, o));
    } catch (const engine_error&) {
      return std::nullopt;
    }
  };
  const std::optional<double> exact_seconds = planned(d->matrix, exact);
  if (!exact_seconds) return false;
  const std::optional<double> wide_seconds = planned(matrix, wider);
  return *exact_seconds <= std::max(cheap_exact_seconds, wide_seconds ? 2 * *wide_seconds : 0.0);
}

// Whether an engine of a plan (its engines' names joined by '+') bounds through perm(|A|): then its
// double-double run is the one to ask for, not only engines of running bounds.
inline bool ran_a_priori_bound(std::string_view engines) {
  for (;;) {
    const std::size_t plus = engines.find('+');
    const engine_description* engine = find_engine(engines.substr(0, plus));
    if (engine != nullptr && engine->a_priori_bound) return true;
    if (plus == std::string_view::npos) return false;
    engines.remove_prefix(plus + 1);
  }
}

// A floating result of precision::automatic that certifies fewer than options.digits: the same run in
// double-double, where the engine asked for (or, under auto, an engine of the plan) runs it and the
// time limit allows; otherwise the first result, whose plan says why it stops there. Not with a
// checkpoint journal (it belongs to the first run's arithmetic).
inline permanent_result escalate(const sparse_matrix& matrix, const compute_options& options, permanent_result first) {
  const int got = trusted_digits(first).value_or(0);
  const std::string shortfall = "double certified " + digits_text(got, options.digits);
  if (!options.checkpoint.empty()) {
    first.plan += "; " + shortfall + " (no double-double run with a checkpoint journal)";
    return first;
  }
  if (!options.engine.automatic() && !options.engine.get()->double_double) {
    first.plan += "; " + shortfall + " (engine '" + std::string(options.engine.get()->name) +
                  "' has no double-double; engines with it: " + double_double_engine_names() + ")";
    return first;
  }
  compute_options wider = options;
  wider.precision = precision::double_double;
  // after running bounds only (Ryser's, Glynn's), not an engine whose bound is through perm(|A|)
  wider.running_bounds_only = !ran_a_priori_bound(first.engine);
  if (exact_is_cheap(matrix, wider)) return try_exact(matrix, options, std::move(first));
  try {
    permanent_result second = compute_once(matrix, wider);
    second.seconds.total += first.seconds.total;
    second.seconds.plan += first.seconds.plan;
    second.seconds.compute += first.seconds.compute;
    second.plan = shortfall + ", so again in double-double: " + second.plan;
    if (trusted_digits(second).value_or(0) >= options.digits) return second;
    first = std::move(second);
    first.plan += "; double-double certified " + digits_text(trusted_digits(first).value_or(0), options.digits);
  } catch (const engine_error& e) {
    if (!gives_way(e)) throw;
    first.plan += "; " + shortfall + ", and double-double cannot run here: " + e.what();
  }
  return try_exact(matrix, options, std::move(first));
}

// A first run's result, or under precision::automatic where it certifies fewer than options.digits,
// escalate's.
inline permanent_result escalate_if_short(const sparse_matrix& matrix, const compute_options& options,
                                          permanent_result first) {
  if (options.precision != precision::automatic || first.exact || !first.error_bound ||
      trusted_digits(first).value_or(0) >= options.digits) {
    return first;
  }
  return escalate(matrix, options, std::move(first));
}

}  // namespace detail

inline permanent_result compute_permanent(const sparse_matrix& matrix, const compute_options& options = {}) {
  detail::check_ranks_agree_on_call(matrix, options);
  if (options.precision == precision::exact && !matrix.has_integer_values()) {
    if (!matrix.input_rounding().empty()) {  // no number is exact for the file's, only for its doubles
      throw engine_error(engine_error::kind::refused,
                         "--precision exact: reading the file rounded a value to a double, so no result is exact "
                         "for the file's numbers");
    }
    return detail::compute_dyadic_exact(matrix, options);
  }
  return detail::escalate_if_short(matrix, options, detail::compute_once(matrix, options));
}

}  // namespace sparseperm
