// Ctrl-C sent to the `tidepool sql` process: during startup it must not kill
// the process (the handler is installed first thing in main()) and the script
// stops before its first statement; during CREATE INDEX it cancels the build and
// leaves no index behind.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/robust/child_process.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using namespace std::chrono_literals;
using testing::ChildProcess;
using testing::options_for;
using testing::scalar;
using testing::TempDir;
using testing::wait_until;

constexpr const char* kCancelMessage = "ERROR:  canceling statement due to user request";

size_t files_in(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    ++n;
  return n;
}

// The SIGINT arrives as soon as the data directory appears, while the session
// is still opening (before this fix the default action killed the process
// there: the handler came after the session). The pending cancel stops the
// script before its first statement.
TEST(Sigint, DuringStartupCancelsInsteadOfKilling) {
  TempDir tmp;
  const std::string data = tmp.data();
  ChildProcess child({"sql", "-D", data, "-c", "CREATE TABLE t (a int)", "-c",
                      "INSERT INTO t SELECT g FROM generate_series(1, 500000000) g"},
                     tmp.path());
  ASSERT_TRUE(wait_until([&] { return std::filesystem::exists(data); }, 30s));
  child.signal(SIGINT);
  // Had the signal landed in the instant between the script's check and the
  // statement's start, it would be lost: a second one then stops the INSERT.
  if (!child.wait_for(30s)) child.signal(SIGINT);
  ASSERT_TRUE(child.wait_for(60s));
  EXPECT_TRUE(WIFEXITED(child.status())) << child.describe();
  EXPECT_EQ(WEXITSTATUS(child.status()), 1) << child.describe();
  EXPECT_NE(child.stderr_text().find(kCancelMessage), std::string::npos) << child.stderr_text();
  Session s(options_for(data));
  if (s.catalog().find("t")) {
    EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "0");
  }
}

// End to end: Ctrl-C while `tidepool sql -c "CREATE INDEX ..."` builds (the
// signal is sent when the new index file appears) leaves no index and no file.
TEST(Sigint, DuringCreateIndexLeavesNoIndex) {
  TempDir tmp;
  const std::string data = tmp.data();
  {
    Session s(options_for(data));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT g, g FROM generate_series(1, 400000) g ORDER BY random()");
  }
  const std::string base = data + "/base";
  const size_t files = files_in(base);
  // On a loaded machine the build may finish before the signal lands: that
  // attempt proves nothing, so the index is dropped and the run repeated.
  bool cancelled = false;
  for (int attempt = 0; attempt < 3 && !cancelled; ++attempt) {
    ChildProcess child({"sql", "-D", data, "-c", "CREATE INDEX t_a ON t (a)"}, tmp.path());
    ASSERT_TRUE(wait_until([&] { return files_in(base) > files || child.poll_exit(); }, 60s));
    child.signal(SIGINT);
    ASSERT_TRUE(child.wait_for(60s));
    ASSERT_TRUE(WIFEXITED(child.status())) << child.describe();
    if (WEXITSTATUS(child.status()) == 0) {
      Session(options_for(data)).execute("DROP INDEX t_a");
      continue;
    }
    EXPECT_EQ(WEXITSTATUS(child.status()), 1) << child.describe() << "\n" << child.stderr_text();
    EXPECT_NE(child.stderr_text().find(kCancelMessage), std::string::npos) << child.stderr_text();
    cancelled = true;
  }
  EXPECT_TRUE(cancelled) << "three builds finished before their SIGINT";

  Session s(options_for(data));
  EXPECT_EQ(s.catalog().find("t_a"), nullptr);
  EXPECT_EQ(files_in(base), files);
  EXPECT_EQ(scalar(s, "SELECT count(*) FROM t"), "400000");
}

}  // namespace
}  // namespace tp
