#pragma once
// The bytes that travel between ranks and into journals, written and read in one way.
//
//   byte_writer            put(value) appends a trivially copyable value's bytes, put_text(s) a
//                          length and the bytes
//   byte_reader            get(value) and get_text(s) read them back in order and say false, never
//                          read past the end, when the bytes run out; done() when all were read
//   record_codec<Record>   a chunk's record as bytes: its own bytes for a trivially copyable record;
//                          a specialisation for any other (big integers: their limbs)
//   valid_record(r)        whether a record read back holds what its arithmetic can produce: finite
//                          doubles, residues' integers within the exact range; every record type says
//                          (an overload here, or beside its type), or the dispatch does not compile
//
// Every message the distributed runtime sends (run/dealing.cuh, run/chunk_dispatch.cuh) and every
// journal record (run/journal.cuh) is built with these, so a malformed one is refused in one place.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../numeric/accumulators.cuh"
#include "../numeric/big_integer.cuh"
#include "../numeric/complex.cuh"
#include "../numeric/modular.cuh"
#include "../numeric/value_types.cuh"

namespace sparseperm::detail {

class byte_writer {
 public:
  template <class T>
  byte_writer& put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "byte_writer::put: a trivially copyable value");
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
  byte_writer& put_text(std::string_view text) {
    put(static_cast<std::uint64_t>(text.size()));
    bytes_.append(text);
    return *this;
  }
  const std::string& bytes() const { return bytes_; }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class byte_reader {
 public:
  explicit byte_reader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  bool get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "byte_reader::get: a trivially copyable value");
    if (bytes_.size() - at_ < sizeof value) return false;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return true;
  }
  bool get_text(std::string& text) {
    std::uint64_t size = 0;
    if (!get(size) || bytes_.size() - at_ < size) return false;
    text.assign(bytes_.data() + at_, static_cast<std::size_t>(size));
    at_ += static_cast<std::size_t>(size);
    return true;
  }
  bool done() const { return at_ == bytes_.size(); }
  std::size_t left() const { return bytes_.size() - at_; }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

// A trivially copyable record: its bytes.
template <class Record, class = void>
struct record_codec {
  static_assert(std::is_trivially_copyable_v<Record>,
                "record_codec<Record>: a chunk's record is its bytes when trivially copyable; specialise "
                "record_codec for any other (run/record_codec.cuh)");
  static void write(byte_writer& out, const Record& r) { out.put(r); }
  static bool read(byte_reader& in, Record& r) { return in.get(r); }
};

// A big integer: its sign and its 32-bit limbs, least significant first.
template <>
struct record_codec<big_integer> {
  static void write(byte_writer& out, const big_integer& v) {
    const std::vector<std::uint32_t>& limbs = v.magnitude();
    out.put(static_cast<std::uint8_t>(v.negative()));
    out.put(static_cast<std::uint64_t>(limbs.size()));
    for (const std::uint32_t limb : limbs) out.put(limb);
  }
  static bool read(byte_reader& in, big_integer& v) {
    std::uint8_t negative = 0;
    std::uint64_t count = 0;
    if (!in.get(negative) || negative > 1 || !in.get(count) || count > in.left() / sizeof(std::uint32_t)) return false;
    std::vector<std::uint32_t> limbs(static_cast<std::size_t>(count));
    for (std::uint32_t& limb : limbs) {
      if (!in.get(limb)) return false;
    }
    v = big_integer::from_magnitude(negative != 0, std::move(limbs));
    return true;
  }
};

template <>
struct record_codec<big_gaussian> {
  static void write(byte_writer& out, const big_gaussian& v) {
    record_codec<big_integer>::write(out, v.re);
    record_codec<big_integer>::write(out, v.im);
  }
  static bool read(byte_reader& in, big_gaussian& v) {
    return record_codec<big_integer>::read(in, v.re) && record_codec<big_integer>::read(in, v.im);
  }
};

template <class P>
struct record_codec<big_sum<P>> {
  static void write(byte_writer& out, const big_sum<P>& s) { record_codec<P>::write(out, s.sum); }
  static bool read(byte_reader& in, big_sum<P>& s) { return record_codec<P>::read(in, s.sum); }
};

// What a record read back may hold. Exact integers of any width are what they are; doubles must be
// finite (and magnitudes not negative); residue sums integers below the limit that keeps them exact.
inline bool valid_record(double v) { return std::isfinite(v); }
template <class T>
requires std::is_integral_v<T>
bool valid_record(T) { return true; }
#if SPARSEPERM_HAS_INT128
inline bool valid_record(__int128) { return true; }
#endif
inline bool valid_record(const big_integer&) { return true; }
inline bool valid_record(const big_gaussian&) { return true; }
template <class T>
bool valid_record(const complex_number<T>& v) {
  return valid_record(v.re) && valid_record(v.im);
}
inline bool valid_magnitude(double m) { return std::isfinite(m) && m >= 0; }
inline bool valid_record(const plain_sum& s) { return valid_record(s.sum) && valid_magnitude(s.magnitude); }
inline bool valid_record(const two_sum& s) { return valid_record(s.sum) && valid_record(s.compensation); }
inline bool valid_record(const compensated_sum& s) {
  return valid_record(static_cast<const two_sum&>(s)) && valid_magnitude(s.magnitude);
}
inline bool valid_record(const dd_sum& s) {
  return valid_record(s.sum.hi) && valid_record(s.sum.lo) && valid_magnitude(s.magnitude) &&
         valid_magnitude(s.partials);
}
#if SPARSEPERM_HAS_INT128
inline bool valid_record(const exact_sum&) { return true; }
inline bool valid_record(const exact_complex_sum&) { return true; }
#endif
template <class Sum>
bool valid_record(const complex_sum<Sum>& s) {
  return valid_record(s.re) && valid_record(s.im);
}
template <class Sum>
bool valid_record(const sign_split_sum<Sum>& s) {
  return valid_record(s.parts[0]) && valid_record(s.parts[1]);
}
template <class P>
bool valid_record(const big_sum<P>& s) {
  return valid_record(s.sum);
}
inline bool valid_residue(double r) {
  return std::isfinite(r) && std::fabs(r) < modular_exact_limit && r == std::trunc(r);
}
template <int K>
bool valid_record(const residues<K>& v) {
  for (int k = 0; k < K; ++k)
    if (!valid_residue(v.r[k])) return false;
  return true;
}
template <int K>
bool valid_record(const residue_sum<K>& s) {
  for (int k = 0; k < K; ++k)
    if (!valid_residue(s.s[k])) return false;
  return s.count < (1u << 26);
}

// A record's bytes, and back (false: they are not one record).
template <class Record>
std::string record_bytes(const Record& r) {
  byte_writer out;
  record_codec<Record>::write(out, r);
  return out.take();
}
template <class Record>
bool record_from_bytes(std::string_view bytes, Record& r) {
  byte_reader in(bytes);
  return record_codec<Record>::read(in, r) && in.done();
}

}  // namespace sparseperm::detail
