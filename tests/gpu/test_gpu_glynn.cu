// gpu-glynn against glynn on the host and the reference on the expanded matrix: random repeated
// rows and columns of every value kind (exact results equal, floating ones within their bounds),
// a walk long enough for every resident thread to take several tasks, the planner's choice, and the
// refusal beyond 128 bits.
#include "gpu_test_main.hpp"

#include <sparseperm/perm.cuh>
#include <sparseperm/structure/repeated_lines.cuh>

#include <cstdio>
#include <string>
#include <vector>

#include "../agreement.hpp"
#include "../engine_options.hpp"
#include "../host/test_support.hpp"

namespace sp = sparseperm;

namespace {

using test_options::with_engine;

const sp::engine_description* const gpu_glynn = &sp::description_of<sp::engines::gpu_glynn>;
const sp::engine_description* const glynn = &sp::description_of<sp::engines::glynn>;

// A k × k block, each row and column `times` times: `times` photons in each of k modes. Complex
// doubles on a dense block, or Gaussian units (1, −1, i, −i) on a sparse one (a full diagonal), whose
// sums stay within 128 bits.
sp::sparse_matrix photons(int k, int times, std::uint64_t seed, bool gaussian_units) {
  sp::random_stream s(seed);
  std::vector<sp::matrix_entry> entries;
  for (int i = 0; i < k; ++i) {
    for (int j = 0; j < k; ++j) {
      if (gaussian_units) {
        if (i != j && s.uniform() >= 0.2) continue;
        const double unit[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
        const auto& u = unit[s.below(4)];
        entries.push_back({i, j, u[0], u[1]});
      } else {
        const double re = 1 - 2 * s.uniform(), im = 1 - 2 * s.uniform();
        entries.push_back({i, j, re, im});
      }
    }
  }
  const std::vector<int> repeated(static_cast<std::size_t>(k), times);
  return sp::expand_lines(sp::sparse_matrix::from_entries(k, std::move(entries)), repeated, repeated);
}

}  // namespace

TEST_CASE("gpu-glynn equals glynn and the reference on random repeated rows and columns") {
  sp::random_stream s(4141);
  const auto* reference = &sp::description_of<sp::engines::reference>;
  int compared = 0, exact = 0;
  for (int trial = 0; trial < 240; ++trial) {
    const int kind = trial % 4;
    const test_support::repeated_case c = test_support::random_repeated(s, kind, 14);
    const auto m = sp::expand_lines(c.base, c.rows, c.columns);
    if (sp::maximum_matching(m).size < m.n()) continue;
    for (auto p : {sp::precision::automatic, sp::precision::double_sums}) {
      const auto g = sp::compute_permanent(m, with_engine(gpu_glynn, p));
      const auto h = sp::compute_permanent(m, with_engine(glynn, p));
      const auto r = sp::compute_permanent(m, with_engine(reference));
      INFO("kind " << kind << " N = " << m.n() << ": gpu-glynn " << sp::complex_text(g) << " glynn "
                   << sp::complex_text(h) << " reference " << sp::complex_text(r) << " (" << g.plan << ")");
      CHECK(g.engine == "gpu-glynn");
      test_agreement::check_agree(g, h);
      if (p == sp::precision::automatic) exact += test_agreement::check_agree(g, r);
      ++compared;
    }
  }
  std::printf("gpu-glynn random: %d runs against glynn, %d exact results equal to the reference\n", compared, exact);
  CHECK(compared >= 300);
  CHECK(exact >= 60);
}

TEST_CASE("gpu-glynn on long walks: every thread takes several tasks") {
  for (const bool integers : {false, true}) {
    const auto m = photons(14, 2, 77, integers);  // 3^13 · 2 = 3.2e6 terms
    const auto g = sp::compute_permanent(m, with_engine(gpu_glynn));
    const auto h = sp::compute_permanent(m, with_engine(glynn));
    INFO("gpu-glynn " << sp::complex_text(g) << " glynn " << sp::complex_text(h) << " (" << g.plan << ")");
    CHECK(g.exact == integers);
    test_agreement::check_agree(g, h);
    std::printf("gpu-glynn N = 28 (%s): %s, glynn %s\n", integers ? "Gaussian integers" : "complex doubles",
                sp::complex_text(g).c_str(), sp::complex_text(h).c_str());
  }
}

TEST_CASE("the planner takes gpu-glynn for long walks and glynn beyond 128 bits") {
  const auto m = photons(18, 2, 5, false);  // 3^17 · 2 = 2.6e8 terms
  const auto planned = sp::compute_permanent(m);
  CHECK(planned.engine == "gpu-glynn");
  const auto h = sp::compute_permanent(m, with_engine(glynn));
  test_agreement::check_agree(planned, h);
  std::printf("auto N = 36: %s in %.3f s; glynn %.3f s\n", planned.engine.c_str(), planned.seconds.total,
              h.seconds.total);

  const auto all_equal = test_support::dense_matrix(62, 3);  // 62! 3^62: 530 bits
  CHECK_THROWS_AS(sp::compute_permanent(all_equal, with_engine(gpu_glynn)), sp::engine_error);
  const auto r = sp::compute_permanent(all_equal);
  CHECK(r.engine == "glynn");
  CHECK(r.exact);
}
