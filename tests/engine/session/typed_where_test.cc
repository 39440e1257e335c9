// WHERE over every type, against PostgreSQL 15.18: the table and queries of
// pg15/typed_where_setup.sql and pg15/typed_where_queries.sql, run in a database with
// LC_COLLATE 'C'; pg15/typed_where.out holds, per query, its result (`R`, the first
// rows, comma-separated, their columns joined by '|') and its EXPLAIN (`P` lines), captured with
// `psql -At`. Each query must give PostgreSQL's rows and its plan, costs and Filter text
// exactly; bad input gives PostgreSQL's errors.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/numeric.h"
#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

class TypedWhere : public ::testing::Test {
 protected:
  void SetUp() override {
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    testing::run_pg15_setup(*s_, "typed_where_setup.sql");
  }

  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

size_t check_fixture(Session& s, const std::string& name) {
  return testing::check_pg15_queries(s, name);
}

TEST_F(TypedWhere, RowsAndPlansArePostgres) {
  EXPECT_EQ(check_fixture(*s_, "typed_where.out"), 44u);
}

// Computed select-list columns: PostgreSQL's values, and its costs and widths (the
// target list's operators on the scan's cost; each expression's type width).
TEST_F(TypedWhere, ComputedColumnsArePostgres) {
  EXPECT_EQ(check_fixture(*s_, "typed_select.out"), 12u);
}

// `x = y` between two expressions of the table forms a class of its sides (no constant):
// written twice, in either order, it is one equality, given back after the other
// restrictions as PostgreSQL's equivalence classes give it (pg15/pair_equalities*); a
// restriction `t = t` is `t IS NOT NULL`, inside an OR it stays as written; stacked
// binary-compatible casts keep the top one, none to the argument's own type
// (`t::varchar = v` is `t = (v)::text`).
TEST_F(TypedWhere, RepeatedEqualitiesOfTwoExpressionsAreOne) {
  EXPECT_EQ(check_fixture(*s_, "pair_equalities.out"), 14u);
}

// Constants as eval_const_expressions leaves them: a strict operator over NULL is NULL,
// AND / OR drop or are decided by their constants, NOT NULL stays NULL (NOT BETWEEN a
// NULL bound still returns the other side's rows), COALESCE drops NULLs, b = false is
// NOT b; a WHERE clause that folds to FALSE or NULL plans PostgreSQL's dummy relation
// (Result, One-Time Filter: false, no scan) under its Sort, Limit or Aggregate.
TEST_F(TypedWhere, ConstantsFoldAsPostgres) {
  EXPECT_EQ(check_fixture(*s_, "constants.out"), 46u);
}

// count, sum, avg, min and max over every type: PostgreSQL's results (numeric exact with
// its scales, float sums, text byte-wise, max(varchar) as text), plans, costs and widths.
TEST_F(TypedWhere, AggregatesOverEveryTypeArePostgres) {
  EXPECT_EQ(check_fixture(*s_, "typed_aggregates.out"), 25u);
  const ResultSet r = s_->execute("select max(v), min(t), sum(n) from w where a > 1000");
  EXPECT_EQ(r.column_type_ids.at(0).type, TypeId::kText);  // max(text) over a varchar
  ASSERT_EQ(r.nulls.size(), 1u);
  EXPECT_EQ(r.nulls[0], std::vector<bool>({true, true, true}));  // NULL, not ''
}

// sum(numeric) adds values that fit as integers at the largest scale seen and the rest
// exactly: mixed scales, values past 10^36, a scale change that would overflow, NaN.
// The answers are PostgreSQL 15's.
TEST_F(TypedWhere, NumericSumsAreExactAcrossScalesAndSizes) {
  s_->execute("create table ns (k int, x numeric)");
  s_->execute(
      "insert into ns values (1, 1.5), (2, -2.25), (3, 0.001), (4, "
      "123456789012345678901234567890.5), (5, 99999999999999999999999999999999999.999), "
      "(6, -0.0001), (7, 1e-20), (8, 5), (9, 0), (10, 1e30)");
  const std::pair<const char*, const char*> cases[] = {
      {"select sum(x), avg(x) from ns",
       "100001123456789012345678901234567894.74990000000000000001|"
       "10000112345678901234567890123456789.47499000000000000000"},
      {"select sum(x), avg(x) from ns where k < 4", "-0.749|-0.24966666666666666667"},
      {"select sum(x) from ns where k in (1,2,3,6,8,9)", "4.2509"},
      {"select sum(x) from ns where k in (4, 7)",
       "123456789012345678901234567890.50000000000000000001"},
      {"select sum(x) from ns where k in (5, 6, 7, 10)",
       "100000999999999999999999999999999999.99890000000000000001"},
      {"select sum(x) from ns where k = 9", "0"},
  };
  for (const auto& [sql, want] : cases) {
    const ResultSet r = s_->execute(sql);
    std::string got;
    for (size_t c = 0; c < r.rows.at(0).size(); ++c) got += (c ? "|" : "") + r.rows[0][c];
    EXPECT_EQ(got, want) << sql;
  }
  s_->execute("insert into ns values (11, 'NaN')");
  EXPECT_EQ(s_->execute("select sum(x), avg(x) from ns").rows.at(0),
            std::vector<std::string>({"NaN", "NaN"}));
}

// A tree of numeric + - * over columns and constants is computed as scaled integers
// with one value written for the whole tree (typed_expr.cc); it must print what the
// digit arithmetic (numeric_add / _sub / _mul, node by node) prints, for values small
// and past the scaled range, scales up to 40, signs, zero, NaN and NULL.
TEST_F(TypedWhere, NumericExpressionTreesAreTheDigitArithmetics) {
  std::mt19937 rng(5);
  auto random_value = [&rng]() -> std::string {
    switch (rng() % 12) {
      case 0:
        return "NULL";
      case 1:
        return "'NaN'";
      case 2:
        return "0";
      case 3:  // past 10^17 units, and past 10^35
        return std::to_string(rng()) + std::to_string(rng()) + "." + std::to_string(rng() % 1000);
      case 4:
        return "1e" + std::to_string(int(rng() % 60) - 40);
      default: {
        std::string v = (rng() % 3 == 0 ? "-" : "") + std::to_string(rng() % 100000);
        const int scale = int(rng() % 6);
        if (scale > 0) v += "." + std::to_string(rng() % 1000000).substr(0, size_t(scale));
        return v;
      }
    }
  };
  s_->execute("create table ne (k int, a numeric, b numeric, c numeric)");
  std::string insert = "insert into ne values ";
  for (int k = 0; k < 400; ++k)
    insert += (k ? ", (" : "(") + std::to_string(k) + ", " + random_value() + ", " +
              random_value() + ", " + random_value() + ")";
  s_->execute(insert);
  const ResultSet rows = s_->execute("select a, b, c from ne order by k");
  const ResultSet got = s_->execute(
      "select a * (b - c), (a + b) * (c - 1.5), a * b * c, a - b + c * 2 from ne order by k");
  ASSERT_EQ(got.rows.size(), 400u);
  for (size_t r = 0; r < rows.rows.size(); ++r) {
    std::vector<std::optional<std::string>> v;  // stored forms; nullopt for NULL
    for (size_t c = 0; c < 3; ++c)
      v.push_back(rows.nulls[r][c] ? std::nullopt
                                   : std::optional(numeric_in(rows.rows[r][c], kNoTypmod)));
    using Op = std::string (*)(const char*, const char*);
    auto op = [](Op f, const std::optional<std::string>& x, const std::optional<std::string>& y) {
      return x && y ? std::optional(f(x->data(), y->data())) : std::nullopt;
    };
    const auto k15 = std::optional(numeric_in("1.5", kNoTypmod));
    const auto k2 = std::optional(numeric_in("2", kNoTypmod));
    const std::optional<std::string> want[] = {
        op(numeric_mul, v[0], op(numeric_sub, v[1], v[2])),
        op(numeric_mul, op(numeric_add, v[0], v[1]), op(numeric_sub, v[2], k15)),
        op(numeric_mul, op(numeric_mul, v[0], v[1]), v[2]),
        op(numeric_add, op(numeric_sub, v[0], v[1]), op(numeric_mul, v[2], k2)),
    };
    for (size_t c = 0; c < 4; ++c) {
      const std::string expected = want[c] ? numeric_out(want[c]->data()) : "NULL";
      const std::string actual = got.nulls[r][c] ? "NULL" : got.rows[r][c];
      EXPECT_EQ(actual, expected) << "row " << r << " column " << c << ": " << rows.rows[r][0]
                                  << ", " << rows.rows[r][1] << ", " << rows.rows[r][2];
    }
  }
}

// A qual `t [NOT] LIKE 'abc%'` on text or char(n) is a byte comparison (kTextPrefix in
// scans/qual.cc): it keeps the rows the general LIKE keeps, for values shorter than the
// prefix, equal to it, padded char(n) values, NULLs, and patterns it must not take
// ('_', an escape, a '%' inside).
TEST_F(TypedWhere, LikePrefixQualsKeepTheRowsLikeKeeps) {
  s_->execute("create table lp (k int, t text, c char(6))");
  std::mt19937 rng(3);
  const char* const words[] = {"", "a", "ab", "abc", "abcd", "abd", "b", "ab_c", "ab%", "a\\b"};
  std::string insert = "insert into lp values ";
  for (int k = 0; k < 300; ++k) {
    auto value = [&] {
      return rng() % 10 == 0 ? std::string("NULL")
                             : "'" + std::string(words[rng() % std::size(words)]) + "'";
    };
    insert += (k ? ", (" : "(") + std::to_string(k) + ", " + value() + ", " + value() + ")";
  }
  s_->execute(insert);
  for (const char* column : {"t", "c"})
    for (const char* pattern : {"a%", "ab%", "abc%%", "ab\\%%", "ab_%", "a%b%", "%", "abcdefg%"})
      for (const char* op : {"LIKE", "NOT LIKE"}) {
        const std::string test = std::string(column) + " " + op + " '" + pattern + "'";
        const std::string qual = scalar(*s_, "select count(*) from lp where " + test);
        // The same test in the select list goes through the expression evaluator.
        const ResultSet all = s_->execute("select " + test + " from lp");
        size_t want = 0;
        for (size_t r = 0; r < all.rows.size(); ++r)
          want += !all.nulls[r][0] && all.rows[r][0] == "t";
        EXPECT_EQ(qual, std::to_string(want)) << test;
      }
  EXPECT_EQ(scalar(*s_, "select count(*) from lp where c like 'ab  %'"),
            scalar(*s_, "select count(*) from lp where c = 'ab'"))
      << "char(n) LIKE reads its padding";
}

TEST_F(TypedWhere, AggregatesPostgresHasNotAreItsErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"select sum(t) from w", "function sum(text) does not exist"},
      {"select avg(d) from w", "function avg(date) does not exist"},
      {"select min(b) from w", "function min(boolean) does not exist"},
      {"select max(t) + 1 from w",
       "max() (a text result) in an expression over aggregates is not supported"},
  };
  for (const auto& [sql, error] : cases) EXPECT_EQ(error_of(*s_, sql), error) << sql;
}

// An OR's arms are told apart by their expressions (PostgreSQL's answers): two typed
// arms are no duplicates unless they are the same expression.
TEST_F(TypedWhere, OrArmsOfTypedQualsAreKept) {
  const std::pair<const char*, const char*> cases[] = {
      {"select count(*) from w where a+0 = 1 or t = 'abc2'", "6"},
      {"select count(*) from w where 2 in (a, 2)", "200"},
      {"select count(*) from w where a in (a+1, 2)", "1"},
      {"select count(*) from w where (t = 'abc1' and a < 50) or (t = 'abc1' and a > 150)", "3"},
  };
  for (const auto& [sql, count] : cases) EXPECT_EQ(s_->execute(sql).rows.at(0).at(0), count) << sql;
}

TEST_F(TypedWhere, BadInputGetsPostgresErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"select a from w where t = 5", "operator does not exist: text = integer"},
      {"select a from w where d < 'notadate'", "invalid input syntax for type date: \"notadate\""},
      {"select a from w where n > 'x'", "invalid input syntax for type numeric: \"x\""},
      {"select a from w where a / 0 > 1", "division by zero"},
      {"select a from w where b + 1 > 0", "operator does not exist: boolean + integer"},
      {"select a from w where t", "argument of WHERE must be type boolean, not type text"},
      {"select a from w where lower(a) = 'x'", "function lower(integer) does not exist"},
      {"select a from w where date '2020-13-01' < d",
       "date/time field value out of range: \"2020-13-01\""},
      {"select a from w where a::int2 * 1000::int2 > 0", "smallint out of range"},
      {"select a from w where d + '1' > d", "operator is not unique: date + unknown"},
      {"select a from w where case when a > 1 then 1 else 'x' end = 1",
       "invalid input syntax for type integer: \"x\""},
      {"select a from w where v::varchar(1) = 'v'", ""},
  };
  for (const auto& [sql, error] : cases) EXPECT_EQ(error_of(*s_, sql), error) << sql;
  // The data is as it was.
  EXPECT_EQ(s_->execute("SELECT a FROM w WHERE v::varchar(1) = 'v'").rows.size(), 200u);
}

}  // namespace
}  // namespace tp
