// Issue #29: the files io_trace writes. Every string in a trace is valid JSON whatever
// the statement holds; a FIFO, a symbolic link or a file tidepool did not write is
// refused without waiting; new files are 0600; and a server's client (a Database with a
// trace directory) names a plain file there, never a path.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "engine/session/database.h"
#include "engine/session/trace_file.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using Json = nlohmann::json;
using testing::TempDir;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class IoTraceFiles : public ::testing::Test {
 protected:
  IoTraceFiles() : s_(testing::options_for(tmp_.data())) {
    s_.execute("CREATE TABLE t (a int)");
    s_.execute("INSERT INTO t SELECT i FROM generate_series(1, 100) i");
    trace_ = tmp_.path() + "/trace.json";
  }
  // The one warning of a traced statement that could not write its trace.
  std::string warning_of(const std::string& sql) {
    ResultSet r = s_.execute(sql);
    EXPECT_EQ(r.rows.at(0).at(0), "100");  // the statement's result stands
    return r.warnings.size() == 1 ? r.warnings[0] : "";
  }
  TempDir tmp_;
  Session s_;
  std::string trace_;
};

TEST_F(IoTraceFiles, EveryStatementIsValidJsonInItsTrace) {
  s_.execute("SET io_trace = '" + trace_ + "'");
  const std::string cases[] = {
      "SELECT count(*) FROM t -- \"quoted\" and \\backslash\\ and 'single'\n",
      "SELECT count(*) FROM t -- control \x01\x02\x1f\x7f and tab\there\n",
      "SELECT count(*) FROM t -- $(touch pwned) `id` ${HOME}\n",
      "SELECT count(*) FROM t -- caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x99\n",
  };
  for (const std::string& sql : cases) {
    s_.execute(sql);
    Json j = Json::parse(read_file(trace_));  // throws on invalid JSON
    EXPECT_EQ(j.at("otherData").at("statement").get<std::string>(), sql);
  }
  // The parser refuses bytes that are not UTF-8, but a trace's strings (relation and
  // thread names too) are escaped whatever they hold: such bytes become U+FFFD.
  IoTrace empty(10, 10);
  TraceFileInfo info;
  info.statement = "SELECT 1 -- bad \xff\xfe \xc3 \xed\xa0\x80 \"q\" end";
  Json j = Json::parse(trace_json(empty, info));
  EXPECT_EQ(j.at("otherData").at("statement").get<std::string>(),
            "SELECT 1 -- bad \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd "
            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \"q\" end");
  EXPECT_FALSE(std::filesystem::exists("pwned"));
}

TEST_F(IoTraceFiles, NewTracesAreReadableByTheirOwnerOnly) {
  s_.execute("SET io_trace = '" + trace_ + "'");
  s_.execute("SELECT count(*) FROM t");
  struct stat st {};
  ASSERT_EQ(::stat(trace_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(IoTraceFiles, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = tmp_.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  s_.execute("SET io_trace = '" + fifo + "'");
  // Before the fix this open() blocked for ever; ctest's timeout would fail the test.
  EXPECT_NE(warning_of("SELECT count(*) FROM t").find("it is not a regular file"),
            std::string::npos);
}

TEST_F(IoTraceFiles, ASymbolicLinkIsNeitherFollowedNorReplaced) {
  const std::string target = tmp_.path() + "/target.json";
  const std::string link = tmp_.path() + "/link.json";
  std::filesystem::create_symlink(target, link);
  s_.execute("SET io_trace = '" + link + "'");
  EXPECT_NE(warning_of("SELECT count(*) FROM t").find("it is a symbolic link"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(target));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
}

TEST(IoTraceDirectory, AServersClientNamesAPlainFileInTheTraceDirectory) {
  TempDir tmp;
  const std::string dir = tmp.path() + "/traces";
  std::filesystem::create_directory(dir);
  DatabaseOptions options;
  options.data_dir = tmp.data();
  options.trace_dir = dir;
  Session s(Database::open(options));
  s.execute("CREATE TABLE t (a int)");
  s.execute("INSERT INTO t VALUES (1)");
  for (const std::string name : {"../escape.json", "/tmp/escape.json", ".", "..", "a/b.json"}) {
    EXPECT_EQ(testing::error_of(s, "SET io_trace = '" + name + "'"),
              "invalid value for parameter \"io_trace\": \"" + name + "\"");
    EXPECT_EQ(s.settings().get_text("io_trace"), "");  // unchanged
  }
  // The startup packet's options go through the same check.
  EXPECT_THROW(s.settings().set("io_trace", "../escape.json", false), Error);
  s.execute("SET io_trace = 'scan.json'");
  ResultSet r = s.execute("SELECT count(*) FROM t");
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/scan.json"));
  EXPECT_FALSE(std::filesystem::exists("scan.json"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/escape.json"));
}

}  // namespace
}  // namespace tp
