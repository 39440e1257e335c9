// numeric values as 128-bit counts of 10^-dscale units: sum()'s integer accumulator and
// the fast path of + - * over small values, whose results are the exact arithmetic's to
// the byte (same digits, weight and display scale).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/core/numeric.h"

namespace tp {
namespace {

constexpr __int128 kE18 = 1000000000000000000;
constexpr __int128 kScaledLimit = kE18 * kE18;  // 10^36
// Results the fast path packs: below 10^35, so aligning to whole base-10000 digits
// (times up to 1000) stays inside 128 bits.
constexpr __int128 kPackLimit = kScaledLimit / 10;

__int128 magnitude(__int128 v) {
  return v < 0 ? -v : v;
}

// `units` (|units| < kPackLimit) at `dscale` places, in the stored form at `out`.
size_t write_scaled(__int128 units, int dscale, char* out) {
  const bool negative = units < 0;
  auto mag = static_cast<unsigned __int128>(magnitude(units));
  const int pad = (4 - dscale % 4) % 4;  // whole base-10000 digits below the point
  static constexpr uint64_t kPad[] = {1, 10, 100, 1000};
  int16_t groups[12];  // least significant first
  int n = 0;
  uint64_t low = 0;
  if (mag < kE18 / 1000) {  // the common case, padded in 64 bits
    low = uint64_t(mag) * kPad[pad];
  } else {
    mag *= kPad[pad];
    while (mag > UINT64_MAX) {
      groups[n++] = int16_t(mag % 10000);
      mag /= 10000;
    }
    low = uint64_t(mag);
  }
  for (; low > 0; low /= 10000) groups[n++] = int16_t(low % 10000);
  const int weight = n - (dscale + pad) / 4 - 1;
  int first = 0;  // trailing zero digits are not stored
  while (first < n && groups[first] == 0) ++first;
  int16_t digits[12];
  for (int i = n - 1, k = 0; i >= first; --i) digits[k++] = groups[i];
  const int count = n - first;
  if (count == 0) return numeric_detail::write_stored(false, 0, dscale, digits, 0, out);
  return numeric_detail::write_stored(negative, weight, dscale, digits, count, out);
}

// `units` at `from` places brought to `to` (>= from) places, if it stays below the limit.
bool rescale(__int128& units, int from, int to) {
  for (; from < to; ++from) {
    if (magnitude(units) >= kScaledLimit / 10) return false;
    units *= 10;
  }
  return true;
}

// Any stored value's units by its digits (long headers, more than four digits), when
// they stay below the limit.
bool scaled_by_digits(const char* varlena, ScaledNumeric& out) {
  const numeric_detail::StoredView s = numeric_detail::view_of(varlena);
  if (s.kind != numeric_detail::Kind::kFinite || s.dscale > 30) return false;
  // The digits are worth 10000^(weight - i); at dscale places the last one is worth
  // 10^(4 * (weight - ndigits + 1) + dscale) units. A stored value has no digit below
  // its dscale, so a negative power only drops the last digit's trailing zeros.
  const int power = 4 * (s.weight - s.ndigits + 1) + s.dscale;
  if (power < -3 || power > 36 || s.ndigits > 9) return false;
  __int128 v = 0;
  for (int i = 0; i < s.ndigits; ++i) {
    if (v >= kScaledLimit / 10000) return false;
    v = v * 10000 + s.digit(i);
  }
  if (power < 0) {
    static constexpr int kPow10[] = {1, 10, 100, 1000};
    const int unit = kPow10[-power];
    if (s.ndigits == 0 || s.digit(s.ndigits - 1) % unit != 0) return false;
    v /= unit;
  } else if (power > 0) {
    __int128 scale = 1;
    for (int e = 0; e < power; ++e) scale *= 10;
    if (v >= kScaledLimit / scale) return false;
    v *= scale;
  }
  out = ScaledNumeric{s.negative ? -v : v, s.dscale};
  return true;
}

}  // namespace

std::optional<ScaledNumeric> numeric_to_scaled(const char* varlena) {
  ScaledNumeric v;
  if (!numeric_scaled_of(varlena, v)) return std::nullopt;
  return v;
}

std::string numeric_from_scaled(__int128 units, int dscale) {
  if (magnitude(units) < kPackLimit) {
    char out[kScaledNumericMaxBytes];
    return std::string(out, write_scaled(units, dscale, out));
  }
  const bool negative = units < 0;
  auto mag = static_cast<unsigned __int128>(magnitude(units));
  std::string digits;
  do {
    digits.insert(digits.begin(), char('0' + int(mag % 10)));
    mag /= 10;
  } while (mag > 0);
  if (digits.size() <= size_t(dscale)) digits.insert(0, size_t(dscale) + 1 - digits.size(), '0');
  if (dscale > 0) digits.insert(digits.size() - size_t(dscale), ".");
  return numeric_in((negative ? "-" : "") + digits, -1);
}

bool numeric_scaled_of(const char* varlena, ScaledNumeric& out) {
  int64_t units = 0;
  int dscale = 0;
  if (numeric_detail::small_units(varlena, units, dscale) && dscale <= 30) {
    out = ScaledNumeric{units, dscale};
    return true;
  }
  return scaled_by_digits(varlena, out);
}

bool numeric_scaled_combine(char op, const ScaledNumeric& x, const ScaledNumeric& y,
                            ScaledNumeric& out) {
  __int128 u = 0;
  int dscale = 0;
  if (op == '*') {
    // numeric_mul's result scale is the sum of the operands'.
    if (magnitude(x.units) >= kE18 || magnitude(y.units) >= kE18) return false;
    dscale = x.dscale + y.dscale;
    u = x.units * y.units;
  } else {
    dscale = std::max(x.dscale, y.dscale);
    __int128 p = x.units, q = y.units;
    if (!rescale(p, x.dscale, dscale) || !rescale(q, y.dscale, dscale)) return false;
    u = op == '+' ? p + q : p - q;
  }
  if (magnitude(u) >= kPackLimit || dscale > 30) return false;
  out = ScaledNumeric{u, dscale};
  return true;
}

size_t numeric_write_scaled(const ScaledNumeric& v, char* out) {
  return write_scaled(v.units, v.dscale, out);
}

size_t numeric_scaled_arith(char op, const char* a, const char* b, char* out) {
  ScaledNumeric x, y, r;
  if (!numeric_scaled_of(a, x) || !numeric_scaled_of(b, y) || !numeric_scaled_combine(op, x, y, r))
    return 0;
  return write_scaled(r.units, r.dscale, out);
}

}  // namespace tp
