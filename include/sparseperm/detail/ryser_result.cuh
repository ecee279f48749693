#pragma once
// From the Nijenhuis–Wilf sum S = Σ_g (−1)^g Π x_g to the permanent, in either arithmetic:
//   double:  perm = (4(n mod 2) − 2) · S
//   exact:   S is over doubled row sums, so perm = ±S / 2^(n−1); S must be divisible by 2^(n−1),
//            which is checked (a failure would be an engine bug, never rounded away).
//   residues: the same S modulo K primes; perm mod p = ±S·2^−(n−1), then the CRT (modular.cuh).
#include <string>

#include "../engine_error.cuh"
#include "../gray_code.cuh"
#include "../result.cuh"
#include "exact_integer.cuh"
#include "modular.cuh"

namespace sparseperm::detail {

inline void set_ryser_value(permanent_result& result, int n, double sum) { set_floating_value(result, nw_factor(n) * sum); }

#if SPARSEPERM_HAS_INT128
inline void set_ryser_value(permanent_result& result, int n, int128 sum) {
  const int128 scale = int128{1} << (n - 1);
  if (sum % scale != 0) {
    throw engine_error(engine_error::kind::failed,
                       result.engine + ": the exact Nijenhuis-Wilf sum is not divisible by 2^(n-1) (an engine bug)");
  }
  const int128 permanent = (n % 2 == 1 ? 1 : -1) * (sum / scale);
  result.value = static_cast<double>(permanent);
  result.permanent = to_decimal(permanent);
  result.exact = true;
}
#endif

// Residues of the doubled sum modulo the first K primes: the CRT gives the permanent.
template <int K>
void set_ryser_value(permanent_result& result, int n, const residues<K>& sum) {
  const big_integer permanent = permanent_from_residues(std::vector<double>(sum.r, sum.r + K), n);
  result.value = permanent.to_double();
  result.permanent = permanent.to_decimal();
  result.exact = true;
}

}  // namespace sparseperm::detail
