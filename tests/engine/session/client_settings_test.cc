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

}  // namespace
}  // namespace tp
