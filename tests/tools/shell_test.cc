// `tidepool sql`'s command line: exit codes of its options and of a script
// (run_sql_shell returns them instead of ending the process).
#include "tools/shell/shell.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::TempDir;

TEST(Shell, OptionsGiveTheirExitCodes) {
  EXPECT_EQ(run_sql_shell({"--help"}), 0);
  EXPECT_EQ(run_sql_shell({"--bogus"}), 2);
  EXPECT_EQ(run_sql_shell({"-c"}), 2);  // a missing value is a usage error
}

TEST(Shell, ScriptsRunInOrderAndStopAtTheFirstError) {
  TempDir dir;
  const std::string data = dir.path() + "/data";
  EXPECT_EQ(run_sql_shell({"-D", data, "-c", "CREATE TABLE s (a int)", "-c",
                           "INSERT INTO s SELECT g FROM generate_series(1, 10) g"}),
            0);
  EXPECT_EQ(run_sql_shell({"-D", data, "-c", "SELECT * FROM nowhere", "-c", "DROP TABLE s"}), 1);
  EXPECT_EQ(run_sql_shell({"-D", data, "-f", dir.path() + "/no-such-file"}), 1);
  // DROP TABLE did not run after the failed statement: s is still there.
  EXPECT_EQ(run_sql_shell({"-D", data, "-c", "SELECT count(*) FROM s"}), 0);
  EXPECT_EQ(run_sql_shell({"-D", data, "-c", "CREATE TABLE s (a int)"}), 1);
}

}  // namespace
}  // namespace tp
