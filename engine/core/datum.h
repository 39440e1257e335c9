// Datum: one value of any type in 8 bytes, as PostgreSQL's. A by-value type (bool,
// smallint, integer, bigint, real, double precision, date, timestamp) is held in the
// Datum itself, integers sign-extended; a by-reference type (numeric, text, varchar,
// char(n), interval) is a pointer to its bytes: a varlena (a length word, then the
// payload) or interval's 16 bytes. Whoever holds the Datum keeps those bytes alive (a
// pinned page, a row batch's arena).
//
// A varlena's length word is PostgreSQL's (little-endian): 4 bytes holding the total
// size << 2, or, for values packed on disk, 1 byte holding the total size << 1 | 1
// (at most 127 bytes, header included). Compressed and out-of-line (TOAST) forms are
// not made by tidepool; a page holding one is refused as damaged.
//
//   std::string v = make_varlena("abc");            // 4-byte header, 7 bytes
//   Datum d = pointer_datum(v.data());
//   varlena_payload(datum_pointer(d)) == "abc"
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tp {

using Datum = int64_t;

inline Datum pointer_datum(const void* p) {
  return Datum(reinterpret_cast<uintptr_t>(p));
}
inline const char* datum_pointer(Datum d) {
  return reinterpret_cast<const char*>(uintptr_t(d));
}

inline Datum float4_datum(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;  // sign-extended, as a 4-byte value read from a tuple
}
inline float datum_float4(Datum d) {
  auto bits = int32_t(d);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline Datum float8_datum(double f) {
  Datum bits;
  std::memcpy(&bits, &f, 8);
  return bits;
}
inline double datum_float8(Datum d) {
  double f;
  std::memcpy(&f, &d, 8);
  return f;
}

// A by-value Datum stored at `at` in `len` bytes (1: boolean, zero-extended; 2 and 4
// sign-extended; 8), as a tuple holds it.
inline Datum fetch_byval(const char* at, int len) {
  switch (len) {
    case 1:
      return Datum(uint8_t(*at));
    case 2: {
      int16_t x;
      std::memcpy(&x, at, 2);
      return x;
    }
    case 4: {
      int32_t x;
      std::memcpy(&x, at, 4);
      return x;
    }
    default: {
      Datum x;
      std::memcpy(&x, at, 8);
      return x;
    }
  }
}

inline constexpr uint32_t kVarlenaHeader = 4;
inline constexpr uint32_t kShortVarlenaMax = 127;  // a 1-byte header's largest total size

// The header kinds of the first byte (little-endian): 1-byte headers have the low bit
// set (0x01 alone: an out-of-line TOAST pointer); 4-byte ones end in 00 (plain) or 10
// (compressed).
inline bool varlena_is_short(const char* p) {
  return (uint8_t(p[0]) & 0x01) != 0;
}
inline bool varlena_is_external(const char* p) {
  return uint8_t(p[0]) == 0x01;
}
inline bool varlena_is_compressed(const char* p) {
  return (uint8_t(p[0]) & 0x03) == 0x02;
}

// Total size, header included, of a varlena in either header form.
inline uint32_t varlena_size(const char* p) {
  if (varlena_is_short(p)) return uint8_t(p[0]) >> 1;
  uint32_t word;
  std::memcpy(&word, p, 4);
  return word >> 2;
}
inline uint32_t varlena_header_size(const char* p) {
  return varlena_is_short(p) ? 1 : 4;
}
inline std::string_view varlena_payload(const char* p) {
  const uint32_t h = varlena_header_size(p);
  return {p + h, varlena_size(p) - h};
}

// `payload` with a 4-byte header: a varlena as values are made in memory.
inline std::string make_varlena(std::string_view payload) {
  std::string v(kVarlenaHeader + payload.size(), '\0');
  const auto word = uint32_t(v.size()) << 2;
  std::memcpy(v.data(), &word, 4);
  std::memcpy(v.data() + kVarlenaHeader, payload.data(), payload.size());
  return v;
}

}  // namespace tp
