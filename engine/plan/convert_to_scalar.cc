#include "engine/plan/convert_to_scalar.h"

#include <algorithm>
#include <cfloat>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "engine/core/datetime.h"
#include "engine/core/datum_ops.h"

namespace tp {
namespace {

double numeric_scalar(TypeId t, Datum d) {
  switch (t) {
    case TypeId::kBool:
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
      return double(d);
    case TypeId::kFloat4:
      return double(datum_float4(d));
    case TypeId::kFloat8:
      return datum_float8(d);
    default:
      // numeric_float8_no_overflow: the printed value read back, overflow to infinity.
      return std::strtod(datum_out(TypeId::kNumeric, d).c_str(), nullptr);
  }
}

double time_scalar(TypeId t, Datum d) {
  switch (t) {
    case TypeId::kDate: {
      const auto date = int32_t(d);
      if (date == kDateNoBegin) return -DBL_MAX;
      if (date == kDateNoEnd) return DBL_MAX;
      return date * double(kUsecsPerDay);
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz:
      return double(d);
    default: {
      Interval iv;
      std::memcpy(&iv, datum_pointer(d), sizeof iv);
      return double(iv.time) + iv.day * double(kUsecsPerDay) +
             iv.month * ((365.25 / 12.0) * double(kUsecsPerDay));
    }
  }
}

// A string's bytes up to its first NUL (as the C string PostgreSQL converts).
std::string_view c_string(Datum d) {
  std::string_view s = varlena_payload(datum_pointer(d));
  return s.substr(0, s.find('\0'));
}

double one_string_scalar(std::string_view s, int rangelo, int rangehi) {
  if (s.empty()) return 0.0;
  // A dozen bytes give more resolution than the estimate has.
  const size_t n = s.size() > 12 ? 12 : s.size();
  const double base = rangehi - rangelo + 1;
  double num = 0.0, denom = base;
  for (size_t i = 0; i < n; ++i) {
    int ch = uint8_t(s[i]);
    if (ch < rangelo) {
      ch = rangelo - 1;
    } else if (ch > rangehi) {
      ch = rangehi + 1;
    }
    num += double(ch - rangelo) / denom;
    denom *= base;
  }
  return num;
}

void string_scalars(std::string_view value, std::string_view lo, std::string_view hi, double& v,
                    double& l, double& h) {
  // The character range the bounds use, widened to whole letter and digit classes, and
  // to printable ASCII when under ten characters wide.
  int rangelo = hi.empty() ? 0 : uint8_t(hi[0]);
  int rangehi = rangelo;
  for (std::string_view s : {lo, hi}) {
    for (char ch : s) {
      rangelo = std::min(rangelo, int(uint8_t(ch)));
      rangehi = std::max(rangehi, int(uint8_t(ch)));
    }
  }
  for (auto [first, last] : {std::pair{'A', 'Z'}, std::pair{'a', 'z'}, std::pair{'0', '9'}}) {
    if (rangelo <= last && rangehi >= first) {
      rangelo = std::min(rangelo, int(first));
      rangehi = std::max(rangehi, int(last));
    }
  }
  if (rangehi - rangelo < 9) {
    rangelo = ' ';
    rangehi = 127;
  }
  // The prefix all three share tells nothing apart.
  size_t common = 0;
  while (common < lo.size() && common < hi.size() && common < value.size() &&
         lo[common] == hi[common] && lo[common] == value[common])
    ++common;
  v = one_string_scalar(value.substr(common), rangelo, rangehi);
  l = one_string_scalar(lo.substr(common), rangelo, rangehi);
  h = one_string_scalar(hi.substr(common), rangelo, rangehi);
}

}  // namespace

bool convert_to_scalar(TypeId t, Datum value, Datum lo, Datum hi, double& scaled_value,
                       double& scaled_lo, double& scaled_hi) {
  switch (t) {
    case TypeId::kBool:
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
    case TypeId::kFloat4:
    case TypeId::kFloat8:
    case TypeId::kNumeric:
      scaled_value = numeric_scalar(t, value);
      scaled_lo = numeric_scalar(t, lo);
      scaled_hi = numeric_scalar(t, hi);
      return true;
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz:
    case TypeId::kInterval:
      scaled_value = time_scalar(t, value);
      scaled_lo = time_scalar(t, lo);
      scaled_hi = time_scalar(t, hi);
      return true;
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
      string_scalars(c_string(value), c_string(lo), c_string(hi), scaled_value, scaled_lo,
                     scaled_hi);
      return true;
  }
  return false;
}

}  // namespace tp
