#pragma once
// Reads a result record written by to_json (result_json.cuh).
#include <cstdint>
#include <string>

#include "detail/json_reader.cuh"
#include "result.cuh"

namespace sparseperm {

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
