// Reading and printing intervals (PostgreSQL's DecodeInterval and its ISO 8601 reader);
// datetime_fields.cc has extract, date_part and date_trunc.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "engine/core/datetime.h"
#include "engine/core/datetime_detail.h"
#include "engine/core/error.h"

namespace tp {

using namespace datetime_detail;

namespace {

// An interval being read: its parts kept apart until the end, as PostgreSQL's pg_itm_in.
struct Parts {
  int64_t usec = 0;
  int32_t day = 0, month = 0, year = 0;
};

// Whole units plus a fraction of one into microseconds, the fraction rounded.
bool add_fraction_usec(double frac, int64_t scale, Parts* p) {
  if (frac == 0) return true;
  frac *= double(scale);
  int64_t usec = int64_t(frac);
  frac -= double(usec);
  if (frac > 0.5)
    ++usec;
  else if (frac < -0.5)
    --usec;
  return !__builtin_add_overflow(p->usec, usec, &p->usec);
}
bool add_usec(int64_t val, double frac, int64_t scale, Parts* p) {
  int64_t prod;
  return !__builtin_mul_overflow(val, scale, &prod) &&
         !__builtin_add_overflow(p->usec, prod, &p->usec) && add_fraction_usec(frac, scale, p);
}
bool add_fraction_days(double frac, int scale, Parts* p) {
  if (frac == 0) return true;
  frac *= scale;
  const int extra = int(frac);
  if (__builtin_add_overflow(p->day, extra, &p->day)) return false;
  return add_fraction_usec(frac - extra, kUsecsPerDay, p);
}
bool add_days(int64_t val, int scale, Parts* p) {
  int64_t days;
  return !__builtin_mul_overflow(val, int64_t(scale), &days) && days >= INT32_MIN &&
         days <= INT32_MAX && !__builtin_add_overflow(p->day, int32_t(days), &p->day);
}
bool add_months(int64_t val, Parts* p) {
  return val >= INT32_MIN && val <= INT32_MAX &&
         !__builtin_add_overflow(p->month, int32_t(val), &p->month);
}
bool add_years(int64_t val, int scale, double frac, Parts* p) {
  int64_t years;
  if (__builtin_mul_overflow(val, int64_t(scale), &years) || years < INT32_MIN ||
      years > INT32_MAX || __builtin_add_overflow(p->year, int32_t(years), &p->year))
    return false;
  const int extra_months = int(std::rint(frac * scale * kMonthsPerYear));
  return !__builtin_add_overflow(p->month, extra_months, &p->month);
}

// `val` (with fraction `frac`) of `unit` added to `p`; false on overflow. A fraction
// spills into the next smaller part: years to months, months and weeks to days, days
// to microseconds.
bool add_unit(int unit, int64_t val, double frac, Parts* p, bool* bad_unit) {
  constexpr std::pair<int, int64_t> kTimeUnits[] = {{kMicrosecond, 1},
                                                    {kMillisecond, 1000},
                                                    {kSecond, kUsecsPerSec},
                                                    {kMinute, kUsecsPerMinute},
                                                    {kHour, kUsecsPerHour}};
  constexpr std::pair<int, int> kYearUnits[] = {
      {kYear, 1}, {kDecade, 10}, {kCentury, 100}, {kMillennium, 1000}};
  for (auto [u, usecs] : kTimeUnits)
    if (u == unit) return add_usec(val, frac, usecs, p);
  for (auto [u, years] : kYearUnits)
    if (u == unit) return add_years(val, years, frac, p);
  if (unit == kDay) return add_days(val, 1, p) && add_fraction_usec(frac, kUsecsPerDay, p);
  if (unit == kWeek) return add_days(val, 7, p) && add_fraction_days(frac, 7, p);
  if (unit == kMonth) return add_months(val, p) && add_fraction_days(frac, kDaysPerMonth, p);
  *bad_unit = true;
  return true;
}

constexpr int kTimeUnitsMask =
    (1 << kHour) | (1 << kMinute) | (1 << kSecond) | (1 << kMillisecond) | (1 << kMicrosecond);

// The unit a bare number has: the typmod's last field, else seconds.
int default_unit(int32_t range) {
  const int32_t y = kIntervalYear, mo = kIntervalMonth, d = kIntervalDay, h = kIntervalHour,
                mi = kIntervalMinute;
  if (range == y) return kYear;
  if (range == mo || range == (y | mo)) return kMonth;
  if (range == d) return kDay;
  if (range == h || range == (d | h)) return kHour;
  if (range == mi || range == (h | mi) || range == (d | h | mi)) return kMinute;
  return kSecond;
}

ParseStatus time_into(std::string_view s, int32_t range, Parts* p) {
  TimeFields t;
  const bool ms = range == (kIntervalMinute | kIntervalSecond);
  if (auto st = parse_time_fields(s, ms, &t); st != ParseStatus::kOk) return st;
  int64_t r;
  if (__builtin_mul_overflow(t.hour, kUsecsPerHour, &r) ||
      __builtin_add_overflow(r, t.minute * kUsecsPerMinute, &r) ||
      __builtin_add_overflow(r, t.second * kUsecsPerSec, &r) ||
      __builtin_add_overflow(r, int64_t(t.usec), &r))
    return ParseStatus::kFieldOverflow;
  p->usec = r;
  return ParseStatus::kOk;
}

// A number with its unit ("3", "-1.5", "1-2" years-months) into `p`.
ParseStatus number_into(const std::string& s, int* unit, int* tmask, Parts* p) {
  errno = 0;
  char* end;
  int64_t val = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE) return ParseStatus::kFieldOverflow;
  double frac = 0;
  if (*end == '-') {  // SQL "years-months"
    char* end2;
    errno = 0;
    long months = std::strtol(end + 1, &end2, 10);
    if (errno == ERANGE || months < 0 || months >= 12) return ParseStatus::kFieldOverflow;
    if (*end2 != '\0') return ParseStatus::kBadFormat;
    *unit = kMonth;
    if (s[0] == '-') months = -months;
    if (__builtin_mul_overflow(val, int64_t(12), &val) || __builtin_add_overflow(val, months, &val))
      return ParseStatus::kFieldOverflow;
  } else if (*end == '.') {
    if (auto st = parse_fraction(end, &frac); st != ParseStatus::kOk) return st;
    if (s[0] == '-') frac = -frac;
  } else if (*end != '\0' || end == s.c_str()) {
    return ParseStatus::kBadFormat;
  }
  bool bad_unit = false;
  if (!add_unit(*unit, val, frac, p, &bad_unit)) return ParseStatus::kFieldOverflow;
  if (bad_unit) return ParseStatus::kBadFormat;
  // Seconds with a fraction count as milli- and microseconds too.
  *tmask = *unit == kSecond && frac != 0
               ? (1 << kSecond) | (1 << kMillisecond) | (1 << kMicrosecond)
               : 1 << *unit;
  if (*unit == kHour) *unit = kDay;  // "1 2:00" style: a number left of hours is days
  return ParseStatus::kOk;
}

// PostgreSQL's DecodeInterval: fields read right to left so units precede values.
ParseStatus decode_interval(const std::vector<Field>& f, int32_t range, Parts* p) {
  int fmask = 0, unit = kUnitNone;
  bool ago = false;
  for (size_t k = f.size(); k-- > 0;) {
    int tmask = 0;
    const Field& fld = f[k];
    switch (fld.kind) {
      case FieldKind::kSignedNumber:
        if (fld.text.find(':', 1) != std::string::npos &&
            time_into(std::string_view(fld.text).substr(1), range, p) == ParseStatus::kOk) {
          if (fld.text[0] == '-') {
            if (p->usec == INT64_MIN) return ParseStatus::kFieldOverflow;
            p->usec = -p->usec;
          }
          tmask = kTimeUnitsMask;
          unit = kDay;
          break;
        }
        [[fallthrough]];
      case FieldKind::kDate:
      case FieldKind::kNumber:
        if (unit == kUnitNone) unit = default_unit(range);
        if (auto st = number_into(fld.text, &unit, &tmask, p); st != ParseStatus::kOk) return st;
        break;
      case FieldKind::kTime:
        if (auto st = time_into(fld.text, range, p); st != ParseStatus::kOk) return st;
        tmask = kTimeUnitsMask;
        unit = kDay;
        break;
      case FieldKind::kString:
      case FieldKind::kSpecial: {
        const Token t = lookup_unit_token(fld.text);
        if (t.type == TokenType::kIgnore) continue;
        if (t.type == TokenType::kUnits) {
          unit = t.value;
        } else if (t.type == TokenType::kAgo) {
          ago = true;
          unit = kInvalid;  // a number right before "ago" has no unit
        } else {
          return ParseStatus::kBadFormat;
        }
        break;
      }
    }
    if (tmask & fmask) return ParseStatus::kBadFormat;
    fmask |= tmask;
  }
  if (fmask == 0) return ParseStatus::kBadFormat;
  if (ago) {
    if (p->usec == INT64_MIN || p->day == INT32_MIN || p->month == INT32_MIN ||
        p->year == INT32_MIN)
      return ParseStatus::kFieldOverflow;
    *p = {-p->usec, -p->day, -p->month, -p->year};
  }
  return ParseStatus::kOk;
}

// ".5", "-3", "1.5e3": a number split into whole part and fraction (toward zero).
ParseStatus iso_number(const char** str, int64_t* whole, double* frac) {
  const char* s = *str;
  if (!(std::isdigit(static_cast<unsigned char>(*s)) || *s == '-' || *s == '.'))
    return ParseStatus::kBadFormat;
  char* end;
  errno = 0;
  const double v = std::strtod(s, &end);
  if (end == s || errno != 0) return ParseStatus::kBadFormat;
  if (std::isnan(v) || v < -1.0e15 || v > 1.0e15) return ParseStatus::kFieldOverflow;
  *whole = v >= 0 ? int64_t(std::floor(v)) : -int64_t(std::floor(-v));
  *frac = v - double(*whole);
  *str = end;
  return ParseStatus::kOk;
}

size_t digits_at(const char* s) {
  if (*s == '-') ++s;
  return std::strspn(s, "0123456789");
}

// ISO 8601 durations (PostgreSQL's DecodeISO8601Interval): designators
// "P1Y2M3W4DT5H6M7S", or the alternative forms "P0001-02-03T04:05:06" and
// "P00010203T040506".
ParseStatus decode_iso8601(const std::string& text, Parts* p) {
  if (text.size() < 2 || text[0] != 'P') return ParseStatus::kBadFormat;
  const char* s = text.c_str() + 1;
  bool date_part = true, have_field = false, bad_unit = false;
  int64_t v;
  double fr;
  auto add = [&](int unit, int64_t whole, double frac) {
    return add_unit(unit, whole, frac, p, &bad_unit);
  };
  while (*s) {
    if (*s == 'T') {
      date_part = false;
      have_field = false;
      ++s;
      continue;
    }
    const char* start = s;
    if (auto st = iso_number(&s, &v, &fr); st != ParseStatus::kOk) return st;
    const char unit = *s ? *s++ : '\0';
    const std::string_view designators = date_part ? "YMWD" : "HMS";
    const int kDateUnits[] = {kYear, kMonth, kWeek, kDay}, kTimeUnits[] = {kHour, kMinute, kSecond};
    if (const size_t k = designators.find(unit); unit != '\0' && k != std::string_view::npos) {
      if (!add((date_part ? kDateUnits : kTimeUnits)[k], v, fr)) return ParseStatus::kFieldOverflow;
      have_field = true;
      continue;
    }
    const bool to_time = date_part && unit == 'T';
    if (unit != '\0' && !to_time && unit != (date_part ? '-' : ':')) return ParseStatus::kBadFormat;
    const int units[] = {date_part ? kYear : kHour, date_part ? kMonth : kMinute,
                         date_part ? kDay : kSecond};
    if (unit != (date_part ? '-' : ':') && !have_field &&
        digits_at(start) == (date_part ? 8u : 6u)) {  // YYYYMMDD, hhmmss
      // A time's fraction counts as microseconds here, as in PostgreSQL.
      if (!add(units[0], v / 10000, 0) || !add(units[1], v / 100 % 100, 0) ||
          !add(units[2], v % 100, date_part ? fr : 0) ||
          (!date_part && !add_fraction_usec(fr, 1, p)))
        return ParseStatus::kFieldOverflow;
      if (unit == '\0') return ParseStatus::kOk;
      date_part = false;
      continue;
    }
    // YYYY-MM-DD, hh:mm:ss, or a prefix of them.
    if (have_field) return ParseStatus::kBadFormat;
    if (!add(units[0], v, fr)) return ParseStatus::kFieldOverflow;
    if (unit == '\0') return ParseStatus::kOk;
    if (to_time) {
      date_part = false;
      continue;
    }
    for (int k = 1; k < 3; ++k) {
      if (auto st = iso_number(&s, &v, &fr); st != ParseStatus::kOk) return st;
      if (!add(units[k], v, fr)) return ParseStatus::kFieldOverflow;
      if (*s == '\0') return ParseStatus::kOk;
      if (date_part && *s == 'T') break;  // the loop's top reads the 'T'
      if (k == 2 || *s != (date_part ? '-' : ':')) return ParseStatus::kBadFormat;
      ++s;
    }
  }
  return ParseStatus::kOk;
}

}  // namespace

Interval interval_in(std::string_view text, int32_t typmod) {
  const int32_t range = typmod < 0 ? kIntervalFullRange : (typmod >> 16) & 0x7FFF;
  std::vector<Field> fields;
  Parts p;
  ParseStatus st = split_fields(text, &fields);
  if (st == ParseStatus::kOk) st = decode_interval(fields, range, &p);
  if (st == ParseStatus::kBadFormat) {
    p = Parts{};
    st = decode_iso8601(std::string(text), &p);
  }
  if (st == ParseStatus::kFieldOverflow) {
    throw Error("interval field value out of range: \"" + std::string(text) + "\"")
        .with_sqlstate(sqlstate::kIntervalFieldOverflow);
  }
  if (st != ParseStatus::kOk) throw_parse_error(st, text, "interval");
  const int64_t months = int64_t(p.year) * kMonthsPerYear + p.month;
  if (months < INT32_MIN || months > INT32_MAX) throw_range("interval out of range");
  return interval_apply_typmod(Interval{p.usec, p.day, int32_t(months)}, typmod);
}

// IntervalStyle postgres: "1 year 2 mons -3 days +04:05:06.5". A number's sign is
// spelled out after a negative field, as PostgreSQL's output does.
std::string interval_out(const Interval& iv) {
  std::string out;
  bool is_zero = true, after_negative = false;
  auto part = [&](int64_t value, const char* unit) {
    if (value == 0) return;
    if (!is_zero) out += ' ';
    if (after_negative && value > 0) out += '+';
    out += std::to_string(value) + ' ' + unit + (value != 1 ? "s" : "");
    after_negative = value < 0;
    is_zero = false;
  };
  part(iv.month / 12, "year");
  part(iv.month % 12, "mon");
  part(iv.day, "day");
  const int64_t hour = iv.time / kUsecsPerHour;
  int64_t rest = iv.time - hour * kUsecsPerHour;
  const int minute = int(rest / kUsecsPerMinute);
  rest -= minute * kUsecsPerMinute;
  const int second = int(rest / kUsecsPerSec);
  const int32_t usec = int32_t(rest - second * kUsecsPerSec);
  if (is_zero || iv.time != 0) {
    const bool minus = hour < 0 || minute < 0 || second < 0 || usec < 0;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%s%02llu:%02d:", is_zero ? "" : " ",
                  minus            ? "-"
                  : after_negative ? "+"
                                   : "",
                  (unsigned long long)(hour < 0 ? -(unsigned long long)hour : hour),
                  std::abs(minute));
    out += buf + format_seconds(second, usec);
  }
  return out;
}

}  // namespace tp
