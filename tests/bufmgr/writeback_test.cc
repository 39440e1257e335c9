// Dirty pages: write-back on eviction (checksummed, contents preserved), flush of one
// relation, drop, evict_all, resize, extend and zero-fill.
#include "bufmgr/strategy.h"
#include "tests/bufmgr/bufmgr_test_util.h"

namespace tp::bufmgr {
namespace {

using testing::page_is;
using testing::PoolTest;
using testing::read_block_raw;
using testing::stamp_page;

class WriteBack : public PoolTest {
 protected:
  // Rewrites `blocks` of `file` as version `version` through the pool.
  void rewrite(aio::IoFile& file, BlockNumber from, BlockNumber to, uint32_t version) {
    for (BlockNumber b = from; b < to; ++b) {
      WriteGuard page = pool_->read_buffer(file, b).lock_exclusive();
      stamp_page(page.page(), file.relnumber(), b, version);
      page.mark_dirty();
    }
  }
  // True if the file holds `block` at `version` with a valid checksum.
  bool on_disk(aio::IoFile& file, BlockNumber block, uint32_t version) {
    std::vector<char> raw = read_block_raw(file.path(), block);
    return !raw.empty() && page_verify(raw.data(), block) && !page_is_new(raw.data()) &&
           page_is(raw.data(), file.relnumber(), block, version);
  }
};

TEST_P(WriteBack, EvictionWritesDirtyPagesBackWithChecksums) {
  BufferPool& pool = make_pool(16);
  aio::IoFile& t = make_relation("t", 60);
  rewrite(t, 0, 60, 2);  // 60 dirty pages through 16 buffers: 44 written on eviction
  EXPECT_EQ(pool.counters(IoContext::kNormal).writes, 44u);
  for (BlockNumber b = 0; b < 44; ++b) EXPECT_TRUE(on_disk(t, b, 2)) << b;
  for (BlockNumber b = 44; b < 60; ++b) EXPECT_TRUE(on_disk(t, b, 1)) << b;  // still dirty
  pool.evict_all();
  EXPECT_EQ(pool.counters(IoContext::kNormal).writes, 60u);
  for (BlockNumber b = 0; b < 60; ++b) EXPECT_TRUE(on_disk(t, b, 2)) << b;
  EXPECT_EQ(pool.cached_blocks(t), 0);
  for (BlockNumber b = 0; b < 60; ++b)  // read back through the pool: verified, version 2
    EXPECT_TRUE(page_is(pool.read_buffer(t, b).lock_shared().page(), t.relnumber(), b, 2));
}

TEST_P(WriteBack, FlushRelationWritesOnlyThatRelation) {
  BufferPool& pool = make_pool(64);
  aio::IoFile& a = make_relation("a", 5);
  aio::IoFile& b = make_relation("b", 5);
  rewrite(a, 0, 5, 3);
  rewrite(b, 0, 5, 3);
  pool.flush_relation(a);
  for (BlockNumber i = 0; i < 5; ++i) {
    EXPECT_TRUE(on_disk(a, i, 3));
    EXPECT_TRUE(on_disk(b, i, 1));
  }
  EXPECT_EQ(pool.inspect(pool.read_buffer(a, 0).buffer()).state, BufferState::kValid);
  EXPECT_EQ(pool.inspect(pool.read_buffer(b, 0).buffer()).state, BufferState::kDirty);
  pool.flush_all();
  for (BlockNumber i = 0; i < 5; ++i) EXPECT_TRUE(on_disk(b, i, 3));
}

TEST_P(WriteBack, DropRelationDiscardsDirtyPages) {
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 5);
  rewrite(t, 0, 5, 4);
  pool.drop_relation(t);
  EXPECT_EQ(pool.cached_blocks(t), 0);
  pool.flush_all();
  for (BlockNumber i = 0; i < 5; ++i) EXPECT_TRUE(on_disk(t, i, 1));
  EXPECT_TRUE(page_is(pool.read_buffer(t, 2).lock_shared().page(), t.relnumber(), 2, 1));
}

TEST_P(WriteBack, ExtendAddsZeroedLockedPagesThatSurviveEviction) {
  BufferPool& pool = make_pool(16);
  aio::IoFile& t = make_relation("t", 2);
  auto ring = BufferStrategy::bulk_write(pool);
  EXPECT_EQ(ring->ring_size(), 2);  // 16 MB capped at an eighth of the pool
  for (int round = 0; round < 10; ++round) {
    std::vector<WriteGuard> pages = pool.extend(t, 3, ring.get());
    ASSERT_EQ(pages.size(), 3u);
    for (WriteGuard& page : pages) {
      EXPECT_TRUE(page_is_new(page.page()));
      stamp_page(page.page(), t.relnumber(), page.block(), 1);
      page.mark_dirty();
    }
  }
  EXPECT_EQ(t.size_blocks(), 32u);
  EXPECT_EQ(pool.counters(IoContext::kBulkWrite).extends, 30u);
  pool.flush_relation(t);
  for (BlockNumber b = 0; b < 32; ++b) EXPECT_TRUE(on_disk(t, b, 1)) << b;
}

TEST_P(WriteBack, ZeroFillNeverReadsAndAnUntouchedNewPageStaysAllZero) {
  BufferPool& pool = make_pool(16);
  aio::IoFile& t = make_relation("t", 2);
  {
    WriteGuard fresh = pool.extend(t);
    EXPECT_EQ(fresh.block(), 2u);
    fresh.mark_dirty();  // dirty but never initialised: written as zeroes, no checksum
  }
  pool.evict_all();
  std::vector<char> raw = read_block_raw(t.path(), 2);
  ASSERT_FALSE(raw.empty());
  EXPECT_TRUE(page_is_new(raw.data()));
  EXPECT_EQ(pool.counters_total().reads, 0u);
  EXPECT_TRUE(page_is_new(pool.read_buffer(t, 2).lock_shared().page()));
}

TEST_P(WriteBack, ResizeKeepsDirtyDataAndRefusesWhilePinned) {
  BufferPool& pool = make_pool(32);
  aio::IoFile& t = make_relation("t", 10);
  rewrite(t, 0, 10, 5);
  {
    PinGuard pin = pool.read_buffer(t, 0);
    EXPECT_THROW(pool.resize(64), Error);
  }
  pool.resize(64);
  EXPECT_EQ(pool.shared_buffers(), 64);
  EXPECT_EQ(pool.cached_blocks(t), 0);
  for (BlockNumber b = 0; b < 10; ++b)
    EXPECT_TRUE(page_is(pool.read_buffer(t, b).lock_shared().page(), t.relnumber(), b, 5));
  EXPECT_THROW(pool.resize(3), Error);
}

TEST_P(WriteBack, EvictAllRefusesWhileAPageIsPinned) {
  BufferPool& pool = make_pool(32);
  aio::IoFile& t = make_relation("t", 4);
  PinGuard pin = pool.read_buffer(t, 1);
  try {
    pool.evict_all();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot evict the buffer pool: 1 buffers are pinned");
  }
}

TEST_P(WriteBack, ExtendRefusesStalePagesLeftByATruncateWithoutDrop) {
  BufferPool& pool = make_pool(32);
  aio::IoFile& t = make_relation("t", 4);
  pool.read_buffer(t, 3);
  t.truncate(3);  // the pool still holds block 3
  try {
    pool.extend(t);
    FAIL() << "extend handed out a stale page";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unexpected data beyond EOF in block 3 of relation \"t\"");
  }
  EXPECT_EQ(pool.pins_held(), 0u);
  pool.drop_relation(t);
  EXPECT_TRUE(page_is_new(pool.extend(t).page()));
}

TEST_P(WriteBack, FlushAllWritesManyPagesInBatchesWithinThePinBudget) {
  BufferPool& pool = make_pool(256, 20);  // batches of at most 20 pins
  aio::IoFile& t = make_relation("t", 150);
  rewrite(t, 0, 150, 6);
  PinGuard held = pool.read_buffer(t, 7);  // a pinned (unlocked) dirty page is flushed too
  pool.flush_all();
  EXPECT_EQ(pool.counters(IoContext::kNormal).writes, 150u);
  EXPECT_EQ(pool.pins_held(), 1u);
  for (BlockNumber b = 0; b < 150; ++b) EXPECT_TRUE(on_disk(t, b, 6)) << b;
  EXPECT_EQ(pool.inspect(held.buffer()).state, BufferState::kValid);
}

INSTANTIATE_TEST_SUITE_P(Methods, WriteBack, TP_ALL_IO_METHODS);

}  // namespace
}  // namespace tp::bufmgr
