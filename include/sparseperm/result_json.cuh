#pragma once
// The result record as JSON, the contract of `sparseperm compute --json` (other tools read it): the
// published fields of core/result.cuh's for_each_field, in its order, then `file`.
//
// A real record has permanent (string: the exact integer when exact, else %.17g), value, exact,
// error_bound (null when exact), trusted_digits, exponent, engine, n, nnz, threads,
// registers_per_thread, plan, seconds {plan, codegen, compile, compute, total}, scaled, file. A complex
// record has permanent "a + bi" (or "a - bi"), value null, and complex (true), real and imag (the parts
// as permanent writes them), real_value and imag_value after exact; its error_bound bounds the modulus
// of the error. Beyond double's range value is null, permanent and error_bound are decimal strings with
// their exponents ("1.23456789012345e+317", "3.1e+302"), exponent is the power of ten (317), and
// scaled holds the binary mantissas and exponent as computed.
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "core/result.cuh"
#include "detail/json.cuh"

namespace sparseperm {

namespace detail {

// A published field's value as JSON text (core/result.cuh lists the kinds).
template <class T>
std::string json_text(const T& value) {
  if constexpr (is_optional_field<T>) {
    return value ? json_text(*value) : "null";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return json::quote(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return std::to_string(value);
  } else if constexpr (std::is_same_v<T, double>) {
    return json::number(value);
  } else if constexpr (std::is_same_v<T, measured>) {
    return json::measurement(value.seconds);
  } else {  // a nested record
    json::object nested;
    for_each_field(value, [&](const char* name, const auto& v) { nested.raw(name, json_text(v)); });
    return nested.str();
  }
}

}  // namespace detail

inline std::string to_json(const permanent_result& r, const std::string& file = "") {
  json::object out;
  for_each_field(r, [&](const char* name, const auto& value) { out.raw(name, detail::json_text(value)); });
  out.string("file", file);
  return out.str();
}

}  // namespace sparseperm
