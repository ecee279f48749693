#pragma once
// The result record as JSON, the contract of `sparseperm compute --json` (other tools read it):
//
//   permanent (string: the exact integer when exact, else %.17g), value, exact, error_bound (a proven
//   bound on |value − permanent| for floating results, null when exact), trusted_digits, exponent,
//   engine, n, nnz, threads, registers_per_thread, plan, file, seconds {plan, codegen, compile,
//   compute, total}
//
// A real floating permanent beyond double's range has value null, permanent and error_bound as
// decimal strings with their exponents ("1.23456789012345e+317", "3.1e+302"), and exponent its
// power of ten (317); exponent is null in every other record.
//
// A complex matrix's record differs in these: permanent is "a + bi" (or "a - bi"), value is null,
// and complex (true), real and imag (the parts as permanent writes them), real_value and imag_value
// (numbers) follow exact; error_bound bounds the modulus of the error. Real records have none of them.
#include <cmath>
#include <string>

#include "core/result.cuh"
#include "detail/json.cuh"

namespace sparseperm {

inline std::string to_json(const permanent_result& r, const std::string& file = "") {
  json::object seconds;
  seconds.measurement("plan", r.seconds.plan)
      .measurement("codegen", r.seconds.codegen)
      .measurement("compile", r.seconds.compile)
      .measurement("compute", r.seconds.compute)
      .measurement("total", r.seconds.total);
  json::object out;
  const auto number_or_null = [&](const char* key, double v) {
    if (std::isfinite(v)) {
      out.number(key, v);
    } else {
      out.null(key);  // an exact permanent beyond the range of double: only the string holds it
    }
  };
  out.string("permanent", complex_text(r));
  if (r.complex || r.scale_exponent != 0) {
    out.null("value");  // beyond double's range: the string and its exponent
  } else {
    number_or_null("value", r.value);
  }
  out.boolean("exact", r.exact);
  if (r.complex) {
    out.boolean("complex", true).string("real", r.permanent).string("imag", r.permanent_imag);
    number_or_null("real_value", r.value);
    number_or_null("imag_value", r.imag);
  }
  if (r.error_bound && r.scale_exponent != 0) {
    out.string("error_bound", error_bound_text(r));
  } else if (r.error_bound) {
    out.number("error_bound", *r.error_bound);
  } else {
    out.null("error_bound");  // exact results
  }
  if (const auto digits = trusted_digits(r)) {
    out.integer("trusted_digits", *digits);
  } else {
    out.null("trusted_digits");
  }
  if (r.scale_exponent != 0 && !r.complex) {  // the power of ten of `permanent`, beyond double
    out.integer("exponent", scaled_decimal_parts(r.scaled_value, r.scale_exponent).power);
  } else {  // complex results: `real` and `imag` carry their own
    out.null("exponent");
  }
  out.string("engine", r.engine)
      .integer("n", r.n)
      .integer("nnz", r.nnz)
      .integer("threads", r.threads)
      .integer("registers_per_thread", r.registers_per_thread)
      .string("plan", r.plan)
      .string("file", file)
      .child("seconds", seconds);
  return out.str();
}

}  // namespace sparseperm
