#pragma once
// A whole run of Glynn's formula (glynn.cuh): the classes, the arithmetic (numeric/value_types.cuh),
// the column grids and the bound are the same wherever the terms are summed; a summer sums them
// (glynn_on_host below, on CPU threads; the GPU's in gpu/glynn_kernel.cuh).
//
//   run_glynn(matrix, options, engine, summer)   the result, as engine `engine`
//   glynn_work_of(matrix, precision, why)        whether Glynn's sum is worth planning, and its work
//
// On the host a run's tasks are chunks of the distributed runtime (run/host_chunks.cuh): with a
// checkpoint or MPI ranks the tasks do not depend on the threads, are journaled, dealt out to the
// ranks, and every task's sum is reduced in task order, so every run gives the same result bit for bit.
//
// Arithmetic: integer matrices (Gaussian integers too) exactly, in 128-bit integers where the bound
// 2^(N−1) Π_l (Σ_k r_k |u_kl|)^(c_l) fits, else big integers; real and complex doubles with
// compensated sums and a proven bound: the values rounded to column grids (so every v_l is exact,
// numeric/error_bound.cuh with rows and columns in each other's roles), a term's roundings counted.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/engine_error.cuh"
#include "../core/progress.cuh"
#include "../core/result.cuh"
#include "../detail/sha256.cuh"
#include "../detail/threads.cuh"
#include "../matrix/exactness.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/accumulators.cuh"
#include "../numeric/arithmetic.cuh"
#include "../numeric/big_integer.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/error_bound.cuh"
#include "../numeric/value_types.cuh"
#include "../run/host_chunks.cuh"
#include "../run/record_codec.cuh"
#include "../run/sharing.cuh"
#include "glynn.cuh"

namespace sparseperm::detail {

// What a run of Glynn's formula is asked for.
struct glynn_options {
  sparseperm::precision precision = sparseperm::precision::automatic;
  int threads = 0;                       // CPU threads (0: all)
  progress_counter* progress = nullptr;  // counts terms; the caller's stop request
  chunk_sharing sharing = {};            // a journal, MPI ranks (run/sharing.cuh): the host's tasks only
};

// What a summer is told and tells beside the sum.
struct glynn_summing {
  int threads = 1;                       // in: CPU threads; out: the threads that summed
  std::uint64_t longest_chain = 0;       // the most additions into one accumulator
  std::optional<double> device_seconds;  // the kernel's time (CUDA events) where a GPU summed
  std::string where;                     // the device, the journal and the ranks, for the plan
  progress_counter* progress = nullptr;  // in: the caller's progress and stop request
  std::string engine;                    // in: the engine, for the journal's key
};

// Sums a run's tasks on OpenMP threads: f(Arith, Sum) over the tables of u (Arith's values).
struct glynn_on_host {
  chunk_sharing sharing;

  template <class Arith, class Sum>
  Sum operator()(const glynn_setup& g, const std::vector<typename Arith::value>& u, glynn_summing& summing) const {
    using V = typename Arith::value;
    using P = typename Arith::product;
    const bool fixed = sharing.fixed_chunks();
    // about 16 tasks a thread (4096 when journaled or shared: independent of the threads); a long run
    // in tasks of about 2^22 terms (at most 2^18 of them); a stop request ends a task within 2^16 terms
    const double long_run_tasks = std::min(std::ldexp(g.terms, -22), std::ldexp(1.0, 18));
    const long long wanted = fixed ? 4096LL : 16LL * std::max(summing.threads, 1);
    const glynn_plan<V, P> plan(g, std::max(wanted, static_cast<long long>(long_run_tasks)));
    const glynn_tables<V, P> tables = plan.tables(g, u.data());
    summing.longest_chain = plan.walk_terms + static_cast<std::uint64_t>(plan.tasks);
    const auto run_task = [&](std::uint64_t index) {
      std::vector<int> m(static_cast<std::size_t>(g.rows)), direction(static_cast<std::size_t>(g.rows));
      std::vector<V> v(static_cast<std::size_t>(g.columns));
      Sum local;
      const progress_counter* progress = summing.progress;
      glynn_task(tables, static_cast<std::int64_t>(index), m.data(), direction.data(), v.data(), local,
                 [progress] { throw_if_stopped(progress); });
      return local;
    };
    shared_chunks shared{sharing};
    if (fixed) shared.key = journal_key<Sum>(g, u, plan, summing.engine);
    const std::vector<Sum> partial = run_chunks_on_host<Sum>(
        static_cast<std::uint64_t>(plan.tasks), summing.threads, summing.progress,
        [&](std::uint64_t) { return plan.walk_terms; }, run_task, fixed ? &shared : nullptr);
    summing.where += sharing_text(shared, static_cast<std::uint64_t>(plan.tasks));
    Sum total;
    for (const Sum& s : partial) total.merge(s);
    return total;
  }

 private:
  // Everything that decides the tasks' sums: the engine, the arithmetic, the classes and their values.
  template <class Sum, class V, class P>
  static std::string journal_key(const glynn_setup& g, const std::vector<V>& u, const glynn_plan<V, P>& plan,
                                 const std::string& engine) {
    byte_writer identity;
    identity.put(g.transposed).put(g.rows).put(g.columns);
    for (const std::vector<int>* counts : {&g.row_count, &g.free, &g.column_count})
      for (const int c : *counts) identity.put(c);
    for (const V& value : u) record_codec<V>::write(identity, value);
    return chunk_key(engine, Sum::description(), g.n) + "; Glynn's terms in " + std::to_string(plan.tasks) +
           " tasks of " + std::to_string(plan.walk_terms) + "; classes and values " +
           hex_of(sha256::of(identity.bytes()));
  }
};

// What the estimates of glynn and gpu-glynn share: whether Glynn's sum is planned for a block (its rows
// or columns repeat, its terms fit, its grids exist; else `why` says why not), its work in units of a
// term and a class, terms x (distinct rows + distinct columns + 1), and its arithmetic.
struct glynn_work {
  glynn_setup setup;
  double units = 0;
  bool exact = false;  // integers summed exactly: 128 bits, or big integers where
  bool big = false;    // the sums may exceed 125 bits
};

inline std::optional<glynn_work> glynn_work_of(const sparse_matrix& matrix, precision p, std::string& why) {
  glynn_work w{glynn_setup_of(matrix)};
  const glynn_setup& g = w.setup;
  if (g.terms >= std::ldexp(1.0, g.n - 1)) {
    why = "no repeated rows or columns";
    return std::nullopt;
  }
  if (g.terms > glynn_max_terms) {
    why = "2^" + std::to_string(static_cast<int>(std::log2(g.terms))) + " terms";
    return std::nullopt;
  }
  w.exact = matrix.has_integer_values() && p != precision::double_sums && p != precision::compensated;
  if (!w.exact) {
    if (const glynn_grid grid = glynn_grid_of(g, p == precision::double_double); !grid.why.empty()) {
      why = grid.why;
      return std::nullopt;
    }
  }
  w.big = w.exact && glynn_exact_bits(g) >= 125;
  w.units = g.terms * (g.columns + g.rows + 1.0);
  return w;
}

// The planner's note on a block a Glynn engine runs: its classes and terms.
inline std::string glynn_note(const sparse_matrix& matrix) {
  const glynn_setup g = glynn_setup_of(matrix);
  return " (" + std::to_string(g.rows) + " distinct " + (g.transposed ? "columns" : "rows") + ", " +
         glynn_terms_text(g.terms) + " terms)";
}

// The values of a setup as Arith's (integer arithmetics: the caller has checked the entries).
template <class Arith>
std::vector<typename Arith::value> glynn_values(const glynn_setup& g) {
  std::vector<typename Arith::value> u(g.re.size());
  for (std::size_t c = 0; c < u.size(); ++c) u[c] = Arith::entry(g.re[c], g.complex ? g.im[c] : 0.0);
  return u;
}

// The exact run: Σ / 2^(N−1) in 128 bits where the bound fits, else in big integers. Returns the
// arithmetic's words.
template <class Summer>
std::string glynn_exact(const glynn_setup& g, const Summer& summer, glynn_summing& summing, permanent_result& result) {
  const int n = g.n;
  auto finish = [&](auto re, auto im) {  // Σ / 2^(N−1), exactly
    big_integer r(re), i(im);
    if (!r.divide_exactly_by_power_of_two(n - 1) || !i.divide_exactly_by_power_of_two(n - 1)) {
      throw engine_error(engine_error::kind::failed,
                         "engine '" + result.engine + "': the exact sum is not divisible by 2^(n-1)");
    }
    result.exact = true;
    result.permanent = r.to_decimal();
    result.value = r.to_double();
    if (g.complex) set_imaginary_part(result, i.to_double(), i.to_decimal());
  };
  const auto run = [&]<class Arith, class Sum>(const char* words) {
    const Sum s = summer.template operator()<Arith, Sum>(g, glynn_values<Arith>(g), summing);
    if constexpr (is_complex_arithmetic<Arith>) {
      finish(s.value().re, s.value().im);
    } else {
      finish(s.value(), big_integer(0ll));
    }
    return std::string(words);
  };
#if SPARSEPERM_HAS_INT128
  if (glynn_exact_bits(g) < 125) {
    return g.complex ? run.template operator()<gaussian_exact_arithmetic, exact_complex_sum>(
                           "exact 128-bit Gaussian integers")
                     : run.template operator()<exact_arithmetic, exact_sum>("exact 128-bit integers");
  }
#endif
  return g.complex
             ? run.template operator()<big_gaussian_arithmetic, big_sum<big_gaussian>>("exact big Gaussian integers")
             : run.template operator()<big_integer_arithmetic, big_sum<big_integer>>("exact big integers");
}

// The values of a split grid as split values (the double-double run): coarse + fine, exactly.
template <class V>
std::vector<V> glynn_split_values(const glynn_grid& grid) {
  std::vector<V> u(grid.re.size());
  for (std::size_t c = 0; c < u.size(); ++c) {
    if constexpr (is_complex_value<V>) {
      u[c] = V(complex_double{grid.re[c], grid.im[c]}, complex_double{grid.fine_re[c], grid.fine_im[c]});
    } else {
      u[c] = V(grid.re[c], grid.fine_re[c]);
    }
  }
  return u;
}

// The floating run on the column grids, in plain or compensated sums (values rounded to the grids), or
// in double-double (values split exactly on two grids), with its proven bound. Returns the sums' words.
template <class Summer>
std::string glynn_floating(const glynn_setup& g, const Summer& summer, glynn_summing& summing, precision p,
                           permanent_result& result) {
  const int n = g.n;
  const bool wide = p == precision::double_double;
  const glynn_grid grid = glynn_grid_of(g, wide);
  if (!grid.why.empty()) {
    throw engine_error(
        engine_error::kind::refused,
        "engine '" + result.engine + "' cannot certify a result for this matrix (" + grid.why + "); dp can");
  }
  glynn_setup rounded = g;  // the values on their grids
  rounded.re = grid.re;
  rounded.im = grid.im;
  grid_rounding_facts facts = grid.facts;
  // products that underflow: the builder counts factors up to Σ|a|/2 per line, Glynn's up to Σ|a|
  // and the binomials up to 2^(N−1) more: 2^(2N) on the sum, 2^(N+1) after the scaling; times the
  // roundings an underflowing multiplication may lose (double-double: 16 real, 64 complex)
  const double underflow = std::ldexp(facts.underflow, n + 1) * (wide ? (g.complex ? 64 : 16) : g.complex ? 8 : 1);
  facts.underflow = 0;
  // a term: the binomials (Pascal: up to f additions each, K − 1 real products), N column factors
  double roundings = g.n + g.rows;
  for (const int f : g.free) roundings += f;
  floating_sum_report report;
  report.compensated = p != precision::double_sums;
  report.complex = wide && g.complex;  // double's complex roundings are counted below
  report.double_double = wide;
  complex_double value;
  std::string words;
  const auto run = [&]<class Arith, class Sum>(const std::vector<typename Arith::value>& u) {
    const Sum s = summer.template operator()<Arith, Sum>(rounded, u, summing);
    report.magnitude = magnitude_of(s);
    report.partials = partials_of(s);
    if constexpr (is_complex_value<typename Arith::value>) {
      value = s.value();
      report.sum = l1_norm(value);
    } else {
      value = {s.value(), 0.0};
      report.sum = std::fabs(value.re);
    }
    words = Sum::description();
  };
  if (wide) {
    if (g.complex) {
      run.template operator()<complex_double_double_arithmetic, complex_sum<dd_sum>>(
          glynn_split_values<split_value<complex_double>>(grid));
    } else {
      run.template operator()<double_double_arithmetic, dd_sum>(glynn_split_values<split_value<double>>(grid));
    }
  } else if (g.complex) {
    roundings = 4 * roundings + 1;
    const auto u = glynn_values<complex_double_arithmetic>(rounded);
    if (report.compensated) {
      run.template operator()<complex_double_arithmetic, complex_sum<compensated_sum>>(u);
    } else {
      run.template operator()<complex_double_arithmetic, complex_sum<plain_sum>>(u);
    }
  } else {
    const auto u = glynn_values<double_arithmetic>(rounded);
    if (report.compensated) {
      run.template operator()<double_arithmetic, compensated_sum>(u);
    } else {
      run.template operator()<double_arithmetic, plain_sum>(u);
    }
  }
  report.chain = summing.longest_chain;
  const double scale = std::ldexp(1.0, -(n - 1));
  set_floating_value(result, std::ldexp(value.re, -(n - 1)));
  if (g.complex) set_imaginary_part(result, std::ldexp(value.im, -(n - 1)));
  const double magnitude = g.complex ? std::hypot(result.value, result.imag) : std::fabs(result.value);
  // ryser_sum_bound with the term's roundings in place of n (double-double: its multiplications, one
  // more than the roundings counted above); the scaling by 2^−(N−1) is exact unless it falls into the
  // subnormals (2^−1074 a part then)
  const int factors = static_cast<int>(roundings) + (wide ? 1 : 0);
  const double rounding = ryser_sum_bound(factors, report, facts) * scale + (g.complex ? 2 : 1) * 0x1p-1074 + underflow;
  set_error_bound(result, (rounding + grid_perturbation_bound(facts, magnitude, rounding)) * bound_margin);
  return words;
}

// Glynn's formula for `matrix` as engine `engine`, its sums by `summer` (glynn_on_host, or the GPU's).
template <class Summer>
permanent_result run_glynn(const sparse_matrix& matrix, const glynn_options& options, std::string_view engine,
                           const Summer& summer) {
  const auto start = std::chrono::steady_clock::now();
  const int n = matrix.n();
  permanent_result result;
  result.engine = std::string(engine);
  result.n = n;
  result.nnz = matrix.nnz();
  result.threads = engine_threads(options.threads);
  if (n == 0 || matrix.has_empty_line()) {
    set_trivial_value(result, n);
    return result;
  }
  const glynn_setup g = glynn_setup_of(matrix);
  if (g.terms > glynn_max_terms) {
    throw engine_error(engine_error::kind::too_large, "engine '" + result.engine + "': 2^" +
                                                          std::to_string(static_cast<int>(std::log2(g.terms))) +
                                                          " terms (its rows repeat too little)");
  }
  if (options.precision == precision::exact) {  // any integer matrix, in big integers where needed
    if (const auto why = exact_refusal(matrix, engine, exact_reach::any_integer))
      throw engine_error(engine_error::kind::refused, *why);
  }
  glynn_summing summing;
  summing.threads = result.threads;
  summing.progress = options.progress;
  summing.engine = result.engine;
  const bool exact = matrix.has_integer_values() && options.precision != precision::double_sums &&
                     options.precision != precision::compensated;
  const std::string arithmetic =
      exact ? glynn_exact(g, summer, summing, result) : glynn_floating(g, summer, summing, options.precision, result);
  result.plan = std::to_string(g.rows) + " distinct " + (g.transposed ? "columns" : "rows") + " and " +
                std::to_string(g.columns) + " distinct " + (g.transposed ? "rows" : "columns") + "; " +
                glynn_terms_text(g.terms) + " terms of Glynn's formula in a mixed-radix Gray code; " + arithmetic +
                summing.where;
  result.threads = summing.threads;
  result.seconds.compute =
      summing.device_seconds.value_or(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return result;
}

}  // namespace sparseperm::detail
