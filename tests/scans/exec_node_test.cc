// The executor's scan nodes read what they promise, counted by the buffer pool itself:
// a seq scan of N pages reads exactly N, a bitmap heap scan reads each page of its bitmap
// once in ascending block order (however the TIDs were added), and an index scan under
// LIMIT 1 with index_prefetch = on reads one heap page. The pool is emptied (or the heap
// dropped from it) first, so every page the node needs is a read, not a hit.
#include <gmock/gmock.h>

#include <algorithm>
#include <set>

#include "engine/core/heap_tuple.h"
#include "scans/bitmap_scan.h"
#include "scans/seq_scan.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using ::testing::HasSubstr;

// Rows of one int column, 1..rows in insertion (= block) order, in a table of its own.
class ScanNodeTest : public ::testing::Test {
 protected:
  void load(int rows) {
    s_.execute("CREATE TABLE t (a int, b int)");
    s_.execute("INSERT INTO t SELECT i, i FROM generate_series(1, " + std::to_string(rows) +
               ") s(i)");
  }
  const RelationEntry& table() { return *s_.catalog().find("t"); }
  bufmgr::BufferPool& pool() { return s_.storage().pool(); }
  aio::IoFile& heap() { return s_.storage().file(table()); }
  scans::TupleReader column_a() { return scans::TupleReader(table().columns, {0}); }
  uint64_t pool_reads() { return pool().counters_total().reads; }
  uint64_t pool_hits() { return pool().counters_total().hits; }

  // Every value of the node's only output column, in the order it returns them.
  static std::vector<int64_t> drain(scans::ExecNode& node) {
    std::vector<int64_t> out;
    node.open();
    while (const scans::RowBatch* b = node.next())
      for (uint32_t i = 0; i < b->count; ++i) out.push_back(b->row(i)[0]);
    return out;
  }

  testing::TempDir tmp_;
  Session s_{testing::options_for(tmp_.data())};
};

TEST_F(ScanNodeTest, SeqScanOfNPagesReadsExactlyNPages) {
  load(20000);
  const BlockNumber n = heap().size_blocks();
  ASSERT_GT(n, 50u);
  scans::SeqScanParams p;
  p.relation = "t";
  p.nblocks = n;
  p.output = column_a();
  scans::SeqScanNode scan(pool(), heap(), p);

  s_.storage().evict_all();
  const uint64_t reads = pool_reads(), hits = pool_hits();
  std::vector<int64_t> rows = drain(scan);
  EXPECT_EQ(rows.size(), 20000u);
  EXPECT_EQ(pool_reads() - reads, n);
  EXPECT_EQ(pool_hits() - hits, 0u);
  EXPECT_EQ(scan.instr.buffers.shared_read, n);  // what EXPLAIN BUFFERS would show
  EXPECT_EQ(scan.instr.buffers.shared_hit, 0u);

  // Again, now cached: the same N pages, every one a hit.
  const uint64_t reads2 = pool_reads(), hits2 = pool_hits();
  EXPECT_EQ(drain(scan).size(), 20000u);
  EXPECT_EQ(pool_reads() - reads2, 0u);
  EXPECT_EQ(pool_hits() - hits2, n);
}

// A fixed bitmap in place of a Bitmap Index Scan.
class FixedBitmap final : public scans::BitmapNode {
 public:
  explicit FixedBitmap(std::vector<Tid> tids) : tids_(std::move(tids)) {}
  std::unique_ptr<TidBitmap> build(int64_t budget_bytes) override {
    auto bm = std::make_unique<TidBitmap>(budget_bytes);
    for (Tid t : tids_) bm->add_tid(t);
    return bm;
  }
  std::unique_ptr<scans::BitmapNode> clone() const override {
    return std::make_unique<FixedBitmap>(tids_);
  }
  std::string explain_name() const override { return "Fixed Bitmap"; }
  void explain_details(std::vector<std::string>&, bool) const override {}

 private:
  std::vector<Tid> tids_;
};

// TIDs on every third block, added from the last block down, two tuples per block and
// each twice: the heap scan must still visit the blocks once each, ascending.
std::vector<Tid> shuffled_tids(BlockNumber nblocks, std::set<BlockNumber>& blocks) {
  std::vector<Tid> tids;
  for (BlockNumber b = nblocks - 1; b < nblocks; b = b >= 3 ? b - 3 : kInvalidBlock) {
    blocks.insert(b);
    for (int twice = 0; twice < 2; ++twice)
      for (OffsetNumber o : {OffsetNumber(7), OffsetNumber(2)}) tids.push_back({b, o});
  }
  return tids;
}

TEST_F(ScanNodeTest, BitmapHeapScanReadsEachPageOnceInAscendingBlockOrder) {
  load(20000);
  const BlockNumber n = heap().size_blocks();
  std::set<BlockNumber> blocks;
  std::vector<Tid> tids = shuffled_tids(n, blocks);
  scans::BitmapHeapScanParams p;
  p.relation = "t";
  p.output = column_a();
  scans::BitmapHeapScanNode scan(pool(), heap(), std::make_unique<FixedBitmap>(tids), p);

  s_.storage().evict_all();
  const uint64_t reads = pool_reads(), hits = pool_hits();
  std::vector<int64_t> rows = drain(scan);
  EXPECT_EQ(pool_reads() - reads, blocks.size());
  EXPECT_EQ(pool_hits() - hits, 0u);  // no page pinned twice
  EXPECT_EQ(scan.instr.buffers.shared_read, blocks.size());
  // a was inserted in block order, so ascending a is ascending blocks.
  ASSERT_EQ(rows.size(), 2 * blocks.size());
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end());
  std::vector<std::string> details;
  scan.explain_details(details, true);
  EXPECT_THAT(details, ::testing::Contains("Heap Blocks: exact=" + std::to_string(blocks.size())));
}

TEST_F(ScanNodeTest, LossyBitmapHeapScanStillReadsEachPageOnceInAscendingBlockOrder) {
  load(20000);
  const BlockNumber n = heap().size_blocks();
  std::set<BlockNumber> blocks;
  std::vector<Tid> tids = shuffled_tids(n, blocks);
  scans::BitmapHeapScanParams p;
  p.relation = "t";
  p.output = column_a();
  p.work_mem_bytes = 64;  // the smallest budget (16 entries): most pages go lossy
  scans::BitmapHeapScanNode scan(pool(), heap(), std::make_unique<FixedBitmap>(tids), p);
  ASSERT_GT(blocks.size(), 16u);

  s_.storage().evict_all();
  const uint64_t reads = pool_reads(), hits = pool_hits();
  std::vector<int64_t> rows = drain(scan);
  EXPECT_EQ(pool_reads() - reads, blocks.size());
  EXPECT_EQ(pool_hits() - hits, 0u);
  EXPECT_GT(rows.size(), 2 * blocks.size());  // lossy pages return every tuple
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  std::vector<std::string> details;
  scan.explain_details(details, true);
  bool lossy = false;
  for (const std::string& d : details) lossy = lossy || d.find("lossy=") != std::string::npos;
  EXPECT_TRUE(lossy);
}

// b is a permutation of a: in b's order the rows jump between heap blocks, so without a
// LIMIT the scan switches blocks often enough to start its prefetch stream.
TEST_F(ScanNodeTest, IndexScanLimitOneWithPrefetchReadsOneHeapPage) {
  s_.execute("CREATE TABLE t (a int, b int)");
  s_.execute("INSERT INTO t SELECT i, (i * 7919) % 20011 FROM generate_series(1, 20010) s(i)");
  s_.execute("CREATE INDEX t_b ON t (b)");
  for (const char* set : {"SET enable_seqscan = off", "SET enable_bitmapscan = off",
                          "SET enable_indexonlyscan = off", "SET index_prefetch = on"})
    s_.execute(set);
  const std::string limited = "SELECT a FROM t WHERE b > 0 LIMIT 1";
  std::string plan;
  for (const auto& row : s_.execute("EXPLAIN (ANALYZE, BUFFERS) " + limited).rows)
    plan += row[0] + "\n";
  ASSERT_THAT(plan, HasSubstr("Index Scan using t_b on t"));

  // The index stays cached (the planner probes its ends too); the heap is cold.
  pool().drop_relation(heap());
  uint64_t reads = pool_reads();
  EXPECT_EQ(s_.execute(limited).rows.size(), 1u);
  EXPECT_EQ(pool_reads() - reads, 1u);

  // Without the LIMIT the same scan reads every heap page, through the stream.
  pool().drop_relation(heap());
  reads = pool_reads();
  const std::string all = "SELECT count(a) FROM t WHERE b > 0";
  EXPECT_EQ(testing::scalar(s_, all), "20010");
  EXPECT_EQ(pool_reads() - reads, heap().size_blocks());
  plan.clear();
  for (const auto& row : s_.execute("EXPLAIN (ANALYZE, BUFFERS) " + all).rows)
    plan += row[0] + "\n";
  EXPECT_THAT(plan, HasSubstr("Prefetch:"));
}

}  // namespace
}  // namespace tp
