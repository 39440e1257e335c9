// Failed reads (EIO, short reads, corrupt pages) through read_buffer, StartReadBuffers and
// read streams: a clear error naming relation and block, the buffer left not valid, and
// a later read that succeeds.
#include "aio/faults.h"
#include "bufmgr/read_stream.h"
#include "tests/bufmgr/bufmgr_test_util.h"

namespace tp::bufmgr {
namespace {

using testing::page_is;
using testing::PoolTest;

class Faults : public PoolTest {};

// The message of the tp::Error `fn` throws ("" if it does not throw).
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_P(Faults, EioNamesRelationAndBlockAndALaterReadSucceeds) {
  aio::ScopedFaults faults;
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 20);
  aio::inject_fault({.relnumber = t.relnumber(), .block = 17, .kind = aio::FaultKind::kEio});
  EXPECT_EQ(error_of([&] { pool.read_buffer(t, 17); }),
            "could not read block 17 of relation \"t\": Input/output error");
  EXPECT_FALSE(pool.is_cached(t, 17));
  EXPECT_EQ(pool.pins_held(), 0u);
  ReadGuard page = pool.read_buffer(t, 17).lock_shared();  // the fault fired once
  EXPECT_TRUE(page_is(page.page(), t.relnumber(), 17, 1));
  EXPECT_EQ(pool.inspect(page.buffer()).state, BufferState::kValid);
}

TEST_P(Faults, CorruptPageIsRefusedAsInvalidAndReReadLater) {
  aio::ScopedFaults faults;
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 20);
  aio::inject_fault({.relnumber = t.relnumber(), .block = 17, .kind = aio::FaultKind::kCorrupt});
  EXPECT_EQ(error_of([&] { pool.read_buffer(t, 17); }),
            "invalid page in block 17 of relation \"t\"");
  EXPECT_FALSE(pool.is_cached(t, 17));
  EXPECT_TRUE(page_is(pool.read_buffer(t, 17).lock_shared().page(), t.relnumber(), 17, 1));
}

TEST_P(Faults, ShortReadOfTheOnlyBlockIsAnError) {
  aio::ScopedFaults faults;
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 20);
  aio::inject_fault({.relnumber = t.relnumber(), .block = 4, .kind = aio::FaultKind::kShortRead});
  EXPECT_EQ(error_of([&] { pool.read_buffer(t, 4); }),
            "could not read block 4 of relation \"t\": read only 4096 of 8192 bytes");
  EXPECT_FALSE(pool.is_cached(t, 4));
  EXPECT_TRUE(page_is(pool.read_buffer(t, 4).lock_shared().page(), t.relnumber(), 4, 1));
}

TEST_P(Faults, ReadPastTheEndOfTheFileIsAnError) {
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 3);
  EXPECT_EQ(error_of([&] { pool.read_buffer(t, 5); }),
            "could not read block 5 of relation \"t\": read only 0 of 8192 bytes");
  EXPECT_EQ(pool.pins_held(), 0u);
}

TEST_P(Faults, ShortReadInsideACombinedReadIssuesTheRest) {
  aio::ScopedFaults faults;
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 20);
  aio::inject_fault({.relnumber = t.relnumber(), .block = 5, .kind = aio::FaultKind::kShortRead});
  ReadBuffersOp op;
  op.file = &t;
  int n = 8;
  ASSERT_TRUE(pool.start_read_buffers(op, 2, &n));
  EXPECT_EQ(n, 8);
  pool.wait_read_buffers(op);
  for (int i = 0; i < n; ++i) {
    ReadGuard page = pool.read_buffer(t, BlockNumber(2 + i)).lock_shared();
    EXPECT_EQ(page.buffer(), op.buffers[i]);
    EXPECT_TRUE(page_is(page.page(), t.relnumber(), BlockNumber(2 + i), 1));
  }
  for (int i = 0; i < n; ++i) pool.unpin(op.buffers[i]);
  EXPECT_EQ(pool.counters(IoContext::kNormal).reads, 8u);  // 3 blocks, then the other 5
}

TEST_P(Faults, StartReadBuffersStopsAtACachedBlockAndForwardsItsPin) {
  BufferPool& pool = make_pool(64);
  aio::IoFile& t = make_relation("t", 20);
  pool.read_buffer(t, 6);
  ReadBuffersOp op;
  op.file = &t;
  int n = 8;
  ASSERT_TRUE(pool.start_read_buffers(op, 3, &n));
  EXPECT_EQ(n, 3);  // 3, 4, 5; block 6 is valid already
  ASSERT_TRUE(op.forwarded);
  EXPECT_EQ(pool.inspect(op.buffers[3]).tag.block, 6u);
  pool.wait_read_buffers(op);
  for (int i = 0; i <= 3; ++i) pool.unpin(op.buffers[i]);
  EXPECT_EQ(pool.counters(IoContext::kNormal).reads, 4u);  // 6 earlier, then 3..5
}

TEST_P(Faults, AFailedReadInsideAStreamEndsItWithTheErrorAndLeaksNothing) {
  aio::ScopedFaults faults;
  BufferPool& pool = make_pool(128, 128);
  aio::IoFile& t = make_relation("t", 60);
  aio::inject_fault({.relnumber = t.relnumber(), .block = 33, .kind = aio::FaultKind::kEio});
  BlockNumber next = 0;
  ReadStream stream(pool, t, {.effective_io_concurrency = 4},
                    [&](void*) { return next < 60 ? next++ : kInvalidBlock; });
  BlockNumber returned = 0;
  std::string error = error_of([&] {
    while (PinGuard b = stream.next_buffer()) {
      EXPECT_EQ(b.block(), returned);
      ++returned;
    }
  });
  EXPECT_EQ(error, "could not read block 33 of relation \"t\": Input/output error");
  // Blocks before the failed read came back; the read holding 33 starts at most 15 earlier.
  EXPECT_LE(returned, 33u);
  EXPECT_GT(returned + 16, 33u);
  EXPECT_FALSE(stream.next_buffer().valid());
  EXPECT_EQ(pool.pins_held(), 0u);
  EXPECT_FALSE(pool.is_cached(t, 33));
  stream.reset();  // the fault fired once: block 33 reads now
  EXPECT_TRUE(page_is(pool.read_buffer(t, 33).lock_shared().page(), t.relnumber(), 33, 1));
}

TEST_P(Faults, WithoutChecksumsOnlyABrokenHeaderIsRefused) {
  aio::ScopedFaults faults;
  pool_ = std::make_unique<BufferPool>(
      *io_, BufferPoolConfig{.shared_buffers = 64, .verify_checksums = false});
  BufferPool& pool = *pool_;
  aio::IoFile& t = make_relation("t", 20);
  // The corrupt fault flips body bytes and the checksum field: the header stays sane.
  aio::inject_fault({.relnumber = t.relnumber(), .block = 9, .kind = aio::FaultKind::kCorrupt});
  {
    ReadGuard page = pool.read_buffer(t, 9).lock_shared();
    EXPECT_FALSE(page_verify(page.page(), 9));  // accepted although its checksum is wrong
  }
  // A page whose header is garbage is still refused.
  std::vector<char> junk(kBlockSize, 0x11);
  int fd = ::open(t.path().c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, junk.data(), kBlockSize, off_t(12) * kBlockSize), ssize_t(kBlockSize));
  ::close(fd);
  EXPECT_EQ(error_of([&] { pool.read_buffer(t, 12); }),
            "invalid page in block 12 of relation \"t\"");
}

INSTANTIATE_TEST_SUITE_P(Methods, Faults, TP_ALL_IO_METHODS);

}  // namespace
}  // namespace tp::bufmgr
