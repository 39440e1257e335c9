// Settings drivers send when they connect, and what they change: JDBC's
// `SET extra_float_digits = 3`; psql's and PostgreSQL's default of 1 (the shortest
// exact text) and the older %g forms at 0 and below, as PostgreSQL 15 prints them.
#include <gtest/gtest.h>

#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

TEST(ClientSettings, ExtraFloatDigitsChangesFloatOutput) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  const std::string q = "SELECT 0.1::float8 + 0.2, (1 / 3::float4)::float4, 1e-5::float8 / 3";
  auto row = [&] { return s.execute(q).rows.at(0); };
  EXPECT_EQ(row(), (std::vector<std::string>{"0.30000000000000004", "0.33333334",
                                             "3.3333333333333337e-06"}));
  s.execute("SET extra_float_digits = 0");
  EXPECT_EQ(row(), (std::vector<std::string>{"0.3", "0.333333", "3.33333333333333e-06"}));
  s.execute("SET extra_float_digits = -3");
  EXPECT_EQ(row(), (std::vector<std::string>{"0.3", "0.333", "3.33333333333e-06"}));
  s.execute("SET extra_float_digits = 3");
  EXPECT_EQ(row().at(0), "0.30000000000000004");
  EXPECT_EQ(testing::error_of(s, "SET extra_float_digits = 4"),
            "4 is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)");
}

// What drivers and tools ask about the server and the session when they connect.
TEST(ClientSettings, SessionInformationFunctions) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.set_client_names("alice", "lab");
  const ResultSet r = s.execute(
      "SELECT current_database(), current_user, session_user, current_catalog, current_schema, "
      "current_schema()");
  EXPECT_EQ(r.columns,
            (std::vector<std::string>{"current_database", "current_user", "session_user",
                                      "current_catalog", "current_schema", "current_schema"}));
  EXPECT_EQ(r.rows.at(0),
            (std::vector<std::string>{"lab", "alice", "alice", "lab", "public", "public"}));
  EXPECT_EQ(testing::scalar(s, "SELECT version()").rfind("PostgreSQL 15.0 (tidepool) on ", 0), 0u);
  s.execute("SET work_mem = '64MB'");
  EXPECT_EQ(testing::scalar(s, "SELECT current_setting('work_mem')"), "64MB");
  EXPECT_EQ(s.execute("SELECT current_setting('no_such', true) IS NULL").rows.at(0).at(0), "t");
  EXPECT_EQ(testing::error_of(s, "SELECT current_setting('no_such')"),
            "unrecognized configuration parameter \"no_such\"");
  EXPECT_EQ(testing::error_of(s, "SELECT version(1)"), "function version takes no arguments");
}

}  // namespace
}  // namespace tp
