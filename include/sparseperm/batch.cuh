#pragma once
// Many independent permanents in one call: samplers compute millions of small ones, where a plan per
// matrix would cost more than the matrix.
//
// A matrix with every entry nonzero has no structure for the planner to find (no blocks, no small
// frontier), so the Ryser loop is its engine. Such a "dense" matrix (n from dense_lanes_min_n to
// dense_batch_max_n) skips the planner: with floating values it runs in SIMD lanes, four matrices of
// one size at a time on one CPU thread (ryser/dense_lanes.cuh), or, on a CUDA build with a device,
// on the GPU when gpu_batch_pays says the GPU is the faster (a model fitted on an H100 host, its
// constants in the cpu-sparse, gpu-sparse and gpu-dense tags): each size with one warp per matrix
// (gpu/dense_batch_kernel.cuh, n ≤ 24), or with the whole GPU per matrix, one after the other
// (gpu-dense), whichever gpu_batch_size_choice says is sooner; with integer values in an exact arithmetic (automatic precision) it runs cpu-sparse's loop
// on one thread. Every other matrix goes through compute_permanent on one thread; and when the
// batch has fewer matrices than threads, each matrix gets them all (one after the other).
//
// Either way each result is certified as compute_permanent certifies: the same arithmetic choice
// (floating values: double on row grids with compensated sums, for the automatic, double and
// compensated precisions; double-double and exact go matrix by matrix through compute_permanent)
// and a bound by the same analysis (numeric/error_bound.cuh). The row grids round values of full
// precision; where such values are signed or complex, the automatic precision's walk also bounds
// what that rounding moves each term by (dense_lane_sums::excess, about as much work again), which
// certifies one or two digits fewer than compute_permanent's split row sums (random Gaussian
// 12 x 12: about 11 against 13); precision double, the fast path, keeps the grids' a-priori term
// (there about 4 digits). On the GPU the automatic precision's warps split the row sums as
// cpu-sparse does (12 to 13 digits), and a matrix the whole GPU runs (gpu-dense, one grid a row)
// runs again in double-double where it certifies fewer than options.digits, as compute_permanent's
// would.
//
// options.engine is compute's engine_choice: auto (the routes above), engines::cpu_sparse (every
// dense matrix on the CPU), engines::gpu_sparse (every dense floating one on the GPU), or any other
// engine for every matrix through compute_permanent.
//
// compute_permanents(count, matrix_at, options)          matrix_at(k) gives matrix k; the results
//                                                        as permanent_results (core/results.cuh)
// compute_permanents(count, matrix_at, options, values)  the same matrices also as dense arrays
//                                                        (numpy's (count, n, n)): the dense floating
//                                                        ones go to the lanes without a sparse_matrix
// compute_dense_permanent(values, matrix, options)       one matrix so (a single call from numpy):
//                                                        the lanes where compute_permanent would run
//                                                        cpu-sparse without a plan, else matrix()'s
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compute.cuh"
#include "core/engine_error.cuh"
#include "core/progress.cuh"
#include "core/results.cuh"
#include "detail/threads.cuh"
#include "engines/cpu_sparse.cuh"
#include "engines/gpu_dense.cuh"
#include "engines/gpu_sparse.cuh"
#include "matrix/exactness.cuh"
#include "matrix/sparse_matrix.cuh"
#include "ryser/dense_lanes.cuh"
#if defined(__CUDACC__)
#  include "gpu/cuda_support.cuh"
#  include "gpu/dense_batch_kernel.cuh"
#endif

namespace sparseperm {

// The dense matrices a batch runs without a plan: from the first size beyond compute_permanent's
// tiny matrices (whose expansion certifies more digits than any loop) to 2^29 steps on one thread
// (seconds).
inline constexpr int dense_batch_min_n = detail::tiny_matrix_n + 1;
inline constexpr int dense_batch_max_n = detail::dense_lanes_max_n;

// One warp per matrix on the GPU from n = 7 (64 steps: two a lane) to this n (2^18 steps a lane);
// the whole GPU per matrix (gpu-dense) up to dense_batch_max_n.
inline constexpr int gpu_batch_min_n = dense_batch_min_n;
inline constexpr int gpu_batch_max_n = 24;

// count matrices of n × n as row-major arrays, one after the other (numpy's C order of shape
// (count, n, n)): the real parts, and the imaginary parts or nullptr; `step` doubles from one entry
// to the next (2 for numpy's complex128, real = the array, imag = real + 1: read in place).
struct dense_matrices {
  std::int64_t count = 0;
  int n = 0;
  const double* real = nullptr;
  const double* imag = nullptr;
  int step = 1;
  std::size_t offset_of(std::int64_t k) const { return static_cast<std::size_t>(k) * n * n * step; }
  const double* real_of(std::int64_t k) const { return real + offset_of(k); }
  const double* imag_of(std::int64_t k) const { return imag ? imag + offset_of(k) : nullptr; }
};

namespace detail {

#if defined(__CUDACC__)
inline constexpr bool compiled_for_gpu = true;  // nvcc compiled this: the GPU route exists
#else
inline constexpr bool compiled_for_gpu = false;
#endif

// The batch route a matrix takes.
enum class batch_route { planned, dense_cpu, dense_lanes, dense_gpu };

// Whether the run is in floating arithmetic: non-integer values, or a floating precision asked for.
inline bool floating_run(const sparse_matrix& a, const compute_options& options) {
  return options.precision != precision::exact &&
         (!a.has_integer_values() || options.precision == precision::double_sums ||
          options.precision == precision::compensated);
}

// A dense integer matrix cpu-sparse's loop keeps exact without a plan, as compute_permanent would
// (no unit scaling needed, an exact arithmetic cpu-sparse has holds it). Floating ones go to the
// lanes (check_for_lanes).
inline bool dense_exact_eligible(const sparse_matrix& a, const compute_options& options) {
  const int n = a.n();
  if (n < dense_batch_min_n || n > dense_batch_max_n || a.nnz() != static_cast<std::int64_t>(n) * n) return false;
  if (needs_unit_scaling(a) || floating_run(a, options)) return false;
  return a.has_integer_values() && !exact_refusal(a, engines::cpu_sparse::name, engines::cpu_sparse::exact);
}

// The precisions the lanes' arithmetic (double, compensated sums) serves: automatic, double and
// compensated. double-double and exact go to compute_permanent, matrix by matrix.
inline bool lanes_precision(const compute_options& options) {
  return options.precision == precision::automatic || options.precision == precision::double_sums ||
         options.precision == precision::compensated;
}

// What the lanes need to know of a dense matrix before its run: whether it goes there (dense,
// floating, no unit scaling needed) and whether it is complex.
struct lanes_check {
  bool eligible = false;
  bool complex = false;
  bool integer = false;  // every value finite, nonzero and an integer, kept exact by default: not eligible
  std::int64_t nnz = 0;  // the entries not 0 (n² unless zeros were allowed)
};

#if SPARSEPERM_LANES_AVX2
// check_for_lanes' row with AVX2, four entries at a time and without a branch (at n = 8 a branch an
// entry cost about as much as the lanes' preparation): |x| and |y| finite and not both 0 (NaN fails
// every comparison), integers that double holds exactly (below 2^52, adding 2^52 rounds a magnitude
// to the nearest integer, which subtracting 2^52 gives back exactly; from 2^52 every double is one),
// and Σ (|x| + |y|), each lane its own entries (the rest of the row in another scan's lane 0, its
// other lanes 1 + 0i).
// False where an entry is unusable.
struct lanes_row_scan {
  using mask = decltype(lane_vector{} < 0.0);  // a comparison's lanes: all ones where true
  mask unusable{}, fraction{}, imaginary{};
  lane_vector sum{};
  __attribute__((target("avx2,fma"), always_inline)) void add(const lane_vector& x, const lane_vector& y) {
    constexpr double limit = std::numeric_limits<double>::max(), two52 = 0x1p52;
    lane_vector ax, ay;
    set_abs(ax, x);
    set_abs(ay, y);
    unusable |= ~((ax <= limit) & (ay <= limit) & (ax + ay > 0.0));
    fraction |= ~((ax <= max_exact_integer) & ((ax >= two52) | ((ax + two52) - two52 == ax)) &
                  (ay <= max_exact_integer) & ((ay >= two52) | ((ay + two52) - two52 == ay)));
    imaginary |= y != 0.0;
    sum += ax + ay;
  }
  static bool any(const mask& b) { return (b[0] | b[1] | b[2] | b[3]) != 0; }
};

// Every row of a matrix (sums[i]: row i's Σ (|x| + |y|)); false where an entry is unusable.
__attribute__((target("avx2,fma"))) inline bool scan_lanes_rows(int n, const double* re, const double* im, int step,
                                                                bool& fraction, bool& imaginary, double* sums) {
  lanes_row_scan all;  // every row's flags
  const bool interleaved = step == 2 && im == re + 1;
  for (int i = 0; i < n; ++i) {
    const std::size_t start = static_cast<std::size_t>(i) * n * step;
    const double* row_re = re + start;
    const double* row_im = im ? im + start : nullptr;
    const auto value = [&](const double* v, int j) { return v ? v[static_cast<std::size_t>(j) * step] : 0.0; };
    lanes_row_scan row;
    int j = 0;
    if (step == 1) {  // float64 rows (and their imaginary parts' rows)
      for (; j + dense_lanes <= n; j += dense_lanes) {
        lane_vector x, y{};
        std::memcpy(&x, row_re + j, sizeof x);
        if (row_im) std::memcpy(&y, row_im + j, sizeof y);
        row.add(x, y);
      }
    } else if (interleaved) {  // complex128 in place: re, im, re, im, ...
      for (; j + dense_lanes <= n; j += dense_lanes) {
        lane_vector low, high;
        std::memcpy(&low, row_re + 2 * j, sizeof low);
        std::memcpy(&high, row_re + 2 * j + dense_lanes, sizeof high);
        row.add(__builtin_shuffle(low, high, lane_bits{0, 2, 4, 6}),
                __builtin_shuffle(low, high, lane_bits{1, 3, 5, 7}));
      }
    }
    for (; j + dense_lanes <= n; j += dense_lanes) {
      row.add(lane_vector{value(row_re, j), value(row_re, j + 1), value(row_re, j + 2), value(row_re, j + 3)},
              lane_vector{value(row_im, j), value(row_im, j + 1), value(row_im, j + 2), value(row_im, j + 3)});
    }
    lanes_row_scan rest;  // its lane 0
    for (; j < n; ++j) rest.add(lane_vector{value(row_re, j), 1, 1, 1}, lane_vector{value(row_im, j), 0, 0, 0});
    all.unusable |= row.unusable | rest.unusable;
    all.fraction |= row.fraction | rest.fraction;
    all.imaginary |= row.imaginary | rest.imaginary;
    sums[i] = ((row.sum[0] + row.sum[1]) + (row.sum[2] + row.sum[3])) + rest.sum[0];
  }
  if (lanes_row_scan::any(all.unusable)) return false;
  fraction = lanes_row_scan::any(all.fraction);
  imaginary = lanes_row_scan::any(all.imaginary);
  return true;
}
#endif

// check_for_lanes' row one entry at a time (false where an entry is unusable; a 0 is, unless
// `nonzeros` counts the others).
inline bool scan_row(int n, const double* re, const double* im, int step, bool& fraction, bool& imaginary, double& sum,
                     std::int64_t* nonzeros = nullptr) {
  sum = 0;
  for (int j = 0; j < n; ++j) {
    const std::size_t at = static_cast<std::size_t>(j) * step;
    const double x = re[at], y = im ? im[at] : 0.0;
    if (!std::isfinite(x) || !std::isfinite(y)) return false;
    if (x == 0 && y == 0) {
      if (nonzeros == nullptr) return false;
      continue;
    }
    if (nonzeros != nullptr) ++*nonzeros;
    imaginary = imaginary || y != 0;
    fraction = fraction || std::trunc(x) != x || std::trunc(y) != y || std::fabs(x) > max_exact_integer ||
               std::fabs(y) > max_exact_integer;
    sum += std::fabs(x) + std::fabs(y);
  }
  return true;
}

// The check from row-major values, without a sparse_matrix: every entry finite and nonzero (with
// `zeros`, nonzero or 0), values that the run takes as floating, and Π_i Σ_j |a_ij| far enough from
// double's limits that compute_permanent would not scale the matrix (a row's binary exponent of
// Σ (|re| + |im|) is within a binary order and a half of log2 of the modulus's sum).
inline lanes_check check_for_lanes(int n, const double* re, const double* im, int step, const compute_options& options,
                                   bool zeros = false) {
  lanes_check c;
  if (n < dense_batch_min_n || n > dense_lanes_max_n || !lanes_precision(options)) return c;
  bool fraction = false, imaginary = false;
  double sums[dense_lanes_max_n];
  std::int64_t nonzeros = 0;
#if SPARSEPERM_LANES_AVX2
  if (lanes_have_avx2() && !zeros) {
    if (!scan_lanes_rows(n, re, im, step, fraction, imaginary, sums)) return c;
    nonzeros = static_cast<std::int64_t>(n) * n;
  } else
#endif
  {
    for (int i = 0; i < n; ++i) {
      const std::size_t row = static_cast<std::size_t>(i) * n * step;
      if (!scan_row(n, re + row, im ? im + row : nullptr, step, fraction, imaginary, sums[i], &nonzeros)) return c;
    }
    if (!zeros && nonzeros != static_cast<std::int64_t>(n) * n) return c;
  }
  c.nnz = nonzeros;
  double log2_product = 0;
  for (int i = 0; i < n; ++i) {
    const double sum = sums[i];
    // sum in [2^(exponent−1), 2^exponent): log2(sum) within one of exponent (from the bits where
    // sum is normal, as frexp gives it)
    const int biased = static_cast<int>(std::bit_cast<std::uint64_t>(sum) >> 52);
    int exponent = biased - 1022;
    if (biased == 0 || biased == 0x7ff) std::frexp(sum, &exponent);
    log2_product += exponent;
  }
  c.complex = imaginary;
  c.integer = !fraction;
  if (!fraction && options.precision == precision::automatic) return c;  // exact by default
  c.eligible = std::fabs(log2_product) + 1.5 * n <= unscaled_log2_limit - n;
  return c;
}

inline lanes_check check_for_lanes(const sparse_matrix& a, const compute_options& options) {
  if (a.n() < dense_batch_min_n || a.n() > dense_lanes_max_n || a.nnz() != static_cast<std::int64_t>(a.n()) * a.n() ||
      !lanes_precision(options) || !floating_run(a, options) || needs_unit_scaling(a))
    return {};
  return {true, a.is_complex(), false, a.nnz()};
}

inline double dense_batch_steps(int n) { return std::ldexp(1.0, n - 1) * (n + 2); }

// How the GPU runs `count` dense matrices of one size: a warp each (n ≤ gpu_batch_max_n; waves of
// about a thousand resident warps, each lane slow) or the whole GPU each (gpu-dense, one run after
// another), whichever the model says is sooner, and in how many seconds.
struct gpu_batch_size_choice {
  bool whole_gpu = false;
  double seconds = 0;
};
inline gpu_batch_size_choice choose_gpu_batch_mode(int n, std::int64_t count, bool complex) {
  using warp = engines::gpu_sparse;
  using whole = engines::gpu_dense;
  const double matrices = static_cast<double>(count);
  const double whole_seconds =
      matrices * (whole::batch_run_seconds + std::ldexp(1.0, n - 1) * dense_rows_for(n, complex) *
                                                 whole::row_step_seconds * (complex ? whole::complex_factor : 1));
  if (n > gpu_batch_max_n) return {true, whole_seconds};
  const double factor = complex ? engines::cpu_sparse::complex_factor : 1;
  const double warp_seconds = matrices * warp::batch_prepare_per_entry_seconds * n * n +
                              std::ceil(matrices / warp::batch_resident_warps) * dense_batch_steps(n) / 32 *
                                  warp::batch_lane_step_per_row_seconds * factor;
  return warp_seconds <= whole_seconds ? gpu_batch_size_choice{false, warp_seconds}
                                       : gpu_batch_size_choice{true, whole_seconds};
}

// Whether the GPU runs the dense matrices of these sizes sooner than `threads` CPU threads' lanes
// would (fine: the lanes' walk with the fine parts' sums, dense_lanes.cuh).
inline bool gpu_batch_pays(const std::vector<int>& sizes, bool complex, bool fine, int threads) {
  using cpu = engines::cpu_sparse;
  const double lanes_factor = (complex ? cpu::batch_complex_factor : 1) * (fine ? cpu::batch_fine_factor : 1);
  std::vector<std::int64_t> count(dense_batch_max_n + 1, 0);
  double cpu_seconds = 0, gpu_seconds = engines::gpu_sparse::batch_setup_seconds;
  for (int n : sizes) {
    cpu_seconds += (cpu::batch_matrix_seconds + dense_batch_steps(n) * cpu::batch_step_per_row_seconds * lanes_factor) /
                   std::max(threads, 1);
    ++count[static_cast<std::size_t>(n)];
  }
  for (int n = gpu_batch_min_n; n <= dense_batch_max_n; ++n) {
    if (count[static_cast<std::size_t>(n)] > 0)
      gpu_seconds += choose_gpu_batch_mode(n, count[static_cast<std::size_t>(n)], complex).seconds;
  }
  return gpu_seconds < cpu_seconds;
}

// Whether a real value of matrix k of `values` is below 0 (complex matrices: their real parts), as
// has_negative_value (dp/dp_value.cuh) asks of a sparse_matrix.
inline bool has_negative_value(const dense_matrices& values, std::int64_t k) {
  const double* re = values.real_of(k);
  for (std::size_t e = 0; e < static_cast<std::size_t>(values.n) * values.n; ++e)
    if (re[e * values.step] < 0) return true;
  return false;
}

inline permanent_result run_dense_cpu(const sparse_matrix& a, const compute_options& options) {
  permanent_result r = run_unplanned(a, options);
  add_input_rounding(r, a);
  r.seconds.total = r.seconds.compute;
  return r;
}

// One call of compute_permanents: the matrices, their routes and results, the first failure.
template <class MatrixAt>
class batch_run {
 public:
  batch_run(std::int64_t count, const MatrixAt& matrix_at, const compute_options& options,
            const dense_matrices* values = nullptr)
      : count_(count),
        matrix_at_(matrix_at),
        options_(options),
        values_(values),
        threads_(engine_threads(options.threads)),
        progress_(options.progress),
        results_(static_cast<std::size_t>(count)),
        failures_(static_cast<std::size_t>(count)) {
    one_ = options;
    one_.threads = 1;
    one_.progress = progress_ ? &inner_ : nullptr;  // a stop request reaches every matrix's loop
    inner_.parent = progress_;                      // at once, also inside a long one
    if (progress_) progress_->total.store(static_cast<std::uint64_t>(count), std::memory_order_relaxed);
  }

  permanent_results run() {
    const bool routed = options_.engine.automatic() || is(engines::cpu_sparse{}) || is(engines::gpu_sparse{});
    if (count_ < threads_ || !routed) return run_each();
    route();
    if (failed_) return finish();
    choose_gpu();
    if (failed_) return finish();
    run_lanes();
    run_cpu_routes();
    run_gpu_route();
    return finish();
  }

 private:
  template <Engine E>
  bool is(E) const {
    return options_.engine.get() == &description_of<E>;
  }
  bool stopped() const { return stop_requested(progress_); }
  template <class Body>
  void guarded(std::int64_t k, const Body& body) {
    if (failed_.load(std::memory_order_relaxed) || stopped()) return;
    try {
      body();
    } catch (...) {
      failures_[static_cast<std::size_t>(k)] = std::current_exception();
      failed_.store(true);
    }
    if (progress_) progress_->done.fetch_add(1, std::memory_order_relaxed);
  }
  // The results, or the first failing matrix's error (by index) as a batch_error.
  permanent_results finish() {
    for (std::size_t k = 0; k < failures_.size(); ++k) {
      if (!failures_[k]) continue;
      try {
        std::rethrow_exception(failures_[k]);
      } catch (const std::exception& e) {
        throw batch_error(static_cast<std::int64_t>(k), e.what(), failures_[k]);
      }
    }
    throw_if_stopped(progress_);
    return std::move(results_);
  }

  // Each matrix on every thread, through the planner or the engine asked for.
  permanent_results run_each() {
    compute_options each = options_;
    each.progress = one_.progress;
    for (std::int64_t k = 0; k < count_ && !failed_; ++k)
      guarded(k, [&] { results_.whole(static_cast<std::size_t>(k)) = compute_permanent(matrix_at_(k), each); });
    return finish();
  }

  // Matrix k as a sparse_matrix, made once (the lanes read dense values without it: no
  // sparse_matrix, not even an empty one, for a matrix that does not need it).
  const sparse_matrix& matrix(std::int64_t k) {
    std::unique_ptr<sparse_matrix>& m = matrices_[static_cast<std::size_t>(k)];
    if (!m) m = std::make_unique<sparse_matrix>(matrix_at_(k));
    return *m;
  }
  template <class Body>
  void catching(std::int64_t k, const Body& body) {
    try {
      body();
    } catch (...) {
      failures_[static_cast<std::size_t>(k)] = std::current_exception();
      failed_.store(true);
    }
  }

  // The matrices' routes (in parallel: converting and checking costs about what a 10 x 10 matrix's
  // loop does). A dense floating matrix given as values goes to the lanes (or the GPU) unconverted.
  void route() {
    matrices_.resize(static_cast<std::size_t>(count_));
    routes_.assign(static_cast<std::size_t>(count_), batch_route::planned);
    complex_.assign(static_cast<std::size_t>(count_), 0);
    const bool gpu_asked = is(engines::gpu_sparse{});
    parallel_for<schedule::dynamic_one>(count_, threads_, [&](std::int64_t k) {
      if (failed_.load(std::memory_order_relaxed)) return;
      catching(k, [&] {
        const std::size_t at = static_cast<std::size_t>(k);
        lanes_check lanes;
        if (values_)
          lanes = check_for_lanes(values_->n, values_->real_of(k), values_->imag_of(k), values_->step, options_);
        if (!lanes.eligible) lanes = check_for_lanes(matrix(k), options_);
        complex_[at] = lanes.complex ? 1 : 0;
        const int n = values_ ? values_->n : matrix(k).n();
        // gpu-sparse asked for: the GPU's route (a warp a matrix) or the engine itself, never the
        // CPU's loops; auto: a warp or the whole GPU a matrix
        const bool gpu = compiled_for_gpu && lanes.eligible && n >= gpu_batch_min_n &&
                         n <= (gpu_asked ? gpu_batch_max_n : dense_batch_max_n);
        if (lanes.eligible) {
          routes_[at] = gpu && (gpu_asked || options_.engine.automatic()) ? batch_route::dense_gpu
                        : gpu_asked                                       ? batch_route::planned
                                                                          : batch_route::dense_lanes;
        } else if (!gpu_asked && dense_exact_eligible(matrix(k), options_)) {
          routes_[at] = batch_route::dense_cpu;
        }
      });
    });
  }

  // The GPU's matrices where a device is there and (auto) the model says the GPU pays; else auto's
  // go to the lanes and gpu-sparse's to the engine, which says why it cannot run.
  void choose_gpu() {
    for (std::int64_t k = 0; k < count_; ++k)
      if (routes_[static_cast<std::size_t>(k)] == batch_route::dense_gpu) gpu_group_.push_back(k);
    if (gpu_group_.empty()) return;
    bool on_gpu = false;
#if defined(__CUDACC__)
    on_gpu = gpu::device_count() > 0;
    if (on_gpu && options_.engine.automatic()) {
      std::vector<int> sizes;
      bool complex = false, negative = false;
      for (std::int64_t k : gpu_group_) {
        sizes.push_back(values_ ? values_->n : matrix(k).n());
        complex = complex || complex_[static_cast<std::size_t>(k)];
        negative = negative || (values_ ? has_negative_value(*values_, k) : has_negative_value(matrix(k)));
      }
      // the lanes' walk with the fine parts' sums runs on signed or complex values only
      const bool fine = options_.precision == precision::automatic && (complex || negative);
      on_gpu = gpu_batch_pays(sizes, complex, fine, threads_);
    }
#endif
    if (on_gpu) {  // the GPU's route reads sparse matrices
      parallel_for<schedule::dynamic_one>(static_cast<std::int64_t>(gpu_group_.size()), threads_, [&](std::int64_t g) {
        const std::int64_t k = gpu_group_[static_cast<std::size_t>(g)];
        catching(k, [&] { matrix(k); });
      });
      return;
    }
    for (std::int64_t k : gpu_group_)
      routes_[static_cast<std::size_t>(k)] =
          options_.engine.automatic() ? batch_route::dense_lanes : batch_route::planned;
    gpu_group_.clear();
  }

  // The lanes' matrices, grouped by size and by complex or real values, four to a group; a matrix
  // whose row grids refuse (values spanning more binary orders than a row grid holds) goes to the
  // planner instead.
  void run_lanes() {
    std::vector<std::int64_t> order;
    for (std::int64_t k = 0; k < count_; ++k)
      if (routes_[static_cast<std::size_t>(k)] == batch_route::dense_lanes) order.push_back(k);
    if (order.empty()) return;
    const auto n_of = [&](std::int64_t k) {
      return values_ ? values_->n : matrices_[static_cast<std::size_t>(k)]->n();
    };
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      const int na = n_of(a), nb = n_of(b);
      return na != nb ? na < nb : complex_[static_cast<std::size_t>(a)] < complex_[static_cast<std::size_t>(b)];
    });
    std::vector<std::size_t> group_start;  // groups of up to four of one size and kind
    for (std::size_t at = 0; at < order.size(); ++at) {
      const bool same =
          at > 0 && n_of(order[at]) == n_of(order[at - 1]) &&
          complex_[static_cast<std::size_t>(order[at])] == complex_[static_cast<std::size_t>(order[at - 1])];
      if (!same || at - group_start.back() == dense_lanes) group_start.push_back(at);
    }
    group_start.push_back(order.size());
    // the results' descriptions: of a matrix from `values` (one n) by kind, complex · 2 + fine
    std::uint32_t described = 0;
    if (values_) {
      for (const bool complex : {false, true})
        for (const bool fine : {false, true}) {
          const std::uint32_t at = results_.describe(lanes_result_description(values_->n, complex, fine));
          if (!complex && !fine) described = at;
        }
    }
    parallel_for<schedule::dynamic_one>(
        static_cast<std::int64_t>(group_start.size() - 1), threads_, [&](std::int64_t g) {
          if (failed_.load(std::memory_order_relaxed) || stopped()) return;
          const std::size_t first = group_start[static_cast<std::size_t>(g)];
          const int count = static_cast<int>(group_start[static_cast<std::size_t>(g) + 1] - first);
          run_lane_group(order.data() + first, count, described);
        });
  }

  // described: the index of the first of the descriptions run_lanes made (matrices from `values`)
  void run_lane_group(const std::int64_t* ks, int count, std::uint32_t described) {
    const int n = values_ ? values_->n : matrices_[static_cast<std::size_t>(ks[0])]->n();
    const bool complex = complex_[static_cast<std::size_t>(ks[0])] != 0;
    // the lanes' buffers, and row-major copies of matrices that came as sparse_matrix: a thread's,
    // kept from group to group (prepare writes every entry a walk reads)
    const std::size_t square = static_cast<std::size_t>(n) * n;
    thread_local std::vector<double> buffer;
    buffer.resize(std::max(buffer.size(), dense_lane_group::columns_size(n, complex) +
                                              dense_lane_group::x0_size(n, complex) +
                                              (values_ ? 0 : 2 * square * dense_lanes)));
    dense_lane_group group;
    group.n = n;
    group.complex = complex;
    group.step = values_ ? values_->step : 1;
    group.columns = buffer.data();
    group.x0 = group.columns + dense_lane_group::columns_size(n, complex);
    const double* real[dense_lanes]{};
    const double* imag[dense_lanes]{};
    for (int lane = 0; lane < count; ++lane) {
      const std::int64_t k = ks[lane];
      if (values_) {
        real[lane] = values_->real_of(k);
        imag[lane] = values_->imag_of(k);
        continue;
      }
      double* re = group.x0 + dense_lane_group::x0_size(n, complex) + 2 * square * static_cast<std::size_t>(lane);
      double* im = re + square;
      write_row_major(*matrices_[static_cast<std::size_t>(k)], re, im);  // dense: every entry written
      real[lane] = re;
      imag[lane] = im;
    }
    bool refused[dense_lanes]{};
    group.prepare(real, imag, count, refused);
    // the fine parts' sums where they certify more digits, unless double is asked for: its fast path
    const bool fine = options_.precision == precision::automatic && group.fine_parts_pay(count);
    const dense_lane_sums sums =
        group.walk([&] { return !stopped() && !failed_.load(std::memory_order_relaxed); }, fine);
    if (stopped() || failed_.load(std::memory_order_relaxed)) return;  // partial sums: no results
    for (int lane = 0; lane < count; ++lane) {
      const std::int64_t k = ks[lane];
      const std::size_t at = static_cast<std::size_t>(k);
      if (refused[lane]) {  // the planner's turn (dp or reference), with run_cpu_routes
        catching(k, [&] { matrix(k); });
        routes_[at] = batch_route::planned;
        continue;
      }
      guarded(k, [&] {
        if (values_) {  // the numbers and a shared description
          const floating_numbers v = dense_lane_group::lane_numbers(n, complex, sums, lane, group.facts[lane]);
          check_floating_numbers(v, engines::cpu_sparse::name);
          results_.set_numbers(at, v, described + (complex ? 2 : 0) + (sums.fine ? 1 : 0));
          return;
        }
        permanent_result& r = results_.whole(at);
        r = lanes_result_description(n, complex, sums.fine);
        set_floating_numbers(r, dense_lane_group::lane_numbers(n, complex, sums, lane, group.facts[lane]));
        add_input_rounding(r, *matrices_[at]);
      });
    }
  }

  // The CPU's matrices, while the GPU's wait for it (the GPU's host work is spread over the threads).
  void run_cpu_routes() {
    if (failed_ || stopped()) return;
    parallel_for<schedule::dynamic_one>(count_, threads_, [&](std::int64_t k) {
      const std::size_t at = static_cast<std::size_t>(k);
      if (routes_[at] != batch_route::planned && routes_[at] != batch_route::dense_cpu) return;
      guarded(k, [&] {
        results_.whole(at) =
            routes_[at] == batch_route::dense_cpu ? run_dense_cpu(matrix(k), one_) : compute_permanent(matrix(k), one_);
      });
    });
  }

  // The GPU's matrices: of each size, those the whole GPU runs one after another (auto, where
  // choose_gpu_batch_mode says so), then the rest a warp each in one launch per size and kind.
  void run_gpu_route() {
#if defined(__CUDACC__)
    if (gpu_group_.empty() || failed_ || stopped()) return;
    std::vector<std::int64_t> count((dense_batch_max_n + 1) * 2, 0);  // by n and kind
    const auto size_of = [&](std::int64_t k) {
      return static_cast<std::size_t>(matrices_[static_cast<std::size_t>(k)]->n() * 2 +
                                      complex_[static_cast<std::size_t>(k)]);
    };
    for (std::int64_t k : gpu_group_) ++count[size_of(k)];
    std::vector<std::int64_t> warps;
    for (std::int64_t k : gpu_group_) {
      const sparse_matrix& a = *matrices_[static_cast<std::size_t>(k)];
      const bool whole =
          options_.engine.automatic() &&
          choose_gpu_batch_mode(a.n(), count[size_of(k)], complex_[static_cast<std::size_t>(k)] != 0).whole_gpu;
      if (!whole) {
        warps.push_back(k);
        continue;
      }
      guarded(k, [&] {
        permanent_result& r = results_.whole(static_cast<std::size_t>(k));
        // auto's: again in double-double where gpu-dense's one grid a row certifies too few digits
        r = escalate_if_short(a, one_, engines::gpu_dense::run(engine_task{a}, one_));
        add_input_rounding(r, a);
      });
    }
    if (warps.empty() || failed_ || stopped()) return;
    try {
      std::vector<const sparse_matrix*> group;
      std::vector<permanent_result*> out;
      for (std::int64_t k : warps) {
        group.push_back(matrices_[static_cast<std::size_t>(k)].get());
        out.push_back(&results_.whole(static_cast<std::size_t>(k)));
      }
      run_dense_gpu(group, out,
                    {.device = options_.first_device(),
                     .engine = engines::gpu_sparse::name,
                     .threads = options_.threads,
                     .precision = options_.precision,
                     .min_n = gpu_batch_min_n,
                     .max_n = gpu_batch_max_n});
      for (std::int64_t k : warps)
        add_input_rounding(results_.whole(static_cast<std::size_t>(k)), *matrices_[static_cast<std::size_t>(k)]);
      if (progress_) progress_->done.fetch_add(warps.size(), std::memory_order_relaxed);
    } catch (...) {
      failures_[static_cast<std::size_t>(warps.front())] = std::current_exception();
    }
#endif
  }

  const std::int64_t count_;
  const MatrixAt& matrix_at_;
  const compute_options& options_;
  const dense_matrices* const values_;
  const int threads_;
  progress_counter* const progress_;
  progress_counter inner_;
  compute_options one_;
  permanent_results results_;
  std::vector<std::exception_ptr> failures_;
  std::atomic<bool> failed_{false};
  std::vector<std::unique_ptr<sparse_matrix>> matrices_;  // those made (matrix(k))
  std::vector<char> complex_;                             // the lanes' and the GPU's: complex values
  std::vector<batch_route> routes_;
  std::vector<std::int64_t> gpu_group_;
};

}  // namespace detail

namespace detail {

// Whether two rows or two columns of a dense n × n matrix of row-major values are equal (the
// planner's turn: Glynn over their multiplicities), as has_identical_lines asks of a sparse_matrix.
inline bool dense_identical_lines(int n, const double* re, const double* im, int step) {
  const auto at = [&](int i, int j) { return (static_cast<std::size_t>(i) * n + j) * step; };
  const auto equal = [&](std::size_t a, std::size_t b) { return re[a] == re[b] && (!im || im[a] == im[b]); };
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      bool rows = true, columns = true;
      for (int k = 0; k < n && (rows || columns); ++k) {
        rows = rows && equal(at(a, k), at(b, k));
        columns = columns && equal(at(k, a), at(k, b));
      }
      if (rows || columns) return true;
    }
  return false;
}

// Whether the nonzero entries of an n × n row-major array (n ≤ 32) hold a perfect matching (Kuhn's
// augmenting paths on rows' column masks): a matrix without one has permanent 0, which the planner
// says why.
inline bool dense_perfect_matching(int n, const double* re, const double* im, int step) {
  std::uint32_t columns_of[32]{};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const std::size_t at = (static_cast<std::size_t>(i) * n + j) * step;
      if (re[at] != 0 || (im && im[at] != 0)) columns_of[i] |= std::uint32_t{1} << j;
    }
  int row_of[32];
  std::fill(row_of, row_of + n, -1);
  std::uint32_t seen = 0;
  const auto augment = [&](const auto& self, int i) -> bool {
    for (std::uint32_t open = columns_of[i] & ~seen; open != 0; open &= open - 1) {
      const int j = std::countr_zero(open);
      seen |= std::uint32_t{1} << j;
      if (row_of[j] < 0 || self(self, row_of[j])) {
        row_of[j] = i;
        return true;
      }
    }
    return false;
  };
  for (int i = 0; i < n; ++i) {
    seen = 0;
    if (!augment(augment, i)) return false;
  }
  return true;
}

}  // namespace detail

// One matrix also at hand as a dense array (values.count == 1, equal to matrix()): compute_permanent's
// result. Under auto one of run_small's sizes (dense n ≤ 12; n ≤ 8 with zeros and a perfect matching)
// goes to the lanes straight from the array (detail::run_in_lanes: no sparse_matrix, no plan); any
// other, or one the lanes do not certify (options.digits; integers: exactly), goes through
// compute_permanent(matrix()).
template <class Matrix>
permanent_result compute_dense_permanent(const dense_matrices& values, const Matrix& matrix,
                                         const compute_options& options) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const int n = values.n;
  if (options.engine.automatic() && options.precision == precision::automatic && options.checkpoint.empty() &&
      options.processes == nullptr && n > detail::tiny_matrix_n && n <= detail::small_dense_max_n) {
    const double* re = values.real_of(0);
    const double* im = values.imag_of(0);
    const detail::lanes_check lanes =
        detail::check_for_lanes(n, re, im, values.step, options, n <= detail::small_any_max_n);
    if ((lanes.eligible || lanes.integer) &&
        (lanes.nnz == static_cast<std::int64_t>(n) * n || detail::dense_perfect_matching(n, re, im, values.step)) &&
        !detail::dense_identical_lines(n, re, im, values.step)) {
      memory_limit_setting();  // a setting that is not a size is refused here too
      if (auto r = detail::run_in_lanes(n, re, lanes.complex ? im : nullptr, values.step, lanes.complex, lanes.integer,
                                        lanes.nnz, options)) {
        r->seconds.total = std::chrono::duration<double>(clock::now() - start).count();
        r->seconds.compute = r->seconds.total;
        return std::move(*r);
      }
    }
  }
  return compute_permanent(matrix(), options);
}

// The permanents of `count` matrices, matrix_at(k) giving matrix k (it may throw: that matrix's
// error), in order (permanent_results: results[k] is matrix k's). The first failing matrix (by index)
// is thrown as a batch_error (core/engine_error.cuh); a stop request (options.progress) ends the
// batch. progress counts matrices.
template <class MatrixAt>
permanent_results compute_permanents(std::int64_t count, const MatrixAt& matrix_at, const compute_options& options) {
  return detail::batch_run<MatrixAt>(count, matrix_at, options).run();
}

// The same for matrices that are also at hand as dense arrays (values.count == count, matrix k of
// values equal to matrix_at(k)): the dense floating ones go to the lanes without being converted.
template <class MatrixAt>
permanent_results compute_permanents(std::int64_t count, const MatrixAt& matrix_at, const compute_options& options,
                                     const dense_matrices& values) {
  return detail::batch_run<MatrixAt>(count, matrix_at, options, &values).run();
}

}  // namespace sparseperm
