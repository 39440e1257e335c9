// Leaf read-ahead (engine/btree/leaf_readahead.h): a scan that reads its leaves through a
// stream fed from the parent level returns exactly what it returns without one, in the
// same order, in both directions, with bounds and across rescans; it starts the stream
// only after kLeafStreamStartSteps sibling steps; and a streamed block that is not the
// leaf the links name ends read-ahead without changing a single item.
#include <gtest/gtest.h>

#include <random>

#include "btree_test_util.h"
#include "engine/btree/btree_build.h"
#include "engine/btree/mem_page_store.h"

namespace tp::btree {
namespace {

using testing::Entry;
using testing::index_def;

// The items one scan returns, and what it did.
struct ScanResult {
  std::vector<Entry> items;
  ScanCounters counters;
  LeafReadaheadStats readahead;
};

ScanResult run(const BTree& tree, std::vector<ColumnCondition> conditions, ScanDirection dir,
               bool readahead) {
  IndexScan scan(tree, std::move(conditions), dir, readahead);
  IndexBatch batch;
  ScanResult r;
  while (scan.next_batch(batch))
    for (size_t i = 0; i < batch.size(); ++i) r.items.push_back({batch.key(i), batch.tids[i]});
  r.counters = scan.counters();
  r.readahead = scan.leaf_readahead_stats();
  return r;
}

bool same(const std::vector<Entry>& a, const std::vector<Entry>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i].first == b[i].first) || !(a[i].second == b[i].second)) return false;
  return true;
}

// (a int4, b int4), a in [0, 600), b in [0, 200): 120,000 items built sorted, about 400
// leaves under two level-1 pages, so a full scan moves from one parent to the next.
class LeafReadaheadTest : public ::testing::Test {
 protected:
  static constexpr int kA = 600, kB = 200;
  void SetUp() override {
    BTreeBuilder builder(store_, def_);
    uint32_t block = 1;
    for (int a = 0; a < kA; ++a)
      for (int b = 0; b < kB; ++b) builder.add(KeyValues{a, b}, Tid{block++, 1});
    builder.finish();
    tree_.emplace(BTree::open(store_, def_));
    ASSERT_GE(testing::leaf_blocks(*tree_).size(), 300u);
    ASSERT_GE(tree_->meta().level, 2u) << "the test needs two level-1 pages";
  }
  // Same items in the same order with and without read-ahead; returns the run with it.
  ScanResult check(std::vector<ColumnCondition> c, ScanDirection dir) {
    ScanResult off = run(*tree_, c, dir, false);
    ScanResult on = run(*tree_, c, dir, true);
    EXPECT_TRUE(same(off.items, on.items)) << off.items.size() << " vs " << on.items.size();
    EXPECT_EQ(off.counters.leaf_pages_read, on.counters.leaf_pages_read);
    EXPECT_EQ(off.counters.items_returned, on.counters.items_returned);
    EXPECT_EQ(off.readahead.streams, 0u);
    EXPECT_EQ(on.readahead.mismatches, 0u);
    return on;
  }

  IndexDef def_ = index_def("t_ab", {KeyType::kInt4, KeyType::kInt4});
  MemPageStore store_{"t_ab"};
  std::optional<BTree> tree_;
};

TEST_F(LeafReadaheadTest, FullScanStreamsEveryLeafAfterTheFirstSteps) {
  for (ScanDirection dir : {ScanDirection::kForward, ScanDirection::kBackward}) {
    const uint64_t streamed = store_.stream_reads();
    ScanResult on = check({}, dir);
    EXPECT_EQ(on.items.size(), size_t(kA * kB));
    EXPECT_EQ(on.readahead.streams, 1u);
    // The descent's leaf and kLeafStreamStartSteps steps are read directly, the rest
    // through the stream.
    EXPECT_EQ(store_.stream_reads() - streamed,
              on.counters.leaf_pages_read - 1 - kLeafStreamStartSteps);
    EXPECT_EQ(on.readahead.io.blocks_returned, store_.stream_reads() - streamed);
  }
}

TEST_F(LeafReadaheadTest, BoundedScansReturnTheSameItems) {
  const std::vector<std::vector<ColumnCondition>> cases = {
      {ColumnCondition::ge(0, 100)},
      {ColumnCondition::between(0, 50, 400)},
      {ColumnCondition::gt(0, 10), ColumnCondition::lt(0, 500)},
      {ColumnCondition::between(1, 80, 90)},  // a filter over the whole leaf level
      {ColumnCondition::between(0, 250, 260), ColumnCondition::eq(1, 7)},
      {ColumnCondition::le(0, 333)},
  };
  for (const auto& c : cases)
    for (ScanDirection dir : {ScanDirection::kForward, ScanDirection::kBackward}) {
      SCOPED_TRACE(int(dir));
      ScanResult on = check(c, dir);
      EXPECT_EQ(on.readahead.streams, 1u);
    }
}

TEST_F(LeafReadaheadTest, StreamStopsAtTheUpperBound) {
  // a in [100, 120]: ~14 leaves. The source cuts the parent's downlinks at the bound, so
  // the stream never asks for a leaf past it (a pool stream would read it ahead).
  std::vector<BlockNumber> yielded;
  IndexScan scan(*tree_, {ColumnCondition::between(0, 100, 120)}, ScanDirection::kForward, true);
  IndexBatch batch;
  std::vector<BlockNumber> leaves;
  while (scan.next_batch(batch)) leaves.push_back(batch.leaf_block);
  // The source alone, from the same parent and first leaf, yields exactly the leaves left.
  BlockNumber parent = kInvalidBlock;
  Probe lower{KeyValues{100}};
  tree_->descend(lower, PageLock::kShared, nullptr, nullptr, &parent);
  Probe upper{KeyValues{120}, Tid{}, false, /*after=*/true};
  LeafSource source(*tree_, ScanDirection::kForward, parent, leaves[3], upper, nullptr);
  for (BlockNumber b = source.next(); b != kInvalidBlock; b = source.next()) yielded.push_back(b);
  EXPECT_EQ(yielded, std::vector<BlockNumber>(leaves.begin() + 3, leaves.end()));
}

TEST_F(LeafReadaheadTest, ShortScansNeverStartAStream) {
  // A point lookup and a range within two leaves: no stream, no parent read.
  for (auto c :
       {std::vector<ColumnCondition>{ColumnCondition::eq(0, 300), ColumnCondition::eq(1, 5)},
        std::vector<ColumnCondition>{ColumnCondition::between(0, 300, 302)}}) {
    const uint64_t before_off = store_.reads();
    ScanResult off = run(*tree_, c, ScanDirection::kForward, false);
    const uint64_t reads_off = store_.reads() - before_off;
    const uint64_t before_on = store_.reads();
    ScanResult on = run(*tree_, c, ScanDirection::kForward, true);
    EXPECT_TRUE(same(off.items, on.items));
    EXPECT_EQ(on.readahead.streams, 0u);
    EXPECT_EQ(store_.reads() - before_on, reads_off);
  }
}

TEST_F(LeafReadaheadTest, RescanStartsOverWithTheSameItems) {
  IndexScan scan(*tree_, {ColumnCondition::between(0, 10, 200)}, ScanDirection::kForward, true);
  IndexBatch batch;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(scan.next_batch(batch));  // stream running
  for (auto c : {std::vector<ColumnCondition>{ColumnCondition::between(0, 400, 550)},
                 std::vector<ColumnCondition>{}}) {
    scan.rescan(c);
    std::vector<Entry> got;
    while (scan.next_batch(batch))
      for (size_t i = 0; i < batch.size(); ++i) got.push_back({batch.key(i), batch.tids[i]});
    EXPECT_TRUE(same(got, run(*tree_, c, ScanDirection::kForward, false).items));
  }
  EXPECT_EQ(scan.leaf_readahead_stats().streams, 3u);
}

// A store whose streams yield a wrong leaf once, in place of the `nth` block.
class WrongBlockStore : public MemPageStore {
 public:
  using MemPageStore::MemPageStore;
  std::unique_ptr<BlockStream> open_stream(BlockSource source) override {
    return MemPageStore::open_stream([this, source = std::move(source), yielded = 0]() mutable {
      BlockNumber b = source();
      if (b != kInvalidBlock && ++yielded == nth) return wrong;
      return b;
    });
  }
  int nth = 5;
  BlockNumber wrong = kInvalidBlock;
};

TEST(LeafReadahead, AStreamedBlockThatIsNotTheNextLeafEndsReadAhead) {
  IndexDef def = index_def("t_a", {KeyType::kInt4});
  WrongBlockStore store("t_a");
  BTreeBuilder builder(store, def);
  for (int a = 0; a < 40000; ++a) builder.add(KeyValues{a}, Tid{uint32_t(a + 1), 1});
  builder.finish();
  BTree tree = BTree::open(store, def);
  std::vector<BlockNumber> leaves = testing::leaf_blocks(tree);
  ASSERT_GT(leaves.size(), 50u);
  store.wrong = leaves[40];  // a real leaf, just not the next one
  for (ScanDirection dir : {ScanDirection::kForward, ScanDirection::kBackward}) {
    ScanResult off = run(tree, {}, dir, false);
    ScanResult on = run(tree, {}, dir, true);
    EXPECT_EQ(on.items.size(), 40000u);
    EXPECT_TRUE(same(off.items, on.items));
    EXPECT_EQ(on.readahead.streams, 1u);
    EXPECT_EQ(on.readahead.mismatches, 1u);
    EXPECT_EQ(on.counters.leaf_pages_read, off.counters.leaf_pages_read);
  }
}

TEST(LeafReadahead, SplitsAheadOfTheStreamLoseNoItem) {
  // Insert-built tree; while a forward scan with read-ahead runs, inserts split leaves
  // the stream's copy of the parent already lists. Every item that existed when the scan
  // started comes back once, in order.
  IndexDef def = index_def("t_a", {KeyType::kInt4});
  MemPageStore store("t_a");
  BTree tree = BTree::create(store, def);
  std::vector<Entry> original;
  for (int a = 0; a < 20000; a += 2) {
    tree.insert(KeyValues{a}, Tid{uint32_t(a + 1), 1});
    original.push_back({KeyValues{a}, Tid{uint32_t(a + 1), 1}});
  }
  IndexScan scan(tree, {}, ScanDirection::kForward, true);
  IndexBatch batch;
  std::vector<Entry> got;
  int batches = 0;
  while (scan.next_batch(batch)) {
    for (size_t i = 0; i < batch.size(); ++i) got.push_back({batch.key(i), batch.tids[i]});
    if (++batches == 6)  // the stream runs: fill the odd keys further right
      for (int a = 9001; a < 15000; a += 2) tree.insert(KeyValues{a}, Tid{uint32_t(a + 1), 1});
  }
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), testing::entry_less));
  EXPECT_EQ(std::adjacent_find(got.begin(), got.end(),
                               [](const Entry& x, const Entry& y) {
                                 return x.first == y.first && x.second == y.second;
                               }),
            got.end());
  size_t found = 0;
  for (const Entry& e : got)
    if (found < original.size() && e.first == original[found].first) ++found;
  EXPECT_EQ(found, original.size());
  EXPECT_EQ(got.size(), original.size() + 3000);  // the new items are right of the scan
  EXPECT_EQ(scan.leaf_readahead_stats().streams, 1u);
  EXPECT_GE(scan.leaf_readahead_stats().mismatches, 1u);
}

}  // namespace
}  // namespace tp::btree
