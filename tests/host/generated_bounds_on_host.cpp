// Cancelling matrix types (tests/generated: dense, full 53-bit values in [−1, 1), real n = 4..14 and
// complex n = 4..12; one of four parts, SPARSEPERM_CANCELLING_PART) through the generated loops in
// double-double: gpu-cached's loop as GPU threads run it (its cost model's layout, and on one share of
// two b = 1 with every row in global memory) and cpu-cached as the library runs it. Every bound
// contains the exact permanent (big integers: exact_dyadic.hpp) and certifies digits; double's
// bounds contain it too, where they certified nothing before row sums were split.
#include <doctest/doctest.h>

#include <sparseperm/engines/cpu_cached.cuh>
#include <sparseperm/module/codegen.cuh>
#include <sparseperm/permanent_cpu.cuh>

#include <algorithm>
#include <string>
#include <vector>

#include "generated_loops.hpp"

#include "../exact_dyadic.hpp"
#include "../generated/random_matrices.hpp"

namespace sp = sparseperm;
using namespace test_generated;

namespace {

struct tally {
  int matrices = 0, checked = 0;
  std::vector<int> double_double_digits;
  void check(const sp::permanent_result& r, const exact_dyadic::exact_complex& exact, bool double_double) {
    CAPTURE(r.plan);
    REQUIRE_FALSE(r.exact);
    REQUIRE(r.error_bound.has_value());
    const double error = exact_dyadic::error_of(r, exact);
    CAPTURE(error);
    CAPTURE(*r.error_bound);
    CHECK(error <= *r.error_bound);
    ++checked;
    if (double_double) double_double_digits.push_back(sp::trusted_digits(r).value_or(0));
  }
};

template <class M>
void check_matrix(tally& t) {
  const sp::sparse_matrix m = sp::to_sparse_matrix<M>();
  const exact_dyadic::exact_complex exact = exact_dyadic::exact_complex_permanent(m);
  INFO(std::string(M::name) << ": n = " << m.n() << (m.is_complex() ? ", complex" : ", real"));
  ++t.matrices;
  using dd = sp::detail::generated_arithmetic<M, sp::precision::double_double>;
  static_assert(sp::detail::is_double_double_arithmetic<dd>);
  t.check(run_cached<sp::cached_plan<M, dd>>(8, 1024), exact, true);
  if constexpr (runs_share<M>(1, 2)) t.check(run_cached<sp::cached_plan<M, dd, 1, 0>>(8, 2), exact, true);
  t.check(sp::permanent_cpu_cached<M, sp::precision::double_double>({.threads = 2}), exact, true);
  t.check(run_cached<sp::cached_plan<M, sp::floating_arithmetic_of<M>>>(8, 1024), exact, false);
}

}  // namespace

TEST_CASE("cancelling matrix types: double-double in the generated loops, bounds that hold and certify digits") {
  tally t;
  FOR_EACH_CANCELLING_MATRIX([&]<class M>() { check_matrix<M>(t); });
  MESSAGE("cancelling matrices: " << t.matrices << ", results checked: " << t.checked);
  CHECK(t.matrices == 50);
  std::sort(t.double_double_digits.begin(), t.double_double_digits.end());
  REQUIRE(!t.double_double_digits.empty());
  const int median = t.double_double_digits[t.double_double_digits.size() / 2];
  MESSAGE("double-double: median " << median << " certified digits, least " << t.double_double_digits.front());
  // the a-priori bounds through perm(|A|) certified none of them; split row sums and double-double
  // products leave only the sums' and products' 2^-100 or so against cancellation of at most 10^6
  CHECK(median >= 14);
  CHECK(t.double_double_digits.front() >= 10);
}
