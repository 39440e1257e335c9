// Printing dates and timestamps, and the arithmetic of timestamps with intervals;
// datetime_input.cc reads them.
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

int64_t timestamp_now() {
  using namespace std::chrono;
  const int64_t unix_usec =
      duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
  return unix_usec - 946684800LL * kUsecsPerSec;  // 946684800: 2000-01-01 in Unix seconds
}

std::string date_out(int32_t date) {
  if (date == kDateNoBegin) return "-infinity";
  if (date == kDateNoEnd) return "infinity";
  int64_t y;
  int m, d;
  julian_to_date(int64_t(date) + kPostgresEpochJulian, &y, &m, &d);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02d-%02d%s", (long long)(y > 0 ? y : 1 - y), m, d,
                y > 0 ? "" : " BC");
  return buf;
}

namespace {
// ISO output; `zone` (a timestamp with time zone's "+00") goes before the era.
std::string format_timestamp(int64_t ts, const char* zone) {
  if (ts == kTimestampNoBegin) return "-infinity";
  if (ts == kTimestampNoEnd) return "infinity";
  Tm tm;
  if (!timestamp_to_tm(ts, &tm)) throw_range("timestamp out of range");
  char buf[64];
  std::snprintf(buf, sizeof buf,
                "%04lld-%02d-%02d %02d:%02d:", (long long)(tm.year > 0 ? tm.year : 1 - tm.year),
                tm.month, tm.day, tm.hour, tm.minute);
  return buf + format_seconds(tm.second, tm.usec) + zone + (tm.year > 0 ? "" : " BC");
}
}  // namespace

std::string timestamp_out(int64_t ts) {
  return format_timestamp(ts, "");
}
std::string timestamptz_out(int64_t ts) {
  return format_timestamp(ts, "+00");
}

int64_t date_pl_interval(int32_t date, const Interval& span) {
  return timestamp_pl_interval(date_to_timestamp(date), span);
}
int64_t date_mi_interval(int32_t date, const Interval& span) {
  return timestamp_mi_interval(date_to_timestamp(date), span);
}

// Months first (the day clamped to the new month's last), then days on the
// calendar, then the time, as PostgreSQL's timestamp_pl_interval.
int64_t timestamp_pl_interval(int64_t ts, const Interval& span) {
  if (!timestamp_is_finite(ts)) return ts;
  Tm tm;
  if (span.month != 0) {
    if (!timestamp_to_tm(ts, &tm)) throw_range("timestamp out of range");
    int64_t month = int64_t(tm.month) + span.month;
    if (month > 12) {
      tm.year += (month - 1) / 12;
      month = (month - 1) % 12 + 1;
    } else if (month < 1) {
      tm.year += month / 12 - 1;
      month = month % 12 + 12;
    }
    tm.month = int(month);
    if (julian_in_range(tm.year, tm.month))
      tm.day = std::min(tm.day, days_in_month(tm.year, tm.month));
    if (!tm_to_timestamp(tm, &ts)) throw_range("timestamp out of range");
  }
  if (span.day != 0) {
    if (!timestamp_to_tm(ts, &tm)) throw_range("timestamp out of range");
    const int64_t jd = julian_day(tm.year, tm.month, tm.day) + span.day;
    if (jd < 0 || jd > INT32_MAX) throw_range("timestamp out of range");
    julian_to_date(jd, &tm.year, &tm.month, &tm.day);
    if (!tm_to_timestamp(tm, &ts)) throw_range("timestamp out of range");
  }
  if (__builtin_add_overflow(ts, span.time, &ts) || !timestamp_value_valid(ts))
    throw_range("timestamp out of range");
  return ts;
}

int64_t timestamp_mi_interval(int64_t ts, const Interval& span) {
  // PostgreSQL negates each part without an overflow check: INT_MIN stays INT_MIN.
  const Interval neg{int64_t(0 - uint64_t(span.time)), int32_t(0 - uint32_t(span.day)),
                     int32_t(0 - uint32_t(span.month))};
  return timestamp_pl_interval(ts, neg);
}

Interval timestamp_mi(int64_t a, int64_t b) {
  if (!timestamp_is_finite(a) || !timestamp_is_finite(b))
    throw_range("cannot subtract infinite timestamps");
  // PostgreSQL 15 does not check this difference: past 292,000 years it wraps.
  Interval r;
  r.time = int64_t(uint64_t(a) - uint64_t(b));
  return justify_hours(r);
}

}  // namespace tp
