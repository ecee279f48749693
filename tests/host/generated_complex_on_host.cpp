// Complex matrix types through the generated engines' loops on the host: gpu-purereg, gpu-hybrid
// and gpu-cached (its cost model's layout, in chunks of 2 and 1024 steps) as GPU threads run them,
// and cpu-cached as the library runs it; on one share of two each (random_share: each holds every
// size, in Gaussian integers and dyadic values), gpu-purereg's static blocks of 4 steps and
// cpu-cached's plain double sums, and on the other gpu-cached's forced b = 1 with every row in global
// memory and cpu-cached's explicit precision::exact. Gaussian integers exact (128-bit Gaussian
// integers) and equal to a big-integer subset DP; complex doubles, the Gaussian integers in complex
// doubles, and gpu-cached's loop in double-double (its levels above the blocks in global memory),
// within their bounds of the exact Gaussian-rational permanent. One of the four
// parts (SPARSEPERM_COMPLEX_PART) of the 112 complex matrices make_random_matrices writes.
#include <doctest/doctest.h>

#include <sparseperm/engines/cpu_cached.cuh>
#include <sparseperm/module/codegen.cuh>
#include <sparseperm/permanent_cpu.cuh>

#include "generated_loops.hpp"

#include "../complex_reference.hpp"

#include "../generated/random_matrices.hpp"

namespace sp = sparseperm;
using namespace test_generated;
using namespace test_complex;

namespace {

struct tally {
  int matrices = 0, exact = 0, bounded = 0, upper_levels = 0;
  int expected_exact = 0, expected_bounded = 0;  // the results the loops and calls below give
};

// The loops of one arithmetic, each result through `check`: the library's layouts, and the forced
// one of M's share. Returns how many results it checked.
template <class M, class Arith, class Check>
int run_loops(const Check& check) {
  check(run_purereg<sp::purereg_plan<M, Arith>>(8));
  check(run_hybrid<sp::hybrid_plan<M, Arith>>(8));
  check(run_cached<sp::cached_plan<M, Arith>>(8, 2));
  check(run_cached<sp::cached_plan<M, Arith>>(8, 1024));
  if constexpr (runs_share<M>(0, 2)) check(run_purereg<sp::purereg_plan<M, Arith, 2>>(8));
  if constexpr (runs_share<M>(1, 2)) check(run_cached<sp::cached_plan<M, Arith, 1, 0>>(8, 1024));
  return 4 + runs_share<M>(0, 2) + runs_share<M>(1, 2);
}

template <class M>
void check_matrix(tally& t) {
  static_assert(sp::is_complex_matrix<M>, "make_random_matrices writes complex matrices");
  constexpr int n = M::pattern::n;
  const sp::sparse_matrix m = sp::to_sparse_matrix<M>();
  REQUIRE(m.is_complex());
  const bool integers = m.has_integer_values();
  const int bits = integers ? 0 : value_bits;
  const gaussian exact = exact_scaled_permanent(m, std::ldexp(1.0, bits));
  INFO(std::string(M::name) << ": n = " << n << ", " << m.nnz() << " nonzeros, "
                            << (integers ? "Gaussian integers" : "dyadic"));
  ++t.matrices;
  const auto bounded = [&](const sp::permanent_result& r) {
    CHECK_FALSE(r.exact);
    check_contains(r, exact, n, bits);
    ++t.bounded;
  };
  if constexpr (sp::constants_of<M>.integer_values()) {
    using gaussian_plan_arith = sp::automatic_arithmetic<M>;
    static_assert(std::is_same_v<gaussian_plan_arith, sp::gaussian_exact_arithmetic>,
                  "small Gaussian integers are exact in 128 bits");
    t.expected_exact += run_loops<M, gaussian_plan_arith>([&](const sp::permanent_result& r) {
      check_exact(r, exact);
      ++t.exact;
    });
    check_exact(sp::permanent_cpu_cached<M>({.threads = 2}), exact);
    if constexpr (runs_share<M>(1, 2))
      check_exact(sp::permanent_cpu_cached<M, sp::precision::exact>({.threads = 2}), exact);
  }
  t.expected_bounded += run_loops<M, sp::complex_double_arithmetic>(bounded);
  bounded(sp::permanent_cpu_cached<M, sp::precision::compensated>({.threads = 2}));
  ++t.expected_bounded;
  if constexpr (runs_share<M>(0, 2)) {
    bounded(sp::permanent_cpu_cached<M, sp::precision::double_sums>({.threads = 1}));
    ++t.expected_bounded;
  }
  // double-double: gpu-cached keeps levels above its blocks in global memory (its layout, and b = 1
  // with every row there, where the most levels are kept)
  using dd = sp::detail::generated_arithmetic<M, sp::precision::double_double>;
  static_assert(sp::detail::is_double_double_arithmetic<dd>);
  using forced = sp::cached_plan<M, dd, 1, 0>;
  bounded(run_cached<sp::cached_plan<M, dd>>(8, 2));
  bounded(run_cached<forced>(8, 1024));
  t.expected_bounded += 2;
  t.upper_levels += forced::upper > 0;
}

}  // namespace

TEST_CASE("complex matrix types: the generated loops exact for Gaussian integers and bounded for complex doubles") {
  tally t;
  FOR_EACH_COMPLEX_MATRIX([&]<class M>() { check_matrix<M>(t); });
  MESSAGE("complex matrices: " << t.matrices << ", exact loop results: " << t.exact << ", bounded: " << t.bounded);
  CHECK(t.matrices == 28);
  // each of the 14 Gaussian-integer matrices gives its 4 loops, the loop of its share and more
  CHECK(t.exact == t.expected_exact);
  CHECK(t.exact >= (full_sweep ? 6 : 5) * 14);
  CHECK(t.bounded == t.expected_bounded);
  CHECK(t.bounded >= (full_sweep ? 10 : 8) * 28);
  MESSAGE("double-double plans with levels in global memory: " << t.upper_levels);
  CHECK(t.upper_levels >= 7);
}
