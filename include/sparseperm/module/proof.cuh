#pragma once
// A loaded module proves it is the one meant: its module_info names the engine and the precision it
// was asked for, and its exported module_matrix is the matrix, entry by entry and bit for bit. The
// cache names entries by a digest and seals them (module/cache.cuh); this check needs neither, so a
// module that reached an entry by any other way (copied there, a collision) still cannot answer for
// a matrix it was not built from.
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "../core/engine_error.cuh"
#include "../matrix/sparse_matrix.cuh"
#include "../numeric/arithmetic.cuh"
#include "module_info.cuh"

namespace sparseperm {

// A loaded module built for something else: the pipeline removes its cache entry and builds again.
class module_mismatch_error : public engine_error {
 public:
  explicit module_mismatch_error(const std::string& what) : engine_error(kind::failed, what) {}
};

namespace detail {

// Why the module (its info and its module_matrix's `bytes`) is not the one for this matrix, engine
// and precision; nothing when it is.
inline std::optional<std::string> module_mismatch(const module_info& info, const void* bytes, std::size_t size,
                                                  const sparse_matrix& matrix, std::string_view engine, precision p) {
  if (module_engine(info) != engine) return "it is another engine's module";
  if (info.precision != static_cast<std::int32_t>(p)) return "it was built for another precision";
  const std::int64_t n = matrix.n(), nnz = matrix.nnz();
  if (info.n != n || info.nnz != nnz || size != module_matrix_bytes(n, nnz))
    return "it was built for a matrix of another size";
  const auto word = [&](std::size_t k) {
    std::int64_t w;
    std::memcpy(&w, static_cast<const char*>(bytes) + 8 * k, 8);
    return w;
  };
  if (word(0) != n || word(1) != nnz) return "it was built for a matrix of another size";
  const std::size_t starts = 2, rows = starts + static_cast<std::size_t>(n) + 1,
                    values = rows + static_cast<std::size_t>(nnz > 0 ? nnz : 1),
                    imags = values + static_cast<std::size_t>(nnz > 0 ? nnz : 1);
  std::int64_t at = 0;
  for (int j = 0; j < n; ++j) {
    if (word(starts + static_cast<std::size_t>(j)) != at) return "it was built for another pattern";
    const auto column_rows = matrix.column_rows(j);
    const auto column_values = matrix.column_values(j);
    const auto column_imag = matrix.column_imag(j);  // empty for a real matrix: its parts are 0
    for (std::size_t e = 0; e < column_rows.size(); ++e, ++at) {
      if (word(rows + static_cast<std::size_t>(at)) != column_rows[e]) return "it was built for another pattern";
      std::int64_t held, held_imag;
      const double imag = column_imag.empty() ? 0.0 : column_imag[e];
      std::memcpy(&held, &column_values[e], 8);
      std::memcpy(&held_imag, &imag, 8);
      if (word(values + static_cast<std::size_t>(at)) != held ||
          word(imags + static_cast<std::size_t>(at)) != held_imag)
        return "it was built for other values";
    }
  }
  if (word(starts + static_cast<std::size_t>(n)) != at) return "it was built for another pattern";
  return std::nullopt;
}

// Throws module_mismatch_error naming `where` when the module is not the one meant.
inline void check_module(const module_info& info, const void* bytes, std::size_t size, const sparse_matrix& matrix,
                         std::string_view engine, precision p, const std::string& where) {
  if (info.version != module_info{}.version)
    throw module_mismatch_error("the module " + where + " was built by another sparseperm version");
  if (const auto why = module_mismatch(info, bytes, size, matrix, engine, p)) {
    throw module_mismatch_error("the module " + where + " is not this matrix's: " + *why);
  }
}

}  // namespace detail

}  // namespace sparseperm
