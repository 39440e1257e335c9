#include <gtest/gtest.h>

#include <random>

#include "btree_test_util.h"
#include "engine/btree/btree_build.h"
#include "engine/btree/mem_page_store.h"

namespace tp::btree {
namespace {

using testing::Entry;
using testing::index_def;
using testing::ModelHeap;

bool satisfies(const KeyValues& key, const std::vector<ColumnCondition>& conditions) {
  for (const ColumnCondition& c : conditions) {
    int64_t v = key[c.column];
    if (c.lower && (c.lower->inclusive ? v < c.lower->value : v <= c.lower->value)) return false;
    if (c.upper && (c.upper->inclusive ? v > c.upper->value : v >= c.upper->value)) return false;
  }
  return true;
}

std::vector<Entry> brute_force(const ModelHeap& heap, const std::vector<ColumnCondition>& c) {
  std::vector<Entry> out;
  for (const Entry& e : heap.sorted())
    if (satisfies(e.first, c)) out.push_back(e);
  return out;
}

std::string describe(const std::vector<ColumnCondition>& conditions) {
  std::string s;
  for (const ColumnCondition& c : conditions) {
    s += "col" + std::to_string(c.column);
    if (c.lower) s += (c.lower->inclusive ? ">=" : ">") + std::to_string(c.lower->value);
    if (c.upper) s += (c.upper->inclusive ? "<=" : "<") + std::to_string(c.upper->value);
    s += " ";
  }
  return s;
}

// (a int4, b int4): a, b in [0, 40), each pair twice (different TIDs): 3,200
// items over ~9 leaves, built by inserts so pages are partly full.
class BtreeScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tree_.emplace(BTree::create(store_, def_));
    std::mt19937_64 rng(3);
    std::vector<Entry> entries;
    uint32_t block = 1;
    for (int rep = 0; rep < 2; ++rep)
      for (int a = 0; a < 40; ++a)
        for (int b = 0; b < 40; ++b) entries.push_back({KeyValues{a, b}, Tid{block++, 1}});
    std::shuffle(entries.begin(), entries.end(), rng);
    for (const Entry& e : entries) {
      tree_->insert(e.first, e.second);
      heap_.rows[e.second] = e.first;
    }
    ASSERT_GE(testing::leaf_blocks(*tree_).size(), 8u);
  }

  void expect_scan(const std::vector<ColumnCondition>& conditions) {
    std::vector<Entry> expected = brute_force(heap_, conditions);
    std::vector<Entry> got = testing::scan_all(*tree_, conditions);
    ASSERT_EQ(got.size(), expected.size()) << describe(conditions);
    ASSERT_TRUE(got == expected) << describe(conditions);
    got = testing::scan_all(*tree_, conditions, nullptr, nullptr, ScanDirection::kBackward);
    ASSERT_EQ(got.size(), expected.size()) << "backward " << describe(conditions);
    ASSERT_TRUE(testing::backward_matches(got, expected)) << "backward " << describe(conditions);
  }

  MemPageStore store_{"t_ab_idx"};
  IndexDef def_ = index_def("t_ab_idx", {KeyType::kInt4, KeyType::kInt4});
  std::optional<BTree> tree_;
  ModelHeap heap_;
};

TEST_F(BtreeScanTest, EveryBoundCombinationOnTheLeadingColumn) {
  const int64_t values[] = {-5, 0, 1, 17, 38, 39, 40};
  std::vector<std::optional<Bound>> bounds = {std::nullopt};
  for (int64_t v : values) {
    bounds.push_back(Bound{v, true});
    bounds.push_back(Bound{v, false});
  }
  int scans = 0;
  for (const auto& lower : bounds)
    for (const auto& upper : bounds) {
      expect_scan({ColumnCondition{0, lower, upper}});
      ++scans;
    }
  EXPECT_EQ(scans, 225);
}

TEST_F(BtreeScanTest, EqualityPrefixWithEveryBoundOnTheSecondColumn) {
  std::vector<std::optional<Bound>> bounds = {std::nullopt};
  for (int64_t v : {-1, 0, 12, 39, 40}) {
    bounds.push_back(Bound{v, true});
    bounds.push_back(Bound{v, false});
  }
  for (int64_t a : {0, 13, 39, 41})
    for (const auto& lower : bounds)
      for (const auto& upper : bounds)
        expect_scan({ColumnCondition::eq(0, a), ColumnCondition{1, lower, upper}});
}

TEST_F(BtreeScanTest, RandomMultiColumnRanges) {
  std::mt19937_64 rng(17);
  auto random_bound = [&]() -> std::optional<Bound> {
    if (rng() % 3 == 0) return std::nullopt;
    return Bound{int64_t(rng() % 44) - 2, rng() % 2 == 0};
  };
  for (int i = 0; i < 400; ++i) {
    std::vector<ColumnCondition> conditions;
    for (int col = 0; col < 2; ++col)
      if (rng() % 4 != 0)
        conditions.push_back(ColumnCondition{col, random_bound(), random_bound()});
    if (rng() % 5 == 0) conditions.push_back(ColumnCondition{0, random_bound(), random_bound()});
    expect_scan(conditions);
  }
}

TEST_F(BtreeScanTest, FullScanFiltersOnTheSecondColumn) {
  std::vector<ColumnCondition> conditions = {ColumnCondition::between(1, 8, 9)};
  IndexScan scan(*tree_, conditions);
  EXPECT_TRUE(scan.full_index_scan());
  ScanCounters counters;
  std::vector<Entry> got = testing::scan_all(*tree_, conditions, &counters);
  EXPECT_EQ(got.size(), 40u * 2 * 2);
  for (const Entry& e : got) EXPECT_TRUE(e.first[1] == 8 || e.first[1] == 9);
  // It had to read every leaf.
  EXPECT_EQ(counters.leaf_pages_read, testing::leaf_blocks(*tree_).size());
  EXPECT_EQ(counters.items_returned, got.size());
}

TEST_F(BtreeScanTest, RangeScanReadsOnlyTheLeavesItNeeds) {
  // a = 20: 80 items, on one or two leaves; the descent starts at the
  // remembered root, so no metapage read.
  ScanCounters counters;
  size_t batches = 0;
  std::vector<Entry> got =
      testing::scan_all(*tree_, {ColumnCondition::eq(0, 20)}, &counters, &batches);
  EXPECT_EQ(got.size(), 80u);
  EXPECT_EQ(batches, counters.leaf_pages_read);
  EXPECT_LE(counters.leaf_pages_read, 2u);
  EXPECT_EQ(counters.index_pages_read, 1 + counters.leaf_pages_read);  // root (cached) + leaves
}

TEST_F(BtreeScanTest, BatchesFollowTheLeafChain) {
  IndexScan scan(*tree_, {ColumnCondition::ge(0, 0)});
  IndexBatch batch;
  std::vector<BlockNumber> leaves = testing::leaf_blocks(*tree_);
  size_t i = 0, items = 0;
  while (scan.next_batch(batch)) {
    ASSERT_LT(i, leaves.size());
    EXPECT_EQ(batch.leaf_block, leaves[i++]);
    items += batch.size();
  }
  EXPECT_EQ(i, leaves.size());
  EXPECT_EQ(items, 3200u);
  EXPECT_FALSE(scan.next_batch(batch));
  EXPECT_TRUE(batch.empty());
  scan.rescan({ColumnCondition::eq(0, 39), ColumnCondition::eq(1, 39)});
  EXPECT_EQ(scan.state(), ScanState::kInitial);
  ASSERT_TRUE(scan.next_batch(batch));
  EXPECT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch.key(0), (KeyValues{39, 39}));
  EXPECT_FALSE(scan.next_batch(batch));
  EXPECT_STREQ(scan_state_name(scan.state()), "done");
}

TEST_F(BtreeScanTest, BackwardBatchesWalkTheLeafChainRightToLeft) {
  IndexScan scan(*tree_, {}, ScanDirection::kBackward);
  EXPECT_EQ(scan.direction(), ScanDirection::kBackward);
  IndexBatch batch;
  std::vector<BlockNumber> leaves = testing::leaf_blocks(*tree_);
  std::reverse(leaves.begin(), leaves.end());
  size_t i = 0;
  int64_t previous_a = INT64_MAX;
  while (scan.next_batch(batch)) {
    ASSERT_LT(i, leaves.size());
    EXPECT_EQ(batch.leaf_block, leaves[i++]);
    for (size_t j = 0; j < batch.size(); ++j) {
      EXPECT_LE(batch.key(j)[0], previous_a);
      previous_a = batch.key(j)[0];
    }
  }
  EXPECT_EQ(i, leaves.size());
  // a < 3 backward stops at the leftmost leaf; a > 36 reads only the last leaves.
  ScanCounters counters;
  auto got = testing::scan_all(*tree_, {ColumnCondition::gt(0, 36)}, &counters, nullptr,
                               ScanDirection::kBackward);
  EXPECT_EQ(got.size(), 3u * 40 * 2);
  EXPECT_LE(counters.leaf_pages_read, 2u);
}

TEST_F(BtreeScanTest, ConditionOnAMissingColumnIsRefused) {
  try {
    IndexScan scan(*tree_, {ColumnCondition::eq(2, 1)});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "index \"t_ab_idx\" has no key column 3 (it has 2)");
  }
}

TEST(BtreeScan, MajorMinorBetweenOnABuiltIndex) {
  // The effective_io_concurrency article's shape: (major, minor), minor
  // BETWEEN 800 AND 900 with no condition on major.
  MemPageStore store("t_major_minor_idx");
  IndexDef def = index_def("t_major_minor_idx", {KeyType::kInt4, KeyType::kInt4});
  std::vector<Entry> entries;
  for (int major = 0; major < 20; ++major)
    for (int minor = 0; minor < 1000; ++minor)
      entries.push_back({KeyValues{major, minor}, Tid{uint32_t(major * 1000 + minor + 1), 1}});
  build_index(store, def, entries);
  BTree tree = BTree::open(store, def);
  std::vector<Entry> got = testing::scan_all(tree, {ColumnCondition::between(1, 800, 900)});
  ASSERT_EQ(got.size(), 20u * 101);
  EXPECT_EQ(got.front().first, (KeyValues{0, 800}));
  EXPECT_EQ(got.back().first, (KeyValues{19, 900}));
  std::vector<Entry> one_major =
      testing::scan_all(tree, {ColumnCondition::eq(0, 7), ColumnCondition::between(1, 800, 900)});
  ASSERT_EQ(one_major.size(), 101u);
  EXPECT_EQ(one_major.front().second, (Tid{7801, 1}));
}

TEST(BtreeScan, BackwardScanStepsAroundALeftNeighbourThatSplitBetweenBatches) {
  MemPageStore store("t");
  IndexDef def = index_def("t", {KeyType::kInt4});
  BTree tree = BTree::create(store, def);
  for (int i = 0; i < 3000; ++i) tree.insert({10 * i}, Tid{uint32_t(i + 1), 1});
  IndexScan scan(tree, {}, ScanDirection::kBackward);
  IndexBatch batch;
  ASSERT_TRUE(scan.next_batch(batch));  // the rightmost leaf
  const int64_t lowest_seen = batch.key(batch.size() - 1)[0];
  // No pin is held: split the leaves to the left by filling their key gaps.
  int added = 0;
  for (int64_t k = lowest_seen - 5; k > lowest_seen - 10 * 900; k -= 10, ++added)
    tree.insert({k}, Tid{uint32_t(100'000 + added), 1});
  std::vector<int64_t> rest;
  while (scan.next_batch(batch))
    for (size_t i = 0; i < batch.size(); ++i) rest.push_back(batch.key(i)[0]);
  // Every key below the first batch, old and new, exactly once, descending.
  std::vector<int64_t> expected;
  for (int64_t k = lowest_seen - 5; k >= 0; k -= 5)
    if (k % 10 == 0 || k > lowest_seen - 10 * 900) expected.push_back(k);
  EXPECT_EQ(rest.size(), expected.size());
  EXPECT_TRUE(rest == expected);
  EXPECT_GT(added, 800);
}

TEST(BtreeScan, Int8KeysUseTheirFullRange) {
  MemPageStore store("big");
  IndexDef def = index_def("big", {KeyType::kInt8});
  BTree tree = BTree::create(store, def);
  const int64_t values[] = {INT64_MIN, -(int64_t(1) << 40), -1, 0, int64_t(1) << 40, INT64_MAX};
  uint32_t block = 1;
  for (int64_t v : values) tree.insert({v}, Tid{block++, 1});
  auto got =
      testing::scan_all(tree, {ColumnCondition::gt(0, -1), ColumnCondition::lt(0, INT64_MAX)});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].first, KeyValues{int64_t(1) << 40});
  EXPECT_EQ(tree.lookup({INT64_MIN}), (Tid{1, 1}));
}

}  // namespace
}  // namespace tp::btree
