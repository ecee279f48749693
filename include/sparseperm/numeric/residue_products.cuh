#pragma once
// Products of x's rows in residue arithmetic (modular.cuh) with as few modular operations as the
// compile-time bounds allow. x holds doubled integers with |X_i| ≤ R_i = Σ_j |a_ij| (the plan's
// x_bound), so a run of rows whose Π R_i is below 2^53 − 2^27 (modular_exact_limit) multiplies
// exactly in plain FP64, one operation a row for all K primes; each run is reduced once per prime (three operations; none when
// its bound is below 2^24, an operand residues accept as it is) and only the runs are joined by
// modular multiplications (four operations a prime). At n = 40, p = 0.5 (R_i ≈ 20) the 40 rows are
// four runs: 36 FP64 multiplications and 24 operations a prime, where row by row took 156 a prime.
//
//   rows_bound<Plan>(lo, hi)        Π R_i over the rows [lo, hi) (a double; +inf compares fine)
//   row_bound<Plan, Lo, Hi>         the same as a constant for device code
//   exact_run_end<Plan, Lo, Hi>     the end of the longest run from Lo that multiplies exactly
//   exact_rows_product<Plan, Lo, Hi>(at)    the run's product, a double (exact: its bound < 2^53)
//   to_residues<K, Bound>(e)        an exact integer e with |e| ≤ Bound::value < 2^53 as K residues
//   residue_rows_product<Plan, Lo, Hi>(at)  Π over [Lo, Hi) as residues, run by run
// `at(std::integral_constant<int, I>{})` gives x's row I (a register, or a global load).
#include <type_traits>

#include "../core/config.cuh"
#include "modular.cuh"

namespace sparseperm::detail {

// Π R_i over the rows [lo, hi) of a plan (constant evaluation only).
template <class Plan>
constexpr double rows_bound(int lo, int hi) {
  double b = 1;
  for (int i = lo; i < hi; ++i) b *= Plan::data.x_bound[i];
  return b;
}

template <class Plan, int Lo, int Hi>
struct row_bound {
  static constexpr double value = rows_bound<Plan>(Lo, Hi);
};

template <class Plan, int Lo, int Hi>
struct exact_run_end {
  static constexpr int value = [] {
    int m = Lo + 1;  // one row always fits: R_i ≤ 2^24
    while (m < Hi && rows_bound<Plan>(Lo, m + 1) < modular_exact_limit) ++m;
    return m;
  }();
};

// Π x[Lo..Hi) in FP64 as a balanced tree (short dependency chains), exact when the bound is below 2^53.
template <class Plan, int Lo, int Hi, class At>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE double exact_rows_product(At at) {
  if constexpr (Hi - Lo <= 0) {
    return 1.0;
  } else if constexpr (Hi - Lo == 1) {
    return static_cast<double>(at(std::integral_constant<int, Lo>{}));
  } else {
    constexpr int mid = Lo + (Hi - Lo) / 2;
    return exact_rows_product<Plan, Lo, mid>(at) * exact_rows_product<Plan, mid, Hi>(at);
  }
}

// An exact integer |e| ≤ Bound::value < 2^53 as residues: as it is below 2^24 (an operand residue
// arithmetic accepts: products stay below 2^50), else reduced once per prime.
template <int K, class Bound>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE residues<K> to_residues(double e) {
  static_assert(Bound::value < modular_exact_limit, "to_residues: the integer must be exact in a double");
  if constexpr (Bound::value <= modular_max_x) {
    return residues<K>(e);
  } else {
    residues<K> r;
    SPARSEPERM_UNROLL
    for (int k = 0; k < K; ++k) r.r[k] = reduce(e, modulus_of(modular_primes[k]));
    return r;
  }
}

template <class Plan, int Lo, int Hi, class At>
SPARSEPERM_HOST_DEVICE inline SPARSEPERM_HOST_INLINE typename Plan::product residue_rows_product(At at) {
  using product = typename Plan::product;
  constexpr int K = Plan::arithmetic::primes;
  if constexpr (Hi - Lo <= 0) {
    return product{1};
  } else {
    constexpr int end = exact_run_end<Plan, Lo, Hi>::value;
    const product run = to_residues<K, row_bound<Plan, Lo, end>>(exact_rows_product<Plan, Lo, end>(at));
    if constexpr (end == Hi) {
      return run;
    } else {
      return run * residue_rows_product<Plan, end, Hi>(at);
    }
  }
}

}  // namespace sparseperm::detail
