// Invalidation and growth under concurrency, for every I/O method: drop_relation and
// evict_all while other threads scan (their clock sweeps pin the buffers being dropped
// for a moment, their reads are in flight on the buffers being evicted), resize refused
// while another thread pins, and many threads reading and extending relations at once.
// Built and run under ThreadSanitizer too (CONCURRENCY). io_uring is skipped under TSan,
// as in the other concurrency tests (the kernel's ring orders the issuer before the
// reaper where TSan cannot see it); the ASan build runs it and asserts the outcomes.
#include <atomic>
#include <chrono>
#include <random>
#include <thread>

#include "bufmgr/read_stream.h"
#include "tests/bufmgr/bufmgr_test_util.h"

namespace tp::bufmgr {
namespace {

using testing::page_is;
using testing::PoolTest;
using testing::read_block_raw;
using testing::stamp_page;

class Concurrent : public PoolTest {
 protected:
  void SetUp() override {
    PoolTest::SetUp();
#if defined(__SANITIZE_THREAD__)
    if (GetParam() == aio::IoMethodKind::kIoUring)
      GTEST_SKIP() << "io_uring completions reaped by other threads are invisible to TSan";
#endif
  }

  // Threads that scan `file` (version-1 stamped pages) until `stop`, half through read
  // streams over random runs, half through read_buffer; every page is checked.
  struct Scanners {
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> pages{0};
    std::atomic<int> bad{0};
    std::vector<std::thread> threads;

    void start(BufferPool& pool, aio::IoFile& file, int count) {
      for (int id = 0; id < count; ++id)
        threads.emplace_back([this, &pool, &file, id] { run(pool, file, id); });
      // The work under test must overlap the scans: on a loaded machine the threads may
      // otherwise not have run yet when a short test body is already done.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (pages.load() == 0 && bad.load() == 0 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
    }
    void finish() {
      stop = true;
      for (auto& t : threads) t.join();
      threads.clear();
    }
    void run(BufferPool& pool, aio::IoFile& file, int id) {
      std::mt19937 rng(uint32_t(id) * 7919u + 1);
      const BlockNumber nblocks = file.size_blocks();
      auto check = [&](const char* page, BlockNumber block) {
        if (!page_is(page, file.relnumber(), block, 1)) ++bad;
        ++pages;
      };
      try {
        while (!stop.load(std::memory_order_relaxed)) {
          if (id % 2 == 0) {
            int left = 24;
            BlockNumber next = rng() % (nblocks - 4);
            ReadStream stream(pool, file, {.effective_io_concurrency = 4, .io_combine_limit = 4},
                              [&](void*) -> BlockNumber {
                                if (left-- <= 0) return kInvalidBlock;
                                if (left % 4 == 0) next = rng() % (nblocks - 4);
                                return next++;
                              });
            while (PinGuard buf = stream.next_buffer()) {
              const BlockNumber block = buf.block();
              check(std::move(buf).lock_shared().page(), block);
            }
          } else {
            for (int i = 0; i < 24; ++i) {
              const BlockNumber block = rng() % nblocks;
              check(pool.read_buffer(file, block).lock_shared().page(), block);
            }
          }
        }
      } catch (const Error& e) {
        ADD_FAILURE() << "scanner " << id << ": " << e.what();
        ++bad;
      }
    }
  };
};

TEST_P(Concurrent, DropRelationWhileOtherThreadsScanWaitsForTheirPins) {
  BufferPool& pool = make_pool(48, 12);
  aio::IoFile& scanned = make_relation("s", 120);
  aio::IoFile& dropped = make_relation("d", 16);
  Scanners scanners;
  scanners.start(pool, scanned, 3);
  for (int round = 0; round < 60; ++round) {
    for (BlockNumber b = 0; b < 16; ++b) {
      if (b % 4 == 0) {
        WriteGuard page = pool.read_buffer(dropped, b).lock_exclusive();
        stamp_page(page.page(), dropped.relnumber(), b, 2);
        page.mark_dirty();
      } else {
        pool.read_buffer(dropped, b);
      }
    }
    pool.drop_relation(dropped);
    for (BlockNumber b = 0; b < 16; ++b) ASSERT_FALSE(pool.is_cached(dropped, b)) << round;
  }
  scanners.finish();
  EXPECT_EQ(scanners.bad.load(), 0);
  EXPECT_GT(scanners.pages.load(), 0u);
  EXPECT_EQ(pool.cached_blocks(dropped), 0);
  // A dirty page is either discarded by the drop or was written back whole when a
  // scanner's sweep evicted it first: the file holds version 1 or 2, checksummed.
  for (BlockNumber b = 0; b < 16; b += 4) {
    std::vector<char> raw = read_block_raw(dropped.path(), b);
    EXPECT_TRUE(page_verify(raw.data(), b)) << b;
    EXPECT_TRUE(page_is(raw.data(), dropped.relnumber(), b, 1) ||
                page_is(raw.data(), dropped.relnumber(), b, 2))
        << b;
  }
}

TEST_P(Concurrent, EvictAllWhileOthersScanAndWriteKeepsEveryWrite) {
  BufferPool& pool = make_pool(48, 12);
  aio::IoFile& scanned = make_relation("s", 120);
  aio::IoFile& written = make_relation("w", 20);
  Scanners scanners;
  scanners.start(pool, scanned, 2);
  // One writer rewrites the blocks of w with rising versions while evict_all runs.
  std::atomic<bool> stop_writer{false};
  std::vector<uint32_t> version(20, 1);  // the writer's own record, read after join
  std::thread writer([&] {
    try {
      // Bounded, so evict_all (which writes back what it finds dirtied anew) need not
      // chase a writer that never pauses.
      for (uint32_t pass = 0; pass < 3000 && !stop_writer.load(std::memory_order_relaxed); ++pass) {
        BlockNumber b = pass % 20;
        WriteGuard page = pool.read_buffer(written, b).lock_exclusive();
        stamp_page(page.page(), written.relnumber(), b, ++version[b]);
        page.mark_dirty();
      }
    } catch (const Error& e) {
      ADD_FAILURE() << "writer: " << e.what();
    }
  });
  for (int round = 0; round < 30; ++round) pool.evict_all();
  stop_writer = true;
  writer.join();
  scanners.finish();
  EXPECT_EQ(scanners.bad.load(), 0);
  pool.flush_all();
  for (BlockNumber b = 0; b < 20; ++b) {
    std::vector<char> raw = read_block_raw(written.path(), b);
    ASSERT_FALSE(raw.empty());
    EXPECT_TRUE(page_verify(raw.data(), b)) << b;
    EXPECT_TRUE(page_is(raw.data(), written.relnumber(), b, version[b])) << b;
  }
  // Quiet now: one more evict_all leaves nothing behind.
  pool.evict_all();
  EXPECT_EQ(pool.cached_blocks(scanned) + pool.cached_blocks(written), 0);
}

TEST_P(Concurrent, ResizeIsRefusedWhileAnotherThreadPinsAndWorksAfterwards) {
  BufferPool& pool = make_pool(32);
  aio::IoFile& t = make_relation("t", 20);
  std::atomic<int> step{0};
  std::thread holder([&] {
    PinGuard pin = pool.read_buffer(t, 5);
    step = 1;
    while (step.load() != 2) std::this_thread::yield();
    EXPECT_TRUE(page_is(std::move(pin).lock_shared().page(), t.relnumber(), 5, 1));
  });
  while (step.load() != 1) std::this_thread::yield();
  try {
    pool.resize(64);
    ADD_FAILURE() << "resize went ahead under another thread's pin";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot resize the buffer pool while buffers are pinned");
  }
  step = 2;
  holder.join();
  pool.resize(64);
  EXPECT_EQ(pool.shared_buffers(), 64);
  for (BlockNumber b = 0; b < 20; ++b)
    EXPECT_TRUE(page_is(pool.read_buffer(t, b).lock_shared().page(), t.relnumber(), b, 1));
}

// Four threads each append to a shared relation and to their own, and read published
// blocks of both at random, on a pool small enough that dirty victims are written back
// while they run. Afterwards every block on disk carries its stamp and checksum.
TEST_P(Concurrent, ManyThreadsReadAndExtendRelations) {
  constexpr int kThreads = 4;
  constexpr BlockNumber kAppends = 40;
  BufferPool& pool = make_pool(64, 16);
  aio::IoFile& shared = make_relation("shared", 0);
  std::vector<aio::IoFile*> own;
  for (int i = 0; i < kThreads; ++i) own.push_back(&make_relation("own" + std::to_string(i), 0));
  constexpr BlockNumber kMaxBlocks = kThreads * kAppends;
  std::vector<std::atomic<bool>> published(kMaxBlocks);
  std::atomic<int> bad{0};
  std::atomic<uint64_t> checked{0};

  auto worker = [&](int id) {
    std::mt19937 rng(uint32_t(id) * 104729u + 3);
    aio::IoFile& mine = *own[size_t(id)];
    try {
      for (BlockNumber i = 0; i < kAppends; ++i) {
        {
          WriteGuard page = pool.extend(shared);
          stamp_page(page.page(), shared.relnumber(), page.block(), 1);
          page.mark_dirty();
          published[page.block()].store(true, std::memory_order_release);
        }
        {
          WriteGuard page = pool.extend(mine);
          stamp_page(page.page(), mine.relnumber(), page.block(), 1);
          page.mark_dirty();
        }
        for (int r = 0; r < 6; ++r) {
          BlockNumber b = rng() % kMaxBlocks;
          if (published[b].load(std::memory_order_acquire)) {
            if (!page_is(pool.read_buffer(shared, b).lock_shared().page(), shared.relnumber(), b,
                         1))
              ++bad;
            ++checked;
          }
          BlockNumber m = rng() % (i + 1);
          if (!page_is(pool.read_buffer(mine, m).lock_shared().page(), mine.relnumber(), m, 1))
            ++bad;
          ++checked;
        }
      }
    } catch (const Error& e) {
      ADD_FAILURE() << "thread " << id << ": " << e.what();
      ++bad;
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
  for (auto& t : threads) t.join();

  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(checked.load(), uint64_t(kThreads * kAppends));
  EXPECT_GT(pool.counters_total().writes, 0u);  // dirty victims went back to disk
  EXPECT_EQ(pool.pins_held(), 0u);
  pool.flush_all();
  ASSERT_EQ(shared.size_blocks(), kMaxBlocks);
  for (BlockNumber b = 0; b < kMaxBlocks; ++b) {
    std::vector<char> raw = read_block_raw(shared.path(), b);
    EXPECT_TRUE(page_verify(raw.data(), b)) << b;
    EXPECT_TRUE(page_is(raw.data(), shared.relnumber(), b, 1)) << b;
  }
  for (aio::IoFile* f : own) {
    ASSERT_EQ(f->size_blocks(), kAppends);
    for (BlockNumber b = 0; b < kAppends; ++b)
      EXPECT_TRUE(page_is(read_block_raw(f->path(), b).data(), f->relnumber(), b, 1)) << b;
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, Concurrent, TP_ALL_IO_METHODS);

}  // namespace
}  // namespace tp::bufmgr
