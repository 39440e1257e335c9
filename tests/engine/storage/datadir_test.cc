#include "engine/storage/datadir.h"

#include "engine/core/error.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/support/heap_file_reader.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::read_heap_file;
using testing::TempDir;

const std::vector<Column> kAB = {{"a", ColumnType::kInt4}, {"b", ColumnType::kInt4}};

off_t file_size(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

TEST(DataDir, SecondOpenerGetsAClearError) {
  TempDir tmp;
  DataDir first(tmp.data());
  try {
    DataDir second(tmp.data());
    FAIL() << "second open succeeded";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("is in use by another tidepool process (pid " + std::to_string(getpid())),
              std::string::npos)
        << msg;
  }
}

TEST(DataDir, CatalogRoundTripsAndDamageIsNamed) {
  Catalog c;
  c.next_oid = 16391;
  RelationEntry t;
  t.oid = 16384;
  t.name = "t";
  t.relnumber = 16390;
  t.fillfactor = 10;
  t.pages = 45455;
  t.rows = 1000000;
  t.columns = kAB;
  c.relations.push_back(t);
  RelationEntry i;
  i.oid = 16385;
  i.name = "t_a_idx";
  i.relnumber = 16385;
  i.kind = RelKind::kIndex;
  i.table_oid = 16384;
  i.key_columns = {0, 1};
  i.unique = true;
  c.relations.push_back(i);
  Catalog back = Catalog::parse(c.serialize(), "x");
  EXPECT_EQ(back.serialize(), c.serialize());
  EXPECT_EQ(back.find("t")->pages, 45455u);
  EXPECT_EQ(back.find("t_a_idx")->key_columns, (std::vector<int>{0, 1}));
  std::string cut = c.serialize();
  cut.resize(cut.size() / 2);
  try {
    Catalog::parse(cut, "DIR/catalog");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("catalog file \"DIR/catalog\" is damaged"),
              std::string::npos);
  }
}

TEST(DataDir, LeftoversAreCleanedAtOpen) {
  TempDir tmp;
  std::string path;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 500) s(i)");
    path = s.data_dir().relation_path(s.catalog().find("t")->relnumber);
  }
  // A file nobody owns, and blocks past the committed end, as a crash leaves them.
  std::ofstream(tmp.data() + "/base/99999") << "junk";
  {
    std::ofstream f(path, std::ios::app | std::ios::binary);
    std::string zeros(3 * 8192, '\0');
    f << zeros;
  }
  EXPECT_EQ(file_size(path), 6 * 8192);
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(file_size(path), 3 * 8192);
  EXPECT_EQ(file_size(tmp.data() + "/base/99999"), -1);
}

TEST(DataDir, JournalRestoresAnOverwrittenPageAfterACrash) {
  TempDir tmp;
  std::string path;
  std::vector<std::vector<int64_t>> before;
  {
    DataDir dir(tmp.data());
    Session* unused = nullptr;
    (void)unused;
  }
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 100) s(i)");
    path = s.data_dir().relation_path(s.catalog().find("t")->relnumber);
    before = read_heap_file(path, kAB).rows;
    // Simulate a statement that journaled block 0, then overwrote it, then died.
    int fd = ::open(path.c_str(), O_RDWR);
    alignas(8) char page[kBlockSize];
    ASSERT_EQ(pread(fd, page, kBlockSize, 0), ssize_t(kBlockSize));
    s.data_dir().save_before_image(s.catalog().find("t")->relnumber, 0, page);
    std::memset(page + 4000, 0x7F, 100);
    ASSERT_EQ(pwrite(fd, page, kBlockSize, 0), ssize_t(kBlockSize));
    ::close(fd);
    // No commit; the Session goes away as if the process had been killed
    // (its destructor does not restore anything).
  }
  Session s(testing::options_for(tmp.data()));
  auto after = read_heap_file(path, kAB);
  EXPECT_TRUE(after.checksums_ok);
  EXPECT_EQ(after.rows, before);
}

// A load killed with SIGKILL midway: the next open finds the table as it was.
TEST(DataDir, KilledLoadLeavesTableAsItWas) {
  TempDir tmp;
  std::string path;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 1000) s(i)");
    path = s.data_dir().relation_path(s.catalog().find("t")->relnumber);
  }
  auto before = read_heap_file(path, kAB);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      Session s(testing::options_for(tmp.data()));
      s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 200_000_000) s(i)");
    } catch (...) {
    }
    _exit(0);
  }
  // Wait until the load has written a good part, then kill it.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (file_size(path) < 64 * 1024 * 1024 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(file_size(path), 64 * 1024 * 1024);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  Session s(testing::options_for(tmp.data()));
  auto after = read_heap_file(path, kAB);
  EXPECT_EQ(after.pages, before.pages);
  EXPECT_EQ(after.rows, before.rows);
  EXPECT_TRUE(after.checksums_ok);
  EXPECT_EQ(s.catalog().find("t")->rows, 1000u);
  EXPECT_EQ(error_of(s, "INSERT INTO t VALUES (1, 1)"), "");
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

// CREATE INDEX killed midway: the next open finds no index and no stray file.
TEST(DataDir, KilledIndexBuildLeavesNoIndexBehind) {
  TempDir tmp;
  {
    Session s(testing::options_for(tmp.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute(
        "INSERT INTO t SELECT i, i FROM generate_series(1, 3_000_000) s(i) ORDER BY random()");
  }
  auto base_files = [&] {
    int n = 0;
    for (auto& e : std::filesystem::directory_iterator(tmp.data() + "/base"))
      n += e.is_regular_file();
    return n;
  };
  ASSERT_EQ(base_files(), 1);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      Session s(testing::options_for(tmp.data()));
      s.execute("CREATE INDEX t_a_idx ON t (a)");
    } catch (...) {
    }
    _exit(0);
  }
  // Kill it once the index file exists (the build has started).
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (base_files() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  Session s(testing::options_for(tmp.data()));
  EXPECT_EQ(s.catalog().find("t_a_idx"), nullptr);
  EXPECT_EQ(base_files(), 1);
  // And the name is free again.
  EXPECT_EQ(error_of(s, "CREATE INDEX t_a_idx ON t (b)"), "");
}

}  // namespace
}  // namespace tp

namespace tp {
namespace {

TEST(DataDir, AFailedOpenReleasesTheLock) {
  TempDir tmp;
  { DataDir dir(tmp.data()); }
  std::ofstream(tmp.data() + "/catalog") << "not a catalog\n";
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      DataDir dir(tmp.data());
      FAIL() << "a damaged catalog was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tp
