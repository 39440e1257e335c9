// Reading dates, timestamps and timestamps with time zone (PostgreSQL's ParseDateTime
// and DecodeDateTime), and the zones AT TIME ZONE names.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "engine/core/datetime.h"
#include "engine/core/datetime_detail.h"
#include "engine/core/error.h"

namespace tp {

using namespace datetime_detail;

namespace {

// Field bits, numbered as PostgreSQL's token types so that a field given twice is
// caught the way PostgreSQL catches it.
constexpr int bit(int n) {
  return 1 << n;
}
constexpr int kMReserved = bit(0), kMMonth = bit(1), kMYear = bit(2), kMDay = bit(3), kMTz = bit(5),
              kMAmPm = bit(9), kMHour = bit(10), kMMinute = bit(11), kMSecond = bit(12),
              kMMilli = bit(13), kMMicro = bit(14), kMDoy = bit(15), kMDow = bit(16),
              kMAdBc = bit(18);
constexpr int kDateMask = kMYear | kMMonth | kMDay;
constexpr int kTimeMask = kMHour | kMMinute | kMSecond | kMMilli | kMMicro;

enum class Kind { kDate, kEpoch, kLate, kEarly };

struct Decoded {
  Kind kind = Kind::kDate;
  Tm tm;
  int fmask = 0;
  int yday = 0;
  bool is2digits = false, bc = false, julian = false, text_month = false;
  int meridian = 0;         // kAm, kPm or 0 for a 24-hour clock
  int pending = kUnitNone;  // a unit word ('j', 't') waiting for its number
  int tz_offset = 0;        // the zone given, in seconds east of UTC
  std::string region_zone;  // a zone given by its name ("europe/paris")
};

// A numeric zone: +hh, -hh:mm, +hhmm, -hh:mm:ss.
ParseStatus decode_timezone(const std::string& s, int* offset) {
  size_t pos = 1;
  auto number = [&](int64_t* v) {
    size_t start = pos;
    *v = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      *v = std::min<int64_t>(*v * 10 + (s[pos++] - '0'), int64_t(1) << 40);
    }
    return pos > start;
  };
  int64_t hr = 0, min = 0, sec = 0;
  number(&hr);
  if (hr > INT32_MAX) return ParseStatus::kTzOverflow;
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    number(&min);
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      number(&sec);
    }
  } else if (pos == s.size() && s.size() > 3) {
    min = hr % 100;
    hr /= 100;
  }
  if (hr > 15 || min >= 60 || sec >= 60) return ParseStatus::kTzOverflow;
  *offset = int((hr * 3600 + min * 60 + sec) * (s[0] == '-' ? -1 : 1));
  return pos == s.size() ? ParseStatus::kOk : ParseStatus::kBadFormat;
}

// One number of a date, placed by what is known so far (PostgreSQL's DecodeNumber).
ParseStatus decode_number(const std::string& s, Decoded* d, int* tmask);

// A run of digits: YYYYMMDD, YYMMDD, hhmmss or hhmm (PostgreSQL's DecodeNumberField).
ParseStatus decode_number_field(std::string s, Decoded* d, int fmask, int* tmask) {
  if (size_t dot = s.find('.'); dot != std::string::npos) {
    double frac = std::strtod(s.c_str() + dot, nullptr);
    d->tm.usec = int32_t(std::rint(frac * 1000000));
    s.resize(dot);
  } else if ((fmask & kDateMask) != kDateMask && s.size() >= 6) {
    *tmask = kDateMask;
    const size_t n = s.size();
    d->tm.day = std::atoi(s.substr(n - 2).c_str());
    d->tm.month = std::atoi(s.substr(n - 4, 2).c_str());
    d->tm.year = std::atoi(s.substr(0, n - 4).c_str());
    if (n - 4 == 2) d->is2digits = true;
    return ParseStatus::kOk;
  }
  if ((fmask & kTimeMask) != kTimeMask && (s.size() == 6 || s.size() == 4)) {
    *tmask = kTimeMask;
    d->tm.hour = std::atoi(s.substr(0, 2).c_str());
    d->tm.minute = std::atoi(s.substr(2, 2).c_str());
    d->tm.second = s.size() == 6 ? std::atoi(s.substr(4, 2).c_str()) : 0;
    return ParseStatus::kOk;
  }
  return ParseStatus::kBadFormat;
}

ParseStatus decode_number(const std::string& s, Decoded* d, int* tmask) {
  const int flen = int(s.size());
  const int fmask = d->fmask;
  errno = 0;
  char* end;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str()) return ParseStatus::kBadFormat;
  if (errno == ERANGE || v > INT32_MAX || v < INT32_MIN) return ParseStatus::kFieldOverflow;
  const int val = int(v);
  if (*end == '.') {
    if (end - s.c_str() > 2) return decode_number_field(s, d, fmask | kDateMask, tmask);
    double frac;
    if (auto st = parse_fraction(end, &frac); st != ParseStatus::kOk) return st;
    d->tm.usec = int32_t(std::rint(frac * 1000000));
  } else if (*end != '\0') {
    return ParseStatus::kBadFormat;
  }
  if (flen == 3 && (fmask & kDateMask) == kMYear && val >= 1 && val <= 366) {
    *tmask = kMDoy | kMMonth | kMDay;
    d->yday = val;
    return ParseStatus::kOk;
  }
  switch (fmask & kDateMask) {
    case 0:  // the first number: a year when long, else the month (MDY)
      if (flen >= 3) {
        *tmask = kMYear;
        d->tm.year = val;
      } else {
        *tmask = kMMonth;
        d->tm.month = val;
      }
      break;
    case kMYear:
      *tmask = kMMonth;
      d->tm.month = val;
      break;
    case kMMonth:
      if (d->text_month && flen >= 3) {
        *tmask = kMYear;
        d->tm.year = val;
      } else {
        *tmask = kMDay;
        d->tm.day = val;
      }
      break;
    case kMYear | kMMonth:
      *tmask = kMDay;
      if (d->text_month && flen >= 3 && d->is2digits) {  // DD-MON-YYYY after all
        d->tm.day = int(d->tm.year);
        d->tm.year = val;
        d->is2digits = false;
      } else {
        d->tm.day = val;
      }
      break;
    case kMDay:
      *tmask = kMMonth;
      d->tm.month = val;
      break;
    case kMMonth | kMDay:
      *tmask = kMYear;
      d->tm.year = val;
      break;
    case kDateMask:
      return decode_number_field(s, d, fmask, tmask);
    default:
      return ParseStatus::kBadFormat;
  }
  if (*tmask == kMYear) d->is2digits = flen <= 2;
  return ParseStatus::kOk;
}

// A date field "2020-01-05", "01/05/2020", "jan-05-2020" (PostgreSQL's DecodeDate):
// a month name first, as it is unambiguous, then the numbers in order.
ParseStatus decode_date(const std::string& s, Decoded* d, int* tmask) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && !std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
    if (i == s.size()) return ParseStatus::kBadFormat;
    const size_t start = i;
    if (std::isdigit(static_cast<unsigned char>(s[i])))
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    else
      while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    parts.push_back(s.substr(start, i - start));
    if (i < s.size()) ++i;  // the separator after a part
  }
  *tmask = 0;
  int fmask = d->fmask;
  for (auto& p : parts) {
    if (!std::isalpha(static_cast<unsigned char>(p[0]))) continue;
    Token t = lookup_date_token(p);
    if (t.type == TokenType::kIgnore) {
      p.clear();
      continue;
    }
    if (t.type != TokenType::kMonth || (fmask & kMMonth)) return ParseStatus::kBadFormat;
    d->tm.month = t.value;
    d->text_month = true;
    fmask |= kMMonth;
    *tmask |= kMMonth;
    p.clear();
  }
  for (const auto& p : parts) {
    if (p.empty()) continue;
    int dmask = 0;
    d->fmask = fmask;
    if (auto st = decode_number(p, d, &dmask); st != ParseStatus::kOk) return st;
    if (fmask & dmask) return ParseStatus::kBadFormat;
    fmask |= dmask;
    *tmask |= dmask;
  }
  d->fmask = fmask & ~*tmask;
  if ((fmask & ~(kMDoy | kMTz)) != kDateMask) return ParseStatus::kBadFormat;
  return ParseStatus::kOk;
}

// Years as written (1 BC, 2-digit) to astronomical ones; months and days checked.
ParseStatus validate_date(Decoded* d) {
  Tm& tm = d->tm;
  if (d->fmask & kMYear) {
    if (d->julian) {
    } else if (d->bc) {
      if (tm.year <= 0) return ParseStatus::kFieldOverflow;
      tm.year = 1 - tm.year;
    } else if (d->is2digits) {
      if (tm.year < 0) return ParseStatus::kFieldOverflow;
      if (tm.year < 70)
        tm.year += 2000;
      else if (tm.year < 100)
        tm.year += 1900;
    } else if (tm.year <= 0) {
      return ParseStatus::kFieldOverflow;
    }
  }
  if (d->fmask & kMDoy)
    julian_to_date(julian_day(tm.year, 1, 1) + d->yday - 1, &tm.year, &tm.month, &tm.day);
  if ((d->fmask & kMMonth) && (tm.month < 1 || tm.month > 12))
    return ParseStatus::kMonthDayOverflow;
  if ((d->fmask & kMDay) && (tm.day < 1 || tm.day > 31)) return ParseStatus::kMonthDayOverflow;
  if ((d->fmask & kDateMask) == kDateMask && tm.day > days_in_month(tm.year, tm.month))
    return ParseStatus::kFieldOverflow;
  return ParseStatus::kOk;
}

void set_relative_day(Decoded* d, int64_t now, int offset_days) {
  Tm today;
  timestamp_to_tm(now, &today);
  julian_to_date(julian_day(today.year, today.month, today.day) + offset_days, &d->tm.year,
                 &d->tm.month, &d->tm.day);
}

// A reserved word: now, today, tomorrow, yesterday, zulu, epoch, [-]infinity.
ParseStatus decode_reserved_word(int value, int64_t now, Decoded* d, int* tmask) {
  *tmask = kMReserved;
  if (value == kNow || value == kToday || value == kTomorrow || value == kYesterday ||
      value == kZulu)
    d->kind = Kind::kDate;
  switch (value) {
    case kNow: {
      *tmask = kDateMask | kTimeMask | kMTz;
      Tm tm;
      timestamp_to_tm(now, &tm);
      d->tm = tm;
      break;
    }
    case kToday:
    case kTomorrow:
    case kYesterday:
      *tmask = kDateMask;
      set_relative_day(d, now, value == kToday ? 0 : value == kTomorrow ? 1 : -1);
      break;
    case kZulu:
      *tmask = kTimeMask | kMTz;
      d->tm.hour = d->tm.minute = d->tm.second = 0;
      d->tm.usec = 0;
      break;
    case kEpoch:
      d->kind = Kind::kEpoch;
      break;
    case kInfinity:
      d->kind = Kind::kLate;
      break;
    case kMinusInfinity:
      d->kind = Kind::kEarly;
      break;
    default:
      return ParseStatus::kBadFormat;
  }
  return ParseStatus::kOk;
}

// A word: a month, weekday, 'bc', 'am', 'epoch', 'today', a zone, ...
ParseStatus decode_word(const std::vector<Field>& fields, size_t i, int64_t now, Decoded* d,
                        int* tmask) {
  const std::string& w = fields[i].text;
  const Token t = lookup_date_token(w);
  *tmask = 0;
  switch (t.type) {
    case TokenType::kIgnore:
      return ParseStatus::kOk;
    case TokenType::kZone:
      *tmask = kMTz;
      d->tz_offset = t.value;
      return ParseStatus::kOk;
    case TokenType::kReserved:
      return decode_reserved_word(t.value, now, d, tmask);
    case TokenType::kMonth:
      *tmask = kMMonth;
      // A number read as the month before the name came is the day.
      if ((d->fmask & kMMonth) && !d->text_month && !(d->fmask & kMDay) && d->tm.month >= 1 &&
          d->tm.month <= 31) {
        d->tm.day = d->tm.month;
        *tmask = kMDay;
      }
      d->text_month = true;
      d->tm.month = t.value;
      return ParseStatus::kOk;
    case TokenType::kAmPm:
      *tmask = kMAmPm;
      d->meridian = t.value;
      return ParseStatus::kOk;
    case TokenType::kAdBc:
      *tmask = kMAdBc;
      d->bc = t.value == kBc;
      return ParseStatus::kOk;
    case TokenType::kDayOfWeek:
      *tmask = kMDow;
      return ParseStatus::kOk;
    case TokenType::kUnits:
      if (d->pending != kUnitNone) return ParseStatus::kBadFormat;
      d->pending = t.value;
      return ParseStatus::kOk;
    case TokenType::kIsoTime:
      // 't' between a full date and a time
      if ((d->fmask & kDateMask) != kDateMask || i + 1 >= fields.size() ||
          (fields[i + 1].kind != FieldKind::kNumber && fields[i + 1].kind != FieldKind::kTime &&
           fields[i + 1].kind != FieldKind::kDate))
        return ParseStatus::kBadFormat;
      d->pending = kIsoTimeMark;
      return ParseStatus::kOk;
    default:
      return ParseStatus::kBadFormat;
  }
}

// A number after a unit word: a Julian day after 'j', hhmmss after 't'.
ParseStatus decode_labeled_number(const std::string& s, Decoded* d, int* tmask) {
  errno = 0;
  char* end;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno == ERANGE || v > INT32_MAX || v < INT32_MIN) return ParseStatus::kFieldOverflow;
  if (*end != '\0' && *end != '.') return ParseStatus::kBadFormat;
  if (d->pending == kJulian) {
    if (v < 0) return ParseStatus::kFieldOverflow;
    *tmask = kDateMask;
    julian_to_date(v, &d->tm.year, &d->tm.month, &d->tm.day);
    d->julian = true;
    if (*end == '.') {
      double frac;
      if (auto st = parse_fraction(end, &frac); st != ParseStatus::kOk) return st;
      int64_t t = int64_t(frac * double(kUsecsPerDay));
      d->tm.hour = int(t / kUsecsPerHour);
      t -= d->tm.hour * kUsecsPerHour;
      d->tm.minute = int(t / kUsecsPerMinute);
      t -= d->tm.minute * kUsecsPerMinute;
      d->tm.second = int(t / kUsecsPerSec);
      d->tm.usec = int32_t(t - d->tm.second * kUsecsPerSec);
      *tmask |= kTimeMask;
    }
  } else if (d->pending == kIsoTimeMark) {
    if (auto st = decode_number_field(s, d, d->fmask | kDateMask, tmask); st != ParseStatus::kOk)
      return st;
    if (*tmask != kTimeMask) return ParseStatus::kBadFormat;
  } else {
    return ParseStatus::kBadFormat;
  }
  d->pending = kUnitNone;
  return ParseStatus::kOk;
}

ParseStatus decode_field(const std::vector<Field>& fields, size_t i, int64_t now, Decoded* d,
                         int* tmask) {
  const Field& f = fields[i];
  switch (f.kind) {
    case FieldKind::kDate:
      // With a month and day known, PostgreSQL reads this as a zone name
      // ("America/New_York"; here only the abbreviations tidepool knows) or as
      // hhmmss-zz (not supported).
      if ((d->fmask & (kMMonth | kMDay)) == (kMMonth | kMDay) || d->pending != kUnitNone) {
        if (std::isdigit(static_cast<unsigned char>(f.text[0])) || d->pending != kUnitNone)
          return ParseStatus::kBadFormat;
        const Token zone = lookup_date_token(f.text);
        if (zone.type == TokenType::kZone) {
          d->tz_offset = zone.value;
        } else if (is_region_zone(f.text)) {
          d->region_zone = f.text;
        } else {
          throw Error("time zone \"" + f.text + "\" not recognized")
              .with_sqlstate(sqlstate::kInvalidParameterValue);
        }
        *tmask = kMTz;
        return ParseStatus::kOk;
      }
      return decode_date(f.text, d, tmask);
    case FieldKind::kTime: {
      if (d->pending != kUnitNone) {
        if (d->pending != kIsoTimeMark) return ParseStatus::kBadFormat;
        d->pending = kUnitNone;
      }
      TimeFields t;
      if (auto st = parse_time_fields(f.text, false, &t); st != ParseStatus::kOk) return st;
      if (t.hour > INT32_MAX) return ParseStatus::kFieldOverflow;
      *tmask = kTimeMask;
      d->tm.hour = int(t.hour);
      d->tm.minute = t.minute;
      d->tm.second = t.second;
      d->tm.usec = t.usec;
      if (t.hour > 24 || (t.hour == 24 && (t.minute > 0 || t.second > 0 || t.usec > 0)))
        return ParseStatus::kFieldOverflow;
      return ParseStatus::kOk;
    }
    case FieldKind::kSignedNumber:
      *tmask = kMTz;
      return decode_timezone(f.text, &d->tz_offset);
    case FieldKind::kNumber: {
      if (d->pending != kUnitNone) return decode_labeled_number(f.text, d, tmask);
      const size_t dot = f.text.find('.');
      if (dot != std::string::npos && !(d->fmask & kDateMask)) return decode_date(f.text, d, tmask);
      if (dot != std::string::npos && dot > 2)
        return decode_number_field(f.text, d, d->fmask, tmask);
      if (f.text.size() >= 6 && (!(d->fmask & kDateMask) || !(d->fmask & kTimeMask)))
        return decode_number_field(f.text, d, d->fmask, tmask);
      return decode_number(f.text, d, tmask);
    }
    default:
      return decode_word(fields, i, now, d, tmask);
  }
}

ParseStatus decode_date_time(std::string_view text, int64_t now, Decoded* d) {
  std::vector<Field> fields;
  if (auto st = split_fields(text, &fields); st != ParseStatus::kOk) return st;
  if (fields.empty()) return ParseStatus::kBadFormat;
  for (size_t i = 0; i < fields.size(); ++i) {
    int tmask = 0;
    if (auto st = decode_field(fields, i, now, d, &tmask); st != ParseStatus::kOk) return st;
    if (tmask & d->fmask) return ParseStatus::kBadFormat;
    d->fmask |= tmask;
  }
  if (auto st = validate_date(d); st != ParseStatus::kOk) return st;
  Tm& tm = d->tm;
  if (d->meridian != 0 && tm.hour > 12) return ParseStatus::kFieldOverflow;
  if (d->meridian == kAm && tm.hour == 12)
    tm.hour = 0;
  else if (d->meridian == kPm && tm.hour != 12)
    tm.hour += 12;
  // A time alone is no date or timestamp.
  if (d->kind == Kind::kDate && (d->fmask & kDateMask) != kDateMask) return ParseStatus::kBadFormat;
  return ParseStatus::kOk;
}

[[noreturn]] void throw_out_of_range(const char* what, std::string_view text) {
  throw Error(std::string(what) + " out of range: \"" + std::string(text) + "\"")
      .with_sqlstate(sqlstate::kDatetimeFieldOverflow);
}

}  // namespace

int32_t date_in(std::string_view text, int64_t now) {
  Decoded d;
  if (auto st = decode_date_time(text, now, &d); st != ParseStatus::kOk)
    throw_parse_error(st, text, "date");
  switch (d.kind) {
    case Kind::kLate:
      return kDateNoEnd;
    case Kind::kEarly:
      return kDateNoBegin;
    case Kind::kEpoch:
      d.tm = Tm{1970, 1, 1};
      break;
    default:
      break;
  }
  if (!julian_in_range(d.tm.year, d.tm.month)) throw_out_of_range("date", text);
  const int64_t date = julian_day(d.tm.year, d.tm.month, d.tm.day) - kPostgresEpochJulian;
  if (!date_value_valid(date)) throw_out_of_range("date", text);
  return int32_t(date);
}

namespace {

// The names of UTC in the zone database, which a timestamp with time zone takes.
bool is_utc_region(const std::string& zone) {
  static constexpr std::string_view kNames[] = {"etc/utc",       "etc/uct",   "etc/gmt",
                                                "etc/universal", "etc/zulu",  "etc/greenwich",
                                                "etc/gmt0",      "etc/gmt+0", "etc/gmt-0"};
  return std::find(std::begin(kNames), std::end(kNames), zone) != std::end(kNames);
}

// timestamp_in and timestamptz_in: with `zoned`, the zone given is applied (the value
// is UTC); without, it is ignored.
int64_t decode_timestamp(std::string_view text, int32_t typmod, int64_t now, bool zoned) {
  Decoded d;
  if (auto st = decode_date_time(text, now, &d); st != ParseStatus::kOk)
    throw_parse_error(st, text, zoned ? "timestamp with time zone" : "timestamp");
  if (zoned && !d.region_zone.empty() && !is_utc_region(d.region_zone))
    throw Error("time zone \"" + d.region_zone +
                    "\" is not supported: tidepool has no time zone "
                    "database",
                "", "Give the zone as an offset from UTC, such as +02 or -05:30.")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  int64_t ts = 0;
  switch (d.kind) {
    case Kind::kLate:
      ts = kTimestampNoEnd;
      break;
    case Kind::kEarly:
      ts = kTimestampNoBegin;
      break;
    case Kind::kEpoch:
      ts = -946684800LL * kUsecsPerSec;
      break;
    default:
      if (!tm_to_timestamp(d.tm, &ts, zoned ? d.tz_offset : 0))
        throw_out_of_range("timestamp", text);
  }
  return timestamp_round_to_typmod(ts, typmod);
}

}  // namespace

namespace {

// A zone's offset east of UTC in seconds, as timezone(text, ...) reads its argument.
int zone_offset(std::string_view zone) {
  std::string name(zone);
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  const Token t = lookup_date_token(name);
  if (t.type == TokenType::kZone) return t.value;
  if (is_utc_region(name) || name == "universal" || name == "uct" || name == "gmt0" ||
      name == "greenwich")
    return 0;
  if (is_region_zone(name) || name.find_first_of("+-0123456789") != std::string::npos)
    throw Error("time zone \"" + std::string(zone) +
                    "\" is not supported: tidepool has no time zone database",
                "", "Give a zone abbreviation such as UTC, EST or CET.")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  throw Error("time zone \"" + std::string(zone) + "\" not recognized")
      .with_sqlstate(sqlstate::kInvalidParameterValue);
}

// An infinity stays as it is before the zone is even looked at, as in PostgreSQL.
int64_t shifted(int64_t ts, std::string_view zone, int sign) {
  if (!timestamp_is_finite(ts)) return ts;
  const int64_t r = ts + sign * int64_t(zone_offset(zone)) * kUsecsPerSec;
  if (!timestamp_value_valid(r)) throw_range("timestamp out of range");
  return r;
}

}  // namespace

int64_t timestamp_at_zone(std::string_view zone, int64_t ts) {
  return shifted(ts, zone, -1);
}
int64_t timestamptz_at_zone(std::string_view zone, int64_t ts) {
  return shifted(ts, zone, 1);
}

int64_t timestamp_in(std::string_view text, int32_t typmod, int64_t now) {
  return decode_timestamp(text, typmod, now, false);
}
int64_t timestamptz_in(std::string_view text, int32_t typmod, int64_t now) {
  return decode_timestamp(text, typmod, now, true);
}

}  // namespace tp
