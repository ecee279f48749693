#pragma once
// Sizes, counts and times for people: results, plans, `inspect`.
#include <cmath>
#include <cstdio>
#include <string>

namespace sparseperm::detail {

inline std::string format_bytes(double bytes) {
  char buffer[40];
  if (bytes < 1 << 20)
    std::snprintf(buffer, sizeof buffer, "%.0f KiB", bytes / 1024);
  else if (bytes < 1ull << 30)
    std::snprintf(buffer, sizeof buffer, "%.1f MiB", bytes / (1 << 20));
  else if (bytes < 0x1p50)
    std::snprintf(buffer, sizeof buffer, "%.1f GiB", bytes / (1ull << 30));
  else if (std::isfinite(bytes))
    std::snprintf(buffer, sizeof buffer, "%.2g bytes", bytes);
  else
    std::snprintf(buffer, sizeof buffer, "more than 1e308 bytes");
  return buffer;
}

// A count that may be astronomical (predicted states, transitions): %.3g, never a conversion to an
// integer type that could overflow.
inline std::string format_count(double count) {
  if (!std::isfinite(count)) return "more than 1e308";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", count);
  return buffer;
}

inline std::string format_seconds(double s) {
  char buffer[32];
  if (s < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.1e s", s);
  else if (s < 1e5)
    std::snprintf(buffer, sizeof buffer, "%.3g s", s);
  else
    std::snprintf(buffer, sizeof buffer, "%.1e s (%.3g days)", s, s / 86400);
  return buffer;
}

// A duration for people: "40 s", "12.5 minutes", "24 hours", "2.9 days", "1.3e+04 years".
inline std::string format_duration(double s) {
  char buffer[48];
  if (!std::isfinite(s)) return "no limit";
  if (s < 120)
    std::snprintf(buffer, sizeof buffer, "%.3g s", s);
  else if (s < 7200)
    std::snprintf(buffer, sizeof buffer, "%.3g minutes", s / 60);
  else if (s < 172800)
    std::snprintf(buffer, sizeof buffer, "%.3g hours", s / 3600);
  else if (s < 3.15576e9)
    std::snprintf(buffer, sizeof buffer, "%.3g days", s / 86400);
  else
    std::snprintf(buffer, sizeof buffer, "%.3g years", s / 3.15576e7);
  return buffer;
}

}  // namespace sparseperm::detail
