#pragma once
// What arithmetic a caller asks of an engine (DESIGN §5).
//
//   automatic    exact where it costs nothing extra (integer matrices within the 128-bit bound; dp),
//                otherwise double with compensated sums: the default
//   double_sums  double, plain per-thread sums: the fastest, with an error bound
//   compensated  double, TwoSum per-thread sums and an exact host reduction, with an error bound
//   exact        integer matrices only: 128-bit integers where the bound fits, otherwise residues
//                modulo several primes joined by the Chinese remainder theorem; refused otherwise
#include <optional>
#include <string>
#include <string_view>

namespace sparseperm {

enum class precision { automatic, double_sums, compensated, exact };

inline constexpr std::string_view precision_name(precision p) {
  switch (p) {
    case precision::double_sums: return "double";
    case precision::compensated: return "compensated";
    case precision::exact: return "exact";
    default: return "auto";
  }
}

inline std::optional<precision> parse_precision(std::string_view name) {
  for (precision p : {precision::automatic, precision::double_sums, precision::compensated, precision::exact}) {
    if (precision_name(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace sparseperm
