// Reading and printing intervals (PostgreSQL's DecodeInterval and its ISO 8601 reader),
// and the fields of timestamps and dates: extract, date_part and date_trunc.
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

// ---- extract, date_part, date_trunc ----
namespace {

constexpr const char* kTimestampName = "timestamp without time zone";

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

FieldValue timestamp_part(std::string_view field, int64_t ts) {
  const std::string unit_name = to_lower(field);
  const Token t = field_token(unit_name);
  if (t.type != TokenType::kUnits && t.type != TokenType::kReserved)
    throw_unit(unit_name, kTimestampName, false);
  const bool supported = t.type == TokenType::kReserved
                             ? t.value == kEpoch
                             : is_oscillating(t.value) || is_monotonic(t.value);
  if (!supported) throw_unit(unit_name, kTimestampName, true);
  if (!timestamp_is_finite(ts)) {
    if (is_oscillating(t.value)) return {true, "", 0};
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
  Tm tm;
  if (!timestamp_to_tm(ts, &tm)) throw_range("timestamp out of range");
  r.numeric = timestamp_field(t.value, tm, &r.dbl);
  return r;
}

}  // namespace

std::optional<std::string> extract_timestamp(std::string_view field, int64_t ts) {
  FieldValue v = timestamp_part(field, ts);
  if (v.is_null) return std::nullopt;
  return v.numeric;
}

std::optional<double> date_part_timestamp(std::string_view field, int64_t ts) {
  FieldValue v = timestamp_part(field, ts);
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

int64_t date_trunc_timestamp(std::string_view field, int64_t ts) {
  if (!timestamp_is_finite(ts)) return ts;  // whatever the unit, as PostgreSQL
  const std::string unit_name = to_lower(field);
  const Token t = lookup_unit_token(unit_name);
  if (t.type != TokenType::kUnits) throw_unit(unit_name, kTimestampName, false);
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
    throw_unit(unit_name, kTimestampName, true);
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
