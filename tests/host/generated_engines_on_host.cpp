// The generated engines' per-thread loops (purereg_steps, hybrid_steps, cached_steps), run on the
// host exactly as GPU threads run them: Algorithm 2's launches and aligned chunks, one accumulator per
// thread kept across launches, global rows strided by the thread count; and cpu-cached's host loop on
// OpenMP threads. Every matrix runs the layouts the library chooses (gpu-purereg's and gpu-hybrid's
// largest static Gray blocks, gpu-cached's cost model, permanent_cpu_cached<M>) on 1 and 8 threads.
// The forced layouts run on one share of three each (random_share: every share holds every size and
// value kind): gpu-purereg and gpu-hybrid with no static block, 2 steps and Hybrid's 4 steps (the
// first with step pairs); gpu-cached with b = 0 (no static block), 1, 3 with the fewest register
// rows, and 6 (clamped to n − 1 on small matrices); cpu-cached with b = 1 and 3. gpu-cached runs in
// chunks of 2 steps (no whole block: every step on the run-time path) on 8 threads and of 1024 on
// one. Floating matrices also run gpu-cached's loop in double-double (its levels above the blocks in
// global memory), its layout and on one share of two b = 1 with every row in global memory. Checked
// against the reference engine on the random generated matrices of one part
// (SPARSEPERM_RANDOM_PART), and floating results' error bounds against the exact rational permanent
// (n ≤ 16) or the reference's own bound.
#include <doctest/doctest.h>

#include <sparseperm/engines/cpu_cached.cuh>
#include <sparseperm/engines/dp.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/module/codegen.cuh>
#include <sparseperm/numeric/accumulators.cuh>
#include <sparseperm/permanent_cpu.cuh>
#include <sparseperm/ryser/arithmetic_types.cuh>
#include <sparseperm/ryser/cached_loop.cuh>
#include <sparseperm/ryser/hybrid_loop.cuh>
#include <sparseperm/ryser/purereg_loop.cuh>
#include <sparseperm/ryser/ryser_result.cuh>

#include <array>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

#include "generated_loops.hpp"
#include "test_support.hpp"

#include "../generated/random_matrices.hpp"

namespace sp = sparseperm;
using namespace test_generated;

namespace {

template <class M>
constexpr bool constants_all_positive() {
  for (int k = 0; k < sp::constants_of<M>.nnz; ++k) {
    if (sp::constants_of<M>.values[k] < 0) return false;
  }
  return true;
}

// The shapes of gpu-cached's residue blocks the checks ran through (cached_plan::exact_levels c).
struct residue_shapes {
  int no_exact_level = 0;   // c = 0: every step in residues
  int pairs_only = 0;       // c = 1: sub-blocks of two steps, reduced as a pair
  int exact_pairs = 0;      // 2 ≤ c < b: sub-blocks with exact step pairs inside
  int whole_block = 0;      // c = b ≥ 1: the whole block one exact sum
  int many_sub_blocks = 0;  // b − c ≥ 5: the products gathered into the sum more than once a block

  template <class Plan>
  void record() {
    constexpr int c = Plan::exact_levels;
    if (c == 0) ++no_exact_level;
    if (c == 1 && Plan::b > 1) ++pairs_only;
    if (c >= 2 && c < Plan::b) ++exact_pairs;
    if (c >= 1 && c == Plan::b) ++whole_block;
    if (Plan::b - c >= 5) ++many_sub_blocks;
  }
};

// Exact mode beyond 128 bits: residues modulo the primes the bound asks for, and one more, through
// every generated loop (GPU threads emulated, and cpu-cached's host loop), against the reference:
// the library's layouts on every matrix, forced ones (gpu-cached's blocks of 2 and 64 steps among
// them) on the matrix's share.
template <class M>
void check_residues(const sp::sparse_matrix& runtime, residue_shapes& shapes) {
  // dp's wide integers: exact where the reference's 128 bits are not
  const sp::permanent_result reference = sp::permanent_dp(runtime, 2);
  REQUIRE(reference.exact);
  using res = sp::modular_arithmetic_of<M>;
  using more = sp::residue_arithmetic<res::primes + 1>;
  const auto check = [&](const sp::permanent_result& r) {
    CHECK(r.exact);
    CHECK(r.permanent == reference.permanent);
  };
  using cached = sp::cached_plan<M, res>;
  CAPTURE(cached::b);
  CAPTURE(cached::exact_levels);
  check(run_purereg<sp::purereg_plan<M, res>>(8));
  check(run_cached<cached>(1, 1024));
  check(run_host<sp::cpu_cached_plan<M, res>>(4));
  shapes.record<cached>();
  if constexpr (runs_share<M>(0, 3)) {
    check(run_purereg<sp::purereg_plan<M, more, 0>>(8));
    check(run_hybrid<sp::hybrid_plan<M, more>>(8));
  }
  if constexpr (runs_share<M>(1, 3)) {
    using wide = sp::cached_plan<M, res, 6>;
    CAPTURE(wide::exact_levels);
    check(run_hybrid<sp::hybrid_plan<M, res, 1>>(1));
    check(run_cached<wide>(3, 1024));
    shapes.record<wide>();
  }
  if constexpr (runs_share<M>(2, 3)) {
    using narrow = sp::cached_plan<M, more, 1, 0>;
    check(run_cached<narrow>(8, 2));
    check(run_cached<sp::cached_plan<M, more, 3, 0>>(8, 2));
    shapes.record<narrow>();
  }
}

struct check_matrix {
  int& count;
  int& exact;
  int& residue_checked;
  int& bounds_checked;
  residue_shapes& shapes;
  std::array<int, 3>& shares;  // matrices that ran each share of the forced layouts

  template <class M>
  void operator()() {
    const sp::sparse_matrix runtime = sp::to_sparse_matrix<M>();
    const sp::permanent_result reference = sp::permanent_reference(runtime);
    const sp::permanent_result exact_reference =
        runtime.has_integer_values() ? sp::permanent_dp(runtime, 2) : reference;
    // 128-bit integers where they hold (the default takes residues first: check_residues runs those)
    using arith =
        std::conditional_t<sp::fits_exact_arithmetic<M>(), sp::integer_arithmetic_of<M>, sp::floating_arithmetic_of<M>>;
    static_assert(sp::automatic_arithmetic<M>::exact == !std::is_void_v<sp::exact_arithmetic_of<M>>);
    std::optional<test_support::dyadic> exact_value;
    if (!arith::exact && runtime.n() <= 16) exact_value = test_support::exact_permanent(runtime);
    // One 128-bit bound for the run-time engines and the generated kernels.
    CHECK(sp::detail::fits_int128(runtime, runtime.n() > 0 ? runtime.n() - 1 : 0) == sp::fits_exact_arithmetic<M>());
    using pure = sp::purereg_plan<M, arith>;
    using hybrid = sp::hybrid_plan<M, arith>;
    CAPTURE(M::name);
    CAPTURE(runtime.n());
    CAPTURE(hybrid::k);
    CAPTURE(hybrid::c);
    CAPTURE(pure::u);
    CAPTURE(hybrid::u);
    for (std::uint64_t threads : {1, 8}) {
      const std::uint64_t min_chunk = threads == 1 ? 1024 : 2;
      const int host_threads = static_cast<int>(threads);
      // the library's layouts
      std::vector<sp::permanent_result> results{run_purereg<pure>(threads), run_hybrid<hybrid>(threads),
                                                run_cached<sp::cached_plan<M, arith>>(threads, min_chunk),
                                                sp::permanent_cpu_cached<M>({.threads = host_threads})};
      CHECK(results.back().engine == "cpu-cached");
      // forced ones, a share each: static Gray blocks of none (the per-step loop), 2 and 4 steps
      // (Hybrid's first pairs); gpu-cached's b = 0, 1, 3 (fewest register rows), 6; cpu-cached's b = 1, 3
      if constexpr (runs_share<M>(0, 3)) {
        results.push_back(run_purereg<sp::purereg_plan<M, arith, 0>>(threads));
        results.push_back(run_hybrid<sp::hybrid_plan<M, arith, 1>>(threads));
        results.push_back(run_cached<sp::cached_plan<M, arith, 0>>(threads, min_chunk));
        results.push_back(run_host<sp::cpu_cached_plan<M, arith, 1>>(host_threads));
      }
      if constexpr (runs_share<M>(1, 3)) {
        results.push_back(run_purereg<sp::purereg_plan<M, arith, 1>>(threads));
        results.push_back(run_hybrid<sp::hybrid_plan<M, arith, 2>>(threads));
        results.push_back(run_cached<sp::cached_plan<M, arith, 1>>(threads, min_chunk));
        results.push_back(run_cached<sp::cached_plan<M, arith, 3, 0>>(threads, min_chunk));
      }
      if constexpr (runs_share<M>(2, 3)) {
        results.push_back(run_hybrid<sp::hybrid_plan<M, arith, 0>>(threads));
        results.push_back(run_cached<sp::cached_plan<M, arith, 6>>(threads, min_chunk));
        results.push_back(run_host<sp::cpu_cached_plan<M, arith, 3>>(host_threads));
      }
      // floating values in double-double: gpu-cached's levels above its blocks in global memory (its
      // layout; b = 1 with every row in global memory on a share of two), on 8 threads
      if constexpr (!arith::exact) {
        using dd = sp::detail::generated_arithmetic<M, sp::precision::double_double>;
        static_assert(sp::detail::is_double_double_arithmetic<dd>);
        if (threads == 8) {
          results.push_back(run_cached<sp::cached_plan<M, dd>>(threads, min_chunk));
          if constexpr (runs_share<M>(0, 2))
            results.push_back(run_cached<sp::cached_plan<M, dd, 1, 0>>(threads, min_chunk));
        }
      }
      for (const sp::permanent_result& r : results) {
        if (arith::exact) {
          REQUIRE(reference.exact);
          CHECK(r.exact);
          CHECK(r.permanent == reference.permanent);
        } else if (r.exact) {  // structurally singular, found at compile time (an exact 0), or
                               // cpu-cached's default: residues, exact beyond 128 bits
          CHECK(r.permanent == (exact_reference.exact ? exact_reference.permanent : std::string("0")));
        } else {
          // positive matrices: 1e-10 relative; signed ones (n ≤ 14) and zero permanents (structurally
          // singular): against the size of Ryser's terms
          const double tolerance = constants_all_positive<M>() && reference.value != 0
                                       ? 1e-10 * std::fabs(reference.value)
                                       : 1e-13 * test_support::ryser_absolute_sum(runtime);
          CHECK(std::fabs(r.value - reference.value) <= tolerance);
          // the error bound holds: against the exact rational permanent where it is cheap, else
          // against the reference within both bounds
          REQUIRE(r.error_bound.has_value());
          if (exact_value) {
            CHECK(std::fabs(test_support::difference(r.value, *exact_value)) <= *r.error_bound);
          } else {
            REQUIRE(reference.error_bound.has_value());
            CHECK(std::fabs(r.value - reference.value) <= *r.error_bound + *reference.error_bound);
          }
          ++bounds_checked;
        }
      }
    }
    if constexpr (sp::fits_residue_arithmetic<M>()) {
      check_residues<M>(runtime, shapes);
      ++residue_checked;
    }
    ++count;
    exact += arith::exact;
    for (int s = 0; s < 3; ++s) shares[s] += runs_share<M>(s, 3);
  }
};

}  // namespace

TEST_CASE("generated PureReg, Hybrid, gpu-cached and cpu-cached loops agree with the reference on random matrices") {
  int count = 0, exact = 0, residues = 0, bounds = 0;
  residue_shapes shapes;
  std::array<int, 3> shares{};
  FOR_EACH_RANDOM_MATRIX(check_matrix{count, exact, residues, bounds, shapes, shares});
  MESSAGE("part " << SPARSEPERM_RANDOM_PART << ": " << count << " generated matrices, " << exact
                  << " in exact arithmetic, " << residues << " also in residues; " << bounds
                  << " error bounds checked");
  MESSAGE("gpu-cached residue blocks: " << shapes.no_exact_level << " without exact levels, " << shapes.pairs_only
                                        << " of exact pairs, " << shapes.exact_pairs
                                        << " with exact pairs inside sub-blocks, " << shapes.whole_block
                                        << " exact whole, " << shapes.many_sub_blocks
                                        << " gathered more than once a block");
  MESSAGE("forced layouts: shares of " << shares[0] << ", " << shares[1] << " and " << shares[2] << " matrices");
  if (full_sweep) MESSAGE("the full sweep: every forced layout on every matrix");
  CHECK(count == 32);
  for (const int share : shares) CHECK(share >= (full_sweep ? 32 : 12));
  CHECK(residues >= 10);
}
