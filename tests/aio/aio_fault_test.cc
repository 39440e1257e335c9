// Injected transfer faults under every method: errors after a partial transfer, short
// transfers and EAGAIN that must be retried, write errors (EIO, ENOSPC, short writes),
// and io_uring's resubmission from inside a refused submission.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <future>
#include <ostream>
#include <thread>
#include <vector>

#include "aio/aio.h"
#include "aio/faults.h"
#include "aio/file.h"
#include "engine/core/error.h"
#include "engine/core/wait_event.h"
#include "tests/aio/aio_test_util.h"

namespace tp::aio {
namespace {

using testing::AlignedBuffer;
using testing::is_pattern_block;
using testing::Param;
using testing::param_name;
using testing::write_pattern_file;

class AioFaultTest : public testing::MethodFixture {
 protected:
  AioFaultTest() : MethodFixture(/*io_workers=*/2) {}

  FaultRule rule(BlockNumber block, FaultKind kind, IoOp op = IoOp::kRead, bool once = true) {
    return FaultRule{file_->relnumber(), block, kind, once, op};
  }

  // The text check_io_result raises, and its hint.
  std::pair<std::string, std::string> raised(const IoResult& r) {
    try {
      check_io_result(r, *file_);
    } catch (const Error& e) {
      return {e.what(), e.hint()};
    }
    return {"no error", ""};
  }
  // Fills `n` blocks with a pattern distinct from the file's (block b holds byte b ^ 0xa5).
  static void fill_new(AlignedBuffer& buf, BlockNumber first, int n) {
    for (int i = 0; i < n; ++i)
      std::memset(buf.block(size_t(i)), int((first + BlockNumber(i)) ^ 0xa5), kBlockSize);
  }
  // True if block `block` of the file holds fill_new's bytes (read with plain pread).
  bool holds_new(BlockNumber block) {
    std::vector<unsigned char> page(kBlockSize);
    int fd = ::open(dir_.file("t").c_str(), O_RDONLY);
    ssize_t n = ::pread(fd, page.data(), kBlockSize, off_t(block) * kBlockSize);
    ::close(fd);
    if (n != ssize_t(kBlockSize)) return false;
    for (unsigned char c : page)
      if (c != ((block ^ 0xa5) & 0xff)) return false;
    return true;
  }
};

TEST_P(AioFaultTest, ReadFailingAfterAPartialTransferReportsTheBytesDone) {
  ScopedFaults faults;
  AlignedBuffer buf(4);
  // The first transfer stops at block 10 (a real short transfer); the next one, starting
  // there, fails. The result carries both: 2 blocks done and EIO.
  inject_fault(rule(10, FaultKind::kEio));
  IoResult r = read_blocks(8, 4, buf.data());
  EXPECT_EQ(r.status, IoStatus::kError);
  EXPECT_EQ(r.error_number, EIO);
  EXPECT_EQ(r.bytes_done, 2 * kBlockSize);
  EXPECT_EQ(r.blocks_done(), 2u);
  EXPECT_TRUE(is_pattern_block(buf.block(0), 8));
  EXPECT_TRUE(is_pattern_block(buf.block(1), 9));
  EXPECT_EQ(raised(r).first, "could not read blocks 8..11 of relation \"t\": Input/output error");
  EXPECT_EQ(fault_hits(), 1u);
  // The failing attempt may itself be a retry after a short transfer mid-block.
  inject_fault(rule(8, FaultKind::kShortTransfer));
  inject_fault(rule(11, FaultKind::kEio));
  r = read_blocks(8, 4, buf.data());
  EXPECT_EQ(r.status, IoStatus::kError);
  EXPECT_EQ(r.bytes_done, 3 * kBlockSize);
  EXPECT_EQ(fault_hits(), 3u);
}

TEST_P(AioFaultTest, ShortTransfersAreContinuedToTheFullLength) {
  ScopedFaults faults;
  AlignedBuffer buf(4);
  // Three short completions, two of them ending mid-block: each is resubmitted (io_uring:
  // by the owner, to its ring) or continued (sync, worker) from the first missing byte.
  inject_fault(rule(20, FaultKind::kShortTransfer));
  inject_fault(rule(21, FaultKind::kShortTransfer));
  inject_fault(rule(23, FaultKind::kShortTransfer));
  IoResult r = read_blocks(20, 4, buf.data());
  EXPECT_TRUE(r.ok()) << describe_io_failure(r, "t");
  EXPECT_EQ(r.bytes_done, 4 * kBlockSize);
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(is_pattern_block(buf.block(size_t(i)), BlockNumber(20 + i))) << "block " << i;
  EXPECT_EQ(fault_hits(), 3u);
}

TEST_P(AioFaultTest, EagainIsRetried) {
  ScopedFaults faults;
  AlignedBuffer buf(4);
  inject_fault(rule(30, FaultKind::kAgain));  // the very first attempt
  inject_fault(rule(32, FaultKind::kAgain));  // an attempt after a short transfer
  IoResult r = read_blocks(30, 4, buf.data());
  EXPECT_TRUE(r.ok()) << describe_io_failure(r, "t");
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(is_pattern_block(buf.block(size_t(i)), BlockNumber(30 + i))) << "block " << i;
  EXPECT_EQ(fault_hits(), 2u);
}

TEST_P(AioFaultTest, RetriesThenAnErrorReportTheBytesTransferred) {
  ScopedFaults faults;
  AlignedBuffer buf(4);
  inject_fault(rule(40, FaultKind::kShortTransfer));
  inject_fault(rule(41, FaultKind::kAgain));
  inject_fault(rule(43, FaultKind::kEio));
  IoResult r = read_blocks(40, 4, buf.data());
  EXPECT_EQ(r.status, IoStatus::kError);
  EXPECT_EQ(r.error_number, EIO);
  EXPECT_EQ(r.bytes_done, 3 * kBlockSize);
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(is_pattern_block(buf.block(size_t(i)), BlockNumber(40 + i))) << "block " << i;
  EXPECT_EQ(fault_hits(), 3u);
}

TEST_P(AioFaultTest, WriteErrorsAreReportedWithTheBytesWritten) {
  ScopedFaults faults;
  AlignedBuffer buf(4);
  fill_new(buf, 40, 4);
  inject_fault(rule(42, FaultKind::kEio, IoOp::kWrite));
  IoResult r = write_blocks(40, 4, buf.data());
  EXPECT_EQ(r.status, IoStatus::kError);
  EXPECT_EQ(r.op, IoOp::kWrite);
  EXPECT_EQ(r.error_number, EIO);
  EXPECT_EQ(r.bytes_done, 2 * kBlockSize);
  EXPECT_TRUE(holds_new(40));
  EXPECT_TRUE(holds_new(41));
  EXPECT_EQ(raised(r).first, "could not write blocks 40..43 of relation \"t\": Input/output error");

  fill_new(buf, 50, 1);
  inject_fault(rule(50, FaultKind::kNoSpace, IoOp::kWrite));
  r = write_blocks(50, 1, buf.data());
  EXPECT_EQ(r.status, IoStatus::kError);
  EXPECT_EQ(r.error_number, ENOSPC);
  EXPECT_EQ(r.bytes_done, 0u);
  auto [text, hint] = raised(r);
  EXPECT_EQ(text, "could not write block 50 of relation \"t\": No space left on device");
  EXPECT_EQ(hint, "Check free disk space.");
  EXPECT_EQ(fault_hits(), 2u);
  // Once: the same write now succeeds.
  r = write_blocks(50, 1, buf.data());
  EXPECT_TRUE(r.ok()) << describe_io_failure(r, "t");
  EXPECT_TRUE(holds_new(50));
}

TEST_P(AioFaultTest, ShortWritesAreRetriedOrReportedAsPostgresDoes) {
  ScopedFaults faults;
  AlignedBuffer buf(2);
  // A short transfer is continued: the write completes.
  fill_new(buf, 20, 2);
  inject_fault(rule(21, FaultKind::kShortTransfer, IoOp::kWrite));
  IoResult r = write_blocks(20, 2, buf.data());
  EXPECT_TRUE(r.ok()) << describe_io_failure(r, "t");
  EXPECT_TRUE(holds_new(20));
  EXPECT_TRUE(holds_new(21));
  // A write that stops making progress is reported with the bytes written.
  fill_new(buf, 25, 1);
  inject_fault(rule(25, FaultKind::kShortWrite, IoOp::kWrite));
  r = write_blocks(25, 1, buf.data());
  EXPECT_EQ(r.status, IoStatus::kPartial);
  EXPECT_EQ(r.bytes_done, kBlockSize / 2);
  auto [text, hint] = raised(r);
  EXPECT_EQ(text, "could not write block 25 of relation \"t\": wrote only 4096 of 8192 bytes");
  EXPECT_EQ(hint, "Check free disk space.");
  // EAGAIN on a write is retried too.
  fill_new(buf, 26, 2);
  inject_fault(rule(27, FaultKind::kAgain, IoOp::kWrite));
  r = write_blocks(26, 2, buf.data());
  EXPECT_TRUE(r.ok()) << describe_io_failure(r, "t");
  EXPECT_TRUE(holds_new(27));
  EXPECT_EQ(fault_hits(), 3u);
}

TEST_P(AioFaultTest, PersistentWriteFaultsNeverHang) {
  ScopedFaults faults;
  AlignedBuffer buf(8);
  fill_new(buf, 0, 8);
  inject_fault(rule(3, FaultKind::kEio, IoOp::kWrite, /*once=*/false));
  inject_fault(rule(5, FaultKind::kShortWrite, IoOp::kWrite, /*once=*/false));
  inject_fault(rule(6, FaultKind::kNoSpace, IoOp::kWrite, /*once=*/false));
  // Many writes in flight at once, each meeting a fault, some several.
  IoResult results[16];
  IoWaitRef refs[16];
  {
    IoBatch batch(*io_);
    for (int i = 0; i < 16; ++i) {
      IoHandle* h = io_->acquire(&results[i]);
      refs[i] = h->wait_ref();
      io_->start_write(h, *file_, BlockNumber(i % 8), buf.block(size_t(i % 8)), 1);
    }
  }
  for (IoWaitRef ref : refs) io_->wait(ref);
  for (int i = 0; i < 16; ++i) {
    BlockNumber b = BlockNumber(i % 8);
    IoStatus expected = b == 3 || b == 6 ? IoStatus::kError
                        : b == 5         ? IoStatus::kPartial
                                         : IoStatus::kOk;
    EXPECT_EQ(results[i].status, expected) << "block " << b;
  }
  // Reads of the same blocks are not affected by write rules.
  EXPECT_TRUE(read_blocks(3, 4, buf.data()).ok());
}

TEST_P(AioFaultTest, RetriesReapedByAnotherThreadFinishThere) {
  // The issuer starts two reads and parks; another thread waits for them. Under io_uring
  // that thread reaps the issuer's ring and, as it may not resubmit there, finishes each
  // short completion with preadv itself; under sync it runs the deferred reads; under
  // worker the workers do. Either way: the full read, or the error with what moved.
  ScopedFaults faults;
  inject_fault(rule(12, FaultKind::kShortTransfer));
  inject_fault(rule(21, FaultKind::kShortTransfer));
  inject_fault(rule(23, FaultKind::kEio));
  AlignedBuffer buf(8);
  IoResult whole, failed;
  IoWaitRef refs[2];
  std::promise<void> started;
  std::promise<void> waited;
  std::thread issuer([&] {
    IoResult* results[2] = {&whole, &failed};
    BlockNumber firsts[2] = {10, 20};
    for (int i = 0; i < 2; ++i) {
      IoHandle* h = io_->acquire(results[i]);
      h->set_flags(kIoFlagAdvice);  // sync: deferred to the waiter
      refs[i] = h->wait_ref();
      io_->start_read(h, *file_, firsts[i], buf.block(size_t(i) * 4), 4);
    }
    started.set_value();
    waited.get_future().wait();  // reaps nothing until the other thread is done
    io_->wait_all();
  });
  started.get_future().wait();
  io_->wait(refs[0]);
  io_->wait(refs[1]);
  waited.set_value();
  issuer.join();
  EXPECT_TRUE(whole.ok()) << describe_io_failure(whole, "t");
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(is_pattern_block(buf.block(size_t(i)), BlockNumber(10 + i))) << "block " << i;
  EXPECT_EQ(failed.status, IoStatus::kError);
  EXPECT_EQ(failed.error_number, EIO);
  EXPECT_EQ(failed.bytes_done, 3 * kBlockSize);
  EXPECT_EQ(fault_hits(), 3u);
}

TEST(AioFaultRules, KindsThatDoNotApplyAreRefused) {
  EXPECT_THROW(inject_fault({1, 1, FaultKind::kShortRead, true, IoOp::kWrite}), Error);
  EXPECT_THROW(inject_fault({1, 1, FaultKind::kCorrupt, true, IoOp::kWrite}), Error);
  EXPECT_THROW(inject_fault({1, 1, FaultKind::kNoSpace, true, IoOp::kRead}), Error);
  EXPECT_THROW(inject_fault({1, 1, FaultKind::kAgain, /*once=*/false}), Error);
  clear_faults();
}

// io_uring: a submission the kernel refuses with EBUSY reaps completions before trying
// again; a short completion reaped there is resubmitted at once (nested inside the
// refused submission), and that nested submission hands the kernel the outer submission's
// queued entries too. The outer one must see they are gone and stop, not spin forever.
TEST_P(AioFaultTest, NestedResubmissionInsideABusySubmissionEnds) {
  if (GetParam().method != IoMethodKind::kIoUring) GTEST_SKIP() << "io_uring only";
  ScopedFaults faults;
  AlignedBuffer buf(4);
  inject_fault(rule(11, FaultKind::kShortTransfer));  // read 10..12 completes short
  IoResult first;
  IoHandle* h = io_->acquire(&first);
  IoWaitRef first_ref = h->wait_ref();
  io_->start_read(h, *file_, 10, buf.data(), 3);
  // The next submission is refused as busy once the short completion is ready.
  inject_fault(rule(30, FaultKind::kRingBusy));
  IoResult second;
  h = io_->acquire(&second);
  IoWaitRef second_ref = h->wait_ref();
  io_->start_read(h, *file_, 30, buf.block(3), 1);  // hung here before the fix
  EXPECT_EQ(fault_hits(), 2u);
  io_->wait(first_ref);
  io_->wait(second_ref);
  EXPECT_TRUE(first.ok()) << describe_io_failure(first, "t");
  EXPECT_TRUE(second.ok()) << describe_io_failure(second, "t");
  for (int i = 0; i < 3; ++i)
    EXPECT_TRUE(is_pattern_block(buf.block(size_t(i)), BlockNumber(10 + i)));
  EXPECT_TRUE(is_pattern_block(buf.block(3), 30));
}

// Watches `slot` from another thread until `done`; returns the last non-zero wait seen.
class WaitWatcher {
 public:
  explicit WaitWatcher(std::atomic<uint32_t>& slot)
      : thread_([this, &slot] {
          while (!done_.load())
            if (uint32_t w = slot.load()) seen_.store(w);
        }) {}
  WaitEvent stop() {
    done_ = true;
    thread_.join();
    return WaitEvent(seen_.load());
  }

 private:
  std::atomic<bool> done_{false};
  std::atomic<uint32_t> seen_{0};
  std::thread thread_;
};

// A delayed read (set_transfer_delay) is published as the waiting thread's wait event:
// DataFileRead for its own read (waited for, or run inline by sync), AioIoCompletion for
// another thread waiting on the same I/O; the slot is clear again once the wait is over.
TEST_P(AioFaultTest, SlowReadsArePublishedAsWaitEvents) {
  AlignedBuffer buf(1);
  set_transfer_delay(file_->relnumber(), std::chrono::milliseconds(30));
  std::atomic<uint32_t> mine{0};
  std::atomic<uint32_t>* saved = wait_event_slot();
  wait_event_slot() = &mine;
  WaitWatcher watch_mine(mine);
  IoResult own = read_blocks(0, 1, buf.data());
  EXPECT_EQ(watch_mine.stop(), WaitEvent::kDataFileRead);
  EXPECT_EQ(mine.load(), 0u);
  wait_event_slot() = saved;
  EXPECT_TRUE(own.ok());

  if (GetParam().method != IoMethodKind::kSync) {  // sync reads at submission: nothing to wait for
    std::atomic<uint32_t> theirs{0};
    IoResult result;
    IoHandle* h = io_->acquire(&result);
    IoWaitRef ref = h->wait_ref();
    io_->start_read(h, *file_, 1, buf.data(), 1);
    WaitWatcher watch_theirs(theirs);
    std::thread other([&] {
      wait_event_slot() = &theirs;
      io_->wait(ref);
      wait_event_slot() = nullptr;
    });
    other.join();
    EXPECT_EQ(watch_theirs.stop(), WaitEvent::kAioIoCompletion);
    io_->wait(ref);
    EXPECT_TRUE(result.ok());
  }
  set_transfer_delay(file_->relnumber(), std::chrono::microseconds(0));
}

INSTANTIATE_TEST_SUITE_P(
    Methods, AioFaultTest,
    ::testing::Values(Param{IoMethodKind::kSync, false}, Param{IoMethodKind::kSync, true},
                      Param{IoMethodKind::kWorker, false}, Param{IoMethodKind::kWorker, true},
                      Param{IoMethodKind::kIoUring, false}, Param{IoMethodKind::kIoUring, true}),
    param_name);

}  // namespace
}  // namespace tp::aio
