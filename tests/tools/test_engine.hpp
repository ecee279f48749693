#pragma once
// An engine that lives outside the library, registered through the catalog's door: a translation unit
// compiled with -DSPARSEPERM_EXTRA_ENGINES_HEADER="test_engine.hpp" has it in compute, the planner,
// `inspect`, the CLI's --engine and the JSON record, with no change to the library. It is Ryser's
// formula over all 2^n column subsets, no Gray code, in 128-bit integers: independent of every
// engine of the library, and, being priced at nothing, the planner's choice for any block it can run.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <sparseperm/core/engine_error.cuh>
#include <sparseperm/core/result.cuh>
#include <sparseperm/engines/engine.cuh>
#include <sparseperm/matrix/exactness.cuh>
#include <sparseperm/numeric/exact_integer.cuh>

namespace sparseperm {

namespace test_engines {

struct subset_ryser {
  static constexpr std::string_view name = "test-subset-ryser";
  static constexpr std::string_view summary =
      "a test's engine: Ryser's formula over all 2^n column subsets, 128-bit integers";
  static constexpr engine_placement placement = engine_placement::host;
  static constexpr int max_n = 16;
  static constexpr exact_reach exact = exact_reach::within_128_bits;
  static constexpr bool rounds_to_grids = false;

  static std::optional<std::string> refusal(const sparse_matrix& m) {
    if (!m.has_integer_values() || !detail::fits_int128(m, m.n()))
      return std::string("integer matrices within 128 bits only");
    return std::nullopt;
  }

  static permanent_result run(const engine_task& task, const compute_options&) {
    const sparse_matrix& m = task.matrix;
    if (const auto why = refusal(m))
      throw engine_error(engine_error::kind::refused, "engine 'test-subset-ryser': " + *why);
    const int n = m.n();
    __int128 total = 0;
    for (std::uint32_t subset = 0; subset < (std::uint32_t{1} << n); ++subset) {
      __int128 product = 1;
      for (int i = 0; i < n && product != 0; ++i) {
        __int128 row_sum = 0;
        const auto columns = m.row_columns(i);
        const auto values = m.row_values(i);
        for (std::size_t k = 0; k < columns.size(); ++k) {
          if (subset >> columns[k] & 1) row_sum += static_cast<__int128>(values[k]);
        }
        product *= row_sum;
      }
      total += (n - __builtin_popcount(subset)) % 2 ? -product : product;
    }
    permanent_result result;
    result.engine = std::string(name);
    result.n = n;
    result.nnz = m.nnz();
    result.threads = 1;
    set_exact_value(result, 0, "all 2^" + std::to_string(n) + " column subsets, 128-bit integers");
    result.permanent = detail::to_decimal(total);
    result.value = static_cast<double>(total);
    return result;
  }

  static void estimate(const planner_block& block, engine_estimate& e) {
    if (const auto why = refusal(block.matrix)) {
      e.why = *why;
    } else if (block.matrix.n() > 12) {
      e.why = "priced only up to n = 12";
    } else {
      e.seconds = 0;
    }
  }
};

}  // namespace test_engines

using extra_engines = engine_list<test_engines::subset_ryser>;

}  // namespace sparseperm
