#pragma once
// The result record as JSON, the contract of `sparseperm compute --json` (other tools read it):
//
//   permanent (string: the exact integer when exact, else %.17g), value, exact, error_bound (a proven
//   bound on |value − permanent| for floating results, null when exact), trusted_digits, engine, n, nnz, threads, registers_per_thread, plan, file, seconds {plan, codegen,
//   compile, compute, total}
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
  out.string("permanent", r.permanent);
  if (std::isfinite(r.value)) {
    out.number("value", r.value);
  } else {
    out.null("value");  // an exact permanent beyond the range of double: only the string holds it
  }
  out.boolean("exact", r.exact);
  if (r.error_bound) {
    out.number("error_bound", *r.error_bound);
  } else {
    out.null("error_bound");  // exact results
  }
  if (const auto digits = trusted_digits(r)) {
    out.integer("trusted_digits", *digits);
  } else {
    out.null("trusted_digits");
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
