// Issue #10: integers never wrap. Literals, casts, arithmetic, generate_series and
// aggregates raise PostgreSQL's out-of-range errors or give its exact results.
#include <gtest/gtest.h>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

class Overflow : public ::testing::Test {
 protected:
  Overflow() : s_(testing::options_for(tmp_.data())) {
    s_.execute("CREATE TABLE t (a int, b bigint)");
  }
  std::string rows() {
    std::string out;
    for (auto& r : s_.execute("SELECT a, b FROM t ORDER BY b").rows) out += r[0] + "," + r[1] + ";";
    return out;
  }
  TempDir tmp_;
  Session s_;
};

TEST_F(Overflow, LiteralsBeyondBigintAreNumericAndRefusedByIntegerColumns) {
  EXPECT_EQ(scalar(s_, "SELECT 9223372036854775808"), "9223372036854775808");
  EXPECT_EQ(scalar(s_, "SELECT -9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (1, 9223372036854775808)"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (1, 99999999999999999999999)"),
            "bigint out of range");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (2147483648, 1)"), "integer out of range");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (-2147483649, 1)"), "integer out of range");
  // Fractions round half away from zero, exactly, before the range check.
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (1, 9223372036854775807.5)"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (1, -9223372036854775808.5)"),
            "bigint out of range");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (2147483647.5, 1)"), "integer out of range");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (1, 1e19)"), "bigint out of range");
  EXPECT_EQ(rows(), "");
  s_.execute("INSERT INTO t VALUES (2147483647.4, 9223372036854775807.4)");
  s_.execute("INSERT INTO t VALUES (-2147483648.4, -9223372036854775808)");
  s_.execute("INSERT INTO t VALUES (0.05, 2.5), (-0.5, -2.5)");
  EXPECT_EQ(rows(), "-2147483648,-9223372036854775808;-1,-3;0,3;2147483647,9223372036854775807;");
}

TEST_F(Overflow, NumericLiteralsPrintExactly) {
  EXPECT_EQ(scalar(s_, "SELECT 1.50"), "1.50");
  EXPECT_EQ(scalar(s_, "SELECT 1e3"), "1000");
  EXPECT_EQ(scalar(s_, "SELECT 1.5e-2"), "0.015");
  EXPECT_EQ(scalar(s_, "SELECT -0.0"), "0.0");
  EXPECT_EQ(scalar(s_, "SELECT 1.50::numeric"), "1.50");
  EXPECT_EQ(scalar(s_, "SELECT pg_size_pretty(-9223372036854775808)"), "-8192 PB");
  EXPECT_EQ(scalar(s_, "SELECT pg_size_pretty(9223372036854775807)"), "8192 PB");
  EXPECT_EQ(scalar(s_, "SELECT 123456789012345678901234567890"), "123456789012345678901234567890");
  EXPECT_EQ(error_of(s_, "SELECT 1e1001"), "invalid input syntax for type numeric: \"1e1001\"");
  EXPECT_EQ(error_of(s_, "SELECT 1e-99999999999999999999"),
            "invalid input syntax for type numeric: \"1e-99999999999999999999\"");
  EXPECT_EQ(error_of(s_, "SELECT " + std::string(200000, '9')), "value overflows numeric format");
}

TEST_F(Overflow, CastsCheckTheirRange) {
  EXPECT_EQ(error_of(s_, "SELECT 2147483648::int"), "integer out of range");
  EXPECT_EQ(error_of(s_, "SELECT 9223372036854775808::bigint"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT 1e19::bigint"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT (random() * 1e30)::bigint"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT (random() + 3e9)::int"), "integer out of range");
  EXPECT_EQ(error_of(s_, "SELECT '9223372036854775808'::bigint"),
            "value \"9223372036854775808\" is out of range for type bigint");
  EXPECT_EQ(error_of(s_, "SELECT '2147483648'::int"),
            "value \"2147483648\" is out of range for type integer");
  EXPECT_EQ(error_of(s_, "SELECT '12x'::int"), "invalid input syntax for type integer: \"12x\"");
  EXPECT_EQ(scalar(s_, "SELECT ' -42 '::int"), "-42");
  EXPECT_EQ(scalar(s_, "SELECT 9223372036854775807.4::bigint"), "9223372036854775807");
  EXPECT_EQ(scalar(s_, "SELECT 2.5::int"), "3");
  EXPECT_EQ(scalar(s_, "SELECT (-2.5)::int"), "-3");
}

TEST_F(Overflow, ArithmeticRaisesInsteadOfWrapping) {
  EXPECT_EQ(error_of(s_, "SELECT 2147483647 + 1"), "integer out of range");
  EXPECT_EQ(error_of(s_, "SELECT -2147483648 - 1"), "integer out of range");
  EXPECT_EQ(error_of(s_, "SELECT 65536 * 65536"), "integer out of range");
  EXPECT_EQ(error_of(s_, "SELECT -(-2147483647 - 1)"), "integer out of range");
  EXPECT_EQ(error_of(s_, "SELECT 9223372036854775807 + 1"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT 4611686018427387904 * 2"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT -9223372036854775808 / -1"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT -(-9223372036854775807 - 1)"), "bigint out of range");
  EXPECT_EQ(scalar(s_, "SELECT -9223372036854775808 % -1"), "0");
  EXPECT_EQ(error_of(s_, "SELECT 1 / 0"), "division by zero");
  EXPECT_EQ(error_of(s_, "SELECT 1 % 0"), "division by zero");
  EXPECT_EQ(error_of(s_, "SELECT 1.5 / 0"), "division by zero");
  EXPECT_EQ(error_of(s_, "INSERT INTO t VALUES (1, 9223372036854775807 + 1)"),
            "bigint out of range");
}

TEST_F(Overflow, GenerateSeriesAtTheEdgesOfTheRange) {
  ResultSet r = s_.execute("SELECT generate_series(9223372036854775805, 9223372036854775807)");
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[2][0], "9223372036854775807");
  r = s_.execute("SELECT * FROM generate_series(-9223372036854775807, -9223372036854775808, -1)");
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.rows[1][0], "-9223372036854775808");
  EXPECT_EQ(error_of(s_, "SELECT * FROM generate_series(1, 10, 0)"), "step size cannot equal zero");
  EXPECT_EQ(
      error_of(s_, "SELECT * FROM generate_series(-9223372036854775808, 9223372036854775807)"),
      "generate_series of 18446744073709551615 rows is too large to load at once");
  EXPECT_EQ(error_of(s_,
                     "SELECT generate_series(-9223372036854775808, 9223372036854775807, "
                     "4611686018427387904)"),
            "");
  // A LIMIT bounds what is generated: no refusal, no endless loop.
  EXPECT_EQ(s_.execute("SELECT * FROM generate_series(1, 9223372036854775807) LIMIT 3").rows.size(),
            3u);
  EXPECT_EQ(s_.execute("SELECT generate_series(1, 9223372036854775807) LIMIT 3").rows.size(), 3u);
  EXPECT_EQ(error_of(s_,
                     "SELECT * FROM generate_series(1, 9223372036854775807) ORDER BY random() "
                     "LIMIT 3"),
            "generate_series of 9223372036854775807 rows is too large to load at once");
  EXPECT_EQ(
      error_of(s_, "INSERT INTO t SELECT 1, random() * 1e30 + 1e19 FROM generate_series(1, 3)"),
      "bigint out of range");
}

TEST_F(Overflow, SumAndAvgOfBigintAreExactNumerics) {
  // Two values above 2^62: their sum is past bigint, printed exactly as numeric.
  s_.execute(
      "INSERT INTO t VALUES (2147483647, 4611686018427387905), "
      "(2147483647, 4611686018427387905)");
  EXPECT_EQ(scalar(s_, "SELECT sum(b) FROM t"), "9223372036854775810");
  EXPECT_EQ(scalar(s_, "SELECT avg(b) FROM t"), "4611686018427387905");
  EXPECT_EQ(scalar(s_, "SELECT sum(a) FROM t"), "4294967294");  // sum(int4) is bigint
  s_.execute("INSERT INTO t VALUES (1, 9223372036854775807), (1, 9223372036854775807)");
  EXPECT_EQ(scalar(s_, "SELECT sum(b) FROM t"), "27670116110564327424");
  s_.execute("TRUNCATE t");
  s_.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
  EXPECT_EQ(scalar(s_, "SELECT avg(b) FROM t"), "1.5000000000000000");
  EXPECT_EQ(scalar(s_, "SELECT avg(a) FROM t"), "1.5000000000000000");
}

TEST_F(Overflow, WhereComparesWithNumbersBeyondBigintExactly) {
  s_.execute("INSERT INTO t VALUES (1, 9223372036854775807), (2, -9223372036854775808), (3, 0)");
  auto count = [&](const std::string& where) {
    return scalar(s_, "SELECT count(*) FROM t WHERE " + where);
  };
  EXPECT_EQ(count("b < 9223372036854775808"), "3");
  EXPECT_EQ(count("b > 9223372036854775808"), "0");
  EXPECT_EQ(count("b = 9223372036854775808"), "0");
  EXPECT_EQ(count("b <> 9223372036854775808"), "3");
  EXPECT_EQ(count("b >= -9223372036854775809"), "3");
  EXPECT_EQ(count("b < -1e30"), "0");
  EXPECT_EQ(count("b = 9223372036854775807.0"), "1");  // exact, though a double rounds it up
  EXPECT_EQ(count("b > 9223372036854775806.5"), "1");
  EXPECT_EQ(count("b < -9223372036854775807.5"), "1");
  EXPECT_EQ(count("b BETWEEN -1e19 AND 1e19"), "3");
  EXPECT_EQ(count("b BETWEEN 1e19 AND 2e19"), "0");
  EXPECT_EQ(count("b IN (9223372036854775808, 0)"), "1");
  EXPECT_EQ(count("a < 2.5"), "2");
  EXPECT_EQ(count("a > -0.5"), "3");
  EXPECT_EQ(count("a >= 1.5"), "2");
}

TEST_F(Overflow, LimitTakesABigint) {
  EXPECT_EQ(error_of(s_, "SELECT a FROM t LIMIT -1"), "LIMIT must not be negative");
  EXPECT_EQ(error_of(s_, "SELECT a FROM t LIMIT 9999999999999999999"), "bigint out of range");
  EXPECT_EQ(error_of(s_, "SELECT a FROM t LIMIT 9223372036854775807"), "");
  EXPECT_EQ(error_of(s_, "SELECT 1 LIMIT 9223372036854775807"), "");
}

}  // namespace
}  // namespace tp
