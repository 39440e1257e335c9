// The aio test suite, run against every method, buffered and direct.
#include <gtest/gtest.h>

#include <thread>

#include "aio/aio.h"
#include "aio/faults.h"
#include "aio/file.h"
#include "aio/stats.h"
#include "engine/error.h"
#include "tests/aio/aio_test_util.h"

namespace tp::aio {
namespace {

using testing::AlignedBuffer;
using testing::count_open_fds;
using testing::is_pattern_block;
using testing::ScratchDir;
using testing::write_pattern_file;

struct Param {
  IoMethodKind method;
  bool direct;
};

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(io_method_name(info.param.method)) +
         (info.param.direct ? "_direct" : "_buffered");
}

class AioTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    fds_before_ = count_open_fds();
    IoConfig config;
    config.method = GetParam().method;
    config.io_direct = GetParam().direct;
    config.io_workers = 3;
    try {
      io_ = std::make_unique<IoSystem>(config);
    } catch (const Error& e) {
      GTEST_SKIP() << "method " << io_method_name(config.method) << " unavailable: " << e.what();
    }
    write_pattern_file(dir_.file("t"), 64);
    file_ = IoFile::open(dir_.file("t"), "t");
  }
  void TearDown() override {
    file_.reset();
    io_.reset();
    EXPECT_EQ(count_open_fds(), fds_before_) << "fd leak";
  }

  // Reads `n` blocks from `first` into `buf` and waits; returns the issuer's result.
  IoResult read_blocks(BlockNumber first, int n, std::byte* buf) {
    IoResult result;
    IoHandle* h = io_->acquire(&result);
    IoWaitRef ref = h->wait_ref();
    io_->start_read(h, *file_, first, buf, n);
    io_->wait(ref);
    return result;
  }

  ScratchDir dir_;
  int fds_before_ = 0;
  std::unique_ptr<IoSystem> io_;
  std::unique_ptr<IoFile> file_;
};

TEST_P(AioTest, ReadsOneBlock) {
  AlignedBuffer buf(1);
  IoResult r = read_blocks(17, 1, buf.data());
  EXPECT_EQ(r.status, IoStatus::kOk) << describe_io_failure(r, "t");
  EXPECT_EQ(r.bytes_done, kBlockSize);
  EXPECT_EQ(r.first_block, 17u);
  EXPECT_EQ(r.relnumber, file_->relnumber());
  EXPECT_TRUE(is_pattern_block(buf.data(), 17));
  EXPECT_EQ(io_->in_flight_count(), 0);
  EXPECT_EQ(io_->idle_count(), kHandlesPerThread);
}

TEST_P(AioTest, WriteThenReadBack) {
  AlignedBuffer out(2), in(2);
  for (size_t i = 0; i < out.size(); ++i) out.data()[i] = std::byte(i * 13 % 251);
  IoResult w;
  IoHandle* h = io_->acquire(&w);
  IoWaitRef ref = h->wait_ref();
  io_->start_write(h, *file_, 70, out.data(), 2);  // past the end: extends the file
  io_->wait(ref);
  ASSERT_TRUE(w.ok()) << describe_io_failure(w, "t");
  EXPECT_EQ(file_->size_blocks(), 72u);
  IoResult r = read_blocks(70, 2, in.data());
  ASSERT_TRUE(r.ok()) << describe_io_failure(r, "t");
  EXPECT_EQ(0, std::memcmp(in.data(), out.data(), out.size()));
}

TEST_P(AioTest, StaleWaitRefReturnsAtOnce) {
  AlignedBuffer buf(1);
  IoResult r;
  IoHandle* h = io_->acquire(&r);
  IoWaitRef ref = h->wait_ref();
  EXPECT_EQ(h->state(), IoState::kHandedOut);
  io_->start_read(h, *file_, 3, buf.data(), 1);
  io_->wait(ref);
  EXPECT_TRUE(r.ok());
  // The handle went back to IDLE with a new generation: the old ref is finished.
  EXPECT_EQ(h->state(), IoState::kIdle);
  EXPECT_EQ(h->generation(), ref.generation + 1);
  io_->wait(ref);
  EXPECT_TRUE(io_->check_done(ref));
  // Reused at once (idle list is LIFO) with the next generation.
  IoHandle* again = io_->acquire(nullptr);
  EXPECT_EQ(again, h);
  EXPECT_EQ(again->wait_ref().generation, ref.generation + 1);
  io_->release(again);
  EXPECT_EQ(h->generation(), ref.generation + 2);
}

INSTANTIATE_TEST_SUITE_P(Methods, AioTest,
                         ::testing::Values(Param{IoMethodKind::kSync, false},
                                           Param{IoMethodKind::kSync, true}),
                         param_name);

}  // namespace
}  // namespace tp::aio
