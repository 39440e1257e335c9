// Buffer pool: pins, usage counts, the clock sweep, the pin budget, the mapping-table
// race, fault injection, write-back, flush / drop / evict / resize.
#include <atomic>
#include <barrier>
#include <thread>

#include "bufmgr/strategy.h"
#include "tests/bufmgr/bufmgr_test_util.h"

namespace tp::bufmgr {
namespace {

using testing::page_is;
using testing::PoolTest;

class Pool : public PoolTest {};

TEST_P(Pool, ReadReturnsThePageAndCountsAReadThenAHit) {
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 10);
  {
    ReadGuard page = pool.read_buffer(t, 3).lock_shared();
    EXPECT_TRUE(page_is(page.page(), t.relnumber(), 3, 1));
    EXPECT_EQ(page.block(), 3u);
  }
  PoolCounters c = pool.counters(IoContext::kNormal);
  EXPECT_EQ(c.reads, 1u);
  EXPECT_EQ(c.hits, 0u);
  {
    ReadGuard page = pool.read_buffer(t, 3).lock_shared();
    EXPECT_TRUE(page_is(page.page(), t.relnumber(), 3, 1));
  }
  c = pool.counters(IoContext::kNormal);
  EXPECT_EQ(c.reads, 1u);
  EXPECT_EQ(c.hits, 1u);
}

TEST_P(Pool, PinsCountOncePerThreadAndUsageRisesToFive) {
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 4);
  PinGuard a = pool.read_buffer(t, 0);
  BufferPool::BufferInfo info = pool.inspect(a.buffer());
  EXPECT_EQ(info.state, BufferState::kValid);
  EXPECT_EQ(info.refcount, 1u);
  EXPECT_EQ(info.usage, 1u);            // a new buffer starts at 1
  PinGuard b = pool.read_buffer(t, 0);  // same thread again: private count only
  EXPECT_EQ(b.buffer(), a.buffer());
  info = pool.inspect(a.buffer());
  EXPECT_EQ(info.refcount, 1u);
  EXPECT_EQ(info.usage, 1u);
  EXPECT_EQ(pool.my_pin_count(), 1u);
  a.reset();
  EXPECT_EQ(pool.inspect(b.buffer()).refcount, 1u);
  int32_t id = b.buffer();
  b.reset();
  EXPECT_EQ(pool.inspect(id).refcount, 0u);
  for (int i = 0; i < 10; ++i) pool.read_buffer(t, 0);  // each first pin adds one
  EXPECT_EQ(pool.inspect(id).usage, kMaxUsageCount);
  EXPECT_EQ(pool.my_pin_count(), 0u);
}

TEST_P(Pool, PinsUnderARingRaiseUsageOnlyToOne) {
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 4);
  auto ring = BufferStrategy::bulk_read(pool, 0, 1);
  int32_t id = pool.read_buffer(t, 1, ReadMode::kNormal, ring.get()).buffer();
  for (int i = 0; i < 5; ++i) pool.read_buffer(t, 1, ReadMode::kNormal, ring.get());
  EXPECT_EQ(pool.inspect(id).usage, 1u);
  pool.read_buffer(t, 1);  // without the ring it counts again
  EXPECT_EQ(pool.inspect(id).usage, 2u);
}

TEST_P(Pool, PinBudgetIsEnforcedWithAClearError) {
  BufferPool& pool = make_pool(64, 4);
  aio::IoFile& t = make_relation("t", 8);
  std::vector<PinGuard> pins;
  for (BlockNumber b = 0; b < 4; ++b) pins.push_back(pool.read_buffer(t, b));
  PinGuard again = pool.read_buffer(t, 2);  // a buffer already pinned costs nothing
  try {
    pool.read_buffer(t, 5);
    FAIL() << "a fifth distinct pin was allowed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "too many buffers pinned by one thread");
    EXPECT_NE(e.detail().find("the limit is 4"), std::string::npos) << e.detail();
  }
  pins.pop_back();
  EXPECT_TRUE(page_is(pool.read_buffer(t, 5).lock_shared().page(), t.relnumber(), 5, 1));
}

TEST_P(Pool, ClockSweepDecrementsUsageAndTakesTheFirstZero) {
  BufferPool& pool = make_pool(16);
  aio::IoFile& t = make_relation("t", 20);
  for (BlockNumber b = 0; b < 16; ++b) pool.read_buffer(t, b);  // fills buffers 0..15
  pool.read_buffer(t, 0);
  pool.read_buffer(t, 0);  // block 0: usage 3, every other block: usage 1
  // The hand is back at buffer 0: revolution 1 lowers every usage count, revolution 2
  // finds block 0 still at 1 and block 1 at 0, and takes block 1.
  pool.read_buffer(t, 16);
  EXPECT_TRUE(pool.is_cached(t, 0));
  EXPECT_FALSE(pool.is_cached(t, 1));
  for (BlockNumber b = 2; b < 16; ++b) EXPECT_TRUE(pool.is_cached(t, b)) << b;
  EXPECT_TRUE(pool.is_cached(t, 16));
  EXPECT_EQ(pool.counters(IoContext::kNormal).evictions, 1u);
}

TEST_P(Pool, ClockSweepSkipsPinnedBuffersAndFailsWhenAllArePinned) {
  BufferPool& pool = make_pool(16, 32);
  aio::IoFile& t = make_relation("t", 20);
  std::vector<PinGuard> pins;
  for (BlockNumber b = 0; b < 15; ++b) pins.push_back(pool.read_buffer(t, b));
  pool.read_buffer(t, 15);  // the one unpinned buffer
  pool.read_buffer(t, 16);  // must evict block 15, the only candidate
  EXPECT_FALSE(pool.is_cached(t, 15));
  PinGuard last = pool.read_buffer(t, 17);
  try {
    pool.read_buffer(t, 18);
    FAIL() << "a read succeeded with every buffer pinned";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "no unpinned buffers available");
  }
  for (BlockNumber b = 0; b < 15; ++b) EXPECT_TRUE(pool.is_cached(t, b));
}

TEST_P(Pool, TwoThreadsMissingTheSameBlocksCauseOneReadEach) {
  BufferPool& pool = make_pool(512);
  constexpr BlockNumber kBlocks = 300;
  aio::IoFile& t = make_relation("t", kBlocks);
  std::barrier sync(2);
  std::atomic<int> bad{0};
  auto reader = [&] {
    for (BlockNumber b = 0; b < kBlocks; ++b) {
      sync.arrive_and_wait();  // both threads miss block b at the same moment
      ReadGuard page = pool.read_buffer(t, b).lock_shared();
      if (!page_is(page.page(), t.relnumber(), b, 1)) ++bad;
    }
  };
  std::thread other(reader);
  reader();
  other.join();
  EXPECT_EQ(bad.load(), 0);
  PoolCounters c = pool.counters(IoContext::kNormal);
  EXPECT_EQ(c.reads, kBlocks);  // never two reads of one block
  EXPECT_EQ(c.hits, kBlocks);   // the other thread found it (or joined the I/O)
  EXPECT_EQ(pool.cached_blocks(t), int(kBlocks));
}

INSTANTIATE_TEST_SUITE_P(Methods, Pool, TP_ALL_IO_METHODS);

}  // namespace
}  // namespace tp::bufmgr
