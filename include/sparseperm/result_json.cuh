#pragma once
// The result record as JSON, the contract of `sparseperm compute --json` (other tools read it):
//
//   permanent (string: the exact integer when exact, else %.17g), value, exact, error_bound (number
//   or null), engine, n, nnz, threads, registers_per_thread, plan, file, seconds {plan, codegen,
//   compile, compute, total}
#include <string>

#include "detail/json.cuh"
#include "result.cuh"

namespace sparseperm {

inline std::string to_json(const permanent_result& r, const std::string& file = "") {
  json::object seconds;
  seconds.measurement("plan", r.seconds.plan)
      .measurement("codegen", r.seconds.codegen)
      .measurement("compile", r.seconds.compile)
      .measurement("compute", r.seconds.compute)
      .measurement("total", r.seconds.total);
  json::object out;
  out.string("permanent", r.permanent).number("value", r.value).boolean("exact", r.exact);
  if (r.error_bound) {
    out.number("error_bound", *r.error_bound);
  } else {
    out.null("error_bound");
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

// Reads a record written by to_json (throws std::runtime_error on anything else).
inline permanent_result result_from_json(const std::string& text) {
  const json::value v = json::parse(text);
  permanent_result r;
  r.permanent = v["permanent"].as_string();
  r.value = v["value"].as_number();
  r.exact = v["exact"].as_bool();
  if (!v["error_bound"].is_null()) r.error_bound = v["error_bound"].as_number();
  r.engine = v["engine"].as_string();
  r.n = static_cast<int>(v["n"].as_number());
  r.nnz = static_cast<std::int64_t>(v["nnz"].as_number());
  r.threads = static_cast<int>(v["threads"].as_number());
  if (v.has("registers_per_thread")) r.registers_per_thread = static_cast<int>(v["registers_per_thread"].as_number());
  r.plan = v["plan"].as_string();
  const json::value& s = v["seconds"];
  r.seconds = {s["plan"].as_number(), s["codegen"].as_number(), s["compile"].as_number(), s["compute"].as_number(),
               s["total"].as_number()};
  return r;
}

}  // namespace sparseperm
