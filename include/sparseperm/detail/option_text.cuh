#pragma once
// Settings as text, one value at a time: the pieces of settings.cuh's options_from_text, which the
// tool's other options use too. A mistake is std::invalid_argument naming the option as the caller
// shows it ("option '--threads': 'two' is not a whole number").
//
//   whole_number, real_number   a number within bounds
//   duration                    seconds: "90m", "36h", "7d", or "none" (infinity)
//   list_items                  "a,b,c" → {"a", "b", "c"}
//   device_list                 "all", "split" or device numbers; devices asked of a machine without
//                               one are engine_error(unavailable)
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

#include "../core/engine_error.cuh"

namespace sparseperm {

// Where settings come from: how messages name an option ("--" before its name on the command line,
// nothing in Python), the CUDA devices present, and under MPI this rank's place among its host's ranks.
struct setting_source {
  std::string option_prefix = "--";
  int devices_present = 0;
  int host_rank = 0, host_ranks = 1;
};

namespace detail {

inline std::string option_text(std::string_view option) { return "option '" + std::string(option) + "': "; }

// `text` as a whole number in [low, high]; `option` is the option as messages show it.
inline std::int64_t whole_number(std::string_view option, const std::string& text, std::int64_t low,
                                 std::int64_t high) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty())
    throw std::invalid_argument(option_text(option) + "'" + text + "' is not a whole number");
  if (value < low || value > high) {
    throw std::invalid_argument(option_text(option) + text + " is outside [" + std::to_string(low) + ", " +
                                std::to_string(high) + "]");
  }
  return value;
}

inline double real_number(std::string_view option, const std::string& text, double low, double high) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty() || !(value == value))
    throw std::invalid_argument(option_text(option) + "'" + text + "' is not a number");
  if (!(value >= low && value <= high)) {
    throw std::invalid_argument(option_text(option) + text + " is outside [" + std::to_string(low) + ", " +
                                std::to_string(high) + "]");
  }
  return value;
}

// Seconds: a positive number with a unit s, m, h or d ("90m", "24h", "7d"), or "none" (infinity).
inline double duration(std::string_view option, const std::string& text) {
  if (text == "none") return std::numeric_limits<double>::infinity();
  static constexpr std::pair<char, double> units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  if (text.size() >= 2) {
    for (const auto& [unit, seconds] : units) {
      if (text.back() != unit) continue;
      double value = 0;
      const char* last = text.data() + text.size() - 1;
      const auto [end, error] = std::from_chars(text.data(), last, value);
      if (error == std::errc{} && end == last && value > 0 && std::isfinite(value)) return value * seconds;
    }
  }
  throw std::invalid_argument(option_text(option) + "'" + text +
                              "' is not a duration (a positive number with s, m, h or d, e.g. 36h; or none)");
}

// "a,b,c" → {"a", "b", "c"}; empty items are refused.
inline std::vector<std::string> list_items(std::string_view option, const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    if (item.empty()) throw std::invalid_argument(option_text(option) + "empty item in '" + text + "'");
    items.push_back(std::move(item));
    if (comma == text.size()) return items;
    start = comma + 1;
  }
}

// compute_options::devices from text: "all" (the devices present), "split" (this rank's share of
// them: device d where d mod host_ranks is host_rank; a device a rank when there are more ranks than
// devices) or device numbers in [0, 1023]. A device named twice runs two queues of chunks on it (the
// multi-device path on one GPU, as tests use it).
inline std::vector<int> device_list(std::string_view option, const std::string& text, const setting_source& where) {
  if (text == "all" || text == "split") {
    if (where.devices_present <= 0) {
      throw engine_error(engine_error::kind::unavailable,
                         option_text(option) + "'" + text + "', but there is no CUDA device");
    }
    if (text == "split" && where.host_ranks > where.devices_present) return {where.host_rank % where.devices_present};
    std::vector<int> devices;
    for (int d = 0; d < where.devices_present; ++d)
      if (text == "all" || d % where.host_ranks == where.host_rank) devices.push_back(d);
    return devices;
  }
  std::vector<int> devices;
  for (const std::string& item : list_items(option, text)) {
    if (item == "all" || item == "split") {
      throw std::invalid_argument(option_text(option) + "'" + item + "' stands alone, not in a list of devices ('" +
                                  text + "')");
    }
    int device = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), device);
    if (error != std::errc{} || end != item.data() + item.size()) {
      throw std::invalid_argument(option_text(option) + "'" + item + "' is not 'all', 'split' or a device number");
    }
    if (device < 0 || device > 1023) throw std::invalid_argument(option_text(option) + item + " is outside [0, 1023]");
    devices.push_back(device);
  }
  return devices;
}

}  // namespace detail

}  // namespace sparseperm
