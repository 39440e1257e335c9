// B-tree deduplication (posting lists): sorted builds whose page counts are
// PostgreSQL 15's, the insert path's deduplication pass and posting list
// splits, removal from a list, and what the verifier catches.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "btree_test_util.h"
#include "engine/btree/btree_build.h"
#include "engine/btree/btree_dedup.h"
#include "engine/btree/mem_page_store.h"

namespace tp::btree {
namespace {

using testing::Entry;
using testing::index_def;
using testing::ModelHeap;

// Heap row i (from 1) of a synthetic table at 226 tuples per page, the layout of
// a one-int4-column PostgreSQL table (the page counts do not depend on it).
Tid row_tid(uint64_t i) {
  return Tid{BlockNumber((i - 1) / 226), OffsetNumber((i - 1) % 226 + 1)};
}

struct Built {
  BuildStats stats;
  ModelHeap heap;
};

Built build_rows(MemPageStore& store, const IndexDef& def, uint64_t rows,
                 const std::function<KeyValues(uint64_t)>& key) {
  Built b;
  BTreeBuilder builder(store, def);
  for (uint64_t i = 1; i <= rows; ++i) {
    builder.add(key(i), row_tid(i));
    b.heap.rows[row_tid(i)] = key(i);
  }
  b.stats = builder.finish();
  return b;
}

// Leaf items of the whole leaf level: (posting lists, plain items, largest list's TIDs).
struct LeafCensus {
  uint64_t postings = 0, plain = 0;
  int max_tids = 0;
};

LeafCensus census(const BTree& tree) {
  LeafCensus c;
  for (BlockNumber block : testing::leaf_blocks(tree)) {
    PageGuard g = tree.store().read(block, PageLock::kShared);
    for (OffsetNumber off = bt_first_data(g.data()); off <= page_max_offset(g.data()); ++off) {
      TupleView t = tuple_at(g.data(), off);
      if (t.is_posting()) {
        ++c.postings;
        c.max_tids = std::max(c.max_tids, t.posting_count());
      } else {
        ++c.plain;
      }
    }
  }
  return c;
}

void expect_contents(const BTree& tree, const ModelHeap& heap, const std::string& where) {
  std::vector<Entry> expected = heap.sorted();
  std::vector<Entry> got = testing::scan_all(tree, {});
  ASSERT_TRUE(got == expected) << where << ": " << got.size() << " entries, expected "
                               << expected.size() << "\n got " << testing::describe(got);
  std::vector<Entry> backward =
      testing::scan_all(tree, {}, nullptr, nullptr, ScanDirection::kBackward);
  ASSERT_TRUE(testing::backward_matches(backward, expected)) << where << ": backward scan";
  VerifyReport report = verify_btree(tree.store(), tree.def(), heap.fetch());
  ASSERT_TRUE(report.ok) << where << ": " << report.message;
  ASSERT_EQ(report.leaf_items_checked, expected.size()) << where;
}

// Page counts PostgreSQL 15.18 gives for CREATE INDEX over `INSERT ... SELECT
// expr FROM generate_series(1, rows) s(i)` (pg_relation_size / 8192).
TEST(BtreeDedup, SortedBuildPageCountsArePostgresOnes) {
  struct Case {
    const char* what;
    std::vector<KeyType> types;
    uint64_t rows;
    std::function<KeyValues(uint64_t)> key;
    bool deduplicate;
    BlockNumber pages;
  };
  auto i64 = [](uint64_t i) { return int64_t(i); };
  const std::vector<Case> cases = {
      {"i % 10",
       {KeyType::kInt4},
       100000,
       [&](uint64_t i) { return KeyValues{i64(i % 10)}; },
       true,
       87},
      {"i / 3",
       {KeyType::kInt4},
       100000,
       [&](uint64_t i) { return KeyValues{i64(i / 3)}; },
       true,
       202},
      {"i / 2",
       {KeyType::kInt4},
       100000,
       [&](uint64_t i) { return KeyValues{i64(i / 2)}; },
       true,
       249},
      {"i / 133",
       {KeyType::kInt4},
       100000,
       [&](uint64_t i) { return KeyValues{i64(i / 133)}; },
       true,
       86},
      {"i / 150",
       {KeyType::kInt4},
       100000,
       [&](uint64_t i) { return KeyValues{i64(i / 150)}; },
       true,
       86},
      {"i % 100",
       {KeyType::kInt4},
       20000,
       [&](uint64_t i) { return KeyValues{i64(i % 100)}; },
       true,
       19},
      {"(i % 10, i % 3)",
       {KeyType::kInt4, KeyType::kInt4},
       100000,
       [&](uint64_t i) {
         return KeyValues{i64(i % 10), i64(i % 3)};
       },
       true,
       89},
      {"int8 i % 1000",
       {KeyType::kInt8},
       30000,
       [&](uint64_t i) { return KeyValues{i64(i % 1000)}; },
       true,
       30},
      {"i % 7, 1 M rows",
       {KeyType::kInt4},
       1000000,
       [&](uint64_t i) { return KeyValues{i64(i % 7)}; },
       true,
       850},
      {"i % 10, deduplicate_items = off",
       {KeyType::kInt4},
       100000,
       [&](uint64_t i) { return KeyValues{i64(i % 10)}; },
       false,
       278},
  };
  for (const Case& c : cases) {
    MemPageStore store("i");
    IndexDef def = index_def("i", c.types);
    def.deduplicate = c.deduplicate;
    Built b = build_rows(store, def, c.rows, c.key);
    EXPECT_EQ(b.stats.pages, c.pages) << c.what;
    BTree tree = BTree::open(store, def);
    EXPECT_EQ(tree.deduplicates(), c.deduplicate) << c.what;
    if (c.rows <= 100000) expect_contents(tree, b.heap, c.what);
  }
}

TEST(BtreeDedup, ABuildCapsPostingListsAtATenthOfAPage) {
  MemPageStore store("i");
  Built b = build_rows(store, index_def("i", {KeyType::kInt4}), 100000,
                       [](uint64_t i) { return KeyValues{int64_t(i % 10)}; });
  BTree tree = BTree::open(store, index_def("i", {KeyType::kInt4}));
  LeafCensus c = census(tree);
  // maxalign(12 + 6 n) <= 812: 132 TIDs; 10,000 per key -> 75 full lists and a
  // 100-TID rest for each of the 10 keys.
  EXPECT_EQ(c.max_tids, 132);
  EXPECT_EQ(c.postings, 760u);
  EXPECT_EQ(c.plain, 0u);
}

TEST(BtreeDedup, UniqueAndDeduplicationOffIndexesHoldNoPostingLists) {
  MemPageStore unique_store("u");
  IndexDef unique = index_def("u", {KeyType::kInt4}, /*unique=*/true);
  build_rows(unique_store, unique, 5000, [](uint64_t i) { return KeyValues{int64_t(i)}; });
  BTree ut = BTree::open(unique_store, unique);
  EXPECT_FALSE(ut.deduplicates());
  EXPECT_EQ(census(ut).postings, 0u);

  MemPageStore off_store("o");
  IndexDef off = index_def("o", {KeyType::kInt4});
  off.deduplicate = false;
  BTree ot = BTree::create(off_store, off);
  for (uint64_t i = 1; i <= 5000; ++i) ot.insert({int64_t(i % 3)}, row_tid(i));
  EXPECT_EQ(census(ot).postings, 0u);
}

// Retail inserts in random TID order over a handful of keys: the deduplication
// pass runs on full pages, and TIDs landing inside a list's range split it.
TEST(BtreeDedup, RandomInsertsAndRemovalsThroughPostingLists) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    MemPageStore store("i"), plain_store("p");
    IndexDef def = index_def("i", {KeyType::kInt4, KeyType::kInt4});
    IndexDef plain_def = def;
    plain_def.deduplicate = false;
    BTree tree = BTree::create(store, def);
    BTree plain = BTree::create(plain_store, plain_def);
    ModelHeap heap;
    std::vector<Tid> order;
    for (uint64_t i = 1; i <= 12000; ++i) order.push_back(row_tid(i));
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<Tid> live;
    for (size_t op = 0; op < order.size(); ++op) {
      KeyValues key{int64_t(rng() % 4), int64_t(rng() % 3)};
      tree.insert(key, order[op]);
      plain.insert(key, order[op]);
      heap.rows[order[op]] = key;
      live.push_back(order[op]);
      if (op % 5 == 4) {  // a removal every fifth insert, from a list or a plain item
        size_t victim = rng() % live.size();
        Tid tid = live[victim];
        ASSERT_TRUE(tree.remove(heap.rows[tid], tid)) << format_tid(tid);
        ASSERT_FALSE(tree.remove(heap.rows[tid], tid)) << "removed twice";
        heap.rows.erase(tid);
        live[victim] = live.back();
        live.pop_back();
      }
      if (op % 3000 == 2999) expect_contents(tree, heap, "seed " + std::to_string(seed));
    }
    expect_contents(tree, heap, "seed " + std::to_string(seed) + " end");
    LeafCensus c = census(tree);
    EXPECT_GT(c.postings, 0u);
    EXPECT_LT(store.nblocks() * 2, plain_store.nblocks()) << "seed " << seed;
    // Every entry can still be found, and an exact duplicate is refused.
    Tid some = live[rng() % live.size()];
    EXPECT_THROW(tree.insert(heap.rows[some], some), Error);
  }
}

// One value inserted row after row: each full page is deduplicated into lists of at
// most 1,352 bytes (222 int4 TIDs), and the single value strategy leaves the
// page's last items unmerged.
TEST(BtreeDedup, ADeduplicationPassCapsListsAtHalfTheItemLimit) {
  MemPageStore store("i");
  IndexDef def = index_def("i", {KeyType::kInt4});
  BTree tree = BTree::create(store, def);
  ModelHeap heap;
  for (uint64_t i = 1; i <= 20000; ++i) {
    tree.insert({42}, row_tid(i));
    heap.rows[row_tid(i)] = KeyValues{42};
  }
  expect_contents(tree, heap, "one value");
  LeafCensus c = census(tree);
  EXPECT_EQ(c.max_tids, 222);
  EXPECT_GT(c.plain, 0u);
  // PostgreSQL 15 gives 18 pages for the same 20,000 inserts (without
  // deduplication: 56 leaves of 366 items and more).
  EXPECT_EQ(store.nblocks(), 18u);
}

TEST(BtreeDedup, ATidInsideAListsRangeSplitsTheList) {
  MemPageStore store("i");
  IndexDef def = index_def("i", {KeyType::kInt4});
  ModelHeap heap;
  std::vector<std::pair<KeyValues, Tid>> entries;
  for (OffsetNumber o = 2; o <= 40; o = OffsetNumber(o + 2)) {
    entries.push_back({KeyValues{7}, Tid{3, o}});
    heap.rows[Tid{3, o}] = KeyValues{7};
  }
  build_index(store, def, entries);
  BTree tree = BTree::open(store, def);
  ASSERT_EQ(census(tree).postings, 1u);
  tree.insert({7}, Tid{3, 5});  // between (3,4) and (3,6)
  heap.rows[Tid{3, 5}] = KeyValues{7};
  expect_contents(tree, heap, "after the posting split");
  LeafCensus c = census(tree);
  EXPECT_EQ(c.postings, 1u);
  EXPECT_EQ(c.plain, 1u);  // (3,40) moved out of the list into a plain item after it
  EXPECT_THROW(tree.insert({7}, Tid{3, 6}), Error);  // already in the list
  EXPECT_TRUE(tree.remove({7}, Tid{3, 6}));
  EXPECT_FALSE(tree.remove({7}, Tid{3, 7}));  // inside the range, not in the list
  heap.rows.erase(Tid{3, 6});
  expect_contents(tree, heap, "after removing from the list");
  EXPECT_EQ(tree.lookup({7}), (Tid{3, 2}));
}

TEST(BtreeDedup, AMetapageWithoutTheFlagGoesOnWithoutDeduplication) {
  MemPageStore store("i");
  IndexDef def = index_def("i", {KeyType::kInt4});
  {
    BTree tree = BTree::create(store, def);
    ASSERT_TRUE(tree.deduplicates());
  }
  // An index written before deduplication existed has zeroes there.
  bt_meta(store.raw_page(kMetaBlock))->deduplicate = 0;
  BTree tree = BTree::open(store, def);
  EXPECT_FALSE(tree.deduplicates());
  ModelHeap heap;
  for (uint64_t i = 1; i <= 3000; ++i) {
    tree.insert({int64_t(i % 2)}, row_tid(i));
    heap.rows[row_tid(i)] = KeyValues{int64_t(i % 2)};
  }
  EXPECT_EQ(census(tree).postings, 0u);
  expect_contents(tree, heap, "old metapage");
}

TEST(BtreeDedup, TheVerifierChecksPostingLists) {
  auto build = [](MemPageStore& store) {
    build_rows(store, index_def("i", {KeyType::kInt4}), 2000,
               [](uint64_t i) { return KeyValues{int64_t(i % 4)}; });
  };
  auto first_posting = [](MemPageStore& store) -> char* {
    char* page = store.raw_page(1);
    return page_item(page, bt_first_data(page));
  };
  const IndexDef def = index_def("i", {KeyType::kInt4});
  {
    MemPageStore store("i");
    build(store);
    char* t = first_posting(store);
    ASSERT_TRUE(TupleView{t}.is_posting());
    // Swap the first two TIDs.
    char tmp[6];
    std::memcpy(tmp, t + 16, 6);
    std::memcpy(t + 16, t + 22, 6);
    std::memcpy(t + 22, tmp, 6);
    VerifyReport r = verify_btree(store, def);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("block 1 offset 2: posting list TID (0,4) is not after the "
                             "previous TID (0,8)"),
              std::string::npos)
        << r.message;
  }
  {
    MemPageStore store("i");
    build(store);
    char* t = first_posting(store);
    store_u16(t + 4, uint16_t(load_u16(t + 4) + 1));  // one TID more than the size allows
    VerifyReport r = verify_btree(store, def);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("has the wrong size"), std::string::npos) << r.message;
  }
  {
    MemPageStore store("i");
    build(store);
    bt_meta(store.raw_page(kMetaBlock))->deduplicate = 0;
    VerifyReport r = verify_btree(store, def);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("a posting list in an index that does not deduplicate"),
              std::string::npos)
        << r.message;
  }
}

}  // namespace
}  // namespace tp::btree
