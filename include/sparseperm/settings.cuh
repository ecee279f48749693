#pragma once
// A run's settings from text: the one reading of the CLI's flags and Python's keywords.
//
//   options_from_text(texts, where)   compute_options from the texts given (empty: the default);
//                                     a mistake is std::invalid_argument naming the option as
//                                     `where` shows it ("option '--threads': 'two' is not a whole
//                                     number"); devices asked of a machine without one are
//                                     engine_error(unavailable) (the pieces: detail/option_text.cuh)
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/engine_error.cuh"
#include "detail/option_text.cuh"
#include "engines/catalog.cuh"
#include "engines/engine.cuh"
#include "numeric/arithmetic.cuh"

namespace sparseperm {

// The settings as text, each empty where not given.
struct setting_texts {
  std::string engine;      // "auto" or an engine's name (engine_names())
  std::string precision;   // "auto", "double", "compensated", "double-double" or "exact"
  std::string threads;     // CPU threads, 1 to 4096
  std::string devices;     // "all", "split" or device numbers: device_list
  std::string time_limit;  // a duration: "90m", "36h", "7d", or "none"
  std::string checkpoint;  // a journal file
  std::string digits;      // the digits auto should certify, 1 to 17
};

inline compute_options options_from_text(const setting_texts& texts, const setting_source& where = {}) {
  const auto option = [&](std::string name) {  // Python's keywords have '_' where the tool's flags have '-'
    if (where.option_prefix.empty()) std::replace(name.begin(), name.end(), '-', '_');
    return where.option_prefix + name;
  };
  compute_options options;
  if (!texts.engine.empty() && texts.engine != "auto") {
    const engine_description* engine = find_engine(texts.engine);
    if (engine == nullptr)
      throw std::invalid_argument("unknown engine '" + texts.engine + "' (engines: " + engine_names() + ")");
    options.engine = engine_choice(engine);
  }
  if (!texts.precision.empty()) {
    const auto p = parse_precision(texts.precision);
    if (!p)
      throw std::invalid_argument("unknown precision '" + texts.precision +
                                  "' (auto, double, compensated, double-double or exact)");
    options.precision = *p;
  }
  if (!texts.threads.empty())
    options.threads = static_cast<int>(detail::whole_number(option("threads"), texts.threads, 1, 4096));
  if (!texts.devices.empty()) options.devices = detail::device_list(option("devices"), texts.devices, where);
  if (!texts.time_limit.empty()) options.time_limit_seconds = detail::duration(option("time-limit"), texts.time_limit);
  options.checkpoint = texts.checkpoint;
  if (!texts.digits.empty()) {
    options.digits = static_cast<int>(detail::whole_number(option("digits"), texts.digits, 1, 17));
    if (options.precision != precision::automatic)
      throw std::invalid_argument("option '" + option("digits") + "' is auto's goal: precision '" +
                                  std::string(precision_name(options.precision)) + "' runs as asked");
  }
  return options;
}

}  // namespace sparseperm
