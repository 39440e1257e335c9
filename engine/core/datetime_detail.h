// What datetime.cc and interval.cc share: the calendar, the splitting of date/time
// text into fields, PostgreSQL's keyword tables and the errors. Not an API: include
// datetime.h to use the types.
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/datetime.h"
#include "engine/core/error.h"

namespace tp::datetime_detail {

inline constexpr int64_t kUsecsPerSec = 1000000;
inline constexpr int64_t kUsecsPerMinute = 60 * kUsecsPerSec;
inline constexpr int64_t kUsecsPerHour = 60 * kUsecsPerMinute;
inline constexpr int32_t kDaysPerMonth = 30;
inline constexpr int32_t kMonthsPerYear = 12;
inline constexpr int64_t kUnixEpoch = -946684800LL * kUsecsPerSec;  // 1970-01-01 as a timestamp

// ---- calendar (proleptic Gregorian, astronomical years, Julian day numbers) ----

inline bool is_leap(int64_t y) {
  return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

inline int days_in_month(int64_t year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return kDays[month - 1] + (month == 2 && is_leap(year) ? 1 : 0);
}

// Counted in 400-year eras starting in March, so that a leap day ends its year.
inline int64_t julian_day(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t year_of_era = y - era * 400;
  const int64_t day_of_year = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era + 1721120;  // 1721120: 0000-03-01
}

inline void julian_to_date(int64_t jd, int64_t* year, int* month, int* day) {
  const int64_t z = jd - 1721120;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t day_of_era = z - era * 146097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t march_month = (5 * day_of_year + 2) / 153;
  *day = int(day_of_year - (153 * march_month + 2) / 5 + 1);
  *month = int(march_month < 10 ? march_month + 3 : march_month - 9);
  *year = year_of_era + era * 400 + (*month <= 2);
}

inline int day_of_week(int64_t jd) {  // 0 = Sunday
  const int64_t d = (jd + 1) % 7;
  return int(d < 0 ? d + 7 : d);
}

// PostgreSQL checks the year and month (not the day) before its Julian-day routines.
inline bool julian_in_range(int64_t y, int m) {
  return (y > -4713 || (y == -4713 && m >= 11)) && (y < 5874898 || (y == 5874898 && m < 6));
}
inline bool date_value_valid(int64_t d) {
  return d >= -int64_t(kPostgresEpochJulian) && d < 2147483494LL - kPostgresEpochJulian;
}
inline bool timestamp_value_valid(int64_t ts) {
  return ts >= -211813488000000000LL && ts < 9223371331200000000LL;
}

// A timestamp broken into fields.
struct Tm {
  int64_t year = 0;
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  int32_t usec = 0;
};

// False when the timestamp is past the calendar routines' range.
inline bool timestamp_to_tm(int64_t ts, Tm* tm) {
  int64_t date = ts / kUsecsPerDay, time = ts % kUsecsPerDay;
  if (time < 0) {
    time += kUsecsPerDay;
    date -= 1;
  }
  date += kPostgresEpochJulian;
  if (date < 0 || date > INT32_MAX) return false;
  julian_to_date(date, &tm->year, &tm->month, &tm->day);
  tm->hour = int(time / kUsecsPerHour);
  tm->minute = int(time / kUsecsPerMinute % 60);
  tm->second = int(time / kUsecsPerSec % 60);
  tm->usec = int32_t(time % kUsecsPerSec);
  return true;
}

// The timestamp of `tm` (seconds may be 60, hours 24); false when out of range.
// `tz_offset`: seconds east of UTC that `tm` is given in; the range is checked after
// it is taken off, as PostgreSQL's tm2timestamp does.
inline bool tm_to_timestamp(const Tm& tm, int64_t* ts, int tz_offset = 0) {
  if (!julian_in_range(tm.year, tm.month)) return false;
  const int64_t date = julian_day(tm.year, tm.month, tm.day) - kPostgresEpochJulian;
  const int64_t time =
      ((int64_t(tm.hour) * 60 + tm.minute) * 60 + tm.second) * kUsecsPerSec + tm.usec;
  int64_t r;
  if (__builtin_mul_overflow(date, kUsecsPerDay, &r) || __builtin_add_overflow(r, time, &r) ||
      __builtin_sub_overflow(r, int64_t(tz_offset) * kUsecsPerSec, &r) || !timestamp_value_valid(r))
    return false;
  *ts = r;
  return true;
}

// ---- the fields of date/time text ----

enum class FieldKind { kNumber, kString, kDate, kTime, kSignedNumber, kSpecial };
struct Field {
  FieldKind kind;
  std::string text;  // lower-cased
};
enum class ParseStatus { kOk, kBadFormat, kFieldOverflow, kMonthDayOverflow, kTzOverflow };

// h:m[:s[.f]] or m:s.f (PostgreSQL's DecodeTimeCommon). `minute_to_second`: two
// fields are minutes and seconds, as in an interval MINUTE TO SECOND.
struct TimeFields {
  int64_t hour = 0;
  int minute = 0, second = 0;
  int32_t usec = 0;
};

// ---- keywords ----

enum class TokenType {
  kUnknown,
  kReserved,
  kMonth,
  kDayOfWeek,
  kAmPm,
  kAdBc,
  kUnits,
  kIsoTime,
  kIgnore,
  kAgo,
  kZone
};
// Units and reserved words (PostgreSQL's DTK_* values).
enum Unit {
  kUnitNone,
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kQuarter,
  kYear,
  kDecade,
  kCentury,
  kMillennium,
  kTimezone,
  kTimezoneHour,
  kTimezoneMinute,
  kDow,
  kIsoDow,
  kDoy,
  kIsoYear,
  kJulian,
  kEpoch,
  kInfinity,
  kMinusInfinity,
  kNow,
  kToday,
  kTomorrow,
  kYesterday,
  kZulu,
  kInvalid,
  kAm,
  kPm,
  kAd,
  kBc,
  kIsoTimeMark
};
struct Token {
  TokenType type = TokenType::kUnknown;
  int value = 0;  // a Unit, a month 1-12, a weekday 0-6 or a zone's offset in seconds
};
struct Keyword {
  const char* word;
  Token token;
};

// clang-format off
// PostgreSQL 15's datetktbl: the words of dates and timestamps.
inline constexpr Keyword kDateWords[] = {
  {"-infinity", {TokenType::kReserved, kMinusInfinity}}, {"ad", {TokenType::kAdBc, kAd}},
  {"allballs", {TokenType::kReserved, kZulu}}, {"am", {TokenType::kAmPm, kAm}},
  {"apr", {TokenType::kMonth, 4}}, {"april", {TokenType::kMonth, 4}},
  {"at", {TokenType::kIgnore, 0}}, {"aug", {TokenType::kMonth, 8}},
  {"august", {TokenType::kMonth, 8}}, {"bc", {TokenType::kAdBc, kBc}},
  {"d", {TokenType::kUnits, kDay}}, {"dec", {TokenType::kMonth, 12}},
  {"december", {TokenType::kMonth, 12}}, {"dow", {TokenType::kUnits, kDow}},
  {"doy", {TokenType::kUnits, kDoy}}, {"epoch", {TokenType::kReserved, kEpoch}},
  {"feb", {TokenType::kMonth, 2}}, {"february", {TokenType::kMonth, 2}},
  {"fri", {TokenType::kDayOfWeek, 5}}, {"friday", {TokenType::kDayOfWeek, 5}},
  {"h", {TokenType::kUnits, kHour}}, {"infinity", {TokenType::kReserved, kInfinity}},
  {"isodow", {TokenType::kUnits, kIsoDow}}, {"isoyear", {TokenType::kUnits, kIsoYear}},
  {"j", {TokenType::kUnits, kJulian}}, {"jan", {TokenType::kMonth, 1}},
  {"january", {TokenType::kMonth, 1}}, {"jd", {TokenType::kUnits, kJulian}},
  {"jul", {TokenType::kMonth, 7}}, {"julian", {TokenType::kUnits, kJulian}},
  {"july", {TokenType::kMonth, 7}}, {"jun", {TokenType::kMonth, 6}},
  {"june", {TokenType::kMonth, 6}}, {"m", {TokenType::kUnits, kMonth}},
  {"mar", {TokenType::kMonth, 3}}, {"march", {TokenType::kMonth, 3}},
  {"may", {TokenType::kMonth, 5}}, {"mm", {TokenType::kUnits, kMinute}},
  {"mon", {TokenType::kDayOfWeek, 1}}, {"monday", {TokenType::kDayOfWeek, 1}},
  {"nov", {TokenType::kMonth, 11}}, {"november", {TokenType::kMonth, 11}},
  {"now", {TokenType::kReserved, kNow}}, {"oct", {TokenType::kMonth, 10}},
  {"october", {TokenType::kMonth, 10}}, {"on", {TokenType::kIgnore, 0}},
  {"pm", {TokenType::kAmPm, kPm}}, {"s", {TokenType::kUnits, kSecond}},
  {"sat", {TokenType::kDayOfWeek, 6}}, {"saturday", {TokenType::kDayOfWeek, 6}},
  {"sep", {TokenType::kMonth, 9}}, {"sept", {TokenType::kMonth, 9}},
  {"september", {TokenType::kMonth, 9}}, {"sun", {TokenType::kDayOfWeek, 0}},
  {"sunday", {TokenType::kDayOfWeek, 0}}, {"t", {TokenType::kIsoTime, kIsoTimeMark}},
  {"thu", {TokenType::kDayOfWeek, 4}}, {"thur", {TokenType::kDayOfWeek, 4}},
  {"thurs", {TokenType::kDayOfWeek, 4}}, {"thursday", {TokenType::kDayOfWeek, 4}},
  {"today", {TokenType::kReserved, kToday}}, {"tomorrow", {TokenType::kReserved, kTomorrow}},
  {"tue", {TokenType::kDayOfWeek, 2}}, {"tues", {TokenType::kDayOfWeek, 2}},
  {"tuesday", {TokenType::kDayOfWeek, 2}}, {"wed", {TokenType::kDayOfWeek, 3}},
  {"wednesday", {TokenType::kDayOfWeek, 3}}, {"weds", {TokenType::kDayOfWeek, 3}},
  {"y", {TokenType::kUnits, kYear}}, {"yesterday", {TokenType::kReserved, kYesterday}},
  // A few zone abbreviations of PostgreSQL's default set, with their offsets east of
  // UTC in seconds: a timestamp with time zone applies them, one without ignores them.
  {"cet", {TokenType::kZone, 3600}}, {"cest", {TokenType::kZone, 7200}},
  {"cst", {TokenType::kZone, -21600}}, {"cdt", {TokenType::kZone, -18000}},
  {"est", {TokenType::kZone, -18000}}, {"edt", {TokenType::kZone, -14400}},
  {"gmt", {TokenType::kZone, 0}}, {"mst", {TokenType::kZone, -25200}},
  {"mdt", {TokenType::kZone, -21600}}, {"pst", {TokenType::kZone, -28800}},
  {"pdt", {TokenType::kZone, -25200}}, {"ut", {TokenType::kZone, 0}},
  {"utc", {TokenType::kZone, 0}}, {"z", {TokenType::kZone, 0}}, {"zulu", {TokenType::kZone, 0}},
};

// PostgreSQL 15's deltatktbl: the units of intervals (and of extract and date_trunc).
inline constexpr Keyword kUnitWords[] = {
  {"@", {TokenType::kIgnore, 0}}, {"ago", {TokenType::kAgo, 0}},
  {"c", {TokenType::kUnits, kCentury}}, {"cent", {TokenType::kUnits, kCentury}},
  {"centuries", {TokenType::kUnits, kCentury}}, {"century", {TokenType::kUnits, kCentury}},
  {"d", {TokenType::kUnits, kDay}}, {"day", {TokenType::kUnits, kDay}},
  {"days", {TokenType::kUnits, kDay}}, {"dec", {TokenType::kUnits, kDecade}},
  {"decade", {TokenType::kUnits, kDecade}}, {"decades", {TokenType::kUnits, kDecade}},
  {"decs", {TokenType::kUnits, kDecade}}, {"h", {TokenType::kUnits, kHour}},
  {"hour", {TokenType::kUnits, kHour}}, {"hours", {TokenType::kUnits, kHour}},
  {"hr", {TokenType::kUnits, kHour}}, {"hrs", {TokenType::kUnits, kHour}},
  {"invalid", {TokenType::kReserved, kInvalid}}, {"m", {TokenType::kUnits, kMinute}},
  {"microsecon", {TokenType::kUnits, kMicrosecond}}, {"mil", {TokenType::kUnits, kMillennium}},
  {"millennia", {TokenType::kUnits, kMillennium}}, {"millennium", {TokenType::kUnits, kMillennium}},
  {"millisecon", {TokenType::kUnits, kMillisecond}}, {"mils", {TokenType::kUnits, kMillennium}},
  {"min", {TokenType::kUnits, kMinute}}, {"mins", {TokenType::kUnits, kMinute}},
  {"minute", {TokenType::kUnits, kMinute}}, {"minutes", {TokenType::kUnits, kMinute}},
  {"mon", {TokenType::kUnits, kMonth}}, {"mons", {TokenType::kUnits, kMonth}},
  {"month", {TokenType::kUnits, kMonth}}, {"months", {TokenType::kUnits, kMonth}},
  {"ms", {TokenType::kUnits, kMillisecond}}, {"msec", {TokenType::kUnits, kMillisecond}},
  {"msecond", {TokenType::kUnits, kMillisecond}}, {"mseconds", {TokenType::kUnits, kMillisecond}},
  {"msecs", {TokenType::kUnits, kMillisecond}}, {"qtr", {TokenType::kUnits, kQuarter}},
  {"quarter", {TokenType::kUnits, kQuarter}}, {"s", {TokenType::kUnits, kSecond}},
  {"sec", {TokenType::kUnits, kSecond}}, {"second", {TokenType::kUnits, kSecond}},
  {"seconds", {TokenType::kUnits, kSecond}}, {"secs", {TokenType::kUnits, kSecond}},
  {"timezone", {TokenType::kUnits, kTimezone}}, {"timezone_h", {TokenType::kUnits, kTimezoneHour}},
  {"timezone_m", {TokenType::kUnits, kTimezoneMinute}}, {"us", {TokenType::kUnits, kMicrosecond}},
  {"usec", {TokenType::kUnits, kMicrosecond}}, {"usecond", {TokenType::kUnits, kMicrosecond}},
  {"useconds", {TokenType::kUnits, kMicrosecond}}, {"usecs", {TokenType::kUnits, kMicrosecond}},
  {"w", {TokenType::kUnits, kWeek}}, {"week", {TokenType::kUnits, kWeek}},
  {"weeks", {TokenType::kUnits, kWeek}}, {"y", {TokenType::kUnits, kYear}},
  {"year", {TokenType::kUnits, kYear}}, {"years", {TokenType::kUnits, kYear}},
  {"yr", {TokenType::kUnits, kYear}}, {"yrs", {TokenType::kUnits, kYear}},
};
// clang-format on

// PostgreSQL compares keywords on their first 10 characters only.
template <size_t N>
Token lookup(const Keyword (&table)[N], std::string_view lower) {
  for (const Keyword& k : table)
    if (std::string_view(k.word).substr(0, 10) == lower.substr(0, 10)) return k.token;
  return {};
}
inline Token lookup_date_token(std::string_view lower) {
  return lookup(kDateWords, lower);
}
inline Token lookup_unit_token(std::string_view lower) {
  return lookup(kUnitWords, lower);
}

// ---- printing and errors ----

inline std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// |value| / 10^scale with exactly `scale` decimals, as a numeric of that scale prints;
// `drop_zeros` trims trailing fraction zeros (and the point) as seconds print.
inline std::string fixed_point(int64_t value, int scale, bool drop_zeros = false,
                               bool with_sign = true, int int_width = 1) {
  const bool neg = value < 0 && with_sign;
  const uint64_t mag = value < 0 ? 0 - uint64_t(value) : uint64_t(value);
  uint64_t pow = 1;
  for (int i = 0; i < scale; ++i) pow *= 10;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%0*llu.%0*llu", neg ? "-" : "", int_width,
                (unsigned long long)(mag / pow), scale, (unsigned long long)(mag % pow));
  std::string s = buf;
  if (drop_zeros)
    while (s.back() == '0' || s.back() == '.') {
      const bool point = s.back() == '.';
      s.pop_back();
      if (point) break;
    }
  return s;
}

// Seconds and microseconds as times print them: "06", "06.5".
inline std::string format_seconds(int second, int32_t usec) {
  const int64_t v = int64_t(second) * kUsecsPerSec + usec;
  return fixed_point(v, 6, true, false, 2);
}

[[noreturn]] inline void throw_range(const std::string& message) {
  throw Error(message).with_sqlstate(sqlstate::kDatetimeFieldOverflow);
}

// extract's and date_trunc's refusal of a field name.
[[noreturn]] inline void throw_unit(const std::string& unit, const char* type, bool known,
                                    const char* detail = "") {
  throw Error(
      "unit \"" + unit + "\" " + (known ? "not supported" : "not recognized") + " for type " + type,
      detail)
      .with_sqlstate(known ? sqlstate::kFeatureNotSupported : sqlstate::kInvalidParameterValue);
}

// ---- splitting text into fields ----

// ParseDateTime's character classes, on unsigned chars.

inline bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
inline bool is_alpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}
inline bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
inline char lower(char c) {
  return char(std::tolower(static_cast<unsigned char>(c)));
}

// Splits as PostgreSQL's ParseDateTime: numbers, words, dates with '-', '/' or '.',
// times with ':', signed numbers; other punctuation only separates fields.
inline ParseStatus split_fields(std::string_view s, std::vector<Field>* fields) {
  // PostgreSQL parses into a 128-byte buffer of at most 25 fields.
  constexpr size_t kMaxChars = 128, kMaxFields = 25;
  size_t i = 0, chars = 0;
  auto at = [&](size_t k) { return k < s.size() ? s[k] : '\0'; };
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Field f{FieldKind::kNumber, {}};
    auto take = [&] { f.text.push_back(lower(s[i++])); };
    if (is_digit(c)) {
      while (is_digit(at(i))) take();
      if (at(i) == ':') {
        f.kind = FieldKind::kTime;
        take();
        while (is_digit(at(i)) || at(i) == ':' || at(i) == '.') take();
      } else if (at(i) == '-' || at(i) == '/' || at(i) == '.') {
        const char delim = at(i);
        take();
        if (is_digit(at(i))) {
          f.kind = delim == '.' ? FieldKind::kNumber : FieldKind::kDate;
          while (is_digit(at(i))) take();
          if (at(i) == delim) {  // a three-part date needs matching delimiters
            f.kind = FieldKind::kDate;
            take();
            while (is_digit(at(i)) || at(i) == delim) take();
          }
        } else {
          f.kind = FieldKind::kDate;
          while (is_alnum(at(i)) || at(i) == delim) take();
        }
      }
    } else if (c == '.') {
      take();
      while (is_digit(at(i))) take();
    } else if (is_alpha(c)) {
      f.kind = FieldKind::kString;
      while (is_alpha(at(i))) take();
      // A word running into '-', '/', '.', or into digits when it is no known
      // keyword, is a date with a month name ("jan-05-2020") or a zone name.
      bool is_date = at(i) == '-' || at(i) == '/' || at(i) == '.';
      if (!is_date && (at(i) == '+' || is_digit(at(i))))
        is_date = lookup_date_token(f.text).type == TokenType::kUnknown ||
                  lookup_date_token(f.text).type == TokenType::kZone;
      if (is_date) {
        f.kind = FieldKind::kDate;
        do take();
        while (at(i) == '+' || at(i) == '-' || at(i) == '/' || at(i) == '_' || at(i) == '.' ||
               at(i) == ':' || is_alnum(at(i)));
      }
    } else if (c == '+' || c == '-') {
      take();
      while (std::isspace(static_cast<unsigned char>(at(i)))) ++i;
      if (is_digit(at(i))) {
        f.kind = FieldKind::kSignedNumber;
        while (is_digit(at(i)) || at(i) == ':' || at(i) == '.' || at(i) == '-') take();
      } else if (is_alpha(at(i))) {
        f.kind = FieldKind::kSpecial;
        while (is_alpha(at(i))) take();
      } else {
        return ParseStatus::kBadFormat;
      }
    } else if (std::ispunct(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    } else {
      return ParseStatus::kBadFormat;
    }
    chars += f.text.size() + 1;
    if (chars > kMaxChars || fields->size() >= kMaxFields) return ParseStatus::kBadFormat;
    fields->push_back(std::move(f));
  }
  return ParseStatus::kOk;
}

// Throws the error PostgreSQL raises for `status` on `text` of type `type_name`.
[[noreturn]] inline void throw_parse_error(ParseStatus status, std::string_view text,
                                           const char* type_name) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  switch (status) {
    case ParseStatus::kFieldOverflow:
      throw Error("date/time field value out of range: " + quoted)
          .with_sqlstate(sqlstate::kDatetimeFieldOverflow);
    case ParseStatus::kMonthDayOverflow:
      throw Error("date/time field value out of range: " + quoted, "",
                  "Perhaps you need a different \"datestyle\" setting.")
          .with_sqlstate(sqlstate::kDatetimeFieldOverflow);
    case ParseStatus::kTzOverflow:
      throw Error("time zone displacement out of range: " + quoted)
          .with_sqlstate(sqlstate::kInvalidTimeZoneDisplacementValue);
    default:
      throw Error("invalid input syntax for type " + std::string(type_name) + ": " + quoted)
          .with_sqlstate(sqlstate::kInvalidDatetimeFormat);
  }
}

// ".ddd" (a lone "." is zero) into a fraction.
inline ParseStatus parse_fraction(std::string_view s, double* out) {
  if (s.size() == 1) {
    *out = 0;
    return ParseStatus::kOk;
  }
  std::string buf(s);
  char* end;
  errno = 0;
  *out = std::strtod(buf.c_str(), &end);
  if (*end != '\0' || errno != 0) return ParseStatus::kBadFormat;
  return ParseStatus::kOk;
}

// strtol-style: an optional sign and digits; false when there are none.
inline bool parse_int(std::string_view s, size_t* pos, int64_t* out, bool* overflow) {
  size_t i = *pos;
  bool neg = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  const size_t start = i;
  __int128 v = 0;
  while (i < s.size() && is_digit(s[i])) {
    v = v * 10 + (s[i++] - '0');
    if (v > (__int128(1) << 64)) v = __int128(1) << 64;
  }
  if (i == start) {  // no digits: zero, nothing read, as strtol
    *out = 0;
    *overflow = false;
    return true;
  }
  if (neg) v = -v;
  *overflow = v > INT64_MAX || v < INT64_MIN;
  *out = int64_t(*overflow ? 0 : v);
  *pos = i;
  return true;
}

inline bool fits_int32(int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX;
}

inline ParseStatus parse_usec_fraction(std::string_view s, int32_t* usec) {
  double frac;
  if (auto st = parse_fraction(s, &frac); st != ParseStatus::kOk) return st;
  *usec = int32_t(std::rint(frac * 1000000));
  return ParseStatus::kOk;
}

// h:m[:s[.f]] or m:s.f (PostgreSQL's DecodeTimeCommon).
inline ParseStatus parse_time_fields(std::string_view s, bool minute_to_second, TimeFields* out) {
  size_t pos = 0;
  int64_t v;
  bool overflow;
  if (!parse_int(s, &pos, &v, &overflow)) return ParseStatus::kBadFormat;
  if (overflow) return ParseStatus::kFieldOverflow;
  out->hour = v;
  if (pos >= s.size() || s[pos] != ':') return ParseStatus::kBadFormat;
  ++pos;
  if (!parse_int(s, &pos, &v, &overflow)) return ParseStatus::kBadFormat;
  if (overflow || !fits_int32(v)) return ParseStatus::kFieldOverflow;
  out->minute = int(v);
  out->second = 0;
  out->usec = 0;
  auto shift_to_minutes = [&] {
    if (!fits_int32(out->hour)) return false;
    out->second = out->minute;
    out->minute = int(out->hour);
    out->hour = 0;
    return true;
  };
  if (pos == s.size()) {
    if (minute_to_second && !shift_to_minutes()) return ParseStatus::kFieldOverflow;
  } else if (s[pos] == '.') {  // m:s.f
    if (auto st = parse_usec_fraction(s.substr(pos), &out->usec); st != ParseStatus::kOk) return st;
    if (!shift_to_minutes()) return ParseStatus::kFieldOverflow;
  } else if (s[pos] == ':') {
    ++pos;
    if (!parse_int(s, &pos, &v, &overflow)) return ParseStatus::kBadFormat;
    if (overflow || !fits_int32(v)) return ParseStatus::kFieldOverflow;
    out->second = int(v);
    if (pos < s.size() && s[pos] == '.') {
      if (auto st = parse_usec_fraction(s.substr(pos), &out->usec); st != ParseStatus::kOk)
        return st;
    } else if (pos != s.size()) {
      return ParseStatus::kBadFormat;
    }
  } else {
    return ParseStatus::kBadFormat;
  }
  if (out->hour < 0 || out->minute < 0 || out->minute > 59 || out->second < 0 || out->second > 60 ||
      out->usec < 0 || out->usec > 1000000)
    return ParseStatus::kFieldOverflow;
  return ParseStatus::kOk;
}

// Whether `name` looks like an IANA zone ("america/new_york"): the region is checked,
// not the city, as tidepool has no zone database.
inline bool is_region_zone(const std::string& name) {
  static constexpr std::string_view kRegions[] = {"africa/",   "america/",   "antarctica/", "asia/",
                                                  "atlantic/", "australia/", "europe/",     "etc/",
                                                  "indian/",   "pacific/"};
  for (std::string_view r : kRegions)
    if (name.size() > r.size() && name.compare(0, r.size(), r) == 0) return true;
  return false;
}

}  // namespace tp::datetime_detail
