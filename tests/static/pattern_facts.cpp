// Static tests of the compile-time matrix types (pattern.cuh) and the plans built from them (building
// this file is passing; the Boost.Hana views are examples/matrix_as_types.cpp's).
#include <sparseperm/matrix/exactness.cuh>
#include <sparseperm/matrix/pattern.cuh>
#include <sparseperm/ryser/hybrid_loop.cuh>
#include <sparseperm/ryser/purereg_loop.cuh>
#include <sparseperm/ryser/ryser_plan.cuh>
#include <sparseperm/structure/structural_rank.cuh>

namespace sp = sparseperm;

// [[1 2]
//  [3 4]]  column-major values 1, 3 | 2, 4
struct two_by_two {
  using pattern = sp::pattern<2, sp::column<0, 1>, sp::column<0, 1>>;
  static constexpr double values[] = {1, 3, 2, 4};
};
// A 3×3 pattern without a perfect matching: rows 0 and 1 can only use column 0.
struct singular {
  using pattern = sp::pattern<3, sp::column<0, 1>, sp::column<2>, sp::column<2>>;
  static constexpr double values[] = {1, 1, 1, 1};
};
// The 4-cycle path (a symmetric pattern of 0/1 values) and real values.
struct real_path {
  using pattern = sp::pattern<4, sp::column<0, 1>, sp::column<0, 2>, sp::column<1, 3>, sp::column<2, 3>>;
  static constexpr double values[] = {0.5, -1.25, 2, 0.75, 3, 1, 0.125, 4};
};

static_assert(sp::CompileTimeMatrix<two_by_two> && sp::CompileTimeMatrix<singular> && sp::CompileTimeMatrix<real_path>);
struct no_values {
  using pattern = sp::pattern<1, sp::column<0>>;
};
struct wrong_count {
  using pattern = sp::pattern<1, sp::column<0>>;
  static constexpr double values[] = {1, 2};
};
static_assert(!sp::CompileTimeMatrix<no_values> && !sp::CompileTimeMatrix<wrong_count> && !sp::CompileTimeMatrix<int>);

static_assert(sp::column<1, 4, 7>::size == 3 && sp::column<1, 4, 7>::max_row == 7 && sp::column<>::max_row == -1);
static_assert(two_by_two::pattern::n == 2 && two_by_two::pattern::nnz == 4 && real_path::pattern::nnz == 8);

// The constants: CSC arrays, values in column-major order.
constexpr auto& a = sp::constants_of<two_by_two>;
static_assert(a.start[0] == 0 && a.start[1] == 2 && a.start[2] == 4);
static_assert(a.rows[0] == 0 && a.rows[1] == 1 && a.rows[2] == 0 && a.rows[3] == 1);
static_assert(a.values[1] == 3 && a.values[2] == 2);
static_assert(a.integer_values() && !sp::constants_of<real_path>.integer_values());
static_assert(a.masks().rows[0] == 0b11 && sp::constants_of<singular>.masks().rows[2] == 0b100);

// Structure at compile time.
static_assert(sp::structural_rank(sp::constants_of<two_by_two>.masks()) == 2);
static_assert(sp::structural_rank(sp::constants_of<singular>.masks()) == 2);
static_assert(sp::structural_rank(sp::constants_of<real_path>.masks()) == 4);

// Plans. Double: x_0 = a(:, n−1) − rowsum/2 = (2 − 1.5, 4 − 3.5). Exact: doubled to (1, 1).
using double_plan = sp::purereg_plan<two_by_two, sp::double_arithmetic>;
static_assert(double_plan::data.x0[0] == 0.5 && double_plan::data.x0[1] == 0.5 && double_plan::start_term == 0.25);
static_assert(sp::fits_exact_arithmetic<two_by_two>() && !sp::fits_exact_arithmetic<real_path>());
// the default: the cheapest exact arithmetic for integer matrices (residues first), double otherwise
static_assert(std::is_same_v<sp::automatic_arithmetic<two_by_two>, sp::residue_arithmetic<1>>);
static_assert(std::is_same_v<sp::automatic_arithmetic<real_path>, sp::double_arithmetic>);
using exact_plan = sp::purereg_plan<two_by_two, sp::exact_arithmetic>;
static_assert(exact_plan::data.x0[0] == 1 && exact_plan::data.x0[1] == 1 && exact_plan::data.values[0] == 2);
// --precision exact: residues (one prime holds |perm| ≤ 4·... here), none for real values; the
// start term's residue is Π 2x_0 = 1.
static_assert(std::is_same_v<sp::exact_arithmetic_of<two_by_two>, sp::residue_arithmetic<1>>);
static_assert(std::is_void_v<sp::exact_arithmetic_of<real_path>>);
static_assert(sp::purereg_plan<two_by_two, sp::residue_arithmetic<2>>::start_term.r[1] == 1);
static_assert(sp::detail::primes_for_bits(22) == 1 && sp::detail::primes_for_bits(23.5) == 2 &&
              sp::detail::primes_for_bits(397) == 16);

// Reordered plans keep every nonzero, rows ascending in each column, and Hybrid's register columns
// touch register rows only.
template <class Plan>
constexpr bool plan_is_consistent() {
  for (int j = 0; j < Plan::n; ++j) {
    for (int e = Plan::data.start[j] + 1; e < Plan::data.start[j + 1]; ++e) {
      if (Plan::data.rows[e] <= Plan::data.rows[e - 1]) return false;
    }
  }
  return Plan::data.start[Plan::n] == Plan::matrix::pattern::nnz;
}
using hybrid = sp::hybrid_plan<real_path, sp::double_arithmetic>;
static_assert(plan_is_consistent<hybrid>() && plan_is_consistent<sp::purereg_plan<real_path, sp::double_arithmetic>>());
static_assert(hybrid::k >= 0 && hybrid::k <= 4 && hybrid::c <= 2 && hybrid::global_rows == 4 - hybrid::k);
static_assert([] {
  for (int j = 0; j <= hybrid::c; ++j) {
    for (int e = hybrid::data.start[j]; e < hybrid::data.start[j + 1]; ++e) {
      if (hybrid::data.rows[e] >= hybrid::k) return false;
    }
  }
  return true;
}());
