// numeric's stored form: the 2- or 4-byte header (sign, display scale, weight; NaN and
// the infinities as special headers) and the base-10000 digits, read in place, unpacked
// for computing and written back, as PostgreSQL 15's numeric.c lays them out.
#include <cstring>
#include <string>

#include "engine/core/datum.h"
#include "engine/core/error.h"
#include "engine/core/numeric.h"

namespace tp {
namespace {

// Header bits of the stored form.
constexpr uint16_t kSignMask = 0xC000;
constexpr uint16_t kNegative = 0x4000;
constexpr uint16_t kShort = 0x8000;
constexpr uint16_t kSpecial = 0xC000;
constexpr uint16_t kNaNHeader = 0xC000;
constexpr uint16_t kPosInfHeader = 0xD000;
constexpr uint16_t kNegInfHeader = 0xF000;
constexpr uint16_t kShortNegative = 0x2000;
constexpr int kShortDscaleShift = 7;
constexpr uint16_t kShortDscaleMask = 0x1F80;
constexpr uint16_t kShortWeightSign = 0x0040;
constexpr uint16_t kShortWeightMask = 0x003F;
constexpr int kShortDscaleMax = 63;
constexpr int kShortWeightMin = -64, kShortWeightMax = 63;
constexpr uint16_t kLongDscaleMask = 0x3FFF;

uint16_t read_u16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

void append_u16(std::string& out, uint16_t v) {
  char b[2];
  std::memcpy(b, &v, 2);
  out.append(b, 2);
}

}  // namespace

namespace numeric_detail {

void throw_overflow() {
  throw Error("value overflows numeric format").with_sqlstate(sqlstate::kNumericValueOutOfRange);
}

StoredView view_of(const char* varlena) {
  const std::string_view payload = varlena_payload(varlena);
  StoredView v;
  const uint16_t h = read_u16(payload.data());
  size_t header_bytes = 2;
  if ((h & kSignMask) == kSpecial) {
    v.kind = h == kNaNHeader ? Kind::kNaN : h == kPosInfHeader ? Kind::kPosInf : Kind::kNegInf;
    return v;
  }
  if ((h & kSignMask) == kShort) {
    v.negative = (h & kShortNegative) != 0;
    v.dscale = (h & kShortDscaleMask) >> kShortDscaleShift;
    v.weight = int(h & kShortWeightMask) - ((h & kShortWeightSign) ? 64 : 0);
  } else {
    v.negative = (h & kSignMask) == kNegative;
    v.dscale = h & kLongDscaleMask;
    v.weight = int16_t(read_u16(payload.data() + 2));
    header_bytes = 4;
  }
  v.digits = payload.data() + header_bytes;
  v.ndigits = int((payload.size() - header_bytes) / 2);
  return v;
}

bool small_units(const char* varlena, int64_t& units, int& dscale) {
  const char* payload = varlena + varlena_header_size(varlena);
  const uint32_t bytes = varlena_size(varlena) - varlena_header_size(varlena);
  if (bytes < 2 || bytes > 10) return false;
  const uint16_t h = read_u16(payload);
  if ((h & kSignMask) != kShort) return false;
  const int n = int(bytes - 2) / 2;
  dscale = (h & kShortDscaleMask) >> kShortDscaleShift;
  const int weight = int(h & kShortWeightMask) - ((h & kShortWeightSign) ? 64 : 0);
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v * kBase + read_u16(payload + 2 + 2 * i);
  // The last digit is worth 10^power units; a negative power drops its trailing zeros
  // below dscale (a stored value has no nonzero digit there).
  const int power = kDecDigits * (weight - n + 1) + dscale;
  static constexpr uint64_t kPow10[] = {1,
                                        10,
                                        100,
                                        1000,
                                        10000,
                                        100000,
                                        1000000,
                                        10000000,
                                        100000000,
                                        1000000000,
                                        10000000000,
                                        100000000000,
                                        1000000000000,
                                        10000000000000,
                                        100000000000000,
                                        1000000000000000,
                                        10000000000000000};
  constexpr uint64_t kLimit = 100000000000000000;  // 10^17
  if (power < 0) {
    switch (power) {
      case -1:
        if (v % 10 != 0) return false;
        v /= 10;
        break;
      case -2:
        if (v % 100 != 0) return false;
        v /= 100;
        break;
      case -3:
        if (v % 1000 != 0) return false;
        v /= 1000;
        break;
      default:
        return false;
    }
  } else if (power > 0) {
    if (power > 16 || v >= kLimit / kPow10[power]) return false;
    v *= kPow10[power];
  }
  if (v >= kLimit) return false;
  units = (h & kShortNegative) ? -int64_t(v) : int64_t(v);
  return true;
}

Var special(Kind k) {
  Var v;
  v.kind = k;
  return v;
}

Var unpack(const char* varlena) {
  const StoredView s = view_of(varlena);
  Var v;
  v.kind = s.kind;
  v.negative = s.negative;
  v.weight = s.weight;
  v.dscale = s.dscale;
  v.digits.resize(size_t(s.ndigits));
  for (int i = 0; i < s.ndigits; ++i) v.digits[size_t(i)] = int16_t(s.digit(i));
  return v;
}

size_t write_stored(bool negative, int weight, int dscale, const int16_t* digits, int n,
                    char* out) {
  char* p = out + kVarlenaHeader;
  auto put = [&p](uint16_t v) {
    std::memcpy(p, &v, 2);
    p += 2;
  };
  if (dscale <= kShortDscaleMax && weight >= kShortWeightMin && weight <= kShortWeightMax) {
    put(uint16_t(kShort | (negative ? kShortNegative : 0) | (dscale << kShortDscaleShift) |
                 (weight < 0 ? kShortWeightSign : 0) | (weight & kShortWeightMask)));
  } else {
    put(uint16_t((negative ? kNegative : 0) | dscale));
    put(uint16_t(int16_t(weight)));
  }
  for (int i = 0; i < n; ++i) put(uint16_t(digits[i]));
  const auto size = uint32_t(p - out);
  const uint32_t word = size << 2;  // a 4-byte varlena header, as make_varlena writes
  std::memcpy(out, &word, 4);
  return size;
}

std::string pack(Var v) {
  if (v.is_special()) {
    std::string payload;
    append_u16(payload, v.kind == Kind::kNaN      ? kNaNHeader
                        : v.kind == Kind::kPosInf ? kPosInfHeader
                                                  : kNegInfHeader);
    return make_varlena(payload);
  }
  strip(v);
  if (v.weight > INT16_MAX || v.weight < INT16_MIN || v.dscale > kMaxDscale || v.dscale < 0)
    numeric_detail::throw_overflow();
  std::string out(kVarlenaHeader + 4 + 2 * v.digits.size(), '\0');
  out.resize(write_stored(v.negative, v.weight, v.dscale, v.digits.data(), int(v.digits.size()),
                          out.data()));
  return out;
}

}  // namespace numeric_detail

}  // namespace tp
