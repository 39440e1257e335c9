// Contention tests (also run under ThreadSanitizer): many threads issuing and waiting for
// reads and writes under every method, waiting for each other's I/O (cross-thread
// completion: thread A waits for, and under sync or io_uring completes, an I/O thread B
// started), many waiters on the same deferred reads, and io_uring under heavy contention
// with short completions (ASan build: ThreadSanitizer cannot see the ring's ordering).
// The worker method's queue: a submitter waits for a busy queue lock and runs only
// what overflows the queue. Every I/O carries a completion callback counting its completions: each
// must be 1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <ostream>
#include <random>
#include <thread>
#include <vector>

#include "aio/aio.h"
#include "aio/faults.h"
#include "aio/file.h"
#include "aio/stats.h"
#include "engine/core/error.h"
#include "tests/aio/aio_test_util.h"

namespace tp::aio {
namespace {

using testing::AlignedBuffer;
using testing::is_pattern_block;
using testing::Param;
using testing::param_name;
using testing::ScratchDir;
using testing::write_pattern_file;

#if defined(__SANITIZE_THREAD__)
constexpr bool kUnderTsan = true;
#else
constexpr bool kUnderTsan = false;
#endif

// Completions per I/O, indexed by an id the test gives each I/O.
void count_completion(const IoCompletionInfo& info, IoResult&) noexcept {
  reinterpret_cast<std::atomic<int>*>(info.data[0])->fetch_add(1, std::memory_order_relaxed);
}

// Threads read pattern blocks from [0, kReadOnlyBlocks) and each writes its own stretch
// of kOwnBlocks after it, waiting now and then for a neighbour's latest I/O.
constexpr BlockNumber kReadOnlyBlocks = 256;
constexpr BlockNumber kOwnBlocks = 16;

struct Workload {
  int threads = 4;
  int ios_per_thread = 200;
  int depth = 8;
  bool advice = true;  // every third read advised (sync defers it: any waiter may run it)
};

struct Outcome {
  int bad_results = 0;
  int bad_data = 0;
  int not_once = 0;
};

std::byte stamp_of(int thread, int i) {
  return std::byte((thread * 37 + i) & 0xff);
}

// What the threads of one workload share.
struct SharedState {
  explicit SharedState(const Workload& w)
      : completions(size_t(w.threads) * size_t(w.ios_per_thread)),
        published(size_t(w.threads)),
        last_stamp(size_t(w.threads), std::vector<int>(kOwnBlocks, -1)) {}
  std::vector<std::atomic<int>> completions;
  std::mutex published_mutex;
  std::vector<IoWaitRef> published;
  std::atomic<int> bad_results{0}, bad_data{0};
  std::vector<std::vector<int>> last_stamp;  // per thread: the last write to each own block
};

// Thread `t`: reads and writes at depth w.depth, and waits on another thread's I/O.
void run_thread(IoSystem& io, IoFile& file, const Workload& w, SharedState& sh, int t) {
  std::mt19937 rng{unsigned(t) * 7919u + 1u};
  AlignedBuffer buf(size_t(w.depth) * 4);
  std::vector<IoResult> results(size_t(w.depth));
  std::vector<IoWaitRef> refs(size_t(w.depth));
  struct Op {
    IoOp op;
    BlockNumber first;
    int n;
  };
  std::vector<Op> ops(size_t(w.depth));
  const BlockNumber own = kReadOnlyBlocks + BlockNumber(t) * kOwnBlocks;
  auto check = [&](int slot) {
    const Op& op = ops[size_t(slot)];
    if (!results[size_t(slot)].ok()) sh.bad_results.fetch_add(1);
    if (op.op == IoOp::kRead)
      for (int b = 0; b < op.n; ++b)
        if (!is_pattern_block(buf.block(size_t(slot) * 4 + size_t(b)), op.first + BlockNumber(b)))
          sh.bad_data.fetch_add(1);
  };
  for (int i = 0; i < w.ios_per_thread; ++i) {
    const int slot = i % w.depth;
    if (i >= w.depth) {
      io.wait(refs[size_t(slot)]);
      check(slot);
    }
    std::byte* mem = buf.block(size_t(slot) * 4);
    Op& op = ops[size_t(slot)];
    if (i % 4 == 0) {
      // Writes go round the thread's own stretch: never two in flight on one block.
      op = {IoOp::kWrite, own + BlockNumber((i / 4) % int(kOwnBlocks)), 1};
      std::memset(mem, int(stamp_of(t, i)), kBlockSize);
      sh.last_stamp[size_t(t)][op.first - own] = i;
    } else {
      int n = 1 + int(rng() % 4);
      op = {IoOp::kRead, BlockNumber(rng() % (kReadOnlyBlocks - BlockNumber(n))), n};
    }
    IoHandle* h = io.acquire(&results[size_t(slot)]);
    size_t id = size_t(t) * size_t(w.ios_per_thread) + size_t(i);
    h->set_completion({&count_completion, {reinterpret_cast<uint64_t>(&sh.completions[id])}});
    if (w.advice && op.op == IoOp::kRead && i % 3 == 0) h->set_flags(kIoFlagAdvice);
    refs[size_t(slot)] = h->wait_ref();
    if (op.op == IoOp::kRead)
      io.start_read(h, file, op.first, mem, op.n);
    else
      io.start_write(h, file, op.first, mem, op.n);
    IoWaitRef theirs;
    {
      std::lock_guard lock(sh.published_mutex);
      sh.published[size_t(t)] = refs[size_t(slot)];
      theirs = sh.published[size_t((t + 1) % w.threads)];
    }
    if (i % 3 == 1) io.wait(theirs);  // may be finished, recycled, or still in flight
  }
  io.wait_all();
  for (int slot = 0; slot < std::min(w.depth, w.ios_per_thread); ++slot) check(slot);
}

// Written blocks that do not hold their last write.
int stale_blocks(const std::string& path, const Workload& w,
                 const std::vector<std::vector<int>>& last_stamp) {
  int stale = 0;
  int fd = ::open(path.c_str(), O_RDONLY);
  std::vector<std::byte> page(kBlockSize);
  for (int t = 0; t < w.threads; ++t)
    for (BlockNumber b = 0; b < kOwnBlocks; ++b) {
      int i = last_stamp[size_t(t)][b];
      if (i < 0) continue;
      BlockNumber block = kReadOnlyBlocks + BlockNumber(t) * kOwnBlocks + b;
      if (::pread(fd, page.data(), kBlockSize, off_t(block) * kBlockSize) != ssize_t(kBlockSize) ||
          page[0] != stamp_of(t, i) || page[kBlockSize - 1] != stamp_of(t, i))
        ++stale;
    }
  ::close(fd);
  return stale;
}

Outcome run_workload(IoSystem& io, IoFile& file, const std::string& path, const Workload& w) {
  SharedState sh(w);
  std::vector<std::thread> threads;
  for (int t = 0; t < w.threads; ++t)
    threads.emplace_back([&, t] { run_thread(io, file, w, sh, t); });
  for (auto& th : threads) th.join();
  Outcome out{sh.bad_results.load(), sh.bad_data.load(), 0};
  for (auto& c : sh.completions) out.not_once += c.load() != 1;
  out.bad_data += stale_blocks(path, w, sh.last_stamp);
  return out;
}

class AioContentionTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    if (kUnderTsan && GetParam().method == IoMethodKind::kIoUring)
      GTEST_SKIP() << "io_uring under ThreadSanitizer: kernel ring synchronisation is invisible "
                      "to it; covered by the ASan build";
    write_pattern_file(dir_.file("t"), kReadOnlyBlocks + 16 * kOwnBlocks);
    file_ = IoFile::open(dir_.file("t"), "t");
  }
  std::unique_ptr<IoSystem> make_io(int handles_per_thread = kHandlesPerThread) {
    IoConfig config{.method = GetParam().method,
                    .io_workers = 2,
                    .io_direct = GetParam().direct,
                    .handles_per_thread = handles_per_thread};
    try {
      return std::make_unique<IoSystem>(config);
    } catch (const Error& e) {
      return nullptr;
    }
  }

  ScratchDir dir_;
  std::unique_ptr<IoFile> file_;
};

TEST_P(AioContentionTest, ThreadsReadWriteAndWaitForEachOther) {
  auto io = make_io();
  if (io == nullptr) GTEST_SKIP() << "method unavailable";
  Workload w{.threads = 4, .ios_per_thread = kUnderTsan ? 150 : 300, .depth = 8};
  Outcome out = run_workload(*io, *file_, dir_.file("t"), w);
  EXPECT_EQ(out.bad_results, 0);
  EXPECT_EQ(out.bad_data, 0);
  EXPECT_EQ(out.not_once, 0) << "I/Os completed other than exactly once";
  EXPECT_TRUE(io->in_flight().empty());
}

TEST_P(AioContentionTest, RetriesUnderContentionCompleteEveryIoOnce) {
  // The same workload with short transfers and EAGAIN injected on many blocks, so the
  // retry paths run on issuers, I/O workers and threads completing each other's I/O.
  auto io = make_io();
  if (io == nullptr) GTEST_SKIP() << "method unavailable";
  ScopedFaults faults;
  for (BlockNumber b = 2; b < kReadOnlyBlocks; b += 7)
    inject_fault({file_->relnumber(), b, FaultKind::kShortTransfer, /*once=*/false});
  for (BlockNumber b = 4; b < kReadOnlyBlocks; b += 23)
    inject_fault({file_->relnumber(), b, FaultKind::kAgain, /*once=*/true});
  for (BlockNumber b = kReadOnlyBlocks; b < kReadOnlyBlocks + 4 * kOwnBlocks; b += 3)
    inject_fault({file_->relnumber(), b, FaultKind::kShortTransfer, false, IoOp::kWrite});
  Workload w{.threads = 4, .ios_per_thread = kUnderTsan ? 120 : 250, .depth = 8};
  Outcome out = run_workload(*io, *file_, dir_.file("t"), w);
  EXPECT_EQ(out.bad_results, 0);
  EXPECT_EQ(out.bad_data, 0);
  EXPECT_EQ(out.not_once, 0);
  EXPECT_GT(fault_hits(), 0u);
}

TEST_P(AioContentionTest, ManyWaitersOnTheSameDeferredReads) {
  // One issuer with a single handle, so every read reuses it at a new generation; six
  // waiters wait for whatever generation they last saw, often a stale one. Under sync
  // each advised read is deferred and claimed by its first waiter: a stale waiter's
  // claim must never hand the handle's newer read to a second executor.
  auto io = make_io(/*handles_per_thread=*/1);
  if (io == nullptr) GTEST_SKIP() << "method unavailable";
  const int kReads = kUnderTsan ? 300 : 1500;
  std::vector<std::atomic<int>> completions(static_cast<size_t>(kReads));
  std::atomic<uint64_t> published{0};  // handle index << 40 | generation; 0 = none yet
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> waiters;
  for (int k = 0; k < 6; ++k)
    waiters.emplace_back([&] {
      while (!done.load()) {
        uint64_t p = published.load();
        if (p == 0) {
          std::this_thread::yield();
          continue;
        }
        io->wait(IoWaitRef{uint32_t(p >> 40), p & ((uint64_t{1} << 40) - 1)});
        std::this_thread::yield();
      }
    });
  std::thread issuer([&] {
    AlignedBuffer buf(2);
    for (int i = 0; i < kReads; ++i) {
      IoResult r;
      IoHandle* h = io->acquire(&r);
      h->set_completion({&count_completion, {reinterpret_cast<uint64_t>(&completions[size_t(i)])}});
      h->set_flags(kIoFlagAdvice);
      IoWaitRef ref = h->wait_ref();
      BlockNumber first = BlockNumber((i * 13) % int(kReadOnlyBlocks - 2));
      io->start_read(h, *file_, first, buf.data(), 2);
      published.store(uint64_t(ref.handle_index) << 40 | ref.generation);
      io->wait(ref);
      if (!r.ok() || !is_pattern_block(buf.block(0), first) ||
          !is_pattern_block(buf.block(1), first + 1))
        bad.fetch_add(1);
    }
    done.store(true);
  });
  issuer.join();
  for (auto& t : waiters) t.join();
  EXPECT_EQ(bad.load(), 0);
  int not_once = 0;
  for (auto& c : completions) not_once += c.load() != 1;
  EXPECT_EQ(not_once, 0) << "reads completed other than exactly once";
}

TEST_P(AioContentionTest, WaitersOfAnInlineIoSleepUntilItsIssuerCompletesIt) {
  // kIoFlagSynchronous I/O runs in its issuer under every method; a waiter that sees it
  // SUBMITTED must neither claim it (sync) nor wait on the issuer's ring (io_uring).
  auto io = make_io();
  if (io == nullptr) GTEST_SKIP() << "method unavailable";
  const int kIos = kUnderTsan ? 200 : 1000;
  std::vector<std::atomic<int>> completions(static_cast<size_t>(kIos));
  std::atomic<uint64_t> published{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> waiters;
  for (int k = 0; k < 3; ++k)
    waiters.emplace_back([&] {
      while (!done.load()) {
        uint64_t p = published.load();
        if (p != 0) io->wait(IoWaitRef{uint32_t(p >> 40), p & ((uint64_t{1} << 40) - 1)});
        std::this_thread::yield();
      }
    });
  AlignedBuffer buf(1);
  int bad = 0;
  for (int i = 0; i < kIos; ++i) {
    IoResult r;
    IoHandle* h = io->acquire(&r);
    h->set_completion({&count_completion, {reinterpret_cast<uint64_t>(&completions[size_t(i)])}});
    h->set_flags(kIoFlagSynchronous);
    IoWaitRef ref = h->wait_ref();
    published.store(uint64_t(ref.handle_index) << 40 | ref.generation);  // before it starts
    BlockNumber block = BlockNumber(i % int(kReadOnlyBlocks));
    io->start_read(h, *file_, block, buf.data(), 1);
    bad += !r.ok() || !is_pattern_block(buf.data(), block);
  }
  done.store(true);
  for (auto& t : waiters) t.join();
  EXPECT_EQ(bad, 0);
  int not_once = 0;
  for (auto& c : completions) not_once += c.load() != 1;
  EXPECT_EQ(not_once, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Methods, AioContentionTest,
    ::testing::Values(Param{IoMethodKind::kSync, false}, Param{IoMethodKind::kSync, true},
                      Param{IoMethodKind::kWorker, false}, Param{IoMethodKind::kWorker, true},
                      Param{IoMethodKind::kIoUring, false}, Param{IoMethodKind::kIoUring, true}),
    param_name);

// io_uring under heavy contention, with short completions and EAGAIN injected on hot
// blocks so owners resubmit to their rings and other threads finish short transfers they
// reaped with preadv, all while everyone waits for everyone's I/O. Runs without
// ThreadSanitizer (the ASan build); asserts outcomes instead.
TEST(AioUringContention, EveryIoCompletesOnceWithTheRightBytes) {
  if (kUnderTsan) GTEST_SKIP() << "io_uring under ThreadSanitizer: covered by the ASan build";
  ScratchDir dir;
  write_pattern_file(dir.file("t"), kReadOnlyBlocks + 16 * kOwnBlocks);
  auto file = IoFile::open(dir.file("t"), "t");
  for (bool direct : {false, true}) {
    std::unique_ptr<IoSystem> io;
    try {
      io = std::make_unique<IoSystem>(
          IoConfig{.method = IoMethodKind::kIoUring, .io_direct = direct});
    } catch (const Error& e) {
      GTEST_SKIP() << "io_uring unavailable: " << e.what();
    }
    ScopedFaults faults;
    for (BlockNumber b = 3; b < kReadOnlyBlocks; b += 17)
      inject_fault({file->relnumber(), b, FaultKind::kShortTransfer, /*once=*/false});
    for (BlockNumber b = 5; b < kReadOnlyBlocks; b += 29)
      inject_fault({file->relnumber(), b, FaultKind::kAgain, /*once=*/true});
    for (BlockNumber b = kReadOnlyBlocks; b < kReadOnlyBlocks + 16 * kOwnBlocks; b += 5)
      inject_fault({file->relnumber(), b, FaultKind::kShortTransfer, false, IoOp::kWrite});
    Workload w{.threads = 8, .ios_per_thread = 1000, .depth = 16, .advice = false};
    Outcome out = run_workload(*io, *file, dir.file("t"), w);
    EXPECT_EQ(out.bad_results, 0) << (direct ? "direct" : "buffered");
    EXPECT_EQ(out.bad_data, 0) << (direct ? "direct" : "buffered");
    EXPECT_EQ(out.not_once, 0) << (direct ? "direct" : "buffered");
    EXPECT_GT(fault_hits(), 0u);
    EXPECT_TRUE(io->in_flight().empty());
  }
}

// The worker method's submission, as PostgreSQL 18's: a busy queue lock makes the
// submitter wait for it (briefly), never run the batch itself; only what does not fit in
// the queue runs in the submitter.
class AioWorkerQueue : public ::testing::Test {
 protected:
  void SetUp() override {
    write_pattern_file(dir_.file("t"), kReadOnlyBlocks);
    file_ = IoFile::open(dir_.file("t"), "t");
  }
  static uint64_t inline_count() {
    return io_stats_for(IoMethodKind::kWorker, IoContext::kNormal).submitted_inline;
  }
  // Submits `n` one-block reads from `first` on the calling thread in batches, waits for
  // them, and counts reads with wrong bytes or results into `bad`.
  void read_blocks(IoSystem& io, BlockNumber first, int n, std::atomic<int>& bad,
                   std::atomic<bool>* submitted = nullptr) {
    AlignedBuffer buf(static_cast<size_t>(n));
    std::vector<IoResult> results(static_cast<size_t>(n));
    std::vector<IoWaitRef> refs;
    io.enter_batch();
    for (int i = 0; i < n; ++i) {
      IoHandle* h = io.acquire(&results[size_t(i)]);
      refs.push_back(h->wait_ref());
      io.start_read(h, *file_, first + BlockNumber(i), buf.block(size_t(i)), 1);
    }
    io.exit_batch();
    if (submitted) submitted->store(true);
    for (IoWaitRef ref : refs) io.wait(ref);
    for (int i = 0; i < n; ++i)
      bad += !results[size_t(i)].ok() ||
             !is_pattern_block(buf.block(size_t(i)), first + BlockNumber(i));
  }

  ScratchDir dir_;
  std::unique_ptr<IoFile> file_;
};

TEST_F(AioWorkerQueue, ABatchMeetingABusyQueueLockWaitsForItInsteadOfRunningInline) {
  IoSystem io({.method = IoMethodKind::kWorker, .io_workers = 2});
  const uint64_t inline_before = inline_count();
  std::atomic<int> bad{0};
  std::atomic<bool> submitted{false};
  std::unique_lock<std::mutex> queue_lock = io.lock_queue_for_testing();
  ASSERT_TRUE(queue_lock.owns_lock());
  std::thread submitter([&] { read_blocks(io, 10, 8, bad, &submitted); });
  // Wait until the batch is handed to the method (all 8 SUBMITTED) or, had the submitter
  // run it itself, until the submission returned; then give it time to try the lock.
  for (;;) {
    int in_method = 0;
    for (const IoInFlightRow& row : io.in_flight()) in_method += row.state == IoState::kSubmitted;
    if (in_method == 8 || submitted.load()) break;
    std::this_thread::yield();
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(submitted.load()) << "the submitter went on while the queue lock was held";
  queue_lock.unlock();
  submitter.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(inline_count() - inline_before, 0u) << "a batch ran in its submitter";
}

TEST_F(AioWorkerQueue, OnlyWhatDoesNotFitInTheQueueRunsInTheSubmitter) {
  // One slow worker (each transfer delayed) and two threads submitting 64 reads each
  // against a queue of 64 while the lock is held: once the lock is free, the first
  // submissions fill the queue and only the overflow runs in the submitters.
  IoSystem io({.method = IoMethodKind::kWorker, .io_workers = 1});
  ScopedFaults faults;
  set_transfer_delay(file_->relnumber(), std::chrono::milliseconds(5));
  const uint64_t inline_before = inline_count();
  std::atomic<int> bad{0};
  std::atomic<int> submitted{0};
  std::unique_lock<std::mutex> queue_lock = io.lock_queue_for_testing();
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      std::atomic<bool> done{false};
      read_blocks(io, BlockNumber(t * 64), 64, bad, &done);
      ++submitted;
    });
  for (;;) {
    int in_method = 0;
    for (const IoInFlightRow& row : io.in_flight()) in_method += row.state == IoState::kSubmitted;
    if (in_method >= 64) break;  // at least one thread's first batch waits for the lock
    std::this_thread::yield();
  }
  queue_lock.unlock();
  for (auto& t : threads) t.join();
  set_transfer_delay(file_->relnumber(), std::chrono::milliseconds(0));
  EXPECT_EQ(bad.load(), 0);
  const uint64_t ran_inline = inline_count() - inline_before;
  EXPECT_GT(ran_inline, 0u) << "128 reads cannot all fit a queue of 64";
  EXPECT_LE(ran_inline, 64u) << "more ran in the submitters than overflowed the queue";
}

}  // namespace
}  // namespace tp::aio
