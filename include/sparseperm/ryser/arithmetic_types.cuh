#pragma once
// The Ryser engines' side of the arithmetic vocabulary (numeric/value_types.cuh):
//
//   product_type_of<Arith>     the product of x a run-time engine takes (sparse_ryser.cuh): plain,
//                              or modulo the primes of residue_arithmetic<K>
//   choose_ryser_arithmetic    what a precision runs in a run-time Ryser engine (cpu-sparse,
//                              gpu-sparse) at its site, --precision exact refused first where the
//                              engine cannot keep it (matrix/exactness.cuh)
#include <string_view>

#include "../core/engine_error.cuh"
#include "../matrix/exactness.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/arithmetic.cuh"
#include "../numeric/value_types.cuh"
#include "sparse_ryser.cuh"

namespace sparseperm::detail {

template <class Arith>
struct product_type_of_types {
  using type = plain_product;
};
template <int K>
struct product_type_of_types<residue_arithmetic<K>> {
  using type = residue_product<K>;
};
template <class Arith>
using product_type_of = typename product_type_of_types<Arith>::type;

// What precision p runs for `matrix` in a Ryser engine at a site (arithmetic_for), --precision
// exact refused first where the engine cannot keep it.
inline arithmetic_choice choose_ryser_arithmetic(const sparse_matrix& matrix, precision p, std::string_view engine,
                                                 arithmetic_site site) {
  if (p == precision::exact) {
    if (const auto why = exact_refusal(matrix, engine, exact_reach::within_128_bits_or_residues)) {
      throw engine_error(engine_error::kind::refused, *why);
    }
  }
  return arithmetic_for(p, exact_candidates_of(matrix, is_runtime(site)), site);
}

}  // namespace sparseperm::detail
