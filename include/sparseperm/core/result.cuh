#pragma once
// The result record every engine returns.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "engine_error.cuh"

namespace sparseperm {

struct phase_seconds {
  double plan = 0;     // structural checks, orderings, engine choice
  double codegen = 0;  // writing a matrix-specific header
  double compile = 0;  // compiling it
  double compute = 0;  // the engine's own work
  double total = 0;    // wall time of the whole call
};

// permanent_result::engine when the structure alone decided the permanent (0 x 0, no perfect matching).
inline constexpr std::string_view structure_engine_name = "structure";

struct permanent_result {
  double value = 0;                   // the permanent (its real part when complex), rounded to a double
  std::string permanent;              // exact decimal integer when `exact`, otherwise value in %.17g
  bool exact = false;                 // computed in exact integer arithmetic
  std::optional<double> error_bound;  // floating results: a proven bound on |value − permanent|
                                      // (complex: on the modulus of the difference)
  bool complex = false;               // a complex matrix's permanent: its imaginary part below
  double imag = 0;
  std::string permanent_imag;  // as `permanent`
  std::string engine;
  int n = 0;
  std::int64_t nnz = 0;
  int threads = 1;               // CPU threads, or GPU threads per launch
  int registers_per_thread = 0;  // GPU engines: what the compiler gave the kernel
  phase_seconds seconds;
  std::string plan;  // what was done, for people and `inspect`
  // Beyond double's range (a floating result; scale_exponent 0 for every other): the permanent is
  // (scaled_value + i·scaled_imag) · 2^scale_exponent, within scaled_error_bound · 2^scale_exponent,
  // and `permanent` (and `permanent_imag`) write it in decimal with its exponent
  // (1.23456789012345e+317); value and imag stay the nearest doubles (0, a subnormal or ±inf) and
  // error_bound a bound that holds for them.
  std::int64_t scale_exponent = 0;
  double scaled_value = 0;
  double scaled_imag = 0;  // complex results: the imaginary part at the same scale
  double scaled_error_bound = 0;
};

// "%.17g": enough digits to read back the same double. std::to_chars writes what printf would,
// several times faster (a batch formats one value a matrix).
inline std::string format_double(double value) {
  char buffer[40];
  const std::to_chars_result written =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, 17);
  return std::string(buffer, written.ptr);
}

// m · 2^e as a decimal mantissa of `digits` significant digits ("1.23456789012345") and its power
// of ten, for magnitudes beyond double's range; m = 0 gives ("0", 0). long double carries log10: 15
// digits stay exact for |e| up to about 10^4 (a permanent of n ≤ 64 entries scaled near 1 is far
// within that).
struct decimal_parts {
  std::string mantissa;
  std::int64_t power = 0;
};

inline decimal_parts scaled_decimal_parts(double m, std::int64_t e, int digits = 15) {
  if (m == 0) return {"0", 0};
  const long double log10_magnitude =
      std::log10(static_cast<long double>(std::fabs(m))) + static_cast<long double>(e) * 0.30102999566398119521L;
  std::int64_t power = static_cast<std::int64_t>(std::floor(log10_magnitude));
  long double mantissa = std::pow(10.0L, log10_magnitude - static_cast<long double>(power));
  char text[64];
  std::snprintf(text, sizeof text, "%.*Lf", digits - 1, mantissa);
  if (text[0] == '1' && text[1] == '0') {  // rounded up to 10.000…
    ++power;
    std::snprintf(text, sizeof text, "%.*Lf", digits - 1, mantissa / 10);
  }
  return {std::string(m < 0 ? "-" : "") + text, power};
}

// m · 2^e in decimal with its power of ten ("1.23456789012345e+317").
inline std::string scaled_decimal(double m, std::int64_t e, int digits = 15) {
  const decimal_parts d = scaled_decimal_parts(m, e, digits);
  if (d.mantissa == "0") return d.mantissa;
  return d.mantissa + "e" + (d.power < 0 ? "-" : "+") + std::to_string(d.power < 0 ? -d.power : d.power);
}

// A result's error bound as text: "%.2g", or with its exponent beyond double's range.
inline std::string error_bound_text(const permanent_result& r) {
  if (!r.error_bound) return "";
  if (r.scale_exponent != 0) return scaled_decimal(r.scaled_error_bound, r.scale_exponent, 2);
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", *r.error_bound);
  return text;
}

// An exact result known without an engine run (the 0×0 matrix: 1; no perfect matching: 0).
inline void set_exact_value(permanent_result& result, long long value, std::string plan) {
  result.value = static_cast<double>(value);
  result.permanent = std::to_string(value);
  result.exact = true;
  result.plan = std::move(plan);
  if (result.complex) {
    result.imag = 0;
    result.permanent_imag = std::to_string(0);  // (a literal here trips a false -Wrestrict in g++ 12)
  }
}

// The permanents Ryser's and Glynn's formulas do not reach: the 0×0 matrix's (1), and one with an
// empty row or column (0).
inline void set_trivial_value(permanent_result& result, int n) {
  set_exact_value(result, n == 0 ? 1 : 0, n == 0 ? "empty matrix" : "an empty row or column");
}

// The errors of floating numbers that overflowed (Inf or NaN): never a number. engine: the result's.
inline void check_finite_value(double value, std::string_view engine) {
  if (!std::isfinite(value)) {
    throw engine_error(engine_error::kind::overflow,
                       "the permanent is not finite in double precision (" + format_double(value) +
                           "): the values are too large for engine '" + std::string(engine) + "'");
  }
}
inline void check_finite_imaginary_part(double imag, std::string_view engine) {
  if (!std::isfinite(imag)) {
    throw engine_error(engine_error::kind::overflow,
                       "the permanent's imaginary part is not finite in double "
                       "precision: the values are too large for engine '" +
                           std::string(engine) + "'");
  }
}
inline void check_finite_bound(double bound, std::string_view engine) {
  if (!std::isfinite(bound)) {
    throw engine_error(engine_error::kind::overflow,
                       "engine '" + std::string(engine) +
                           "': the error bound is not finite in double precision (magnitudes "
                           "beyond its range): the result cannot be certified");
  }
}

// A complex result's imaginary part: exact (a decimal integer) or floating (finite, else an error).
inline void set_imaginary_part(permanent_result& result, double imag, std::string decimal = "") {
  if (decimal.empty()) check_finite_imaginary_part(imag, result.engine);
  result.complex = true;
  result.imag = imag;
  result.permanent_imag = decimal.empty() ? format_double(imag) : std::move(decimal);
}

// "a + bi" (or "a - bi") of a complex result's strings.
inline std::string complex_text(const permanent_result& r) {
  if (!r.complex) return r.permanent;
  const bool negative = !r.permanent_imag.empty() && r.permanent_imag.front() == '-';
  return r.permanent + (negative ? " - " : " + ") + (negative ? r.permanent_imag.substr(1) : r.permanent_imag) + "i";
}

// A floating result; one that overflowed (Inf or NaN) is an error, never a number.
inline void set_floating_value(permanent_result& result, double value) {
  check_finite_value(value, result.engine);
  result.value = value;
  result.permanent = format_double(value);
  result.exact = false;
}

// A floating result's error bound; one that is not finite (magnitudes beyond double) is an error.
inline void set_error_bound(permanent_result& result, double bound) {
  check_finite_bound(bound, result.engine);
  result.error_bound = bound;
}

// A floating result's numbers within double's range, before they become a result's fields and
// strings (a batch keeps them so, set_floating_numbers making the result when it is asked for).
struct floating_numbers {
  double value = 0;
  double imag = 0;  // complex results
  double bound = 0;
  bool complex = false;
};

// The errors set_floating_numbers would throw, in its order.
inline void check_floating_numbers(const floating_numbers& v, std::string_view engine) {
  check_finite_value(v.value, engine);
  if (v.complex) check_finite_imaginary_part(v.imag, engine);
  check_finite_bound(v.bound, engine);
}

inline void set_floating_numbers(permanent_result& result, const floating_numbers& v) {
  set_floating_value(result, v.value);
  if (v.complex) set_imaginary_part(result, v.imag);
  set_error_bound(result, v.bound);
}

// Significant digits of a floating value that its error bound guarantees (0 when the bound reaches
// the value; 17 when it is 0); nothing for exact results.
inline std::optional<int> trusted_digits(const permanent_result& r) {
  if (r.exact || !r.error_bound) return std::nullopt;
  const bool scaled = r.scale_exponent != 0;  // beyond double's range: the scaled pair
  const double bound = scaled ? r.scaled_error_bound : *r.error_bound;
  if (bound == 0) return 17;
  const double magnitude = scaled      ? std::hypot(r.scaled_value, r.scaled_imag)
                           : r.complex ? std::hypot(r.value, r.imag)
                                       : std::fabs(r.value);
  if (!(bound < magnitude)) return 0;
  const double digits = std::floor(-std::log10(bound / magnitude));
  return digits < 0 ? 0 : digits > 17 ? 17 : static_cast<int>(digits);
}

// The published record: the fields every consumer reads (the CLI's JSON, Python's Result, the
// tests), each derived once from a result. for_each_field(r, f) calls f(name, value) in order; a value
// is one of std::string, double (null where not finite), bool, std::int64_t, measured (seconds, six
// digits), std::optional of those (null when empty), or a nested record (phase_seconds,
// scaled_record) whose fields come the same way through its own for_each_field. A field added here
// reaches JSON and Python at once.
//
//   permanent        the exact integer, or %.17g, or beyond double's range the decimal with its
//                    exponent; "a + bi" for a complex matrix
//   value            the permanent as a double; null for complex results and beyond double's range
//   exact            computed in exact integer arithmetic
//   complex, real, imag, real_value, imag_value   complex results only: the parts as text and numbers
//   error_bound      a proven bound on |value − permanent| (complex: on the modulus of the
//                    difference); text beyond double's range; null when exact
//   trusted_digits   the significant digits the bound guarantees; null when exact
//   exponent         beyond double's range: the power of ten of `permanent`; else null
//   engine, n, nnz, threads, registers_per_thread, plan, seconds {plan, codegen, compile, compute, total}
//   scaled           beyond double's range: {value, imag, exponent, error_bound}, the result as
//                    (value + i·imag)·2^exponent within error_bound·2^exponent; else null
struct measured {
  double seconds = 0;
};

namespace detail {
// A published field that may be null (std::optional of a kind above).
template <class T>
inline constexpr bool is_optional_field = false;
template <class T>
inline constexpr bool is_optional_field<std::optional<T>> = true;
}  // namespace detail

struct scaled_record {
  double value = 0, imag = 0;
  std::int64_t exponent = 0;
  double error_bound = 0;
};

template <class F>
void for_each_field(const phase_seconds& s, F&& f) {
  f("plan", measured{s.plan});
  f("codegen", measured{s.codegen});
  f("compile", measured{s.compile});
  f("compute", measured{s.compute});
  f("total", measured{s.total});
}

template <class F>
void for_each_field(const scaled_record& s, F&& f) {
  f("value", s.value);
  f("imag", s.imag);
  f("exponent", s.exponent);
  f("error_bound", s.error_bound);
}

template <class F>
void for_each_field(const permanent_result& r, F&& f) {
  const bool scaled = r.scale_exponent != 0;
  const auto finite = [](double v) { return std::isfinite(v) ? std::optional<double>(v) : std::nullopt; };
  f("permanent", complex_text(r));
  f("value", r.complex || scaled ? std::nullopt : finite(r.value));
  f("exact", r.exact);
  if (r.complex) {
    f("complex", true);
    f("real", r.permanent);
    f("imag", r.permanent_imag);
    f("real_value", finite(r.value));
    f("imag_value", finite(r.imag));
  }
  if (r.error_bound && scaled) {
    f("error_bound", error_bound_text(r));
  } else {
    f("error_bound", r.error_bound);
  }
  const auto digits = trusted_digits(r);
  f("trusted_digits", digits ? std::optional<std::int64_t>(*digits) : std::nullopt);
  // the power of ten of `permanent` beyond double (complex results: `real` and `imag` carry their own)
  f("exponent", scaled && !r.complex
                    ? std::optional<std::int64_t>(scaled_decimal_parts(r.scaled_value, r.scale_exponent).power)
                    : std::nullopt);
  f("engine", r.engine);
  f("n", static_cast<std::int64_t>(r.n));
  f("nnz", r.nnz);
  f("threads", static_cast<std::int64_t>(r.threads));
  f("registers_per_thread", static_cast<std::int64_t>(r.registers_per_thread));
  f("plan", r.plan);
  f("seconds", r.seconds);
  f("scaled", scaled ? std::optional<scaled_record>(
                           scaled_record{r.scaled_value, r.scaled_imag, r.scale_exponent, r.scaled_error_bound})
                     : std::nullopt);
}

}  // namespace sparseperm
