// Temporary files (aio/temp_file.h): names made and removed with their objects, on an
// exception thrown mid-write, on a cancel and with the space; bytes read back equal to
// bytes written over many appends of every size; the leftover cleaner removes only
// tidepool's own names (decoys of every kind stay); a full disk (a test fault and a real
// ENOSPC from /dev/full) is 53100 and leaves no file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aio/temp_file.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"

namespace tp::aio {
namespace {

namespace stdfs = std::filesystem;

class TempFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tp_temp_file_test.XXXXXX";
    root_ = ::mkdtemp(tmpl);
    dir_ = root_ + "/pgsql_tmp";
  }
  void TearDown() override { stdfs::remove_all(root_); }

  // The names in the temporary directory (none when it does not exist).
  std::set<std::string> names() const {
    std::set<std::string> out;
    if (stdfs::exists(dir_))
      for (const auto& e : stdfs::directory_iterator(dir_)) out.insert(e.path().filename());
    return out;
  }

  std::string root_, dir_;
};

std::vector<char> random_bytes(std::mt19937& rng, size_t n) {
  std::vector<char> v(n);
  for (char& c : v) c = char(rng());
  return v;
}

TEST_F(TempFileTest, FilesAreNamedAsPostgresAndRemovedWithTheirObject) {
  TempFileSpace space(dir_);
  EXPECT_FALSE(stdfs::exists(dir_));  // made on demand
  auto a = space.create();
  auto b = space.create();
  const std::string prefix = "pgsql_tmp" + std::to_string(getpid()) + ".";
  for (const auto* f : {a.get(), b.get()}) {
    const std::string name = stdfs::path(f->path()).filename();
    EXPECT_EQ(name.rfind(prefix, 0), 0u) << name;
    EXPECT_TRUE(is_temp_file_name(name));
    EXPECT_EQ(stdfs::path(f->path()).parent_path(), dir_);
  }
  EXPECT_NE(a->path(), b->path());
  EXPECT_EQ(names().size(), 2u);
  EXPECT_EQ((stdfs::status(a->path()).permissions() & stdfs::perms::all),
            stdfs::perms::owner_read | stdfs::perms::owner_write);
  a->append("hello", 5);
  b->append(std::string(20000, 'x').data(), 20000);
  EXPECT_EQ(space.bytes_held(), 20000u);  // b's big append went straight out; a's 5 bytes wait
  EXPECT_EQ(space.files_open(), 2u);
  a.reset();
  EXPECT_EQ(names().size(), 1u);
  b.reset();
  EXPECT_TRUE(names().empty());
  EXPECT_EQ(space.bytes_held(), 0u);
  EXPECT_EQ(space.files_open(), 0u);
  EXPECT_EQ(space.files_created(), 2u);
}

TEST_F(TempFileTest, BytesReadBackEqualBytesWrittenAcrossManyAppends) {
  TempFileSpace space(dir_);
  std::mt19937 rng(42);
  auto f = space.create();
  std::vector<char> all;
  // Appends of every size around the 8 kB buffer: tiny, exact, straddling, huge.
  for (int i = 0; i < 600; ++i) {
    const size_t n = i % 50 == 0 ? 70000 : i % 7 == 0 ? 8192 : rng() % 9000;
    auto bytes = random_bytes(rng, n);
    f->append(bytes.data(), n);
    all.insert(all.end(), bytes.begin(), bytes.end());
  }
  EXPECT_EQ(f->size_bytes(), all.size());
  for (int pass = 0; pass < 3; ++pass) {  // read from the start, several times
    f->rewind();
    std::vector<char> back(all.size());
    size_t at = 0;
    while (at < back.size()) {
      const size_t want = std::min<size_t>(back.size() - at, pass == 2 ? 100000 : rng() % 12000);
      at += f->read(back.data() + at, want);
    }
    EXPECT_EQ(back, all) << "pass " << pass;
    char extra;
    EXPECT_EQ(f->read(&extra, 1), 0u);  // the end
  }
  EXPECT_EQ(space.bytes_held(), all.size());  // reading wrote out the buffer
}

TEST_F(TempFileTest, AppendsAndReadsMayAlternate) {
  TempFileSpace space(dir_);
  auto f = space.create();
  std::string all;
  for (int round = 0; round < 20; ++round) {
    const std::string more(size_t(round * 997 + 3), char('a' + round));
    f->append(more.data(), more.size());
    all += more;
    f->rewind();
    std::string back(all.size(), '\0');
    f->read_exact(back.data(), back.size());
    ASSERT_EQ(back, all) << "round " << round;
  }
  f->rewind();
  std::string too_long(all.size() + 1, '\0');
  EXPECT_THROW(f->read_exact(too_long.data(), too_long.size()), Error);
}

TEST_F(TempFileTest, AnErrorThrownMidWriteRemovesTheFile) {
  TempFileSpace space(dir_);
  std::string path;
  try {
    auto f = space.create();
    path = f->path();
    for (int i = 0; i < 100; ++i) f->append(std::string(5000, 'z').data(), 5000);
    EXPECT_TRUE(stdfs::exists(path));
    throw Error("some error of the node spilling");
  } catch (const Error&) {
  }
  EXPECT_FALSE(stdfs::exists(path));
  EXPECT_TRUE(names().empty());
  EXPECT_EQ(space.bytes_held(), 0u);
}

TEST_F(TempFileTest, ACancelThrownThroughTheWriterRemovesTheFile) {
  TempFileSpace space(dir_);
  std::atomic<bool> flag{false};
  StatementCancelScope scope(flag);
  int batches = 0;
  EXPECT_THROW(
      {
        auto f = space.create();
        for (;; ++batches) {
          check_for_interrupts();  // what every ExecNode::next() does
          f->append(std::string(3000, 'c').data(), 3000);
          if (batches == 40) flag.store(true);
        }
      },
      QueryCanceled);
  EXPECT_EQ(batches, 41);
  EXPECT_TRUE(names().empty());
}

TEST_F(TempFileTest, TheSpaceRemovesTheNamesOfFilesStillAlive) {
  std::unique_ptr<TempFile> survivor;
  {
    TempFileSpace space(dir_);
    survivor = space.create();
    auto other = space.create();
    survivor->append("abc", 3);
    EXPECT_EQ(names().size(), 2u);
  }
  EXPECT_TRUE(names().empty());
  // The object still works on its open descriptor, and goes quietly.
  survivor->rewind();
  char back[3];
  survivor->read_exact(back, 3);
  EXPECT_EQ(std::string(back, 3), "abc");
  survivor.reset();
  EXPECT_TRUE(names().empty());
}

TEST_F(TempFileTest, AFullDiskIsDiskFullAndLeavesNoFile) {
  TempFileSpace space(dir_);
  space.fail_writes_for_testing(ENOSPC, 100000);
  auto f = space.create();
  const std::string path = f->path();
  try {
    for (int i = 0; i < 100; ++i) f->append(std::string(3000, 'q').data(), 3000);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "could not write to file \"" + path + "\": No space left on device");
    EXPECT_EQ(e.sqlstate(), sqlstate::kDiskFull);
  }
  EXPECT_FALSE(stdfs::exists(path));  // gone at once, though the object lives
  EXPECT_EQ(space.bytes_held(), 0u);  // and its bytes given back
  EXPECT_THROW(f->append("x", 1), Error);
  f.reset();
  EXPECT_TRUE(names().empty());
  // Another errno is an I/O error.
  space.fail_writes_for_testing(EIO, 0);
  auto g = space.create();
  g->append("y", 1);
  try {
    g->rewind();
    char c;
    g->read(&c, 1);  // writes the buffer first
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), sqlstate::kIoError);
    EXPECT_NE(std::string(e.what()).find("Input/output error"), std::string::npos);
  }
  g.reset();
  EXPECT_TRUE(names().empty());
}

TEST_F(TempFileTest, ARealEnospcFromTheKernelIsDiskFull) {
  const int full = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (full < 0) GTEST_SKIP() << "no /dev/full";
  TempFileSpace space(dir_);
  auto f = space.create();
  ASSERT_GE(::dup2(full, f->fd_for_testing()), 0);  // the file's writes now fail in the kernel
  ::close(full);
  try {
    f->append(std::string(20000, 'k').data(), 20000);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), sqlstate::kDiskFull);
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos);
  }
  EXPECT_TRUE(names().empty());
}

TEST_F(TempFileTest, TheNamePatternIsExact) {
  for (const char* good : {"pgsql_tmp1.0", "pgsql_tmp123.4", "pgsql_tmp4294967295.18446744"})
    EXPECT_TRUE(is_temp_file_name(good)) << good;
  for (const char* bad :
       {"pgsql_tmp", "pgsql_tmp123", "pgsql_tmp123.", "pgsql_tmp.4", "pgsql_tmp0.4",
        "pgsql_tmp0123.4", "pgsql_tmp123.04", "pgsql_tmp123.4.bak", "pgsql_tmp123.4x",
        "pgsql_tmp12a.4", "pgsql_tmp-1.4", "pgsql_tmp123.-4", "xpgsql_tmp123.4", "PGSQL_TMP123.4",
        "pgsql_tmp 123.4", "pgsql_tmp12345678901.4", "tmp123.4", "pgsql_tmp123.4/"})
    EXPECT_FALSE(is_temp_file_name(bad)) << bad;
}

TEST_F(TempFileTest, TheCleanerRemovesOnlyTidepoolsOwnNames) {
  stdfs::create_directory(dir_);
  auto touch = [&](const std::string& name, const std::string& text) {
    FILE* f = std::fopen((dir_ + "/" + name).c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
  };
  // A crashed run's files.
  touch("pgsql_tmp123.4", "spill");
  touch("pgsql_tmp99999.0", "spill");
  touch("pgsql_tmp7.18", "");
  // Decoys: other prefixes and suffixes, a user's file, a subdirectory and a symlink with
  // tidepool's pattern, a symlink pointing at a user's file.
  const std::vector<std::string> decoys = {"xpgsql_tmp123.4", "pgsql_tmp123.4.bak",
                                           "pgsql_temp123.4", "pgsql_tmp0123.4",
                                           "my_notes.txt",    "pgsql_tmp123"};
  for (const auto& d : decoys) touch(d, "keep me");
  stdfs::create_directory(dir_ + "/pgsql_tmp55.5");
  touch("pgsql_tmp55.5/pgsql_tmp1.1", "inside a directory");
  const std::string outside = root_ + "/users_file";
  {
    FILE* f = std::fopen(outside.c_str(), "w");
    std::fputs("precious", f);
    std::fclose(f);
  }
  stdfs::create_symlink(outside, dir_ + "/pgsql_tmp66.6");
  stdfs::create_symlink(outside, dir_ + "/link_to_users_file");

  EXPECT_EQ(remove_leftover_temp_files(dir_), 3u);
  std::set<std::string> expected(decoys.begin(), decoys.end());
  expected.insert({"pgsql_tmp55.5", "pgsql_tmp66.6", "link_to_users_file"});
  EXPECT_EQ(names(), expected);
  EXPECT_TRUE(stdfs::exists(dir_ + "/pgsql_tmp55.5/pgsql_tmp1.1"));  // not recursed into
  EXPECT_EQ(stdfs::file_size(outside), 8u);
  EXPECT_TRUE(stdfs::is_symlink(dir_ + "/pgsql_tmp66.6"));
  EXPECT_EQ(remove_leftover_temp_files(dir_), 0u);  // nothing more to do
}

TEST_F(TempFileTest, TheCleanerLeavesAMissingDirectoryOrAFileInItsPlace) {
  EXPECT_EQ(remove_leftover_temp_files(dir_), 0u);
  EXPECT_FALSE(stdfs::exists(dir_));  // not created
  FILE* f = std::fopen(dir_.c_str(), "w");
  std::fclose(f);
  EXPECT_EQ(remove_leftover_temp_files(dir_), 0u);
  EXPECT_TRUE(stdfs::is_regular_file(dir_));
  // A space over it cannot make its directory: an error naming it, nothing touched.
  TempFileSpace space(dir_);
  EXPECT_THROW(space.create(), Error);
  EXPECT_TRUE(stdfs::is_regular_file(dir_));
}

}  // namespace
}  // namespace tp::aio
