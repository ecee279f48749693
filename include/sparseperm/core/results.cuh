#pragma once
// Many results, in order (compute_permanents': results[k] is matrix k's). A result computed from its
// numbers alone (a batch's lanes: value, imaginary part, bound) keeps those and the index of a
// description that every such result of its kind shares (engine, plan, n): no string and no
// allocation a result, where a whole permanent_result costs four strings. Any other keeps its whole
// permanent_result. operator[] gives the whole result either way (its strings made then); the
// accessors read one field without it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "result.cuh"

namespace sparseperm {

class permanent_results {
 public:
  permanent_results() = default;
  explicit permanent_results(std::size_t count) : entries_(count), whole_(count) {}
  permanent_results(const permanent_results& other)
      : entries_(other.entries_), descriptions_(other.descriptions_), whole_(other.whole_.size()) {
    for (std::size_t k = 0; k < whole_.size(); ++k)
      if (other.whole_[k]) whole_[k] = std::make_unique<permanent_result>(*other.whole_[k]);
  }
  permanent_results(permanent_results&&) noexcept = default;
  permanent_results& operator=(permanent_results other) noexcept {
    entries_.swap(other.entries_);
    descriptions_.swap(other.descriptions_);
    whole_.swap(other.whole_);
    return *this;
  }

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  permanent_result operator[](std::size_t k) const {
    if (whole_[k]) return *whole_[k];
    const entry& e = entries_[k];
    permanent_result r = descriptions_[e.description];
    set_floating_numbers(r, {e.value, e.imag, e.bound, r.complex});
    return r;
  }

  double value(std::size_t k) const { return whole_[k] ? whole_[k]->value : entries_[k].value; }
  double imag(std::size_t k) const { return whole_[k] ? whole_[k]->imag : entries_[k].imag; }
  std::optional<double> error_bound(std::size_t k) const {
    return whole_[k] ? whole_[k]->error_bound : std::optional<double>(entries_[k].bound);
  }
  bool exact(std::size_t k) const { return whole_[k] && whole_[k]->exact; }
  bool complex(std::size_t k) const {
    return whole_[k] ? whole_[k]->complex : descriptions_[entries_[k].description].complex;
  }
  bool in_range(std::size_t k) const { return !whole_[k] || whole_[k]->scale_exponent == 0; }

  // Writing (one thread a result; describe before the results that use it, on one thread).
  // A description: a result's fields but its numbers (its `complex` says whether it has an imaginary
  // part); its index for set_numbers.
  std::uint32_t describe(permanent_result description) {
    descriptions_.push_back(std::move(description));
    return static_cast<std::uint32_t>(descriptions_.size() - 1);
  }
  // Result k from numbers already checked (check_floating_numbers) and a description.
  void set_numbers(std::size_t k, const floating_numbers& v, std::uint32_t description) {
    entries_[k] = {v.value, v.imag, v.bound, description};
  }
  // Result k kept whole, made at its first use.
  permanent_result& whole(std::size_t k) {
    if (!whole_[k]) whole_[k] = std::make_unique<permanent_result>();
    return *whole_[k];
  }

 private:
  struct entry {
    double value = 0;
    double imag = 0;
    double bound = 0;
    std::uint32_t description = 0;
  };
  std::vector<entry> entries_;
  std::vector<permanent_result> descriptions_;
  std::vector<std::unique_ptr<permanent_result>> whole_;
};

}  // namespace sparseperm
