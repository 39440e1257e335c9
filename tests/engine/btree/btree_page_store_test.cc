#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "engine/btree/mem_page_store.h"
#include "tests/engine/btree/file_page_store.h"

namespace tp::btree {
namespace {

std::string temp_path(const char* tag) {
  return "/tmp/tidepool_btree_" + std::string(tag) + "_" + std::to_string(::getpid()) + ".idx";
}

TEST(BtreePageStore, ExtendGivesZeroedExclusivePagesAndReadsSeeWrites) {
  MemPageStore store("rel");
  PageGuard g = store.extend();
  EXPECT_EQ(g.block(), 0u);
  EXPECT_EQ(g.lock(), PageLock::kExclusive);
  EXPECT_TRUE(page_is_new(g.data()));
  g.mark_dirty();
  g.data_for_write()[100] = 7;
  g.release();
  EXPECT_FALSE(g.valid());
  EXPECT_EQ(store.nblocks(), 1u);
  PageGuard r = store.read(0, PageLock::kShared);
  EXPECT_EQ(r.data()[100], 7);
  PageGuard r2 = store.read(0, PageLock::kShared);  // shared latches coexist
  EXPECT_EQ(store.reads(), 2u);
}

TEST(BtreePageStore, GuardsMoveAndReleaseOnce) {
  MemPageStore store("rel");
  store.extend();
  PageGuard a = store.read(0, PageLock::kExclusive);
  PageGuard b = std::move(a);
  EXPECT_FALSE(a.valid());
  EXPECT_TRUE(b.valid());
  b = PageGuard();
  // If the exclusive latch had leaked this would deadlock.
  PageGuard c = store.read(0, PageLock::kExclusive);
  EXPECT_TRUE(c.valid());
}

TEST(BtreePageStore, ReadPastEndNamesRelationAndBlock) {
  MemPageStore store("t_a_idx");
  store.extend();
  try {
    store.read(5, PageLock::kShared);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "could not read block 5 in relation \"t_a_idx\": it has only 1 blocks");
  }
}

TEST(BtreePageStore, FileStoreRoundTripsWithChecksums) {
  std::string path = temp_path("roundtrip");
  std::remove(path.c_str());
  {
    FilePageStore store("t_a_idx", path);
    for (int i = 0; i < 3; ++i) {
      PageGuard g = store.extend();
      g.mark_dirty();
      page_init(g.data_for_write(), 16);
      g.data_for_write()[200] = char(i + 1);
    }
  }
  {
    FilePageStore store("t_a_idx", path);
    EXPECT_EQ(store.nblocks(), 3u);
    PageGuard g = store.read(2, PageLock::kShared);
    EXPECT_EQ(g.data()[200], 3);
    EXPECT_NE(page_header(g.data())->checksum, 0);
  }
  // Flip one byte of block 1 on disk: the read of block 1 must fail, naming it.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(kBlockSize + 4000);
    char c;
    f.read(&c, 1);
    c ^= 0x01;
    f.seekp(kBlockSize + 4000);
    f.write(&c, 1);
  }
  FilePageStore store("t_a_idx", path);
  EXPECT_EQ(store.read(0, PageLock::kShared).data()[200], 1);
  try {
    store.read(1, PageLock::kShared);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid page in block 1 of relation \"t_a_idx\"");
  }
  std::remove(path.c_str());
}

TEST(BtreePageStore, FileStoreRefusesATornFile) {
  std::string path = temp_path("torn");
  {
    std::ofstream f(path, std::ios::binary);
    f << std::string(100, 'x');
  }
  EXPECT_THROW(FilePageStore("t", path), Error);
  std::remove(path.c_str());
}

TEST(BtreePageStore, DropCacheRereadsFromTheFile) {
  std::string path = temp_path("drop");
  std::remove(path.c_str());
  FilePageStore store("t", path);
  {
    PageGuard g = store.extend();
    g.mark_dirty();
    page_init(g.data_for_write(), 16);
    g.data_for_write()[300] = 9;
  }
  store.drop_cache();
  EXPECT_EQ(store.read(0, PageLock::kShared).data()[300], 9);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tp::btree
