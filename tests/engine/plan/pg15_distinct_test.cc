// SELECT DISTINCT end to end against PostgreSQL 15.18: d1 is built and analyzed as
// pg15/d1_setup.sql builds it (20,000 rows, sampled whole, so both systems hold the same
// statistics), and each EXPLAIN of pg15/d1_explain.sql must print exactly the plan
// PostgreSQL printed into pg15/d1_explain.out (Unique over a Sort or an index scan,
// HashAggregate with and without a planned spill, ORDER BY, LIMIT / OFFSET, enable_*).
// The rows of DISTINCT queries, under every plan shape, are checked against the
// distinct values computed here from the rows' definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/engine/plan/pg15_script.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

class Pg15Distinct : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tables_ = new testing::FixtureTables({"d1_setup.sql", "p1_setup.sql"});
    s_ = &tables_->session();
  }
  static void TearDownTestSuite() {
    delete tables_;
    s_ = nullptr;
  }
  void TearDown() override {
    for (const char* name : {"enable_hashagg", "enable_sort", "work_mem"})
      s_->execute(std::string("RESET ") + name);
  }

  // Each row's columns joined by '|'.
  static std::vector<std::string> rows(const std::string& sql) {
    std::vector<std::string> out;
    for (const auto& row : s_->execute(sql).rows) {
      std::string r;
      for (size_t i = 0; i < row.size(); ++i) r += (i ? "|" : "") + row[i];
      out.push_back(r);
    }
    return out;
  }
  static std::vector<std::string> sorted_rows(const std::string& sql) {
    std::vector<std::string> out = rows(sql);
    std::sort(out.begin(), out.end());
    return out;
  }

  static testing::FixtureTables* tables_;
  static Session* s_;
};
testing::FixtureTables* Pg15Distinct::tables_ = nullptr;
Session* Pg15Distinct::s_ = nullptr;

TEST_F(Pg15Distinct, EveryPlanIsPostgres) {
  EXPECT_GE(testing::compare_plans(*s_, "d1_explain.sql", "d1_explain.out"), 50u);
}

// p1 (1,667 pages, one worker) has a partial path: at the defaults the plans stay
// serial; with a cheap parallel setup, PostgreSQL 15's partial distinct relation (a
// HashAggregate per participant under a Gather), a Gather Merge sorting in the DISTINCT
// order, or the plain Gather under the final distinct.
TEST_F(Pg15Distinct, EveryParallelPlanIsPostgres) {
  EXPECT_GE(testing::compare_plans(*s_, "dp_explain.sql", "dp_explain.out"), 18u);
}

// d1's rows, from d1_setup.sql's definition.
struct Row {
  int64_t a, b, c, d;
  int64_t col(char name) const { return name == 'a' ? a : name == 'b' ? b : name == 'c' ? c : d; }
};
std::vector<Row> reference_rows() {
  std::vector<Row> out;
  for (int64_t i = 1; i <= 20000; ++i) out.push_back({i, i % 100, i % 7, i / 50});
  return out;
}

// The distinct values of `cols` over the rows `keep` passes, ordered by `cols` with
// each column ascending or (`desc`) descending, formatted as rows() formats them.
template <typename Keep>
std::vector<std::string> reference(const std::string& cols, const std::vector<bool>& desc,
                                   Keep keep) {
  std::set<std::vector<int64_t>> seen;
  for (const Row& r : reference_rows()) {
    if (!keep(r)) continue;
    std::vector<int64_t> v;
    for (char c : cols) v.push_back(r.col(c));
    seen.insert(v);
  }
  std::vector<std::vector<int64_t>> ordered(seen.begin(), seen.end());
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto& x, const auto& y) {
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] != y[i]) return desc[i] ? x[i] > y[i] : x[i] < y[i];
    return false;
  });
  std::vector<std::string> out;
  for (const auto& v : ordered) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "|" : "") + std::to_string(v[i]);
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Every plan shape (HashAggregate, Unique over a Sort, Unique over an index scan, with a
// spill planned, with the Sort disabled) returns the same rows: the distinct values.
TEST_F(Pg15Distinct, EveryPlanShapeReturnsTheDistinctValues) {
  struct Case {
    std::string select, where, cols;
    bool (*keep)(const Row&);
  };
  const Case cases[] = {
      {"b", "", "b", [](const Row&) { return true; }},
      {"b, c", "", "bc", [](const Row&) { return true; }},
      {"c, d", "WHERE b = 4", "cd", [](const Row& r) { return r.b == 4; }},
      {"a", "WHERE a < 1000", "a", [](const Row& r) { return r.a < 1000; }},
      {"b", "WHERE b < 5", "b", [](const Row& r) { return r.b < 5; }},
      {"*", "WHERE a < 100", "abcd", [](const Row& r) { return r.a < 100; }},
      {"d, b", "WHERE a > 15000 AND c = 3", "db",
       [](const Row& r) { return r.a > 15000 && r.c == 3; }},
      {"b", "WHERE b = 4", "b", [](const Row& r) { return r.b == 4; }},
  };
  const std::vector<std::vector<std::string>> settings = {
      {},
      {"SET enable_hashagg = off"},
      {"SET enable_sort = off"},
      {"SET work_mem = '64kB'", "SET enable_sort = off"},
      {"SET enable_hashagg = off", "SET enable_indexscan = off", "SET enable_bitmapscan = off"},
  };
  for (const auto& set : settings) {
    for (const std::string& sql : set) s_->execute(sql);
    for (const Case& c : cases) {
      const std::string sql = "SELECT DISTINCT " + c.select + " FROM d1 " + c.where;
      const std::vector<bool> asc(c.cols.size(), false);
      EXPECT_EQ(sorted_rows(sql), sorted(reference(c.cols, asc, c.keep)))
          << sql << (set.empty() ? "" : " after " + set[0]);
      // ORDER BY every column (the first descending) fixes the order, so LIMIT and
      // OFFSET cut a known window.
      std::string order = " ORDER BY ";
      std::vector<bool> desc;
      for (size_t i = 0; i < c.cols.size(); ++i) {
        order += (i ? ", " : "") + std::string(1, c.cols[i]) + (i == 0 ? " DESC" : "");
        desc.push_back(i == 0);
      }
      std::vector<std::string> want = reference(c.cols, desc, c.keep);
      EXPECT_EQ(rows(sql + order), want) << sql + order;
      want.erase(want.begin(), want.begin() + std::min<ptrdiff_t>(2, ptrdiff_t(want.size())));
      want.resize(std::min<size_t>(want.size(), 5));
      EXPECT_EQ(rows(sql + order + " LIMIT 5 OFFSET 2"), want) << sql + order;
    }
    for (const char* name :
         {"enable_hashagg", "enable_sort", "work_mem", "enable_indexscan", "enable_bitmapscan"})
      s_->execute(std::string("RESET ") + name);
  }
}

TEST_F(Pg15Distinct, RepeatedColumnsAndAliases) {
  std::vector<std::string> want;
  for (int b = 0; b < 100; ++b) want.push_back(std::to_string(b) + "|" + std::to_string(b));
  EXPECT_EQ(sorted_rows("SELECT DISTINCT b, b FROM d1"), sorted(want));
  EXPECT_EQ(rows("SELECT DISTINCT b AS x FROM d1 WHERE b < 3 ORDER BY x"),
            (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(rows("SELECT DISTINCT c, b FROM d1 WHERE b < 2 ORDER BY 2 DESC, 1 LIMIT 3"),
            (std::vector<std::string>{"0|1", "1|1", "2|1"}));
  EXPECT_EQ(rows("SELECT DISTINCT a FROM d1 ORDER BY a DESC LIMIT 3"),
            (std::vector<std::string>{"20000", "19999", "19998"}));
  EXPECT_EQ(rows("SELECT DISTINCT b FROM d1 WHERE b = 4 ORDER BY b LIMIT 0"),
            std::vector<std::string>{});
}

TEST_F(Pg15Distinct, ExplainAnalyzeShowsTheHashTable) {
  std::vector<std::string> plan = rows("EXPLAIN (ANALYZE, TIMING OFF) SELECT DISTINCT b FROM d1");
  ASSERT_GE(plan.size(), 4u);
  EXPECT_EQ(plan[0].rfind("HashAggregate  (cost=359.00..360.00 rows=100 width=4) (actual "
                          "rows=100 loops=1)",
                          0),
            0u)
      << plan[0];
  EXPECT_EQ(plan[1], "  Group Key: b");
  EXPECT_EQ(plan[2].rfind("  Batches: 1  Memory Usage: ", 0), 0u) << plan[2];
  s_->execute("SET enable_hashagg = off");
  plan = rows("EXPLAIN (ANALYZE, TIMING OFF) SELECT DISTINCT b FROM d1");
  EXPECT_EQ(plan[0].rfind("Unique  (cost=0.29..1014.25 rows=100 width=4) (actual rows=100 "
                          "loops=1)",
                          0),
            0u)
      << plan[0];
}

TEST_F(Pg15Distinct, RefusalsNameTheConstruct) {
  try {
    s_->execute("SELECT DISTINCT b FROM d1 ORDER BY c");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "for SELECT DISTINCT, ORDER BY expressions must appear in select list");
  }
  try {
    s_->execute("SELECT DISTINCT ON (b) b FROM d1 ORDER BY c, b");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
  }
}

// Over a plain Aggregate or the min/max InitPlans the result is their one row, whatever
// the plan above it.
TEST_F(Pg15Distinct, DistinctOverAggregatesIsTheAggregatesRow) {
  int64_t sum_b = 0, max_c = 0;
  for (const Row& r : reference_rows()) {
    if (r.a < 100) sum_b += r.b;
    max_c = std::max(max_c, r.c);
  }
  EXPECT_EQ(rows("SELECT DISTINCT count(*), sum(b) FROM d1 WHERE a < 100"),
            (std::vector<std::string>{"99|" + std::to_string(sum_b)}));
  EXPECT_EQ(rows("SELECT DISTINCT max(c) + 1, count(*) * 2, -count(c), count(DISTINCT b) FROM d1"),
            (std::vector<std::string>{std::to_string(max_c + 1) + "|40000|-20000|100"}));
  EXPECT_EQ(rows("SELECT DISTINCT count(*), count(*) FROM d1"),
            (std::vector<std::string>{"20000|20000"}));
  // From min/max InitPlans (their plans shown at the top, as PostgreSQL does).
  EXPECT_EQ(rows("SELECT DISTINCT max(a) FROM d1"), (std::vector<std::string>{"20000"}));
  EXPECT_EQ(rows("SELECT DISTINCT min(a), max(a) + 1 FROM d1 WHERE d = 30"),
            (std::vector<std::string>{"1500|1550"}));
  EXPECT_EQ(rows("SELECT DISTINCT max(a) FROM d1 WHERE c = 3 LIMIT 1"),
            (std::vector<std::string>{"19995"}));
  EXPECT_EQ(rows("SELECT DISTINCT count(*) FROM d1 LIMIT 0"), std::vector<std::string>{});
  EXPECT_EQ(rows("SELECT DISTINCT count(*) FROM d1 OFFSET 1"), std::vector<std::string>{});
  s_->execute("SET enable_sort = off");  // the HashAggregate then
  EXPECT_EQ(rows("SELECT DISTINCT avg(b) FROM d1 WHERE a <= 4"),
            (std::vector<std::string>{"2.5000000000000000"}));
  std::vector<std::string> plan = rows("EXPLAIN SELECT DISTINCT avg(b) FROM d1 WHERE a <= 4");
  ASSERT_GE(plan.size(), 2u);
  EXPECT_EQ(plan[0].rfind("HashAggregate", 0), 0u) << plan[0];
  EXPECT_EQ(plan[1], "  Group Key: avg(b)");
}

}  // namespace
}  // namespace tp
