// `tidepool check`: a clean directory passes; a corrupted byte in a heap page
// or an index page, a bad line pointer, a broken key order and a missing file
// are each reported on a line naming the relation and the block.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "engine/core/interrupts.h"
#include "engine/core/page.h"
#include "engine/storage/index_verify.h"
#include "engine/storage/visibility_map.h"
#include "tests/support/test_util.h"
#include "tools/check/check.h"

namespace tp {
namespace {

using testing::TempDir;

struct CheckRun {
  int code = -1;
  std::string out, err;
};

CheckRun run_check(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CheckRun r;
  r.code = run_check_command(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// Reads block `b` of `path`, lets `edit` change it, writes it back.
template <typename F>
void edit_block(const std::string& path, BlockNumber b, F&& edit) {
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0) << path;
  alignas(8) char page[kBlockSize];
  ASSERT_EQ(pread(fd, page, kBlockSize, off_t(b) * kBlockSize), ssize_t(kBlockSize));
  edit(page);
  ASSERT_EQ(pwrite(fd, page, kBlockSize, off_t(b) * kBlockSize), ssize_t(kBlockSize));
  ::close(fd);
}

class Check : public ::testing::Test {
 protected:
  void SetUp() override {
    Session s(testing::options_for(tmp_.data()));
    s.execute("CREATE TABLE t (a int, b int)");
    s.execute("INSERT INTO t SELECT i, i FROM generate_series(1, 5000) s(i)");
    s.execute("CREATE INDEX t_a ON t (a)");
    s.execute("CREATE TABLE keep (a int)");
    s.execute("INSERT INTO keep VALUES (42)");
    t_path_ = s.data_dir().relation_path(s.catalog().find("t")->relnumber);
    t_a_path_ = s.data_dir().relation_path(s.catalog().find("t_a")->relnumber);
    blocks_ = s.catalog().find("t")->pages + s.catalog().find("t_a")->pages +
              s.catalog().find("keep")->pages;
  }
  CheckRun check() { return run_check({"-D", tmp_.data()}); }

  TempDir tmp_;
  std::string t_path_, t_a_path_;
  uint64_t blocks_ = 0;
};

TEST_F(Check, CleanDirectoryPasses) {
  CheckRun r = check();
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "tidepool check: 3 relations, " + std::to_string(blocks_) +
                       " blocks checked, no problems found\n");
}

TEST_F(Check, CorruptedHeapAndIndexBytesAreReportedByRelationAndBlock) {
  edit_block(t_path_, 2, [](char* page) { page[5000] ^= 0x01; });
  edit_block(t_a_path_, 1, [](char* page) { page[3000] ^= 0x40; });
  CheckRun r = check();
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("relation \"t\" block 2: checksum mismatch (page has 0x"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("relation \"t_a\" block 1: checksum mismatch (page has 0x"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2 problems found\n"), std::string::npos) << r.out;
  // check changes nothing: the same problems are there the second time.
  EXPECT_EQ(check().out, r.out);
}

// The visibility map of a vacuumed table: a page that fails its checksum, or a bit set
// for a block the table does not have, is damage.
TEST_F(Check, ADamagedVisibilityMapIsReported) {
  std::string vm;
  {
    Session s(testing::options_for(tmp_.data()));
    s.execute("VACUUM t");
    vm = s.data_dir().vm_path(s.catalog().find("t")->relnumber);
  }
  EXPECT_EQ(check().code, 0);
  edit_block(vm, 0, [](char* page) { page[1000] ^= 0x01; });
  CheckRun r = check();
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("relation \"t\": visibility map \""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("_vm\" is damaged: page 0 fails its checksum\n"), std::string::npos)
      << r.out;
}

TEST_F(Check, AVisibilityMapBitPastTheTableIsReported) {
  std::string vm;
  BlockNumber pages = 0;
  {
    Session s(testing::options_for(tmp_.data()));
    pages = BlockNumber(s.catalog().find("t")->pages);
    vm = s.data_dir().vm_path(s.catalog().find("t")->relnumber);
  }
  VisibilityMap m;
  m.set_all_visible(pages + 3);
  write_visibility_map(vm, m);
  CheckRun r = check();
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("marks block " + std::to_string(pages + 2) + ", past the table's " +
                       std::to_string(pages) + " blocks"),
            std::string::npos)
      << r.out;
}

TEST_F(Check, LinePointerOutsideThePageIsReported) {
  edit_block(t_path_, 1, [](char* page) {
    page_item_id(page, 7)->off = 8190;
    page_set_checksum(page, 1);
  });
  CheckRun r = check();
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("relation \"t\" block 1: line pointer 7: tuple at offset 8190 length 32 "
                       "lies outside the tuple space"),
            std::string::npos)
      << r.out;
}

// One fault can damage every tuple; a relation's problems are listed up to 100
// lines, the summary still counts each one.
TEST_F(Check, ManyProblemsOfOneRelationAreCountedNotAllListed) {
  edit_block(t_path_, 1, [](char* page) {
    for (OffsetNumber o = 1; o <= 150; ++o) page_item_id(page, o)->off = 8190;
    page_set_checksum(page, 1);
  });
  CheckRun r = check();
  EXPECT_EQ(r.code, 1);
  size_t listed = 0;
  for (size_t p = r.out.find("relation \"t\""); p != std::string::npos;
       p = r.out.find("relation \"t\"", p + 1))
    ++listed;
  EXPECT_EQ(listed, 100u) << r.out;
  EXPECT_NE(r.out.find("relation \"t\": more problems, not listed (the summary counts them)\n"),
            std::string::npos)
      << r.out;
  const size_t at = r.out.find(" blocks checked, ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_GE(std::stoul(r.out.substr(at + 17)), 150u) << r.out;
}

TEST_F(Check, IndexKeyOrderIsVerified) {
  edit_block(t_a_path_, 1, [](char* page) {
    int32_t big = 2000000000;
    std::memcpy(page_item(page, 3) + 8, &big, 4);  // key of the second entry of the first leaf
    page_set_checksum(page, 1);
  });
  CheckRun r = check();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(r.out.rfind("index \"t_a\" block 1 offset ", 0), 0u) << r.out;
}

// Ctrl-C reaches the B-tree verifier too (tp_verify, the index part of a check):
// it polls once per page and raises QueryCanceled, which check does not report
// as the index's damage but stops on.
TEST_F(Check, CtrlCStopsTheIndexVerifier) {
  {
    Session s(testing::options_for(tmp_.data()));
    const RelationEntry& t = *s.catalog().find("t");
    const RelationEntry& t_a = *s.catalog().find("t_a");
    EXPECT_TRUE(verify_index(s.storage(), t, t_a).ok);
    cancel_requested().store(true);  // what the SIGINT handler does
    EXPECT_THROW(verify_index(s.storage(), t, t_a), QueryCanceled);
    EXPECT_FALSE(cancel_requested().load());  // the request was taken, once
  }
  CheckRun r = check();
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST_F(Check, MissingFileIsReported) {
  std::filesystem::remove(t_a_path_);
  CheckRun r = check();
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("could not open relation \"t_a\": file base/"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 problem found"), std::string::npos) << r.out;
}

// Ctrl-C stops a check (main() installs the shell's SIGINT handler for every
// command, so the signal only sets the flag; the check never polled it and a
// long check could not be interrupted). A stopped check claims nothing.
TEST_F(Check, CtrlCStopsTheCheck) {
  cancel_requested().store(true);  // what the SIGINT handler does
  CheckRun r = check();
  cancel_requested().store(false);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "tidepool check: ERROR:  canceling statement due to user request\n");
  EXPECT_EQ(r.out.find("no problems found"), std::string::npos) << r.out;
  EXPECT_EQ(check().code, 0);  // the flag was consumed; the directory is untouched
}

TEST(CheckUsage, BadArgumentsAndMissingDirectory) {
  TempDir tmp;
  EXPECT_EQ(run_check({"--bogus"}).code, 2);
  EXPECT_EQ(run_check({"-D"}).code, 2);
  CheckRun r = run_check({"-D", tmp.data()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "tidepool check: data directory \"" + tmp.data() + "\" does not exist\n");
  EXPECT_FALSE(std::filesystem::exists(tmp.data()));
  // An empty directory is not initialised by a check either.
  r = run_check({"-D", tmp.path()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("is empty"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path()));
}

}  // namespace
}  // namespace tp
