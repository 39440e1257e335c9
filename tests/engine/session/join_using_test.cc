// JOIN ... USING's merged column against PostgreSQL 15.20 (pg15/join_using.out, over
// pg15/join_using_setup.sql: each table with rows the others lack, and a NULL key): an
// unqualified reference and `*` name the left side's column, a RIGHT join's the right
// side's (NULL-extended rows keep their key), through nested USING joins; in the
// select list, WHERE, ORDER BY, aggregates and DISTINCT. And `flag = true` / `flag =
// false` on a boolean column, which PostgreSQL folds to `flag` / `NOT flag`: no
// equivalence class, so ORDER BY flag still sorts. Plans, costs and rows are
// PostgreSQL's.
#include <gtest/gtest.h>

#include "tests/engine/session/pg15_queries.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

TEST(JoinUsing, MergedColumnIsPostgres) {
  testing::TempDir tmp;
  Session s{testing::options_for(tmp.data())};
  testing::run_pg15_setup(s, "join_using_setup.sql");
  EXPECT_EQ(testing::check_pg15_queries(s, "join_using.out"), 11u);
}

}  // namespace
}  // namespace tp
