// date, timestamp and interval values against what PostgreSQL 15.18 printed for the
// same inputs and operations (pg15/datetime_*.out, made from the .sql files beside
// them): every value read must print as PostgreSQL printed it and hold the same raw
// representation; every error must carry PostgreSQL's message and SQLSTATE.
#include "engine/core/datetime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "tests/support/paths.h"
#include "tests/support/pg15_fixture.h"

namespace tp {
namespace {

std::vector<std::string> load(const std::string& name) {
  std::vector<std::string> lines = testing::fixture_lines("tests/engine/core/pg15/" + name);
  EXPECT_FALSE(lines.empty()) << name;
  return lines;
}

std::string raw_date(int32_t d) {
  return date_out(d) + "|" + (date_is_finite(d) ? std::to_string(d) : "");
}
std::string raw_timestamp(int64_t t) {
  return timestamp_out(t) + "|" + (timestamp_is_finite(t) ? std::to_string(t) : "");
}
std::string raw_interval(const Interval& v) {
  return interval_out(v) + "|" + std::to_string(v.month) + "," + std::to_string(v.day) + "," +
         std::to_string(v.time);
}

// What the fixtures print for a failed call: ERROR|sqlstate|message[|hint or detail].
enum class Extra { kNone, kHint, kDetail };
std::string run(const std::function<std::string()>& f, Extra extra) {
  try {
    return f();
  } catch (const Error& e) {
    const std::string tail = extra == Extra::kHint     ? "|" + e.hint()
                             : extra == Extra::kDetail ? "|" + e.detail()
                                                       : "";
    return "ERROR|" + e.sqlstate() + "|" + e.what() + tail;
  }
}

constexpr int64_t kNoon20200105 = 631540800000000;  // 2020-01-05 12:00:00

// The typmod of a type name as the fixtures write them: "timestamp(3)",
// "interval day to second(1)", "interval hour".
int32_t typmod_of(const std::string& type) {
  const size_t paren = type.find('(');
  const int32_t precision = paren == std::string::npos ? -1 : std::stoi(type.substr(paren + 1));
  if (type.rfind("timestamp", 0) == 0) return precision;
  const std::string fields =
      type.substr(9, paren == std::string::npos ? std::string::npos : paren - 9);
  const std::vector<std::pair<std::string, int32_t>> names = {
      {"year", kIntervalYear}, {"month", kIntervalMonth},   {"day", kIntervalDay},
      {"hour", kIntervalHour}, {"minute", kIntervalMinute}, {"second", kIntervalSecond}};
  int32_t mask = 0;
  const size_t to = fields.find(" to ");
  const std::string first = fields.substr(0, to),
                    last = to == std::string::npos ? first : fields.substr(to + 4);
  bool inside = false;
  for (const auto& [name, bit] : names) {
    if (" " + name == first || name == first) inside = true;
    if (inside) mask |= bit;
    if (" " + name == last || name == last) inside = false;
  }
  if (mask == 0) mask = kIntervalFullRange;
  return interval_typmod(mask, precision < 0 ? kIntervalFullPrecision : precision);
}

TEST(DatetimeTest, InputAndOutputMatchPostgres) {
  const auto lines = load("datetime_io.out");
  ASSERT_GT(lines.size(), 2000u);
  int dates = 0, timestamps = 0, intervals = 0, typed = 0, errors = 0;
  for (const auto& line : lines) {
    const auto f = testing::split_fields(line, 3);
    ASSERT_EQ(f.size(), 3u) << line;
    const std::string& kind = f[0];
    const std::string& text = f[1];
    const bool plain = kind == "date" || kind == "timestamp" || kind == "interval";
    std::string got = run(
        [&]() -> std::string {
          if (kind == "date") return raw_date(date_in(text, kNoon20200105));
          if (kind.rfind("timestamp", 0) == 0)
            return raw_timestamp(timestamp_in(text, plain ? -1 : typmod_of(kind), kNoon20200105));
          return raw_interval(interval_in(text, plain ? -1 : typmod_of(kind)));
        },
        Extra::kHint);
    EXPECT_EQ(got, f[2]) << kind << " '" << text << "'";
    if (!plain)
      typed++;
    else
      (kind == "date" ? dates : kind == "timestamp" ? timestamps : intervals)++;
    errors += f[2].rfind("ERROR|", 0) == 0;
  }
  EXPECT_GT(dates, 300);
  EXPECT_GT(timestamps, 500);
  EXPECT_GT(intervals, 500);
  EXPECT_GT(typed, 250);
  EXPECT_GT(errors, 200);
}

std::string apply(const std::string& op, const std::string& a, const std::string& b) {
  auto d = [](const std::string& s) { return date_in(s); };
  auto t = [](const std::string& s) { return timestamp_in(s, -1); };
  auto iv = [](const std::string& s) { return interval_in(s, -1); };
  if (op == "date+int") return raw_date(date_pl_days(d(a), std::stoi(b)));
  if (op == "date-int") return raw_date(date_mi_days(d(a), std::stoi(b)));
  if (op == "date-date") return std::to_string(date_mi(d(a), d(b)));
  if (op == "date+interval") return raw_timestamp(date_pl_interval(d(a), iv(b)));
  if (op == "date-interval") return raw_timestamp(date_mi_interval(d(a), iv(b)));
  if (op == "timestamp+interval") return raw_timestamp(timestamp_pl_interval(t(a), iv(b)));
  if (op == "timestamp-interval") return raw_timestamp(timestamp_mi_interval(t(a), iv(b)));
  if (op == "timestamp-timestamp") return raw_interval(timestamp_mi(t(a), t(b)));
  if (op == "interval+interval") return raw_interval(interval_pl(iv(a), iv(b)));
  if (op == "interval-interval") return raw_interval(interval_mi(iv(a), iv(b)));
  if (op == "interval*float8")
    return raw_interval(interval_mul(iv(a), std::strtod(b.c_str(), nullptr)));
  if (op == "interval/float8")
    return raw_interval(interval_div(iv(a), std::strtod(b.c_str(), nullptr)));
  if (op == "-interval") return raw_interval(interval_um(iv(a)));
  if (op == "justify_hours") return raw_interval(justify_hours(iv(a)));
  if (op == "justify_days") return raw_interval(justify_days(iv(a)));
  if (op == "justify_interval") return raw_interval(justify_interval(iv(a)));
  if (op == "date_cmp") return std::to_string(date_cmp(d(a), d(b)));
  if (op == "timestamp_cmp") return std::to_string(timestamp_cmp(t(a), t(b)));
  if (op == "interval_cmp") return std::to_string(interval_cmp(iv(a), iv(b)));
  ADD_FAILURE() << "unknown op " << op;
  return "";
}

TEST(DatetimeTest, ArithmeticMatchesPostgres) {
  const auto lines = load("datetime_ops.out");
  ASSERT_GT(lines.size(), 8000u);
  std::map<std::string, int> per_op;
  for (const auto& line : lines) {
    const auto f = testing::split_fields(line, 4);
    ASSERT_EQ(f.size(), 4u) << line;
    EXPECT_EQ(run([&] { return apply(f[0], f[1], f[2]); }, Extra::kNone), f[3])
        << f[0] << " '" << f[1] << "' '" << f[2] << "'";
    per_op[f[0]]++;
  }
  EXPECT_EQ(per_op.size(), 19u);
  for (const auto& [op, n] : per_op) EXPECT_GE(n, 40) << op;
}

// A double printed so that equal doubles print alike.
std::string float8_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string field_of(const std::string& op, const std::string& field, const std::string& v) {
  auto text = [](const std::optional<std::string>& r) { return r ? *r : std::string("\\N"); };
  // date_part's double precision, printed so that equal doubles print alike.
  auto dbl = [](const std::optional<double>& r) {
    if (!r) return std::string("\\N");
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", *r);
    return std::string(buf);
  };
  if (op == "extract_date") return text(extract_date(field, date_in(v)));
  if (op == "extract_timestamp") return text(extract_timestamp(field, timestamp_in(v, -1)));
  if (op == "date_part_date") return dbl(date_part_timestamp(field, date_to_timestamp(date_in(v))));
  if (op == "date_part_timestamp") return dbl(date_part_timestamp(field, timestamp_in(v, -1)));
  if (op == "date_trunc_timestamp")
    return raw_timestamp(date_trunc_timestamp(field, timestamp_in(v, -1)));
  ADD_FAILURE() << "unknown op " << op;
  return "";
}

TEST(DatetimeTest, FieldsMatchPostgres) {
  const auto lines = load("datetime_fields.out");
  ASSERT_GT(lines.size(), 7000u);
  std::map<std::string, int> per_op;
  for (const auto& line : lines) {
    const auto f = testing::split_fields(line, 4);
    ASSERT_EQ(f.size(), 4u) << line;
    std::string want = f[3];
    if (f[0].rfind("date_part", 0) == 0 && want.rfind("ERROR|", 0) != 0 && want != "\\N") {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", std::strtod(want.c_str(), nullptr));
      want = buf;
    }
    EXPECT_EQ(run([&] { return field_of(f[0], f[1], f[2]); }, Extra::kDetail), want)
        << f[0] << " " << f[1] << " '" << f[2] << "'";
    per_op[f[0]]++;
  }
  EXPECT_EQ(per_op.size(), 5u);
}

std::string timestamptz_case(const std::string& op, const std::string& arg, const std::string& v) {
  auto raw_tz = [](int64_t t) {
    return timestamptz_out(t) + "|" + (timestamp_is_finite(t) ? std::to_string(t) : "");
  };
  auto tz = [](const std::string& s) { return timestamptz_in(s, -1, kNoon20200105); };
  if (op == "in") {
    const size_t paren = arg.find('(');
    const int32_t typmod = paren == std::string::npos ? -1 : std::stoi(arg.substr(paren + 1));
    if (arg == "timestamp") return raw_timestamp(timestamp_in(v, -1, kNoon20200105));
    return raw_tz(timestamptz_in(v, typmod, kNoon20200105));
  }
  auto text = [](const std::optional<std::string>& r) { return r ? *r : std::string("\\N"); };
  if (op == "extract") return text(extract_timestamp(arg, tz(v), true));
  if (op == "date_part") {
    const std::optional<double> r = date_part_timestamp(arg, tz(v), true);
    return r ? float8_text(*r) : "\\N";
  }
  if (op == "date_trunc") return raw_tz(date_trunc_timestamp(arg, tz(v), true));
  if (op == "at") return raw_timestamp(timestamptz_at_zone(arg, tz(v)));
  if (op == "at_ts") return raw_tz(timestamp_at_zone(arg, timestamp_in(v, -1)));
  ADD_FAILURE() << "unknown op " << op;
  return "";
}

// Input with offsets, abbreviations and names of UTC, the zone fields, date_trunc and
// AT TIME ZONE both ways, each value's microseconds as PostgreSQL holds them (TimeZone
// UTC), and every error PostgreSQL gives for them.
TEST(DatetimeTest, TimestampWithTimeZoneMatchesPostgres) {
  const auto lines = load("timestamptz_cases.out");
  ASSERT_GT(lines.size(), 450u);
  std::map<std::string, int> per_op;
  int errors = 0;
  for (const auto& line : lines) {
    const auto f = testing::split_fields(line, 4);
    ASSERT_EQ(f.size(), 4u) << line;
    std::string want = f[3];
    if (f[0] == "date_part" && want.rfind("ERROR|", 0) != 0 && want != "\\N")
      want = float8_text(std::strtod(want.c_str(), nullptr));
    EXPECT_EQ(run([&] { return timestamptz_case(f[0], f[1], f[2]); }, Extra::kNone), want)
        << f[0] << " " << f[1] << " '" << f[2] << "'";
    per_op[f[0]]++;
    errors += want.rfind("ERROR|", 0) == 0;
  }
  EXPECT_EQ(per_op.size(), 6u);
  EXPECT_GT(errors, 60);
}

// Zones from the zone database other than UTC are refused by name: tidepool has no
// zone database, and reading them as UTC would be a wrong answer.
TEST(DatetimeTest, TimestampWithTimeZoneRefusesZonesItCannotRead) {
  EXPECT_EQ(run([] { return timestamptz_out(timestamptz_in("2020-01-05 10:00 Europe/Paris", -1)); },
                Extra::kHint),
            "ERROR|0A000|time zone \"europe/paris\" is not supported: tidepool has no time zone "
            "database|Give the zone as an offset from UTC, such as +02 or -05:30.");
  EXPECT_EQ(
      run([] { return timestamp_out(timestamptz_at_zone("America/New_York", 0)); }, Extra::kNone),
      "ERROR|0A000|time zone \"America/New_York\" is not supported: tidepool has no time "
      "zone database");
  EXPECT_EQ(run([] { return timestamp_out(timestamptz_at_zone("+02", 0)); }, Extra::kNone),
            "ERROR|0A000|time zone \"+02\" is not supported: tidepool has no time zone database");
  // A timestamp without time zone still ignores any zone it is given.
  EXPECT_EQ(timestamp_out(timestamp_in("2020-01-05 10:00 Europe/Paris", -1)),
            "2020-01-05 10:00:00");
}

// 'now', 'today', 'tomorrow' and 'yesterday' read against the statement time given,
// as PostgreSQL reads them against its statement's (checked there with current_date).
TEST(DatetimeTest, RelativeWordsUseTheStatementTime) {
  const int64_t now = timestamp_in("2020-01-05 12:34:56.789", -1);
  EXPECT_EQ(date_out(date_in("today", now)), "2020-01-05");
  EXPECT_EQ(date_out(date_in("tomorrow", now)), "2020-01-06");
  EXPECT_EQ(date_out(date_in("yesterday", now)), "2020-01-04");
  EXPECT_EQ(date_out(date_in(" NOW ", now)), "2020-01-05");
  EXPECT_EQ(timestamp_in("now", -1, now), now);
  EXPECT_EQ(timestamp_out(timestamp_in("now", 0, now)), "2020-01-05 12:34:57");
  EXPECT_EQ(timestamp_out(timestamp_in("today", -1, now)), "2020-01-05 00:00:00");
  EXPECT_EQ(timestamp_out(timestamp_in("tomorrow 04:05:06.5", -1, now)), "2020-01-06 04:05:06.5");
  EXPECT_EQ(timestamp_out(timestamp_in("yesterday", -1, now)), "2020-01-04 00:00:00");
  EXPECT_EQ(timestamp_out(timestamp_in("today allballs", -1, now)), "2020-01-05 00:00:00");
  EXPECT_EQ(timestamp_out(timestamp_in("epoch today", -1, now)), "2020-01-05 00:00:00");
  EXPECT_EQ(date_out(date_in("today", timestamp_in("2000-01-01", -1))), "2000-01-01");
  EXPECT_EQ(date_out(date_in("yesterday", timestamp_in("2000-03-01", -1))), "2000-02-29");
  EXPECT_EQ(
      run([&] { return timestamp_out(timestamp_in("now 2020-01-01", -1, now)); }, Extra::kNone),
      "ERROR|22007|invalid input syntax for type timestamp: \"now 2020-01-01\"");
  // Without a statement time the clock is read: today is not before 2026.
  EXPECT_GT(date_in("today"), date_in("2026-01-01"));
}

TEST(DatetimeTest, HeaderExampleHolds) {
  const int32_t d = date_in("Jan 5 2020");
  EXPECT_EQ(d, 7309);
  EXPECT_EQ(date_out(d), "2020-01-05");
  const Interval iv = interval_in("1 mon 2 days", -1);
  EXPECT_EQ(timestamp_out(timestamp_pl_interval(timestamp_in("2020-01-31 10:00", -1), iv)),
            "2020-03-02 10:00:00");
}

// The interval's bytes as PostgreSQL stores them: time, then day, then month.
TEST(DatetimeTest, IntervalLayoutIsPostgres) {
  const Interval iv = interval_in("1 mon 2 days 00:00:00.000003", -1);
  unsigned char bytes[16];
  std::memcpy(bytes, &iv, 16);
  EXPECT_EQ(bytes[0], 3);
  EXPECT_EQ(bytes[8], 2);
  EXPECT_EQ(bytes[12], 1);
  EXPECT_EQ(offsetof(Interval, time), 0u);
  EXPECT_EQ(offsetof(Interval, day), 8u);
  EXPECT_EQ(offsetof(Interval, month), 12u);
}

}  // namespace
}  // namespace tp
