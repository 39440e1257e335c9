#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "btree_test_util.h"
#include "engine/btree/btree_build.h"
#include "engine/btree/mem_page_store.h"
#include "tests/engine/btree/file_page_store.h"

namespace tp::btree {
namespace {

using testing::index_def;

constexpr uint32_t kKeys = 20'000;

// Row k: TID (k / 100 + 1, k % 100 + 1), indexed value 2k.
Tid tid_of(uint32_t k) {
  return Tid{k / 100 + 1, OffsetNumber(k % 100 + 1)};
}
std::optional<KeyValues> heap_fetch(Tid tid) {
  if (tid.offset == 0 || tid.offset > 100 || tid.block == 0) return std::nullopt;
  uint64_t k = uint64_t(tid.block - 1) * 100 + tid.offset - 1;
  if (k >= kKeys) return std::nullopt;
  return KeyValues{int64_t(2 * k)};
}

void build(PageStore& store, const IndexDef& def) {
  BTreeBuilder builder(store, def);
  for (uint32_t k = 0; k < kKeys; ++k) builder.add({int64_t(2 * k)}, tid_of(k));
  builder.finish();
}

int64_t key_at(const char* page, OffsetNumber off) {
  int32_t v;
  std::memcpy(&v, page_item(page, off) + 8, 4);
  return v;
}
void set_key(char* page, OffsetNumber off, int32_t v) {
  std::memcpy(page_item(page, off) + 8, &v, 4);
}

class BtreeVerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    build(store_, def_);
    tree_.emplace(BTree::open(store_, def_));
    leaves_ = testing::leaf_blocks(*tree_);
    ASSERT_GT(leaves_.size(), 20u);
    ASSERT_EQ(tree_->meta().level, 1u);
    VerifyReport intact = verify();
    ASSERT_TRUE(intact.ok) << intact.message;
  }
  VerifyReport verify() { return verify_btree(store_, def_, heap_fetch); }
  std::string prefix(BlockNumber block) {
    return "index \"t_a_idx\" block " + std::to_string(block);
  }

  MemPageStore store_{"t_a_idx"};
  IndexDef def_ = index_def("t_a_idx", {KeyType::kInt4}, true);
  std::optional<BTree> tree_;
  std::vector<BlockNumber> leaves_;
};

TEST_F(BtreeVerifyTest, SwappedKeys) {
  BlockNumber b = leaves_[5];
  char* page = store_.raw_page(b);
  int64_t k3 = key_at(page, 3), k4 = key_at(page, 4);
  std::swap(*page_item_id(page, 3), *page_item_id(page, 4));
  VerifyReport r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.block, b);
  EXPECT_EQ(r.offset, 4);
  EXPECT_EQ(r.message, prefix(b) + " offset 4: key (" + std::to_string(k3) +
                           ") is less than previous key (" + std::to_string(k4) + ")");
}

TEST_F(BtreeVerifyTest, WrongHighKey) {
  BlockNumber b = leaves_[7];
  char* page = store_.raw_page(b);
  int64_t old_high = key_at(page, kHighKeyOffset);
  int64_t item_10 = key_at(page, 10);
  set_key(page, kHighKeyOffset, int32_t(item_10));
  VerifyReport r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, prefix(b) + " offset 1: high key (" + std::to_string(item_10) +
                           ") differs from the parent's separator (" + std::to_string(old_high) +
                           ")");
}

TEST_F(BtreeVerifyTest, HighKeyBelowItsItemsWithAMatchingParent) {
  // Change the separator in the parent too: now the page's own items break it.
  BlockNumber b = leaves_[7];
  char* page = store_.raw_page(b);
  int64_t item_10 = key_at(page, 10);
  set_key(page, kHighKeyOffset, int32_t(item_10));
  MetaInfo meta = tree_->meta();
  char* root = store_.raw_page(meta.root);
  for (OffsetNumber off = 2; off <= page_max_offset(root); ++off)
    if (tuple_at(root, off).downlink() == leaves_[8]) set_key(root, off, int32_t(item_10));
  VerifyReport r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, prefix(b) + " offset 10: key (" + std::to_string(item_10) +
                           ") is not less than the page's high key (" + std::to_string(item_10) +
                           ")");
}

TEST_F(BtreeVerifyTest, BrokenRightLink) {
  BlockNumber b = leaves_[5];
  bt_special(store_.raw_page(b))->next = leaves_[7];
  VerifyReport r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, prefix(b) + ": right link points to block " + std::to_string(leaves_[7]) +
                           ", expected " + std::to_string(leaves_[6]) +
                           " (the parent's next downlink)");
}

TEST_F(BtreeVerifyTest, BrokenLeftLink) {
  BlockNumber b = leaves_[6];
  bt_special(store_.raw_page(b))->prev = leaves_[2];
  VerifyReport r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.block, b);
  EXPECT_NE(r.message.find("left link points to block " + std::to_string(leaves_[2])),
            std::string::npos)
      << r.message;
}

TEST_F(BtreeVerifyTest, BadMetapageRoot) {
  BtMeta* meta = bt_meta(store_.raw_page(kMetaBlock));
  BlockNumber real_root = meta->root;
  meta->root = meta->fast_root = leaves_[3];
  VerifyReport r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, prefix(leaves_[3]) + ": the page is at level 0, expected level 1");

  meta->root = meta->fast_root = 99'999;
  r = verify();
  EXPECT_EQ(r.message, prefix(0) + ": the metapage's root block 99999 is outside the index (" +
                           std::to_string(store_.nblocks()) + " blocks)");

  meta->root = real_root;  // fast root left pointing elsewhere
  r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.block, kMetaBlock);
  EXPECT_NE(r.message.find("fast root"), std::string::npos);
}

TEST_F(BtreeVerifyTest, TidPointingNowhere) {
  BlockNumber b = leaves_[3];
  char* page = store_.raw_page(b);
  store_tid(page_item(page, 7), Tid{999'999, 1});
  VerifyReport r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, prefix(b) + " offset 7: TID (999999,1) points to no live heap tuple");
  // Without the heap cross-check the structure itself is fine.
  EXPECT_TRUE(verify_btree(store_, def_).ok);
}

TEST_F(BtreeVerifyTest, KeyDifferentFromTheHeap) {
  VerifyReport r = verify_btree(store_, def_, [](Tid tid) -> std::optional<KeyValues> {
    std::optional<KeyValues> row = heap_fetch(tid);
    if (tid == Tid{50, 50}) row = KeyValues{-7};
    return row;
  });
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("key (9898) does not match heap tuple (50,50), whose indexed columns "
                           "are (-7)"),
            std::string::npos)
      << r.message;
}

TEST_F(BtreeVerifyTest, DuplicateInUniqueIndex) {
  BlockNumber b = leaves_[4];
  char* page = store_.raw_page(b);
  set_key(page, 3, int32_t(key_at(page, 2)));
  VerifyReport r = verify();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, prefix(b) + " offset 3: duplicate key (" + std::to_string(key_at(page, 2)) +
                           ") in a unique index");
}

TEST_F(BtreeVerifyTest, CorruptLinePointerIsCaughtBeforeReadingThroughIt) {
  BlockNumber b = leaves_[9];
  page_item_id(store_.raw_page(b), 20)->off = 8190;
  VerifyReport r = verify();
  EXPECT_EQ(r.message, prefix(b) + " offset 20: the line pointer is corrupt");
}

TEST(BtreeVerify, FlippedKeyByteOnDiskIsACorruptBlock) {
  std::string path = "/tmp/tidepool_btree_verify_" + std::to_string(::getpid()) + ".idx";
  std::remove(path.c_str());
  IndexDef def = index_def("t_a_idx", {KeyType::kInt4}, true);
  BlockNumber victim;
  uint32_t byte_in_page;
  {
    FilePageStore store("t_a_idx", path);
    build(store, def);
    victim = testing::leaf_blocks(BTree::open(store, def))[10];
    PageGuard g = store.read(victim, PageLock::kShared);
    byte_in_page = page_item_id(g.data(), 30)->off + 8;  // the key of item 30
  }                                                      // flushed, with checksums
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    std::streamoff at = std::streamoff(victim) * kBlockSize + byte_in_page;
    f.seekg(at);
    char c;
    f.read(&c, 1);
    c ^= 0x40;
    f.seekp(at);
    f.write(&c, 1);
  }
  FilePageStore store("t_a_idx", path);
  VerifyReport r = verify_btree(store, def, heap_fetch);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.block, victim);
  EXPECT_EQ(r.message, "index \"t_a_idx\" block " + std::to_string(victim) +
                           ": could not read the page: invalid page in block " +
                           std::to_string(victim) + " of relation \"t_a_idx\"");
  // Reading through the tree reports the same block.
  BTree tree = BTree::open(store, def);
  EXPECT_THROW(testing::scan_all(tree, {}), Error);
  std::remove(path.c_str());
}

TEST(BtreeVerify, InsertedTreeOnDiskSurvivesAReopen) {
  std::string path = "/tmp/tidepool_btree_reopen_" + std::to_string(::getpid()) + ".idx";
  std::remove(path.c_str());
  IndexDef def = index_def("t_a_idx", {KeyType::kInt4}, true);
  {
    FilePageStore store("t_a_idx", path);
    BTree tree = BTree::create(store, def);
    for (uint32_t k = kKeys; k-- > 0;) tree.insert({int64_t(2 * k)}, tid_of(k));
  }
  FilePageStore store("t_a_idx", path);
  VerifyReport r = verify_btree(store, def, heap_fetch);
  EXPECT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.leaf_items_checked, kKeys);
  EXPECT_EQ(BTree::open(store, def).lookup({2 * 1234}), tid_of(1234));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tp::btree
