// Read streams: order and contents, I/O combining, distance growth and decay, rings,
// cached re-scans, per-buffer data, pause / resume / reset, and settings checks.
#include "bufmgr/read_stream.h"

#include "aio/stats.h"

#include "tests/bufmgr/bufmgr_test_util.h"

namespace tp::bufmgr {
namespace {

using testing::page_is;
using testing::PoolTest;

class Stream : public PoolTest {};

// A callback yielding `blocks` in order, then the end.
ReadStream::BlockCallback blocks_of(std::vector<BlockNumber> blocks) {
  auto list = std::make_shared<std::vector<BlockNumber>>(std::move(blocks));
  auto next = std::make_shared<size_t>(0);
  return [list, next](void*) { return *next < list->size() ? (*list)[(*next)++] : kInvalidBlock; };
}

std::vector<BlockNumber> range(BlockNumber from, BlockNumber to) {
  std::vector<BlockNumber> v;
  for (BlockNumber b = from; b < to; ++b) v.push_back(b);
  return v;
}

// Consumes the stream, checking each page; returns the blocks in the order returned.
std::vector<BlockNumber> drain(ReadStream& stream, const aio::IoFile& file) {
  std::vector<BlockNumber> seen;
  while (PinGuard buf = stream.next_buffer()) {
    ReadGuard page = std::move(buf).lock_shared();
    EXPECT_TRUE(page_is(page.page(), file.relnumber(), page.block(), 1)) << page.block();
    seen.push_back(page.block());
  }
  return seen;
}

TEST_P(Stream, SeqScanReturnsEveryBlockInOrderAndCombinesReads) {
  BufferPool& pool = make_pool(512, 512);
  aio::IoFile& t = make_relation("t", 100);
  ReadStream stream(pool, t, {.effective_io_concurrency = 16, .io_combine_limit = 16},
                    blocks_of(range(0, 100)));
  EXPECT_EQ(stream.max_pinned(), 17 * 16);
  EXPECT_EQ(drain(stream, t), range(0, 100));
  const ReadStreamStats& s = stream.stats();
  EXPECT_EQ(s.buffers_returned, 100u);
  EXPECT_EQ(s.io_blocks, 100u);
  EXPECT_EQ(pool.counters(IoContext::kNormal).reads, 100u);
  EXPECT_LE(s.distance_max, uint64_t(stream.max_pinned()));
  if (GetParam() == aio::IoMethodKind::kSync) {
    // Every sync read counts as a wait: the distance doubles after each, so reads are
    // 1, 2, 4, 8, then full 16-block reads, then the 5-block tail: 10 reads.
    EXPECT_EQ(s.ios, 10u);
    EXPECT_EQ(s.waits, 10u);
    EXPECT_EQ(s.distance_max, uint64_t(stream.max_pinned()));
  } else {
    EXPECT_GE(s.ios, 7u);  // at most 16 blocks each
  }
  EXPECT_EQ(pool.pins_held(), 0u);
}

TEST_P(Stream, IoCombineLimitCapsEveryRead) {
  BufferPool& pool = make_pool(512, 512);
  aio::IoFile& t = make_relation("t", 64);
  ReadStream stream(pool, t, {.effective_io_concurrency = 4, .io_combine_limit = 4},
                    blocks_of(range(0, 64)));
  EXPECT_EQ(drain(stream, t).size(), 64u);
  EXPECT_GE(stream.stats().ios, 16u);
  if (GetParam() == aio::IoMethodKind::kSync) {
    EXPECT_EQ(stream.stats().ios, 18u);  // 1, 2, then fifteen 4-block reads, a 1-block tail
  }
}

TEST_P(Stream, RescanOfACachedTableReadsNothingAndUsesTheFastPath) {
  BufferPool& pool = make_pool(256, 256);
  aio::IoFile& t = make_relation("t", 50);
  {
    ReadStream first(pool, t, {}, blocks_of(range(0, 50)));
    drain(first, t);
  }
  const uint64_t reads = pool.counters(IoContext::kNormal).reads;
  EXPECT_EQ(reads, 50u);
  ReadStream again(pool, t, {}, blocks_of(range(0, 50)));
  EXPECT_EQ(drain(again, t), range(0, 50));
  EXPECT_EQ(pool.counters(IoContext::kNormal).reads, reads);
  EXPECT_EQ(again.stats().ios, 0u);
  EXPECT_EQ(again.stats().distance_max, 1u);
  EXPECT_EQ(again.stats().fast_path_returns, 49u);  // all but the first
}

TEST_P(Stream, DistanceDecaysAfterTheHoldOffOnHits) {
  BufferPool& pool = make_pool(256, 256);
  aio::IoFile& t = make_relation("t", 120);
  for (BlockNumber b = 40; b < 120; ++b) pool.read_buffer(t, b);  // 40.. cached
  ReadStream stream(pool, t, {.effective_io_concurrency = 2, .io_combine_limit = 2},
                    blocks_of(range(0, 120)));
  int max_distance = 0;
  std::vector<int> distances;
  while (PinGuard buf = stream.next_buffer()) {
    distances.push_back(stream.distance());
    max_distance = std::max(max_distance, stream.distance());
  }
  EXPECT_EQ(distances.size(), 120u);
  EXPECT_EQ(stream.max_pinned(), 6);
  if (GetParam() == aio::IoMethodKind::kSync) {
    EXPECT_EQ(max_distance, 6);
  }
  EXPECT_EQ(distances.back(), 1) << "80 hits after a 6-hit hold-off bring it back to 1";
}

TEST_P(Stream, BigSeqScanEvictsOnlyInsideItsRing) {
  BufferPool& pool = make_pool(128, 512);
  aio::IoFile& hot = make_relation("hot", 20);
  aio::IoFile& big = make_relation("big", 200);
  for (int round = 0; round < 3; ++round)
    for (BlockNumber b = 0; b < 20; ++b) pool.read_buffer(hot, b);
  auto ring = BufferStrategy::for_seq_scan(pool, 200, 16, 16);
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->ring_size(), 16);                                    // an eighth of the pool
  EXPECT_EQ(BufferStrategy::for_seq_scan(pool, 32, 16, 16), nullptr);  // fits: no ring
  ReadStream scan(pool, big, {.strategy = ring.get()}, blocks_of(range(0, 200)));
  EXPECT_EQ(scan.max_pinned(), 15);  // the ring minus the consumer's buffer
  EXPECT_EQ(drain(scan, big), range(0, 200));
  EXPECT_EQ(pool.counters(IoContext::kBulkRead).reads, 200u);
  EXPECT_EQ(pool.counters(IoContext::kNormal).evictions, 0u);
  EXPECT_EQ(pool.counters(IoContext::kBulkRead).evictions, 200u - 16);
  EXPECT_LE(pool.cached_blocks(big), 16);
  EXPECT_EQ(pool.cached_blocks(hot), 20);
}

TEST_P(Stream, PerBufferDataTravelsWithItsBlock) {
  BufferPool& pool = make_pool(128, 128);
  aio::IoFile& t = make_relation("t", 40);
  std::vector<BlockNumber> order = {5, 6, 7, 30, 2, 3, 39, 0, 1, 2};
  size_t next = 0;
  ReadStream stream(pool, t, {.effective_io_concurrency = 4, .per_buffer_data_size = 8},
                    [&](void* data) -> BlockNumber {
                      if (next == order.size()) return kInvalidBlock;
                      uint64_t tag = 1000 + next;
                      std::memcpy(data, &tag, 8);
                      return order[next++];
                    });
  size_t i = 0;
  void* data = nullptr;
  while (PinGuard buf = stream.next_buffer(&data)) {
    ASSERT_LT(i, order.size());
    EXPECT_EQ(buf.block(), order[i]);
    uint64_t tag;
    std::memcpy(&tag, data, 8);
    EXPECT_EQ(tag, 1000 + i);
    ++i;
  }
  EXPECT_EQ(i, order.size());
}

TEST_P(Stream, PauseResumeAndReset) {
  BufferPool& pool = make_pool(128, 128);
  aio::IoFile& t = make_relation("t", 20);
  std::vector<BlockNumber> script = {0, 1, 2, kReadStreamPause, 3, 4, kInvalidBlock};
  size_t next = 0;
  ReadStream stream(pool, t, {},
                    [&](void*) { return next < script.size() ? script[next++] : kInvalidBlock; });
  std::vector<BlockNumber> got;
  while (PinGuard buf = stream.next_buffer()) got.push_back(buf.block());
  EXPECT_EQ(got, (std::vector<BlockNumber>{0, 1, 2}));
  EXPECT_TRUE(stream.paused());
  stream.resume();
  while (PinGuard buf = stream.next_buffer()) got.push_back(buf.block());
  EXPECT_EQ(got, (std::vector<BlockNumber>{0, 1, 2, 3, 4}));
  EXPECT_FALSE(stream.paused());
  // reset: the stream asks the callback again
  script = {9, 10, kInvalidBlock};
  next = 0;
  stream.reset();
  got.clear();
  while (PinGuard buf = stream.next_buffer()) got.push_back(buf.block());
  EXPECT_EQ(got, (std::vector<BlockNumber>{9, 10}));
}

TEST_P(Stream, DestroyingAStreamMidwayReleasesEverything) {
  BufferPool& pool = make_pool(256, 256);
  aio::IoFile& t = make_relation("t", 100);
  {
    ReadStream stream(pool, t, {.effective_io_concurrency = 8}, blocks_of(range(0, 100)));
    for (int i = 0; i < 30; ++i) ASSERT_TRUE(stream.next_buffer().valid());
    EXPECT_GT(stream.pinned(), 0);
  }
  EXPECT_EQ(pool.pins_held(), 0u);
  EXPECT_EQ(io_->in_flight_count(), 0);
}

TEST_P(Stream, SynchronousModeStillReturnsEverything) {
  BufferPool& pool = make_pool(256, 256);
  aio::IoFile& t = make_relation("t", 40);
  ReadStream stream(pool, t, {.effective_io_concurrency = 0}, blocks_of(range(0, 40)));
  EXPECT_EQ(stream.max_pinned(), 32);  // (one read slot + 1) * io_combine_limit
  EXPECT_EQ(drain(stream, t), range(0, 40));
  EXPECT_EQ(stream.ios_in_progress(), 0);
}

TEST_P(Stream, SettingsOutOfRangeAreRefused) {
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 1);
  try {
    ReadStream s(pool, t, {.io_combine_limit = 129}, blocks_of({}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid value for parameter \"io_combine_limit\": 129");
  }
  EXPECT_THROW(ReadStream(pool, t, {.effective_io_concurrency = -1}, blocks_of({})), Error);
}

TEST_P(Stream, BufferUsageCountsWhatAScanCost) {
  BufferPool& pool = make_pool(256, 256);
  aio::IoFile& t = make_relation("t", 30);
  for (BlockNumber b = 0; b < 10; ++b) pool.read_buffer(t, b);
  const BufferUsage before = thread_buffer_usage();
  {
    ReadStream scan(pool, t, {}, blocks_of(range(0, 30)));
    drain(scan, t);
  }
  {
    WriteGuard page = pool.read_buffer(t, 3).lock_exclusive();
    page.mark_dirty();
    page.mark_dirty();  // already dirty: counted once
  }
  pool.flush_relation(t);
  const BufferUsage used = thread_buffer_usage() - before;
  EXPECT_EQ(used.shared_hit, 10u + 1);  // blocks 0..9 in the scan, block 3 for the write
  EXPECT_EQ(used.shared_read, 20u);
  EXPECT_EQ(used.shared_dirtied, 1u);
  EXPECT_EQ(used.shared_written, 1u);
}

TEST_P(Stream, AdviceIsPassedOnlyWhenReadingAheadRandomly) {
  if (GetParam() != aio::IoMethodKind::kSync) GTEST_SKIP() << "only the sync method advises";
  BufferPool& pool = make_pool(256, 256);
  aio::IoFile& t = make_relation("t", 64);
  auto advices = [] {
    return aio::io_stats_for(aio::IoMethodKind::kSync, aio::IoContext::kNormal).prefetch_advices;
  };
  uint64_t start = advices();
  {
    ReadStream seq(pool, t, {.effective_io_concurrency = 8, .sequential = true},
                   blocks_of(range(0, 20)));
    drain(seq, t);
  }
  EXPECT_EQ(advices(), start);
  {
    ReadStream sync_reads(pool, t, {.effective_io_concurrency = 0}, blocks_of(range(20, 40)));
    drain(sync_reads, t);
  }
  EXPECT_EQ(advices(), start);
  {
    ReadStream random(pool, t, {.effective_io_concurrency = 8},
                      blocks_of({60, 41, 55, 43, 50, 47, 62, 45}));
    EXPECT_EQ(drain(random, t), (std::vector<BlockNumber>{60, 41, 55, 43, 50, 47, 62, 45}));
    EXPECT_EQ(random.stats().ios, 8u);
  }
  EXPECT_EQ(advices(), start + 8);
}

TEST_P(Stream, StaysWithinThePinBudgetWhileTheConsumerHoldsABuffer) {
  BufferPool& pool = make_pool(128, 16);
  aio::IoFile& t = make_relation("t", 100);
  PinGuard outside = pool.read_buffer(t, 99);  // the consumer holds one pin already
  ReadStream stream(pool, t, {.effective_io_concurrency = 16}, blocks_of(range(0, 99)));
  EXPECT_EQ(stream.max_pinned(), 14);  // 16 - 1 held - 1 for the buffer being consumed
  BlockNumber expect = 0;
  while (PinGuard buf = stream.next_buffer()) {
    EXPECT_EQ(buf.block(), expect++);
    EXPECT_LE(pool.my_pin_count(), 16u);
  }
  EXPECT_EQ(expect, 99u);
}

INSTANTIATE_TEST_SUITE_P(Methods, Stream, TP_ALL_IO_METHODS);

}  // namespace
}  // namespace tp::bufmgr
