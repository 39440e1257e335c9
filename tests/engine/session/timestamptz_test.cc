// timestamp with time zone through SQL against PostgreSQL 15.18 with TimeZone UTC:
// pg15/timestamptz_setup.sql's table (a timestamptz, a timestamp and a date column, an
// index on the timestamptz and one on (timestamp, timestamptz), infinities and NULLs)
// and the 30 queries of pg15/timestamptz_queries.sql, captured by pg15/capture.sh
// with their EXPLAIN: comparisons across date, timestamp and timestamptz as index
// conditions and filters, now() and CURRENT_TIMESTAMP as stable values, arithmetic,
// casts, extract, date_trunc, AT TIME ZONE, min / max and ORDER BY. Each gives
// PostgreSQL's rows, plan, costs and Filter text.
#include <gtest/gtest.h>

#include <string>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

class Timestamptz : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    testing::run_pg15_setup(*s_, "timestamptz_setup.sql");
  }

  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

TEST_F(Timestamptz, RowsAndPlansArePostgres) {
  EXPECT_EQ(testing::check_pg15_queries(*s_, "timestamptz.out"), 35u);
}

// now() is the statement's start: equal to itself and to CURRENT_TIMESTAMP, the same
// instant as LOCALTIMESTAMP (TimeZone is UTC), and a row inserted with it reads back.
TEST_F(Timestamptz, NowIsTheStatementsTime) {
  EXPECT_EQ(scalar(*s_,
                   "SELECT now() = CURRENT_TIMESTAMP AND now() = LOCALTIMESTAMP AND "
                   "now()::date = CURRENT_DATE AND statement_timestamp() = now()"),
            "t");
  s_->execute("INSERT INTO z (k, tz) VALUES (9001, now()), (9002, 'now')");
  EXPECT_EQ(scalar(*s_,
                   "SELECT count(*) FROM z WHERE k > 9000 AND tz <= now() AND "
                   "tz > now() - interval '1 minute'"),
            "2");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM z WHERE tz < clock_timestamp()"), "5003");
  EXPECT_EQ(scalar(*s_, "SELECT extract(timezone from now())"), "0");
}

// Zones tidepool cannot read are refused by name and leave the table as it was; bad
// input gives PostgreSQL's errors; TimeZone takes the names of UTC only.
TEST_F(Timestamptz, BadInputAndOtherZonesAreRefused) {
  const std::string before = scalar(*s_, "SELECT count(*) FROM z");
  EXPECT_EQ(error_of(*s_, "INSERT INTO z (k, tz) VALUES (1, '2020-01-01 10:00 Europe/Paris')"),
            "time zone \"europe/paris\" is not supported: tidepool has no time zone database");
  EXPECT_EQ(error_of(*s_, "INSERT INTO z (k, tz) VALUES (1, now()), (2, 'garbage')"),
            "invalid input syntax for type timestamp with time zone: \"garbage\"");
  EXPECT_EQ(error_of(*s_, "SELECT k FROM z WHERE tz > '2020-01-01 10:00:00+16'"),
            "time zone displacement out of range: \"2020-01-01 10:00:00+16\"");
  EXPECT_EQ(error_of(*s_, "SELECT timestamptz '2020-02-30 10:00'"),
            "date/time field value out of range: \"2020-02-30 10:00\"");
  EXPECT_EQ(error_of(*s_, "SELECT tz AT TIME ZONE 'America/New_York' FROM z"),
            "time zone \"America/New_York\" is not supported: tidepool has no time zone database");
  EXPECT_EQ(error_of(*s_, "SELECT tz AT TIME ZONE 'nowhere' FROM z"),
            "time zone \"nowhere\" not recognized");
  EXPECT_EQ(error_of(*s_, "SELECT extract(timezone FROM ts) FROM z"),
            "unit \"timezone\" not supported for type timestamp without time zone");
  EXPECT_EQ(error_of(*s_, "SELECT date_trunc('day', '2020-01-01')"),
            "function date_trunc(unknown, unknown) is not unique");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM z"), before);
  s_->execute("SET TIME ZONE 'Etc/UTC'");
  EXPECT_EQ(scalar(*s_, "SHOW TIME ZONE"), "Etc/UTC");
  EXPECT_EQ(error_of(*s_, "SET TimeZone = 'Europe/Paris'"),
            "invalid value for parameter \"timezone\": \"Europe/Paris\"");
  s_->execute("SET TIME ZONE LOCAL");
  EXPECT_EQ(scalar(*s_, "SHOW timezone"), "UTC");
}

}  // namespace
}  // namespace tp
