#pragma once
// compute_options that name one engine of the catalog (and a precision): the tests' usual request.
#include <sparseperm/compute.cuh>

namespace test_options {

inline sparseperm::compute_options with_engine(const sparseperm::engine_description* engine,
                                               sparseperm::precision p = sparseperm::precision::automatic) {
  sparseperm::compute_options options;
  options.engine = sparseperm::engine_choice(engine);
  options.precision = p;
  return options;
}

}  // namespace test_options
