// The date, timestamp (without time zone) and interval types' values, as PostgreSQL 15
// stores, reads, prints and computes them, with DateStyle 'ISO, MDY', IntervalStyle
// 'postgres' and TimeZone UTC. tidepool has no time zone database: a numeric offset or
// one of a few common zone abbreviations ('UTC', 'Z', 'EST', ...) in the input is
// applied by a timestamp with time zone and ignored by one without; other zone names
// are refused.
//
//   date       int32 days since 2000-01-01 (the proleptic Gregorian calendar);
//              INT32_MIN is -infinity, INT32_MAX infinity. Finite dates run from
//              4714-11-24 BC to 5874897-12-31.
//   timestamp  int64 microseconds since 2000-01-01 00:00:00; INT64_MIN is -infinity,
//              INT64_MAX infinity. Finite ones run from 4714-11-24 BC to 294276-12-31.
//   interval   16 bytes, little-endian: int64 time (microseconds), int32 day, int32
//              month, passed by reference. The three parts are kept apart because a
//              month's and a day's length depend on where the interval is added; only
//              comparison treats a month as 30 days and a day as 24 hours.
//
// Years are astronomical inside (0 is 1 BC, -1 is 2 BC), as PostgreSQL's.
//
// Input taking words relative to the present ('now', 'today', 'tomorrow',
// 'yesterday') reads them against `now`, the statement's start as a timestamp;
// callers pass the statement's time so that every row of a statement agrees.
//
//   int32_t d = date_in("Jan 5 2020");                   // 7309
//   date_out(d) == "2020-01-05"
//   Interval iv = interval_in("1 mon 2 days", -1);
//   int64_t ts = timestamp_pl_interval(timestamp_in("2020-01-31 10:00", -1), iv);
//   timestamp_out(ts) == "2020-03-02 10:00:00"
//
// Every user-caused error is a tp::Error with PostgreSQL's message and SQLSTATE.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/core/types.h"

namespace tp {

// SQLSTATEs of date and time errors (class 22), which error.h does not list.
struct Interval {
  int64_t time = 0;  // microseconds
  int32_t day = 0;
  int32_t month = 0;
};
static_assert(sizeof(Interval) == 16);

inline constexpr int32_t kDateNoBegin = INT32_MIN;
inline constexpr int32_t kDateNoEnd = INT32_MAX;
inline constexpr int64_t kTimestampNoBegin = INT64_MIN;
inline constexpr int64_t kTimestampNoEnd = INT64_MAX;
inline constexpr int64_t kUsecsPerDay = 86400000000LL;
inline constexpr int32_t kPostgresEpochJulian = 2451545;  // 2000-01-01 as a Julian day

// The current time as a timestamp, for callers with no statement time at hand.
int64_t timestamp_now();

// ---- date -------------------------------------------------------------------------
int32_t date_in(std::string_view text, int64_t now = timestamp_now());
std::string date_out(int32_t date);
inline bool date_is_finite(int32_t d) {
  return d != kDateNoBegin && d != kDateNoEnd;
}

// date + integer, date - integer and date - date: date_pl_days, date_mi_days and
// date_mi, inline below. date +/- interval gives a timestamp.
int64_t date_pl_interval(int32_t date, const Interval& span);
int64_t date_mi_interval(int32_t date, const Interval& span);
inline int date_cmp(int32_t a, int32_t b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- timestamp --------------------------------------------------------------------
// `typmod` is the fractional-second precision 0-6, or -1 for none.
int64_t timestamp_in(std::string_view text, int32_t typmod, int64_t now = timestamp_now());
std::string timestamp_out(int64_t ts);
inline bool timestamp_is_finite(int64_t t) {
  return t != kTimestampNoBegin && t != kTimestampNoEnd;
}

int64_t timestamp_pl_interval(int64_t ts, const Interval& span);
int64_t timestamp_mi_interval(int64_t ts, const Interval& span);
Interval timestamp_mi(int64_t a, int64_t b);
inline int timestamp_cmp(int64_t a, int64_t b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---- timestamp with time zone -----------------------------------------------------
// The same int64 as a timestamp, read as UTC. TimeZone is always UTC: input applies the
// offset or zone abbreviation given (a zone named from the zone database other than UTC
// is refused), output ends in "+00". Arithmetic, comparison and the fields are those of
// a timestamp, and casts between the two keep the value.
int64_t timestamptz_in(std::string_view text, int32_t typmod, int64_t now = timestamp_now());
std::string timestamptz_out(int64_t ts);
// x AT TIME ZONE zone, for a zone abbreviation ('EST', 'cet') or a name of UTC: a
// timestamp read as the zone's local time (the result is UTC), and a timestamp with
// time zone as the zone's local time. Other zones are refused.
int64_t timestamp_at_zone(std::string_view zone, int64_t ts);
int64_t timestamptz_at_zone(std::string_view zone, int64_t ts);

// ---- interval ---------------------------------------------------------------------
// `typmod`: interval_typmod(fields, precision) (engine/core/types.h) or kNoTypmod.
Interval interval_in(std::string_view text, int32_t typmod);
std::string interval_out(const Interval& span);
// interval_pl, interval_mi, interval_um, interval_mul, interval_div (by a double),
// interval_cmp, justify_hours, justify_days, justify_interval and the typmod rounding
// are inline below.

// ---- fields -----------------------------------------------------------------------
// extract(field from x), whose result is numeric: the value as PostgreSQL prints it
// ('6.500000', '2020', 'Infinity'), nullopt where PostgreSQL gives NULL.
std::optional<std::string> extract_date(std::string_view field, int32_t date);
// `zoned`: of a timestamp with time zone (the zone fields are 0; errors name the type).
std::optional<std::string> extract_timestamp(std::string_view field, int64_t ts,
                                             bool zoned = false);
// date_part(field, x), whose result is double precision. date_part on a date is
// date_part on the date's midnight.
std::optional<double> date_part_timestamp(std::string_view field, int64_t ts, bool zoned = false);

int64_t date_trunc_timestamp(std::string_view field, int64_t ts, bool zoned = false);

// ---- the simple arithmetic, inline ----

[[noreturn]] inline void throw_datetime_range(const char* message) {
  throw Error(message).with_sqlstate(sqlstate::kDatetimeFieldOverflow);
}

inline int32_t date_add_days(int32_t date, int64_t days) {
  if (!date_is_finite(date)) return date;
  const int64_t r = date + days;
  if (r < -int64_t(kPostgresEpochJulian) || r >= 2147483494LL - kPostgresEpochJulian)
    throw_datetime_range("date out of range");
  return int32_t(r);
}
inline int32_t date_pl_days(int32_t date, int32_t days) {
  return date_add_days(date, days);
}
inline int32_t date_mi_days(int32_t date, int32_t days) {
  return date_add_days(date, -int64_t(days));
}
// Days between two dates; infinities are refused.
inline int32_t date_mi(int32_t a, int32_t b) {
  if (!date_is_finite(a) || !date_is_finite(b))
    throw_datetime_range("cannot subtract infinite dates");
  return a - b;
}
inline int64_t date_to_timestamp(int32_t date) {
  if (date == kDateNoBegin) return kTimestampNoBegin;
  if (date == kDateNoEnd) return kTimestampNoEnd;
  // Dates and timestamps begin together; only the end differs (294277-01-01).
  if (date >= 109203528 - kPostgresEpochJulian)
    throw_datetime_range("date out of range for timestamp");
  return int64_t(date) * kUsecsPerDay;
}

namespace interval_arith {
template <class T>
T add(T a, T b) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) throw_datetime_range("interval out of range");
  return r;
}
template <class T>
T sub(T a, T b) {
  T r;
  if (__builtin_sub_overflow(a, b, &r)) throw_datetime_range("interval out of range");
  return r;
}
// One `unit` moved from the larger part to the smaller when their signs disagree.
template <class Big, class Small>
void agree_signs(Big& big, Small& small, int64_t unit, bool small_negative, bool small_positive) {
  if (big > 0 && small_negative) {
    small = Small(small + unit);
    --big;
  } else if (big < 0 && small_positive) {
    small = Small(small - unit);
    ++big;
  }
}
}  // namespace interval_arith

inline Interval interval_pl(const Interval& a, const Interval& b) {
  using namespace interval_arith;
  return {add(a.time, b.time), add(a.day, b.day), add(a.month, b.month)};
}
inline Interval interval_mi(const Interval& a, const Interval& b) {
  using namespace interval_arith;
  return {sub(a.time, b.time), sub(a.day, b.day), sub(a.month, b.month)};
}
inline Interval interval_um(const Interval& a) {
  return interval_mi(Interval{}, a);
}

// Compares total spans, with 30-day months and 24-hour days.
inline int interval_cmp(const Interval& a, const Interval& b) {
  auto span = [](const Interval& v) {
    return __int128(v.time) + (__int128(v.month) * 30 + v.day) * kUsecsPerDay;
  };
  const __int128 x = span(a), y = span(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

// Whole days of the time moved to the day part, signs made to agree.
inline Interval justify_hours(const Interval& v) {
  Interval r = v;
  r.day = interval_arith::add(r.day, int32_t(r.time / kUsecsPerDay));
  r.time %= kUsecsPerDay;
  interval_arith::agree_signs(r.day, r.time, kUsecsPerDay, r.time<0, r.time> 0);
  return r;
}
// Whole 30-day months of the day part moved to the month part, signs made to agree.
inline Interval justify_days(const Interval& v) {
  Interval r = v;
  r.month = interval_arith::add(r.month, r.day / 30);
  r.day %= 30;
  interval_arith::agree_signs(r.month, r.day, 30, r.day<0, r.day> 0);
  return r;
}
// Both, the signs of all three parts made to agree.
inline Interval justify_interval(const Interval& v) {
  Interval r = v;
  // Folding days first, when day and time agree in sign, keeps the day sum in range.
  if ((r.day > 0 && r.time > 0) || (r.day < 0 && r.time < 0)) {
    r.month = interval_arith::add(r.month, r.day / 30);
    r.day %= 30;
  }
  r.day += int32_t(r.time / kUsecsPerDay);
  r.time %= kUsecsPerDay;
  r.month = interval_arith::add(r.month, r.day / 30);
  r.day %= 30;
  interval_arith::agree_signs(r.month, r.day, 30, r.day < 0 || (r.day == 0 && r.time < 0),
                              r.day > 0 || (r.day == 0 && r.time > 0));
  interval_arith::agree_signs(r.day, r.time, kUsecsPerDay, r.time<0, r.time> 0);
  return r;
}

// Fractions of a month cascade to days and of a day to seconds, never upward
// (PostgreSQL's interval_mul and interval_div); the products are given.
inline Interval interval_scaled(double month_product, double day_product, double time_product) {
  using interval_arith::add;
  auto fits32 = [](double v) { return !std::isnan(v) && v >= -2147483648.0 && v < 2147483648.0; };
  auto to_usec = [](double v) { return std::rint(v * 1000000.0) / 1000000.0; };
  if (!fits32(month_product) || !fits32(day_product)) throw_datetime_range("interval out of range");
  Interval r{0, int32_t(day_product), int32_t(month_product)};
  const double month_days = to_usec((month_product - r.month) * 30);
  double secs = to_usec((day_product - r.day + month_days - int(month_days)) * 86400);
  if (std::fabs(secs) >= 86400) {
    r.day = add(r.day, int32_t(secs / 86400));
    secs -= int(secs / 86400) * 86400;
  }
  r.day = add(r.day, int32_t(month_days));
  const double time = std::rint(time_product + secs * 1000000.0);
  if (std::isnan(time) || time < -9223372036854775808.0 || time >= 9223372036854775808.0)
    throw_datetime_range("interval out of range");
  r.time = int64_t(time);
  return r;
}
inline Interval interval_mul(const Interval& a, double f) {
  return interval_scaled(a.month * f, a.day * f, double(a.time) * f);
}
inline Interval interval_div(const Interval& a, double f) {
  if (f == 0.0) throw Error("division by zero").with_sqlstate(sqlstate::kDivisionByZero);
  return interval_scaled(a.month / f, a.day / f, double(a.time) / f);
}

// ---- typmods ----

// Microseconds rounded to `precision` (0-6) fractional digits, halves away from zero.
inline int64_t round_usec_to_precision(int64_t usec, int precision) {
  int64_t scale = 1;
  for (int i = precision; i < 6; ++i) scale *= 10;
  return usec >= 0 ? (usec + scale / 2) / scale * scale : -((-usec + scale / 2) / scale * scale);
}

// Rounds to `typmod` fractional digits, as a cast to timestamp(typmod) does.
inline int64_t timestamp_round_to_typmod(int64_t ts, int32_t typmod) {
  if (!timestamp_is_finite(ts) || typmod == -1 || typmod == 6) return ts;
  if (typmod < 0 || typmod > 6)
    throw Error("timestamp(" + std::to_string(typmod) + ") precision must be between 0 and 6")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  // PostgreSQL 15 does not range-check the rounded value: 294276-12-31 23:59:59.9999
  // rounds to 294277-01-01.
  return round_usec_to_precision(ts, typmod);
}

// Truncates to the typmod's fields and rounds to its precision, as a cast to an
// interval column's type does.
inline Interval interval_apply_typmod(Interval iv, int32_t typmod) {
  if (typmod < 0) return iv;
  const int32_t range = (typmod >> 16) & 0x7FFF, precision = typmod & 0xFFFF;
  const int32_t y = kIntervalYear, mo = kIntervalMonth, d = kIntervalDay, h = kIntervalHour,
                mi = kIntervalMinute;
  constexpr int64_t kUsecsPerMinute = 60000000, kUsecsPerHour = 60 * kUsecsPerMinute;
  if (range == y) iv.month = iv.month / 12 * 12;
  if (range == y || range == mo || range == (y | mo)) iv.day = 0;
  if (range == y || range == mo || range == (y | mo) || range == d) iv.time = 0;
  if (range == h || range == (d | h)) iv.time = iv.time / kUsecsPerHour * kUsecsPerHour;
  if (range == mi || range == (d | h | mi) || range == (h | mi))
    iv.time = iv.time / kUsecsPerMinute * kUsecsPerMinute;
  if (precision != kIntervalFullPrecision) {
    if (precision > 6)
      throw Error("interval(" + std::to_string(precision) + ") precision must be between 0 and 6")
          .with_sqlstate(sqlstate::kInvalidParameterValue);
    iv.time = round_usec_to_precision(iv.time, precision);
  }
  return iv;
}

}  // namespace tp
