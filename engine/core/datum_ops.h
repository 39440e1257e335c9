// What the executor does with a Datum of any stored type without knowing the type at
// compile time: compare two values (PostgreSQL's btree ordering of the type), hash them
// consistently with equality (hash joins, HashAggregate), measure a by-reference value
// (to copy it), and turn a value into PostgreSQL's output text or text into a value
// (the type's input function with the column's typmod).
//
//   compare_datums(TypeId::kNumeric, a, b)   // 1.0 = 1.00; NaN above everything
//   hash_datum(TypeId::kBpchar, d)           // 'ab ' and 'ab' hash alike, as they are equal
//   OwnedDatum v = datum_in(TypeId::kVarchar, length_typmod(3), "abcd");   // 22001
//   datum_out(TypeId::kDate, v.datum())        // "2026-12-05"
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/core/datum.h"
#include "engine/core/types.h"

namespace tp {

// Types whose Datum order is their value order (integers, date, timestamp, bool):
// comparing, hashing and equality are plain integer operations.
inline bool datum_is_integral(TypeId t) {
  switch (t) {
    case TypeId::kBool:
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz:
      return true;
    default:
      return false;
  }
}

// -1, 0 or 1 by the type's default btree operator class (strings in the "C" collation:
// bytes; char(n) without its trailing blanks; interval by its span, 1 day = 24 hours;
// real and double precision with NaN above every number and -0 = 0).
int compare_datums(TypeId t, Datum a, Datum b);
inline bool datums_equal(TypeId t, Datum a, Datum b) {
  return datum_is_integral(t) ? a == b : compare_datums(t, a, b) == 0;
}
// Equal values hash alike.
uint64_t hash_datum(TypeId t, Datum d);

// Bytes a by-reference value takes (its varlena's size in either header form, or the
// type's fixed length); 0 for a by-value type.
inline uint32_t datum_ref_size(int16_t typlen, Datum d) {
  return typlen > 0 ? uint32_t(typlen) : varlena_size(datum_pointer(d));
}

// The value's output text, as PostgreSQL's output function prints it.
std::string datum_out(TypeId t, Datum d);
void append_datum_out(TypeId t, Datum d, std::string& out);

// A value that owns the bytes a by-reference Datum points at; copies and moves keep
// the Datum pointing at their own bytes.
class OwnedDatum {
 public:
  OwnedDatum() = default;
  static OwnedDatum by_value(Datum d) {
    OwnedDatum v;
    v.datum_ = d;
    return v;
  }
  // `bytes`: the value's bytes (a varlena with a 4-byte header, or interval's 16).
  static OwnedDatum by_ref(std::string bytes) {
    OwnedDatum v;
    v.bytes_ = std::move(bytes);
    v.by_ref_ = true;
    return v;
  }
  // In place, keeping the byte buffer's capacity for the next value.
  void set_value(Datum d) {
    datum_ = d;
    by_ref_ = false;
  }
  void set_varlena(std::string_view payload) {
    bytes_.resize(kVarlenaHeader + payload.size());
    const auto word = uint32_t(bytes_.size()) << 2;
    std::memcpy(bytes_.data(), &word, 4);
    std::memcpy(bytes_.data() + kVarlenaHeader, payload.data(), payload.size());
    by_ref_ = true;
  }
  Datum datum() const { return by_ref_ ? pointer_datum(bytes_.data()) : datum_; }
  bool is_by_ref() const { return by_ref_; }
  const std::string& bytes() const { return bytes_; }

 private:
  Datum datum_ = 0;
  std::string bytes_;
  bool by_ref_ = false;
};

// The type's input function over `text` with the column's typmod (PostgreSQL's errors:
// 22P02 malformed, 22003 out of range, 22001 too long for varchar(n) / char(n), 22007 /
// 22008 dates). `now` is the statement's time, for 'now' and 'today'.
OwnedDatum datum_in(TypeId t, int32_t typmod, std::string_view text, int64_t now);
// The same into `out`, reusing its buffer: COPY reads each column's values into one
// OwnedDatum row after row.
void datum_in_to(OwnedDatum& out, TypeId t, int32_t typmod, std::string_view text, int64_t now);

}  // namespace tp
