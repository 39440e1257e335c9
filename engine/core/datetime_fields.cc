// The fields of dates, timestamps and timestamps with time zone: extract, date_part
// and date_trunc, as PostgreSQL 15 computes them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "engine/core/datetime.h"
#include "engine/core/datetime_detail.h"
#include "engine/core/error.h"

namespace tp {

using namespace datetime_detail;

namespace {

constexpr const char* kTimestampName = "timestamp without time zone";
constexpr const char* kTimestamptzName = "timestamp with time zone";

// A field name as extract reads it: an interval unit, else a date keyword.
Token field_token(const std::string& lower) {
  Token t = lookup_unit_token(lower);
  return t.type == TokenType::kUnknown ? lookup_date_token(lower) : t;
}

int64_t iso_week_start(int64_t year) {  // Julian day of the Monday of ISO week 1
  const int64_t jan4 = julian_day(year, 1, 4);
  return jan4 - day_of_week(jan4 - 1);
}

// The ISO 8601 week-numbering year and week of a day.
void iso_week(const Tm& tm, int64_t* iso_year, int* week) {
  const int64_t jd = julian_day(tm.year, tm.month, tm.day);
  *iso_year = tm.year;
  if (jd < iso_week_start(tm.year))
    --*iso_year;
  else if (jd >= iso_week_start(tm.year + 1))
    ++*iso_year;
  *week = int((jd - iso_week_start(*iso_year)) / 7 + 1);
}

// Years as people count them (no year 0) for year, decade, century, millennium.
int64_t bc_adjusted(int unit, int64_t y) {
  switch (unit) {
    case kYear:
      return y > 0 ? y : y - 1;
    case kDecade:
      return y >= 0 ? y / 10 : -((8 - (y - 1)) / 10);
    case kCentury:
      return y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100);
    default:
      return y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000);
  }
}

// Julian day plus the fraction of the day, as PostgreSQL's numeric division prints
// it: a scale of 16 significant digits past the quotient's first base-10000 digit.
std::string julian_numeric(int64_t jd, int64_t usec_of_day) {
  constexpr int64_t kDenominator = 86400000000;  // base-10000 digits 864,0000,0000
  int weight = 0, first = 0;
  for (int64_t g = usec_of_day, w = 0; g > 0; g /= 10000, ++w) {
    weight = int(w);
    first = int(g % 10000);
  }
  const int qweight = weight - 2 - (first <= 864 ? 1 : 0);
  const int scale = std::clamp(16 - qweight * 4, 0, 1000);
  std::string digits;
  int64_t rem = usec_of_day;
  for (int i = 0; i <= scale; ++i) {
    rem *= 10;
    digits += char('0' + rem / kDenominator);
    rem %= kDenominator;
  }
  const bool round_up = digits.back() >= '5';
  digits.pop_back();
  int64_t whole = jd;
  if (round_up) {
    int i = int(digits.size()) - 1;
    while (i >= 0 && digits[i] == '9') digits[i--] = '0';
    if (i >= 0)
      digits[i]++;
    else
      ++whole;
  }
  return std::to_string(whole) + (scale > 0 ? "." + digits : "");
}

enum class Result { kNumeric, kDouble };

// One field of a finite timestamp (or a date's midnight), as numeric text or double.
// One field of a finite timestamp or date as numeric text; its double in `*dbl`.
std::string timestamp_field(int unit, const Tm& tm, double* dbl) {
  const int64_t jd = julian_day(tm.year, tm.month, tm.day);
  const int64_t usec_of_minute = int64_t(tm.second) * kUsecsPerSec + tm.usec;
  const int64_t usec_of_day = (tm.hour * 60 + tm.minute) * kUsecsPerMinute + usec_of_minute;
  int64_t v = 0, iso_year;
  int week;
  iso_week(tm, &iso_year, &week);
  // clang-format off
  switch (unit) {
    case kMillisecond:
      *dbl = tm.second * 1000.0 + tm.usec / 1000.0;
      return fixed_point(usec_of_minute, 3);
    case kSecond:
      *dbl = tm.second + tm.usec / 1000000.0;
      return fixed_point(usec_of_minute, 6);
    case kJulian:
      *dbl = double(jd) + ((tm.hour * 60 + tm.minute) * 60 + tm.second + tm.usec / 1000000.0) / 86400.0;
      return julian_numeric(jd, usec_of_day);
    case kMicrosecond: v = usec_of_minute; break;
    case kMinute: v = tm.minute; break;
    case kHour: v = tm.hour; break;
    case kDay: v = tm.day; break;
    case kMonth: v = tm.month; break;
    case kQuarter: v = (tm.month - 1) / 3 + 1; break;
    case kWeek: v = week; break;
    case kIsoYear: v = iso_year <= 0 ? iso_year - 1 : iso_year; break;
    case kDow: v = day_of_week(jd); break;
    case kIsoDow: v = day_of_week(jd) == 0 ? 7 : day_of_week(jd); break;
    case kDoy: v = jd - julian_day(tm.year, 1, 1) + 1; break;
    default: v = bc_adjusted(unit, tm.year); break;  // year, decade, century, millennium
  }
  // clang-format on
  *dbl = double(v);
  return std::to_string(v);
}

// Fields with no value at infinity (NULL), and those that are infinite there.
bool is_oscillating(int unit) {
  constexpr int kUnits[] = {kMicrosecond, kMillisecond, kSecond, kMinute, kHour,   kDay,
                            kMonth,       kQuarter,     kWeek,   kDow,    kIsoDow, kDoy};
  return std::find(std::begin(kUnits), std::end(kUnits), unit) != std::end(kUnits);
}
bool is_monotonic(int unit) {
  constexpr int kUnits[] = {kYear, kDecade, kCentury, kMillennium, kJulian, kIsoYear, kEpoch};
  return std::find(std::begin(kUnits), std::end(kUnits), unit) != std::end(kUnits);
}

struct FieldValue {
  bool is_null = false;
  std::string numeric;
  double dbl = 0;
};

// With `zoned` (a timestamp with time zone, in UTC) the zone's fields are 0.
FieldValue timestamp_part(std::string_view field, int64_t ts, bool zoned) {
  const char* type_name = zoned ? kTimestamptzName : kTimestampName;
  const std::string unit_name = to_lower(field);
  const Token t = field_token(unit_name);
  if (t.type != TokenType::kUnits && t.type != TokenType::kReserved)
    throw_unit(unit_name, type_name, false);
  const bool zone_field =
      t.type == TokenType::kUnits &&
      (t.value == kTimezone || t.value == kTimezoneHour || t.value == kTimezoneMinute);
  const bool supported =
      t.type == TokenType::kReserved
          ? t.value == kEpoch
          : is_oscillating(t.value) || is_monotonic(t.value) || (zoned && zone_field);
  if (!supported) throw_unit(unit_name, type_name, true);
  if (!timestamp_is_finite(ts)) {
    if (is_oscillating(t.value) || zone_field) return {true, "", 0};
    const bool neg = ts == kTimestampNoBegin;
    return {false, neg ? "-Infinity" : "Infinity", neg ? -HUGE_VAL : HUGE_VAL};
  }
  FieldValue r;
  if (t.value == kEpoch) {
    if (ts < INT64_MAX + kUnixEpoch) {
      r.numeric = fixed_point(ts - kUnixEpoch, 6);
      r.dbl = double(ts - kUnixEpoch) / 1000000.0;
    } else {
      // Past int64 PostgreSQL divides in numeric, whose quotient here keeps four
      // decimals (its division's scale rule), shown with six.
      const int64_t hundreds = int64_t((__int128(ts) - kUnixEpoch + 50) / 100);
      r.numeric = fixed_point(hundreds, 4) + "00";
      r.dbl = (double(ts) - kUnixEpoch) / 1000000.0;
    }
    return r;
  }
  if (zone_field) return {false, "0", 0};
  Tm tm;
  if (!timestamp_to_tm(ts, &tm)) throw_range("timestamp out of range");
  r.numeric = timestamp_field(t.value, tm, &r.dbl);
  return r;
}

}  // namespace

std::optional<std::string> extract_timestamp(std::string_view field, int64_t ts, bool zoned) {
  FieldValue v = timestamp_part(field, ts, zoned);
  if (v.is_null) return std::nullopt;
  return v.numeric;
}

std::optional<double> date_part_timestamp(std::string_view field, int64_t ts, bool zoned) {
  FieldValue v = timestamp_part(field, ts, zoned);
  if (v.is_null) return std::nullopt;
  return v.dbl;
}

std::optional<std::string> extract_date(std::string_view field, int32_t date) {
  const std::string unit_name = to_lower(field);
  const Token t = field_token(unit_name);
  if (t.type != TokenType::kUnits && t.type != TokenType::kReserved)
    throw_unit(unit_name, "date", false);
  const int u = t.value;
  const bool time_of_day =
      u == kMicrosecond || u == kMillisecond || u == kSecond || u == kMinute || u == kHour;
  if (t.type == TokenType::kReserved ? u != kEpoch
                                     : time_of_day || !(is_oscillating(u) || is_monotonic(u)))
    throw_unit(unit_name, "date", true);
  if (!date_is_finite(date)) {
    if (is_oscillating(u)) return std::nullopt;
    return date == kDateNoBegin ? "-Infinity" : "Infinity";
  }
  if (u == kEpoch) return std::to_string((int64_t(date) + 10957) * 86400);
  if (u == kJulian) return std::to_string(int64_t(date) + kPostgresEpochJulian);
  Tm tm;
  julian_to_date(int64_t(date) + kPostgresEpochJulian, &tm.year, &tm.month, &tm.day);
  double unused;
  return timestamp_field(u, tm, &unused);
}

int64_t date_trunc_timestamp(std::string_view field, int64_t ts, bool zoned) {
  if (!timestamp_is_finite(ts)) return ts;  // whatever the unit, as PostgreSQL
  const char* type_name = zoned ? kTimestamptzName : kTimestampName;
  const std::string unit_name = to_lower(field);
  const Token t = lookup_unit_token(unit_name);
  if (t.type != TokenType::kUnits) throw_unit(unit_name, type_name, false);
  Tm tm;
  if (!timestamp_to_tm(ts, &tm)) throw_range("timestamp out of range");
  const int u = t.value;
  // Each unit clears the fields below it. Millennia, centuries and decades start
  // where PostgreSQL counts them from (2001, 1901, 2020; BC mirrored).
  const int order[] = {kMillennium, kCentury, kDecade, kYear,   kQuarter,
                       kMonth,      kDay,     kHour,   kMinute, kSecond};
  const int rank = int(std::find(std::begin(order), std::end(order), u) - std::begin(order));
  const int64_t y = tm.year;
  if (u == kWeek) {
    int64_t iso_year;
    int week;
    iso_week(tm, &iso_year, &week);
    julian_to_date(iso_week_start(iso_year) + (week - 1) * 7, &tm.year, &tm.month, &tm.day);
    tm.hour = tm.minute = tm.second = tm.usec = 0;
  } else if (u == kMillisecond) {
    tm.usec = tm.usec / 1000 * 1000;
  } else if (u != kMicrosecond && rank == 10) {
    throw_unit(unit_name, type_name, true);
  } else if (rank < 10) {
    if (u == kMillennium) tm.year = bc_adjusted(u, y) * 1000 + (y > 0 ? -999 : 1);
    if (u == kCentury) tm.year = bc_adjusted(u, y) * 100 + (y > 0 ? -99 : 1);
    if (u == kDecade) tm.year = y > 0 ? y / 10 * 10 : -((8 - (y - 1)) / 10) * 10;
    if (rank <= 3) tm.month = 1;
    if (rank <= 4) tm.month = 3 * ((tm.month - 1) / 3) + 1;
    if (rank <= 5) tm.day = 1;
    if (rank <= 6) tm.hour = 0;
    if (rank <= 7) tm.minute = 0;
    if (rank <= 8) tm.second = 0;
    tm.usec = 0;
  }
  if (!tm_to_timestamp(tm, &ts)) throw_range("timestamp out of range");
  return ts;
}

}  // namespace tp
