#include "tools/shell/psql_format.h"

#include <gtest/gtest.h>

namespace tp {
namespace {

ResultSet two_columns() {
  ResultSet r;
  r.returns_rows = true;
  r.columns = {"pg_size_pretty", "n"};
  r.right_aligned = {false, true};
  r.rows = {{"355 MB", "3"}, {"7 kB", "12345"}};
  return r;
}

TEST(PsqlFormat, AlignedLikePsql) {
  EXPECT_EQ(format_result(two_columns(), {}),
            " pg_size_pretty |   n   \n"
            "----------------+-------\n"
            " 355 MB         |     3\n"
            " 7 kB           | 12345\n"
            "(2 rows)\n\n");
}

TEST(PsqlFormat, UnalignedAndTuplesOnly) {
  PrintOptions o;
  o.unaligned = true;
  EXPECT_EQ(format_result(two_columns(), o), "pg_size_pretty|n\n355 MB|3\n7 kB|12345\n(2 rows)\n");
  o.tuples_only = true;
  EXPECT_EQ(format_result(two_columns(), o), "355 MB|3\n7 kB|12345\n");
}

TEST(PsqlFormat, CommandTagForStatements) {
  ResultSet r;
  r.tag = "INSERT 0 5";
  EXPECT_EQ(format_result(r, {}), "INSERT 0 5\n");
}

TEST(PsqlFormat, ErrorWithDetailAndHint) {
  Error e("invalid value for parameter \"io_method\": \"bogus\"", "",
          "Available values: sync, worker, io_uring.");
  EXPECT_EQ(format_error(e, "SET io_method = 'bogus'"),
            "ERROR:  invalid value for parameter \"io_method\": \"bogus\"\n"
            "HINT:  Available values: sync, worker, io_uring.\n");
}

}  // namespace
}  // namespace tp
