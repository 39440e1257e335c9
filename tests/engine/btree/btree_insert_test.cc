#include <gtest/gtest.h>

#include <map>
#include <random>

#include "btree_test_util.h"
#include "engine/btree/mem_page_store.h"

namespace tp::btree {
namespace {

using testing::Entry;
using testing::index_def;
using testing::ModelHeap;

// The schemas the property test runs on. The wide one has 8 int8 columns
// whose leading 7 rarely differ, so separators keep every column (72 bytes)
// and the tree grows levels after a few thousand inserts.
struct Schema {
  const char* name;
  std::vector<KeyType> types;
  int64_t domain;  // values of the last column drawn from [0, domain)
};

KeyValues random_key(const Schema& s, std::mt19937_64& rng) {
  KeyValues key;
  for (size_t i = 0; i + 1 < s.types.size(); ++i) key.push(int64_t(rng() % 2));
  key.push(int64_t(rng() % uint64_t(s.domain)) - s.domain / 2);
  return key;
}

bool satisfies(const KeyValues& key, const std::vector<ColumnCondition>& conditions) {
  for (const ColumnCondition& c : conditions) {
    int64_t v = key[c.column];
    if (c.lower && (c.lower->inclusive ? v < c.lower->value : v <= c.lower->value)) return false;
    if (c.upper && (c.upper->inclusive ? v > c.upper->value : v >= c.upper->value)) return false;
  }
  return true;
}

// Random ranges on the first and last columns, compared with the model.
void check_range_scans(const BTree& tree, const ModelHeap& heap, const Schema& schema,
                       std::mt19937_64& rng, const std::string& where) {
  const std::vector<Entry> all = heap.sorted();
  const int last = int(schema.types.size()) - 1;
  for (int i = 0; i < 6; ++i) {
    auto bound = [&](int col) -> std::optional<Bound> {
      if (rng() % 3 == 0) return std::nullopt;
      int64_t span = col == last ? schema.domain : 2;
      return Bound{int64_t(rng() % uint64_t(span + 2)) - 1 - (col == last ? span / 2 : 0),
                   rng() % 2 == 0};
    };
    std::vector<ColumnCondition> conditions = {ColumnCondition{0, bound(0), bound(0)}};
    if (last > 0) conditions.push_back(ColumnCondition{last, bound(last), bound(last)});
    std::vector<Entry> expected;
    for (const Entry& e : all)
      if (satisfies(e.first, conditions)) expected.push_back(e);
    std::vector<Entry> got = testing::scan_all(tree, conditions);
    ASSERT_TRUE(got == expected) << where << ": range scan " << i << " returned " << got.size()
                                 << " items, expected " << expected.size();
  }
}

void check_contents(const BTree& tree, const ModelHeap& heap, const std::string& where) {
  std::vector<Entry> expected = heap.sorted();
  std::vector<Entry> got = testing::scan_all(tree, {});
  ASSERT_EQ(got.size(), expected.size()) << where;
  ASSERT_TRUE(got == expected) << where << "\n got " << testing::describe(got) << "\n expected "
                               << testing::describe(expected);
  VerifyReport report = verify_btree(tree.store(), tree.def(), heap.fetch());
  ASSERT_TRUE(report.ok) << where << ": " << report.message;
  ASSERT_EQ(report.leaf_items_checked, expected.size()) << where;
}

TEST(BtreeInsert, RandomInsertsAndDeletesMatchAMultimapOverManySeeds) {
  const std::vector<Schema> schemas = {
      {"int4", {KeyType::kInt4}, 400},
      {"int8_int4", {KeyType::kInt8, KeyType::kInt4}, 50},
      {"wide", std::vector<KeyType>(8, KeyType::kInt8), 1'000'000},
  };
  for (const Schema& schema : schemas) {
    for (uint64_t seed = 1; seed <= 12; ++seed) {
      std::mt19937_64 rng(seed * 7919 + schema.types.size());
      MemPageStore store(schema.name);
      IndexDef def = index_def(schema.name, schema.types);
      BTree tree = BTree::create(store, def);
      ModelHeap heap;
      std::vector<Tid> live;
      BlockNumber next_block = 1;
      const int ops = 2500;
      for (int op = 0; op < ops; ++op) {
        if (live.empty() || rng() % 100 < 75) {
          Tid tid{next_block++, OffsetNumber(rng() % 200 + 1)};
          KeyValues key = random_key(schema, rng);
          tree.insert(key, tid);
          heap.rows[tid] = key;
          live.push_back(tid);
        } else {
          size_t victim = rng() % live.size();
          Tid tid = live[victim];
          ASSERT_TRUE(tree.remove(heap.rows[tid], tid));
          ASSERT_FALSE(tree.remove(heap.rows[tid], tid)) << "removed twice";
          heap.rows.erase(tid);
          live[victim] = live.back();
          live.pop_back();
        }
        if (op % 500 == 499) {
          std::string where = std::string(schema.name) + " seed " + std::to_string(seed) + " op " +
                              std::to_string(op);
          check_contents(tree, heap, where);
          check_range_scans(tree, heap, schema, rng, where);
        }
      }
      // Point lookups agree with the model for present and absent keys.
      for (int i = 0; i < 50; ++i) {
        KeyValues key = random_key(schema, rng);
        bool present = false;
        for (const auto& [tid, k] : heap.rows) present |= k == key;
        std::optional<Tid> found = tree.lookup(key);
        ASSERT_EQ(found.has_value(), present) << format_key(key);
        if (found) {
          ASSERT_TRUE(heap.rows.count(*found) == 1 && heap.rows[*found] == key);
        }
      }
      if (schema.types.size() == 8) {
        EXPECT_GE(tree.meta().level, 1u) << "seed " << seed;
      }
    }
  }
}

TEST(BtreeInsert, SplitsAtEveryLevelGrowTheRootTwice) {
  // Wide keys equal in their leading columns: ~107 items per leaf and ~107
  // downlinks per internal page, so 25k inserts reach root level 2.
  MemPageStore store("deep");
  IndexDef def = index_def("deep", std::vector<KeyType>(8, KeyType::kInt8));
  BTree tree = BTree::create(store, def);
  ModelHeap heap;
  std::mt19937_64 rng(5);
  std::vector<uint32_t> levels_seen;
  for (uint32_t i = 0; i < 25'000; ++i) {
    KeyValues key{7, 7, 7, 7, 7, 7, 7, int64_t(rng() % 1'000'000'000)};
    Tid tid{i / 100 + 1, OffsetNumber(i % 100 + 1)};
    tree.insert(key, tid);
    heap.rows[tid] = key;
    uint32_t level = tree.meta().level;
    if (levels_seen.empty() || levels_seen.back() != level) {
      levels_seen.push_back(level);
      VerifyReport report = verify_btree(store, def, heap.fetch());
      ASSERT_TRUE(report.ok) << "after growing to level " << level << ": " << report.message;
    }
  }
  EXPECT_EQ(levels_seen, (std::vector<uint32_t>{0, 1, 2}));
  check_contents(tree, heap, "deep");
}

TEST(BtreeInsert, Int4IndexReachesHeightThreeByInserts) {
  MemPageStore store("t_a_idx");
  IndexDef def = index_def("t_a_idx", {KeyType::kInt4}, true);
  BTree tree = BTree::create(store, def);
  std::mt19937_64 rng(11);
  const uint32_t n = 200'000;
  std::vector<uint32_t> keys(n);
  for (uint32_t i = 0; i < n; ++i) keys[i] = i;
  std::shuffle(keys.begin(), keys.end(), rng);
  for (uint32_t k : keys) tree.insert({int64_t(k)}, Tid{k / 100 + 1, OffsetNumber(k % 100 + 1)});
  EXPECT_EQ(tree.meta().level, 2u);
  VerifyReport report = verify_btree(store, def, [](Tid t) -> std::optional<KeyValues> {
    uint64_t k = uint64_t(t.block - 1) * 100 + t.offset - 1;
    if (k >= n) return std::nullopt;
    return KeyValues{int64_t(k)};
  });
  EXPECT_TRUE(report.ok) << report.message;
  // Random inserts split pages 50:50: leaves end up about 70% full.
  size_t leaves = testing::leaf_blocks(tree).size();
  EXPECT_GT(leaves, n / 320);
  EXPECT_LT(leaves, n / 230);
}

TEST(BtreeInsert, AscendingInsertsLeaveLeftPagesNinetyPercentFull) {
  MemPageStore store("asc");
  IndexDef def = index_def("asc", {KeyType::kInt4});
  BTree tree = BTree::create(store, def);
  const uint32_t n = 60'000;
  for (uint32_t k = 0; k < n; ++k)
    tree.insert({int64_t(k)}, Tid{k / 100 + 1, OffsetNumber(k % 100 + 1)});
  std::vector<BlockNumber> leaves = testing::leaf_blocks(tree);
  for (size_t i = 0; i + 1 < leaves.size(); ++i) {
    PageGuard g = store.read(leaves[i], PageLock::kShared);
    // 407 items fill a page; the rightmost-split leaves ~10% free.
    EXPECT_GE(page_max_offset(g.data()), 355) << "leaf " << i;
    EXPECT_LE(page_max_offset(g.data()), 375) << "leaf " << i;
  }
  EXPECT_TRUE(verify_btree(store, def).ok);
}

TEST(BtreeInsert, UniqueViolationLeavesTheIndexUnchanged) {
  MemPageStore store("t_ab_idx");
  IndexDef def = index_def("t_ab_idx", {KeyType::kInt4, KeyType::kInt8}, true);
  BTree tree = BTree::create(store, def);
  for (int i = 0; i < 3000; ++i) tree.insert({i % 100, i}, Tid{uint32_t(i + 1), 1});
  std::vector<std::string> before;
  for (BlockNumber b = 0; b < store.nblocks(); ++b)
    before.emplace_back(store.raw_page(b), kBlockSize);
  try {
    tree.insert({42, 1742}, Tid{9999, 1});
    FAIL() << "duplicate accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "duplicate key value violates unique constraint \"t_ab_idx\"");
    EXPECT_EQ(e.detail(), "Key (a, b)=(42, 1742) already exists.");
  }
  ASSERT_EQ(store.nblocks(), before.size());
  for (BlockNumber b = 0; b < store.nblocks(); ++b)
    EXPECT_EQ(std::string(store.raw_page(b), kBlockSize), before[b]) << "block " << b;
  // Equal in one column only is not a duplicate.
  tree.insert({42, 1743}, Tid{9999, 1});
  EXPECT_EQ(tree.lookup({42, 1743}), (Tid{9999, 1}));
  // After removal the key may come back.
  ASSERT_TRUE(tree.remove({42, 1742}, Tid{1743, 1}));
  tree.insert({42, 1742}, Tid{9998, 2});
  EXPECT_EQ(tree.lookup({42, 1742}), (Tid{9998, 2}));
}

TEST(BtreeInsert, BadInputsAreRefusedWithClearErrors) {
  MemPageStore store("t_a_idx");
  IndexDef def = index_def("t_a_idx", {KeyType::kInt4});
  BTree tree = BTree::create(store, def);
  EXPECT_THROW(tree.insert({int64_t(3) << 33}, Tid{1, 1}), Error);
  EXPECT_THROW(tree.insert({1, 2}, Tid{1, 1}), Error);
  EXPECT_THROW(tree.insert({1}, Tid{}), Error);
  tree.insert({1}, Tid{1, 1});
  try {
    tree.insert({1}, Tid{1, 1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "index \"t_a_idx\" already contains key (1) with TID (1,1)");
  }
  EXPECT_FALSE(tree.remove({2}, Tid{1, 1}));
  EXPECT_FALSE(tree.remove({1}, Tid{1, 2}));
  EXPECT_THROW(BTree::open(store, index_def("t_a_idx", {KeyType::kInt8})), Error);
  EXPECT_THROW(BTree::create(store, def), Error);
}

TEST(BtreeInsert, AStaleRememberedRootStillFindsEverything) {
  MemPageStore store("t");
  IndexDef def = index_def("t", {KeyType::kInt4});
  BTree writer = BTree::create(store, def);
  for (int k = 0; k < 300; ++k) writer.insert({k}, Tid{uint32_t(k + 1), 1});
  BTree reader = BTree::open(store, def);
  ASSERT_EQ(reader.lookup({1}), (Tid{2, 1}));  // reader now remembers a leaf root
  ASSERT_EQ(reader.meta().level, 0u);
  for (int k = 300; k < 200'000; ++k) writer.insert({k}, Tid{uint32_t(k + 1), 1});
  ASSERT_EQ(writer.meta().level, 2u);  // the root split twice since
  for (int k : {0, 299, 300, 77'777, 199'999})
    EXPECT_EQ(reader.lookup({k}), (Tid{uint32_t(k + 1), 1})) << k;
  EXPECT_EQ(testing::scan_all(reader, {ColumnCondition::ge(0, 199'990)}).size(), 10u);
  // Ascending inserts split the rightmost internal page too (70/30).
  VerifyReport report = verify_btree(store, def);
  EXPECT_TRUE(report.ok) << report.message;
}

TEST(BtreeInsert, AWriterWithAStaleRootStillSplitsCorrectly) {
  // Writers take turns (the caller serialises them) through two BTree
  // objects; the first remembers a root that the second has since outgrown.
  MemPageStore store("t");
  IndexDef def = index_def("t", {KeyType::kInt4});
  BTree first = BTree::create(store, def);
  for (int k = 0; k < 300; ++k) first.insert({k * 2}, Tid{uint32_t(k + 1), 1});
  BTree second = BTree::open(store, def);
  for (int k = 300; k < 150'000; ++k) second.insert({k * 2}, Tid{uint32_t(k + 1), 1});
  ASSERT_EQ(second.meta().level, 2u);
  // Odd keys everywhere: splits at leaves and internal pages through `first`.
  for (int k = 0; k < 150'000; k += 2) first.insert({k * 2 + 1}, Tid{uint32_t(k + 1), 2});
  EXPECT_EQ(first.meta().level, 2u);
  VerifyReport report = verify_btree(store, def);
  EXPECT_TRUE(report.ok) << report.message;
  EXPECT_EQ(report.leaf_items_checked, 225'000u);
}

TEST(BtreeInsert, ARightLinkCycleIsAnErrorNotAHang) {
  MemPageStore store("t");
  IndexDef def = index_def("t", {KeyType::kInt4, KeyType::kInt4});
  BTree tree = BTree::create(store, def);
  for (int k = 0; k < 3000; ++k) tree.insert({k, 0}, Tid{uint32_t(k + 1), 1});
  std::vector<BlockNumber> leaves = testing::leaf_blocks(tree);
  ASSERT_GE(leaves.size(), 4u);
  bt_special(store.raw_page(leaves[3]))->next = leaves[1];
  // A filter no item passes walks the chain inside one next_batch() call...
  EXPECT_THROW(testing::scan_all(tree, {ColumnCondition::eq(1, 99)}), Error);
  // ...and a full scan returns batches forever unless stopped.
  try {
    testing::scan_all(tree, {});
    FAIL() << "the cycle was not noticed";
  } catch (const Error& e) {
    // The walk notices somewhere on the cycle; it names the block it was at.
    EXPECT_EQ(std::string(e.what()).rfind("index \"t\" contains a corrupted page at block ", 0), 0u)
        << e.what();
    EXPECT_EQ(e.detail(), "Its leaf right links form a cycle.");
  }
  EXPECT_FALSE(verify_btree(store, def).ok);
}

TEST(BtreeInsert, EmptiedPagesStayLinkedAndScansSkipThem) {
  MemPageStore store("t");
  IndexDef def = index_def("t", {KeyType::kInt4});
  BTree tree = BTree::create(store, def);
  for (int k = 0; k < 5000; ++k) tree.insert({k}, Tid{uint32_t(k + 1), 1});
  for (int k = 1000; k < 4000; ++k) ASSERT_TRUE(tree.remove({k}, Tid{uint32_t(k + 1), 1}));
  ScanCounters counters;
  auto got = testing::scan_all(tree, {ColumnCondition::ge(0, 900)}, &counters);
  ASSERT_EQ(got.size(), 1100u);
  EXPECT_EQ(got[100].first, KeyValues{4000});
  EXPECT_EQ(tree.lookup({999}), (Tid{1000, 1}));
  EXPECT_EQ(tree.lookup({1500}), std::nullopt);
  EXPECT_EQ(tree.lookup({4000}), (Tid{4001, 1}));
  EXPECT_TRUE(verify_btree(store, def).ok);
}

}  // namespace
}  // namespace tp::btree
