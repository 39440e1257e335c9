// aio tests that are not per method: names, configuration errors, files, the state
// machine's guard, the sync method's advice, io_uring setup advice.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <vector>

#include "aio/aio.h"
#include "aio/device_probe.h"
#include "aio/file.h"
#include "aio/internal.h"
#include "aio/method.h"
#include "aio/stats.h"
#include "engine/core/error.h"
#include "tests/aio/aio_test_util.h"

namespace tp::aio {
namespace {

using testing::AlignedBuffer;
using testing::is_pattern_block;
using testing::ScratchDir;
using testing::write_pattern_file;

TEST(AioNames, MethodsParseAndPrint) {
  for (IoMethodKind m : {IoMethodKind::kSync, IoMethodKind::kWorker, IoMethodKind::kIoUring})
    EXPECT_EQ(parse_io_method(io_method_name(m)), m);
  try {
    parse_io_method("posix_aio");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid value for parameter \"io_method\": \"posix_aio\"");
    EXPECT_EQ(e.hint(), "Available values: sync, worker, io_uring.");
  }
  EXPECT_STREQ(io_state_name(IoState::kCompletedShared), "COMPLETED_SHARED");
  EXPECT_STREQ(io_context_name(IoContext::kBulkRead), "bulkread");
}

TEST(AioConfig, WorkerCountOutOfRangeIsRefused) {
  IoConfig config;
  config.method = IoMethodKind::kWorker;
  config.io_workers = 33;
  try {
    IoSystem io(config);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "invalid value for parameter \"io_workers\": 33");
  }
  config.io_workers = 0;
  EXPECT_THROW(IoSystem{config}, Error);
}

TEST(AioUring, SetupErrorsBecomeAdvice) {
  try {
    raise_uring_setup_error(EPERM);
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "could not set up io_uring: io_uring is disabled on this system (sysctl "
                 "kernel.io_uring_disabled)");
    EXPECT_THAT(e.hint(), ::testing::HasSubstr("io_method=worker"));
  }
  try {
    raise_uring_setup_error(ENOMEM);
  } catch (const Error& e) {
    EXPECT_THAT(e.hint(), ::testing::HasSubstr("ulimit -l"));
  }
  try {
    raise_uring_setup_error(ENOSYS);
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("kernel does not support io_uring"));
    EXPECT_THAT(e.hint(), ::testing::HasSubstr("io_method=worker"));
  }
}

TEST(IoFileTest, CreateExtendTruncateUnlink) {
  ScratchDir dir;
  auto f = IoFile::create(dir.file("r"), "r");
  EXPECT_EQ(f->size_blocks(), 0u);
  EXPECT_GE(f->relnumber(), 16384u);
  f->extend_zeros(3);  // written zeros
  EXPECT_EQ(f->size_blocks(), 3u);
  f->extend_zeros(100);  // fallocate
  EXPECT_EQ(f->size_blocks(), 100u);
  EXPECT_EQ(f->refresh_size(), 100u);
  f->truncate(10);
  EXPECT_EQ(f->refresh_size(), 10u);
  f->fsync();
  EXPECT_GE(f->dio_mem_align(), 1u);
  EXPECT_GE(f->direct_fd(), 0);
  EXPECT_EQ(f->direct_fd(), f->direct_fd());  // opened once
  try {
    IoFile::create(dir.file("r"), "r");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "could not create file \"" + dir.file("r") + "\": File exists");
  }
  f->unlink();
  f.reset();
  try {
    IoFile::open(dir.file("r"), "r");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "could not open file \"" + dir.file("r") + "\": No such file or directory");
  }
  IoFile::unlink_path(dir.file("r"));  // missing is fine
  auto g = IoFile::open(dir.file("s"), "s", 77, /*create_if_missing=*/true);
  EXPECT_EQ(g->relnumber(), 77u);
}

TEST(AioSync, AdvisedBufferedReadIsDeferredToTheWait) {
  ScratchDir dir;
  write_pattern_file(dir.file("t"), 16);
  auto file = IoFile::open(dir.file("t"), "t");
  IoSystem io({.method = IoMethodKind::kSync});
  io_stats_reset();
  AlignedBuffer buf(4);
  IoResult r;
  IoHandle* h = io.acquire(&r);
  h->set_flags(kIoFlagAdvice);
  IoWaitRef ref = h->wait_ref();
  io.start_read(h, *file, 4, buf.data(), 4);
  // posix_fadvise(WILLNEED) went out; the read itself waits for the consumer.
  EXPECT_EQ(h->state(), IoState::kSubmitted);
  EXPECT_FALSE(io.check_done(ref));
  EXPECT_EQ(io_stats_for(IoMethodKind::kSync, IoContext::kNormal).prefetch_advices, 1u);
  io.wait(ref);
  EXPECT_TRUE(r.ok());
  for (int i = 0; i < 4; ++i)
    EXPECT_TRUE(is_pattern_block(buf.block(size_t(i)), BlockNumber(4 + i)));
  // Without advice, sync reads run at submission.
  IoResult r2;
  h = io.acquire(&r2);
  io.start_read(h, *file, 0, buf.data(), 1);
  EXPECT_TRUE(r2.ok());
  io_stats_reset();
}

TEST(AioSync, ClaimsOnlyMoveForwardToTheCurrentGeneration) {
  // A waiter that read the handle at an older generation and was descheduled before it
  // claimed must not take the claim back from the executor of the handle's newer I/O:
  // that would let a third thread claim (and run, and complete) the newer I/O again.
  ScratchDir dir;
  write_pattern_file(dir.file("t"), 8);
  auto file = IoFile::open(dir.file("t"), "t");
  IoSystem io({.method = IoMethodKind::kSync});
  IoHandle* h = io.acquire(nullptr);
  const uint64_t old_generation = h->generation();
  io.release(h);
  IoResult r;
  IoHandle* again = io.acquire(&r);
  ASSERT_EQ(again, h);  // the idle list hands the warm handle out first
  const uint64_t generation = h->generation();
  ASSERT_GT(generation, old_generation);
  AlignedBuffer buf(1);
  h->set_flags(kIoFlagAdvice);  // deferred: the claim decides who runs it
  IoWaitRef ref = h->wait_ref();
  io.start_read(h, *file, 3, buf.data(), 1);
  ASSERT_EQ(h->state(), IoState::kSubmitted);

  EXPECT_TRUE(sync_claim_execution(*h, generation));       // the first waiter wins
  EXPECT_FALSE(sync_claim_execution(*h, old_generation));  // a stale claimer loses ...
  EXPECT_FALSE(sync_claim_execution(*h, generation));      // ... and changes nothing
  EXPECT_FALSE(sync_claim_execution(*h, generation + 1));  // nor can a future one claim
  EXPECT_EQ(HandleOps::claimed_generation(*h).load(), generation);

  // We hold the claim, so we execute it, as the winning waiter would.
  complete_io(*h, execute_io_now(*h), nullptr);
  io.wait(ref);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(is_pattern_block(buf.data(), 3));
}

TEST(AioSync, SynchronousFlagRunsAtSubmissionInEveryMethod) {
  ScratchDir dir;
  write_pattern_file(dir.file("t"), 4);
  auto file = IoFile::open(dir.file("t"), "t");
  IoSystem io({.method = IoMethodKind::kWorker, .io_workers = 2});
  AlignedBuffer buf(1);
  IoResult r;
  IoHandle* h = io.acquire(&r);
  h->set_flags(kIoFlagSynchronous);
  io.start_read(h, *file, 2, buf.data(), 1);
  EXPECT_TRUE(r.ok());  // completed and reclaimed before start_read returned
  EXPECT_TRUE(is_pattern_block(buf.data(), 2));
}

TEST(AioStateMachineDeathTest, IllegalTransitionAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        IoSystem io({.method = IoMethodKind::kSync});
        IoHandle* h = io.acquire(nullptr);
        HandleOps::set_state(*h, IoState::kSubmitted);
      },
      "illegal I/O handle transition HANDED_OUT -> SUBMITTED");
}

TEST(DeviceProbe, MeasuresEveryCombinationAndChecksTheBytes) {
  ScratchDir dir;
  DeviceProbeConfig config;
  config.directory = dir.file("");
  config.file_size_mb = 4;
  config.seconds_per_run = 0.02;
  config.random_depths = {1, 4};
  config.methods = {IoMethodKind::kSync, IoMethodKind::kWorker};
  int seen = 0;
  std::vector<DeviceProbeRow> rows =
      run_device_probe(config, [&](const DeviceProbeRow&) { ++seen; });
  ASSERT_EQ(rows.size(), 2u * 2u * 3u);  // methods x direct modes x (seq + 2 depths)
  EXPECT_EQ(seen, int(rows.size()));
  for (const DeviceProbeRow& row : rows) {
    EXPECT_GT(row.ios, 0u) << format_device_probe_row(row);
    EXPECT_EQ(row.failed_ios, 0u) << format_device_probe_row(row);
    EXPECT_EQ(row.block_size_bytes, row.pattern == "seq" ? 131072u : 8192u);
  }
  EXPECT_EQ(rows[0].method, "sync");
  EXPECT_THAT(format_device_probe_row(rows[1]),
              ::testing::StartsWith("method=sync direct=1 pattern=random depth=1 block_size=8192"));
  // The stamped file is reused by the next run rather than rewritten.
  std::string path = prepare_device_probe_file(config);
  IoFile::unlink_path(path);
}

// Any file, read once start to end in a seq scan's shape: every block read once, the reads
// and their depth fitted to a file too small for what was asked.
TEST(DeviceProbe, ReadsAnExistingFileOnceWholeFittingSmallFiles) {
  ScratchDir dir;
  const std::string path = dir.file("heap");
  {
    auto f = IoFile::create(path, "heap", 1);
    std::vector<std::byte> page(kBlockSize, std::byte{7});
    for (int b = 0; b < 100; ++b)
      ASSERT_EQ(::pwrite(f->buffered_fd(), page.data(), kBlockSize, off_t(b) * kBlockSize),
                ssize_t(kBlockSize));
  }
  for (IoMethodKind method : {IoMethodKind::kSync, IoMethodKind::kWorker}) {
    DeviceProbeRow row = probe_file_sequential(path, method, /*direct=*/true, 16, 16, 3);
    EXPECT_EQ(row.ios, 6u) << format_device_probe_row(row);  // 96 of the 100 blocks
    EXPECT_EQ(row.depth, 6);                                 // only 6 reads fit
    EXPECT_EQ(row.block_size_bytes, 16u * kBlockSize);
    EXPECT_EQ(row.failed_ios, 0u);
    EXPECT_GT(row.mb_per_s, 0);
    EXPECT_EQ(row.pattern, "seq");
  }
  DeviceProbeRow one = probe_file_sequential(path, IoMethodKind::kSync, false, 4, 1, 3);
  EXPECT_EQ(one.ios, 100u);  // 8 kB reads: every block
  EXPECT_EQ(one.depth, 4);
  const std::string empty = dir.file("empty");
  IoFile::create(empty, "empty", 2);
  EXPECT_THROW(probe_file_sequential(empty, IoMethodKind::kSync, true, 16, 16, 3), Error);
  EXPECT_THROW(probe_file_sequential(dir.file("missing"), IoMethodKind::kSync, true, 16, 16, 3),
               Error);
}

}  // namespace
}  // namespace tp::aio
