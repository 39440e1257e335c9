#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "btree_test_util.h"
#include "engine/btree/btree_build.h"
#include "engine/btree/mem_page_store.h"

namespace tp::btree {
namespace {

using testing::index_def;

// PostgreSQL's sorted build, worked out for one int4 key (16-byte items, 20
// bytes with line pointer, 8144 bytes free on a fresh page whose high key
// slot is reserved):
//   leaf: closed when free < 819 (fillfactor 90) -> 367 items, the last moves
//   right and becomes the high key: 366 keys per leaf, the rightmost takes 367;
//   internal: minus-infinity first item (12 bytes), closed when free < 2457
//   (fillfactor 70) -> 284 downlinks per page, the rightmost takes 285.
uint64_t pages_for_level(uint64_t items, uint64_t per_page, uint64_t rightmost_max) {
  if (items <= rightmost_max) return 1;
  return 1 + (items - rightmost_max + per_page - 1) / per_page;
}

struct Shape {
  uint64_t total_pages;
  uint32_t root_level;
  uint64_t leaf_pages;
};

Shape expected_shape(uint64_t keys) {
  Shape s{1, 0, 0};
  uint64_t pages = pages_for_level(keys, 366, 367);
  s.leaf_pages = pages;
  s.total_pages += pages;
  while (pages > 1) {
    pages = pages_for_level(pages, 284, 285);
    s.total_pages += pages;
    ++s.root_level;
  }
  return s;
}

// Row k of a synthetic heap lives at TID (k / 100 + 1, k % 100 + 1).
Tid tid_of(uint64_t k) {
  return Tid{BlockNumber(k / 100 + 1), OffsetNumber(k % 100 + 1)};
}

std::optional<KeyValues> key_of(Tid tid, uint64_t n) {
  if (tid.block == 0 || tid.offset == 0 || tid.offset > 100) return std::nullopt;
  uint64_t k = uint64_t(tid.block - 1) * 100 + (tid.offset - 1);
  if (k >= n) return std::nullopt;
  return KeyValues{int64_t(k) * 3 - 1000};
}

BuildStats build_shuffled(MemPageStore& store, const IndexDef& def, uint64_t n,
                          const BuildProgressFn& progress = {}) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(42));
  BTreeBuilder builder(store, def);
  builder.reserve(n);
  for (uint32_t k : order) builder.add({int64_t(k) * 3 - 1000}, tid_of(k));
  return builder.finish(progress);
}

TEST(BtreeBuild, OneMillionKeysMatchPostgresPageCount) {
  const uint64_t n = 1'000'000;
  Shape shape = expected_shape(n);
  ASSERT_EQ(shape.total_pages, 2745u);  // what PostgreSQL 15 builds
  ASSERT_EQ(expected_shape(10'000'000).total_pages, 27422u);

  MemPageStore store("t_a_idx");
  IndexDef def = index_def("t_a_idx", {KeyType::kInt4}, /*unique=*/true);
  std::vector<BuildProgress> progress;
  BuildStats stats =
      build_shuffled(store, def, n, [&](const BuildProgress& p) { progress.push_back(p); });
  EXPECT_EQ(stats.pages, shape.total_pages);
  EXPECT_EQ(store.nblocks(), shape.total_pages);
  EXPECT_EQ(stats.leaf_pages, shape.leaf_pages);
  EXPECT_EQ(stats.root_level, 2u);
  EXPECT_EQ(stats.tuples, n);

  ASSERT_GE(progress.size(), 3u);
  EXPECT_EQ(progress.front().phase, BuildProgress::Phase::kSorting);
  EXPECT_EQ(progress.back().phase, BuildProgress::Phase::kDone);
  EXPECT_EQ(progress.back().pages_written, 2745u);
  for (size_t i = 1; i + 1 < progress.size(); ++i) {
    EXPECT_EQ(progress[i].phase, BuildProgress::Phase::kLoading);
    EXPECT_GT(progress[i].tuples_done, progress[i - 1].tuples_done);
  }

  BTree tree = BTree::open(store, def);
  EXPECT_EQ(tree.meta().level, 2u);
  // A leaf in the middle: 366 keys plus its high key.
  std::vector<BlockNumber> leaves = testing::leaf_blocks(tree);
  ASSERT_EQ(leaves.size(), shape.leaf_pages);
  {
    PageGuard g = store.read(leaves[10], PageLock::kShared);
    EXPECT_EQ(page_max_offset(g.data()), 367);
    EXPECT_EQ(tuple_at(g.data(), kHighKeyOffset).size(), 12);  // truncated: no heap TID
  }

  ScanCounters counters;
  BTree fresh = BTree::open(store, def);  // has not seen the root yet
  EXPECT_EQ(fresh.lookup({3 * 777'777 - 1000}, &counters), tid_of(777'777));
  EXPECT_EQ(counters.index_pages_read, 4u);  // metapage, root, internal, leaf
  EXPECT_EQ(counters.leaf_pages_read, 1u);
  // The root is remembered: later descents skip the metapage, as in PostgreSQL.
  counters = {};
  uint64_t store_reads = store.reads();
  EXPECT_EQ(fresh.lookup({-1000}, &counters), tid_of(0));
  EXPECT_EQ(counters.index_pages_read, 3u);
  EXPECT_EQ(store.reads() - store_reads, 3u);
  fresh.forget_root();
  counters = {};
  fresh.lookup({-1000}, &counters);
  EXPECT_EQ(counters.index_pages_read, 4u);
  EXPECT_FALSE(tree.lookup({3 * 777'777 - 999}).has_value());

  VerifyReport report = verify_btree(store, def, [](Tid tid) { return key_of(tid, n); });
  EXPECT_TRUE(report.ok) << report.message;
  EXPECT_EQ(report.leaf_items_checked, n);
  EXPECT_EQ(report.pages_checked, 2745u);
}

TEST(BtreeBuild, PageCountsFollowTheClosedFormAtTheEdges) {
  IndexDef def = index_def("t_a_idx", {KeyType::kInt4});
  for (uint64_t n : {1u, 2u, 366u, 367u, 368u, 733u, 734u, 1100u, 104'000u, 105'000u}) {
    MemPageStore store("t_a_idx");
    BuildStats stats = build_shuffled(store, def, n);
    Shape shape = expected_shape(n);
    EXPECT_EQ(stats.pages, shape.total_pages) << n << " keys";
    EXPECT_EQ(stats.root_level, shape.root_level) << n << " keys";
    VerifyReport report = verify_btree(store, def, [n](Tid tid) { return key_of(tid, n); });
    EXPECT_TRUE(report.ok) << n << " keys: " << report.message;
    EXPECT_EQ(report.leaf_items_checked, n);
  }
}

TEST(BtreeBuild, EmptyBuildIsOnlyAMetapage) {
  MemPageStore store("e");
  IndexDef def = index_def("e", {KeyType::kInt4});
  BTreeBuilder builder(store, def);
  EXPECT_EQ(builder.state(), BuilderState::kCollecting);
  BuildStats stats = builder.finish();
  EXPECT_EQ(builder.state(), BuilderState::kFinished);
  EXPECT_EQ(stats.pages, 1u);
  BTree tree = BTree::open(store, def);
  EXPECT_EQ(tree.meta().root, kInvalidBlock);
  EXPECT_FALSE(tree.lookup({1}).has_value());
  EXPECT_TRUE(testing::scan_all(tree, {}).empty());
  EXPECT_TRUE(verify_btree(store, def).ok);
  tree.insert({5}, Tid{1, 1});  // the first insert creates the root leaf
  EXPECT_EQ(tree.lookup({5}), (Tid{1, 1}));
  EXPECT_TRUE(verify_btree(store, def).ok);
}

TEST(BtreeBuild, DuplicateKeysGetHeapTidSeparators) {
  // 3000 entries over 4 key values: leaf boundaries fall inside runs of equal
  // keys, so high keys must carry heap TIDs.
  MemPageStore store("dup");
  IndexDef def = index_def("dup", {KeyType::kInt8, KeyType::kInt4});
  testing::ModelHeap heap;
  std::vector<testing::Entry> entries;
  for (int i = 0; i < 3000; ++i) {
    Tid tid{BlockNumber(i / 50 + 1), OffsetNumber(i % 50 + 1)};
    KeyValues key{i % 2, (i % 4) / 2};
    heap.rows[tid] = key;
    entries.push_back({key, tid});
  }
  build_index(store, def, entries);
  BTree tree = BTree::open(store, def);
  bool saw_heap_tid_high_key = false;
  for (BlockNumber b : testing::leaf_blocks(tree)) {
    PageGuard g = store.read(b, PageLock::kShared);
    if (!bt_rightmost(g.data()) && tuple_at(g.data(), kHighKeyOffset).has_heap_tid())
      saw_heap_tid_high_key = true;
  }
  EXPECT_TRUE(saw_heap_tid_high_key);
  VerifyReport report = verify_btree(store, def, heap.fetch());
  EXPECT_TRUE(report.ok) << report.message;
  EXPECT_EQ(testing::scan_all(tree, {}), heap.sorted());
  auto ones = testing::scan_all(tree, {ColumnCondition::eq(0, 1), ColumnCondition::eq(1, 0)});
  EXPECT_EQ(ones.size(), 750u);
}

TEST(BtreeBuild, UniqueBuildWithDuplicatesFailsBeforeWriting) {
  MemPageStore store("t_a_idx");
  IndexDef def = index_def("t_a_idx", {KeyType::kInt4, KeyType::kInt4}, true);
  BTreeBuilder builder(store, def);
  builder.add({1, 2}, Tid{1, 1});
  builder.add({3, 4}, Tid{1, 2});
  builder.add({1, 2}, Tid{1, 3});
  try {
    builder.finish();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "could not create unique index \"t_a_idx\"");
    EXPECT_EQ(e.detail(), "Key (a, b)=(1, 2) is duplicated.");
  }
  EXPECT_EQ(store.nblocks(), 0u);
  EXPECT_EQ(builder.state(), BuilderState::kFailed);
  EXPECT_STREQ(builder_state_name(builder.state()), "failed");
}

TEST(BtreeBuild, RefusesANonEmptyRelation) {
  MemPageStore store("x");
  store.extend();
  EXPECT_THROW(BTreeBuilder(store, index_def("x", {KeyType::kInt4})), Error);
}

}  // namespace
}  // namespace tp::btree
