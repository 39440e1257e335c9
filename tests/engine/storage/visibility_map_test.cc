// The visibility map (engine/storage/visibility_map.h): its file format, VACUUM
// marking every page, INSERT clearing the pages it adds to, a failed statement
// leaving the map as it was, TRUNCATE / DROP / restore removing a table's map,
// the map surviving a reopen, and Index Only Scan's Heap Fetches following it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/interrupts.h"
#include "engine/storage/cancel_points.h"
#include "engine/storage/visibility_map.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::scalar;
using testing::TempDir;

TEST(VisibilityMapFormat, RoundTripsInPostgresLayout) {
  VisibilityMap m;
  m.set_all_visible(40000);  // two map pages
  EXPECT_EQ(m.count_all_visible(), 40000u);
  EXPECT_EQ(m.covered(), 2 * kVmHeapBlocksPerPage);
  EXPECT_TRUE(m.clear(39990, 40010));
  EXPECT_FALSE(m.clear(39990, 40010));
  EXPECT_EQ(m.count_all_visible(), 39990u);
  EXPECT_EQ(m.end_of_set_bits(), 39990u);
  const std::string bytes = m.serialize();
  ASSERT_EQ(bytes.size(), 2 * kBlockSize);
  // Heap block 5's bit: byte 5 / 4 of the bitmap after the 24-byte header, bit 2 * (5 % 4).
  EXPECT_EQ((uint8_t(bytes[kPageHeaderSize + 1]) >> 2) & 0x03, kVmAllVisible);
  VisibilityMap back = VisibilityMap::parse(bytes, "f");
  EXPECT_EQ(back.count_all_visible(), 39990u);
  EXPECT_TRUE(back.all_visible(39989));
  EXPECT_FALSE(back.all_visible(39990));
}

TEST(VisibilityMapFormat, DamageIsAnErrorNamingTheFile) {
  VisibilityMap m;
  m.set_all_visible(10);
  std::string bytes = m.serialize();
  bytes[100] ^= 0x10;
  EXPECT_THROW(
      {
        try {
          VisibilityMap::parse(bytes, "base/16384_vm");
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(),
                       "visibility map \"base/16384_vm\" is damaged: page 0 fails its checksum");
          throw;
        }
      },
      Error);
  EXPECT_THROW(VisibilityMap::parse(std::string(100, '\0'), "f"), Error);
}

class VisibilityMapTable : public ::testing::Test {
 protected:
  void SetUp() override { open(); }
  void open() {
    s_.reset();
    s_ = std::make_unique<Session>(testing::options_for(tmp_.data()));
    // heap_fetches() wants an Index Only Scan however few pages are all-visible.
    s_->execute("SET enable_seqscan = off");
    s_->execute("SET enable_bitmapscan = off");
  }
  void load() {
    s_->execute("CREATE TABLE t (a int, b int)");
    s_->execute("INSERT INTO t SELECT i, i % 10 FROM generate_series(1, 20000) s(i)");
    s_->execute("CREATE UNIQUE INDEX t_a ON t (a)");
  }
  const RelationEntry& table() { return *s_->catalog().find("t"); }
  std::string vm_path() { return s_->data_dir().vm_path(table().relnumber); }
  VisibilityMap map() { return read_visibility_map(vm_path()); }
  // Heap Fetches of an index-only scan of the whole index.
  std::string heap_fetches(const std::string& where = "a > 0") {
    for (const auto& row :
         s_->execute("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT a FROM t WHERE " + where)
             .rows)
      if (row[0].find("Heap Fetches:") != std::string::npos) return row[0];
    return "no Index Only Scan";
  }

  TempDir tmp_;
  std::unique_ptr<Session> s_;
};

TEST_F(VisibilityMapTable, VacuumMarksEveryPageAndTheMarksSurviveAReopen) {
  load();
  const BlockNumber pages = BlockNumber(table().pages);
  EXPECT_FALSE(std::filesystem::exists(vm_path()));  // never vacuumed: no map
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 20000");
  s_->execute("VACUUM t");
  EXPECT_EQ(map().count_all_visible(), pages);
  EXPECT_EQ(table().all_visible, pages);
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 0");
  EXPECT_EQ(scalar(*s_, "SELECT sum(a) FROM t WHERE a > 0"), "200010000");
  open();
  EXPECT_EQ(table().all_visible, pages);
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 0");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a BETWEEN 100 AND 199"), "100");
}

TEST_F(VisibilityMapTable, InsertClearsThePagesItAddsToAndRelallvisibleStaysStale) {
  load();
  s_->execute("VACUUM t");
  const BlockNumber pages = BlockNumber(table().pages);
  s_->execute("INSERT INTO t VALUES (20001, 1), (20002, 2)");
  ASSERT_EQ(table().pages, pages);  // the last page had room
  EXPECT_EQ(map().count_all_visible(), pages - 1);
  EXPECT_FALSE(map().all_visible(pages - 1));
  EXPECT_EQ(table().all_visible, pages);  // as PostgreSQL: until VACUUM or ANALYZE
  // Only the rows of the last page are fetched from the heap: 226 rows fill a page, so
  // 88 pages hold 19,888 and the last one the other 112 and the two new rows.
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 114");
  s_->execute("ANALYZE t");
  EXPECT_EQ(table().all_visible, pages - 1);
  s_->execute("VACUUM (ANALYZE) t");
  EXPECT_EQ(table().all_visible, pages);
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 0");
}

TEST_F(VisibilityMapTable, AFailedInsertLeavesTheMapAsItWas) {
  load();
  s_->execute("VACUUM t");
  const BlockNumber pages = BlockNumber(table().pages);
  EXPECT_EQ(error_of(*s_, "INSERT INTO t VALUES (20001, 0), (5, 0)"),
            "duplicate key value violates unique constraint \"t_a\"");
  EXPECT_EQ(map().count_all_visible(), pages);
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 0");
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a > 0"), "20000");
}

TEST_F(VisibilityMapTable, AVacuumCancelledHalfwayLeavesTheMapAsItWas) {
  load();
  s_->execute("VACUUM t");
  s_->execute("INSERT INTO t SELECT i, 0 FROM generate_series(20001, 21000) s(i)");
  const VisibilityMap before = map();
  const uint64_t all_visible = table().all_visible;
  int polls = 0;
  set_cancel_point_observer([&](CancelPoint p) {
    if (p == CancelPoint::kAnalyzeBlock && ++polls == 3) cancel_requested().store(true);
  });
  EXPECT_EQ(error_of(*s_, "VACUUM t"), "canceling statement due to user request");
  set_cancel_point_observer({});
  EXPECT_EQ(map().serialize(), before.serialize());
  EXPECT_EQ(table().all_visible, all_visible);
  EXPECT_GE(polls, 3);
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t WHERE a > 0"), "21000");
}

TEST_F(VisibilityMapTable, TruncateAndDropTakeTheMapWithTheTable) {
  load();
  s_->execute("VACUUM t");
  const std::string old_map = vm_path();
  ASSERT_TRUE(std::filesystem::exists(old_map));
  s_->execute("TRUNCATE t");
  EXPECT_FALSE(std::filesystem::exists(old_map));
  EXPECT_FALSE(std::filesystem::exists(vm_path()));
  EXPECT_EQ(table().all_visible, 0u);
  s_->execute("INSERT INTO t SELECT i, 0 FROM generate_series(1, 3000) s(i)");
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 3000");
  s_->execute("VACUUM");
  const std::string second = vm_path();
  ASSERT_TRUE(std::filesystem::exists(second));
  s_->execute("DROP TABLE t");
  EXPECT_FALSE(std::filesystem::exists(second));
}

TEST_F(VisibilityMapTable, RestoreRemovesOnlyMapFilesTidepoolLeftBehind) {
  load();
  s_->execute("VACUUM t");
  const std::string base = tmp_.data() + "/base/";
  const std::string kept = vm_path();
  s_.reset();
  for (const char* name : {"99999_vm", "16384_vm.new", "notours_vm", "0x10_vm"})
    std::ofstream(base + name) << "x";
  open();
  EXPECT_FALSE(std::filesystem::exists(base + "99999_vm"));  // no such table
  EXPECT_FALSE(std::filesystem::exists(base + "16384_vm.new"));
  EXPECT_TRUE(std::filesystem::exists(base + "notours_vm"));
  EXPECT_TRUE(std::filesystem::exists(base + "0x10_vm"));
  EXPECT_TRUE(std::filesystem::exists(kept));
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 0");
}

TEST_F(VisibilityMapTable, VacuumOptionsOtherThanAnalyzeAreRefusedByName) {
  load();
  EXPECT_EQ(error_of(*s_, "VACUUM (VERBOSE) t"), "VACUUM option \"verbose\" is not supported");
  EXPECT_EQ(error_of(*s_, "VACUUM FULL t"), "VACUUM option \"full\" is not supported");
  EXPECT_EQ(error_of(*s_, "VACUUM (ANALYZE, FREEZE) t"),
            "VACUUM option \"freeze\" is not supported");
  EXPECT_EQ(error_of(*s_, "VACUUM t_a"), "\"t_a\" is an index; VACUUM takes tables");
  EXPECT_FALSE(std::filesystem::exists(vm_path()));
  EXPECT_EQ(s_->execute("VACUUM (ANALYZE) t").tag, "VACUUM");
  EXPECT_EQ(s_->execute("VACUUM ANALYZE t").tag, "VACUUM");
}

TEST_F(VisibilityMapTable, ADamagedMapIsAnErrorUntilVacuumReplacesIt) {
  load();
  s_->execute("VACUUM t");
  const std::string path = vm_path();
  s_.reset();
  {
    int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    const char junk = 0x5a;
    ASSERT_EQ(pwrite(fd, &junk, 1, 4000), 1);
    ::close(fd);
  }
  open();
  EXPECT_NE(error_of(*s_, "SELECT a FROM t WHERE a > 0")
                .find("is damaged: page 0 fails its "
                      "checksum"),
            std::string::npos);
  s_->execute("VACUUM t");
  EXPECT_EQ(heap_fetches(), "  Heap Fetches: 0");
}

}  // namespace
}  // namespace tp
