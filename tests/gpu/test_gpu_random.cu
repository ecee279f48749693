// Every GPU engine against the reference on the random generated matrices of one part: the
// generated engines through permanent<M, Engine>() (their kernels specialised to each matrix), and
// gpu-sparse on the same matrices at run time. Integer matrices exactly, and again in residues
// (--precision exact) on the generated engines; positive real ones to 1e-10 relative; signed ones
// against the size of Ryser's terms; every floating result's error bound against the exact rational
// permanent (n ≤ 16) or the reference's bound.
#include "gpu_test_main.hpp"

#include <sparseperm/engines/dp.cuh>
#include <sparseperm/engines/gpu_sparse.cuh>
#include <sparseperm/engines/reference.cuh>
#include <sparseperm/module/codegen.cuh>
#include <sparseperm/permanent.cuh>

#include <cmath>
#include <optional>
#include <string>
#include <type_traits>

#include "../host/test_support.hpp"

#include "../generated/random_matrices.hpp"

namespace sp = sparseperm;

namespace {

int bounds_checked = 0;
int residues_checked = 0;
int int128_checked = 0;  // integer matrices the default runs in 128-bit integers (rows beyond 2^24)

// exact: the rational permanent where n ≤ 16 (test_support::exact_permanent), for the error bounds;
// integers: an integer matrix's permanent (the reference's, or dp's beyond 128 bits).
void check_close(const sp::permanent_result& r, const sp::permanent_result& reference, const sp::sparse_matrix& m,
                 const std::optional<test_support::dyadic>& exact, const std::optional<std::string>& integers) {
  CAPTURE(r.engine);
  CAPTURE(r.plan);
  if (r.exact) {
    CHECK(r.permanent == integers.value_or("0"));  // singular reals: an exact 0
    return;
  }
  bool positive = true;
  for (const auto& e : m.entries()) positive = positive && e.value > 0;
  const double tolerance = positive && reference.value != 0 ? 1e-10 * std::fabs(reference.value)
                                                            : 1e-13 * test_support::ryser_absolute_sum(m);
  CHECK(std::fabs(r.value - reference.value) <= tolerance);
  // the error bound holds: against the exact permanent, else against the reference within both bounds
  REQUIRE(r.error_bound.has_value());
  if (exact) {
    CHECK(std::fabs(test_support::difference(r.value, *exact)) <= *r.error_bound);
  } else {
    REQUIRE(reference.error_bound.has_value());
    CHECK(std::fabs(r.value - reference.value) <= *r.error_bound + *reference.error_bound);
  }
  ++bounds_checked;
}

struct check_matrix {
  int& count;
  template <class M>
  void operator()() {
    const sp::sparse_matrix m = sp::to_sparse_matrix<M>();
    const sp::permanent_result reference = sp::permanent_reference(m);
    CAPTURE(M::name);
    CAPTURE(m.n());
    std::optional<test_support::dyadic> exact;
    if (!reference.exact && m.n() <= 16) exact = test_support::exact_permanent(m);
    std::optional<std::string> integers;
    if (m.has_integer_values()) integers = (reference.exact ? reference : sp::permanent_dp(m, 2)).permanent;
    check_close(sp::permanent<M, sp::engines::gpu_purereg>(), reference, m, exact, integers);
    check_close(sp::permanent<M, sp::engines::gpu_hybrid>(), reference, m, exact, integers);
    check_close(sp::permanent<M, sp::engines::gpu_cached>(), reference, m, exact, integers);
    check_close(sp::permanent_gpu_sparse(m), reference, m, exact, integers);
    // plain double sums too (the default for real matrices is compensated)
    if (!m.has_integer_values()) {
      check_close(sp::permanent<M, sp::engines::gpu_cached, sp::precision::double_sums>(), reference, m, exact,
                  integers);
      check_close(sp::permanent_gpu_sparse(m, {.precision = sp::precision::double_sums}), reference, m, exact,
                  integers);
    }
    // Integer matrices are exact by default on every GPU engine wherever an exact arithmetic holds
    // them (the wide ones in 128-bit integers, the others in residues).
    if (m.has_integer_values()) {
      const bool exact_by_default = !std::is_void_v<sp::exact_arithmetic_of<M>>;
      CHECK(sp::permanent<M, sp::engines::gpu_hybrid>().exact == exact_by_default);
      CHECK(sp::permanent_gpu_sparse(m).exact == exact_by_default);
      if (exact_by_default && !sp::fits_residue_arithmetic<M>()) ++int128_checked;
    }
    // --precision exact: residues modulo primes on the generated engines (gpu-cached's exact levels
    // and sub-blocks, the others' exact runs of rows), against the reference's integers
    if constexpr (sp::fits_residue_arithmetic<M>()) {
      // the reference's integers, or dp's wide ones beyond them
      const sp::permanent_result integers = reference.exact ? reference : sp::permanent_dp(m, 2);
      REQUIRE(integers.exact);
      for (const sp::permanent_result& r : {sp::permanent<M, sp::engines::gpu_cached, sp::precision::exact>(),
                                            sp::permanent<M, sp::engines::gpu_purereg, sp::precision::exact>(),
                                            sp::permanent<M, sp::engines::gpu_hybrid, sp::precision::exact>()}) {
        CHECK(r.exact);
        CHECK(r.permanent == integers.permanent);
        ++residues_checked;
      }
    }
    ++count;
  }
};

}  // namespace

TEST_CASE("gpu-purereg, gpu-hybrid, gpu-cached and gpu-sparse agree with the reference on random matrices") {
  int count = 0;
  FOR_EACH_RANDOM_MATRIX(check_matrix{count});
  MESSAGE("part " << SPARSEPERM_RANDOM_PART << ": " << count << " matrices x 4 GPU engines; " << bounds_checked
                  << " error bounds checked; " << residues_checked << " exact results in residues; " << int128_checked
                  << " wide-integer matrices in 128-bit integers by default");
  CHECK(residues_checked >= 30);
  CHECK(int128_checked == 2);
  CHECK(count == 32);
}
