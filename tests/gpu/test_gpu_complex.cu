// gpu-sparse on complex matrices: Gaussian integers exactly equal to the reference, complex doubles
// within the bound of the exact Gaussian-rational value (the reference's, whose own bound is added),
// on 120 random matrices; and through auto, a complex matrix never reaches a real-only engine.
#include "gpu_test_main.hpp"

#include <sparseperm/perm.cuh>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "../agreement.hpp"
#include "../engine_options.hpp"
#include "random_matrix.hpp"

namespace sp = sparseperm;

namespace {

sp::sparse_matrix random_complex(sp::random_stream& s, int n, double density, bool integers) {
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (s.uniform() >= density && i != j) continue;
      const auto part = [&] {
        return integers ? static_cast<double>(static_cast<long long>(s.below(7)) - 3) : 1 - 2 * s.uniform();
      };
      const double re = part(), im = part();
      entries.push_back({i, j, re, im});
    }
  }
  return sp::sparse_matrix::from_entries(n, std::move(entries));
}

using test_options::with_engine;

}  // namespace

TEST_CASE("gpu-sparse computes complex permanents: exact Gaussian integers, bounded complex doubles") {
  sp::random_stream s(2018);
  const auto* gpu = &sp::description_of<sp::engines::gpu_sparse>;
  const auto* reference = &sp::description_of<sp::engines::reference>;
  int exact = 0, bounded = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = 2 + trial % 19;  // up to 20
    const bool integers = trial % 3 == 0;
    const auto m = random_complex(s, n, 0.35, integers);
    if (!m.is_complex() || sp::maximum_matching(m).size < n) continue;
    for (auto p : {sp::precision::automatic, sp::precision::double_sums}) {
      if (integers && p == sp::precision::double_sums) continue;
      const auto g = sp::compute_permanent(m, with_engine(gpu, p));
      const auto r = sp::compute_permanent(m, with_engine(reference));
      INFO("n = " << n << ": gpu-sparse " << sp::complex_text(g) << ", reference " << sp::complex_text(r) << " ("
                  << g.plan << ")");
      REQUIRE(g.complex);
      if (test_agreement::check_agree(g, r)) {
        ++exact;
      } else {
        ++bounded;
      }
    }
  }
  std::printf("gpu-sparse complex: %d exact results equal, %d error bounds checked\n", exact, bounded);
  CHECK(exact >= 30);
  CHECK(bounded >= 100);
}

TEST_CASE("auto on a complex matrix runs complex engines only") {
  sp::random_stream s(7);
  const auto m = random_complex(s, 24, 0.3, false);
  const auto r = sp::compute_permanent(m);
  CHECK(r.complex);
  for (const auto* e : sp::engine_descriptions()) {
    if (!e->complex_values) CHECK(r.engine.find(e->name) == std::string::npos);
  }
}
