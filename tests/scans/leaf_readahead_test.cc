// Leaf read-ahead through the buffer pool (engine/storage/pool_page_store.cc): the leaves
// a long B-tree scan reads after its first steps come from a read stream, counted by the
// pool itself; the stream reads no leaf the scan would not have read; and the setting
// index_leaf_readahead turns it on and off for index, index-only and bitmap index scans
// without changing a row or the plan text EXPLAIN prints without ANALYZE.
#include <gmock/gmock.h>

#include "engine/btree/btree_scan.h"
#include "engine/storage/index_build.h"
#include "engine/storage/pool_page_store.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using ::testing::HasSubstr;

std::string plan_of(Session& s, const std::string& sql) {
  std::string plan;
  for (const auto& row : s.execute(sql).rows) plan += row[0] + "\n";
  return plan;
}

class LeafReadaheadPool : public ::testing::Test {
 protected:
  void SetUp() override {
    s_.execute("CREATE TABLE t (major int, minor int)");
    s_.execute("INSERT INTO t SELECT i, (i * 7919) % 1000 FROM generate_series(1, 60000) s(i)");
    s_.execute("CREATE INDEX t_mm ON t (major, minor)");
  }
  const RelationEntry& table() { return *s_.catalog().find("t"); }
  const RelationEntry& index() { return *s_.catalog().find("t_mm"); }
  bufmgr::BufferPool& pool() { return s_.storage().pool(); }

  struct Run {
    uint64_t pool_reads = 0;
    uint64_t items = 0;
    btree::ScanCounters counters;
    btree::LeafReadaheadStats readahead;
  };
  // One B-tree scan over the pool, cold, counting the pool's reads.
  Run scan(std::vector<btree::ColumnCondition> c, bool readahead,
           btree::ScanDirection dir = btree::ScanDirection::kForward) {
    s_.storage().evict_all();
    PoolPageStore store(pool(), s_.storage().file(index()), nullptr, 0);
    btree::BTree tree = btree::BTree::open(store, index_def(table(), index()));
    const uint64_t before = pool().counters_total().reads;
    btree::IndexScan sc(tree, std::move(c), dir, readahead);
    btree::IndexBatch batch;
    Run r;
    while (sc.next_batch(batch)) r.items += batch.size();
    r.pool_reads = pool().counters_total().reads - before;
    r.counters = sc.counters();
    r.readahead = sc.leaf_readahead_stats();
    return r;
  }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(LeafReadaheadPool, ColdFullScanReadsLeavesThroughTheStreamAndNothingMore) {
  for (auto dir : {btree::ScanDirection::kForward, btree::ScanDirection::kBackward}) {
    Run off = scan({}, false, dir);
    Run on = scan({}, true, dir);
    EXPECT_EQ(on.items, 60000u);
    EXPECT_EQ(on.items, off.items);
    ASSERT_GT(on.counters.leaf_pages_read, 100u);
    EXPECT_EQ(on.readahead.streams, 1u);
    EXPECT_EQ(on.readahead.mismatches, 0u);
    // Every leaf after the descent's and the first steps was read by the stream.
    const uint64_t streamed = on.counters.leaf_pages_read - 1 - btree::kLeafStreamStartSteps;
    EXPECT_EQ(on.readahead.io.blocks_returned, streamed);
    EXPECT_EQ(on.readahead.io.io_blocks, streamed);
    // A sorted build lays leaves out left to right: forward, adjacent ones combine.
    if (dir == btree::ScanDirection::kForward) {
      EXPECT_LT(on.readahead.io.ios, streamed / 4);
    }
    // The parent pages the source reads were read by the descent or are few.
    EXPECT_LE(on.pool_reads, off.pool_reads + 2);
    EXPECT_GE(on.pool_reads, off.pool_reads);
  }
}

TEST_F(LeafReadaheadPool, BoundedScanReadsNoLeafPastTheBound) {
  using btree::ColumnCondition;
  for (auto c : {std::vector<ColumnCondition>{ColumnCondition::between(0, 10000, 30000)},
                 std::vector<ColumnCondition>{ColumnCondition::between(0, 20000, 21000)}}) {
    Run off = scan(c, false);
    Run on = scan(c, true);
    EXPECT_EQ(on.items, off.items);
    EXPECT_EQ(on.readahead.streams, 1u);
    EXPECT_EQ(on.pool_reads, off.pool_reads);
  }
  Run point = scan({ColumnCondition::eq(0, 777)}, true);
  EXPECT_EQ(point.readahead.streams, 0u);
}

TEST_F(LeafReadaheadPool, SettingSwitchesIndexAndBitmapIndexScans) {
  const std::string ios = "SELECT count(*) FROM t WHERE minor BETWEEN 100 AND 200";
  const std::string bitmap = "SELECT count(major) FROM t WHERE major > 0 AND minor = 5";
  // One query plans as an index-only scan, the other as a bitmap scan, under both values.
  const std::vector<std::string> ios_plan = {
      "SET enable_seqscan = off", "SET enable_bitmapscan = off", "SET enable_indexscan = on",
      "SET enable_indexonlyscan = on"};
  const std::vector<std::string> bitmap_plan = {
      "SET enable_bitmapscan = on", "SET enable_indexscan = off", "SET enable_indexonlyscan = off"};
  std::string plans[2], rows[2];
  for (int on = 1; on >= 0; --on) {
    SCOPED_TRACE(on);
    s_.execute(std::string("SET index_leaf_readahead = ") + (on ? "on" : "off"));
    for (const std::string& set : ios_plan) s_.execute(set);
    plans[on] = plan_of(s_, "EXPLAIN " + ios);
    s_.storage().evict_all();
    const std::string a = plan_of(s_, "EXPLAIN (ANALYZE, BUFFERS) " + ios);
    EXPECT_THAT(a, HasSubstr("Index Only Scan using t_mm on t"));
    EXPECT_EQ(a.find("Leaf Read-ahead: ios=") != std::string::npos, on == 1) << a;
    rows[on] = testing::scalar(s_, ios);
    for (const std::string& set : bitmap_plan) s_.execute(set);
    plans[on] += plan_of(s_, "EXPLAIN " + bitmap);
    s_.storage().evict_all();
    const std::string b = plan_of(s_, "EXPLAIN (ANALYZE, BUFFERS) " + bitmap);
    EXPECT_THAT(b, HasSubstr("Bitmap Index Scan on t_mm"));
    EXPECT_EQ(b.find("Leaf Read-ahead: ios=") != std::string::npos, on == 1) << b;
    rows[on] += " " + testing::scalar(s_, bitmap);
  }
  EXPECT_EQ(plans[0], plans[1]);  // EXPLAIN without ANALYZE does not change
  EXPECT_EQ(rows[0], rows[1]);
  EXPECT_EQ(rows[1], "6060 60");
}

}  // namespace
}  // namespace tp
