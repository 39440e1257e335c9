// Helpers for the bufmgr tests: a scratch directory, relation files whose pages carry
// their own identity (relation, block, version) and a checksum, and a fixture that
// builds an IoSystem for each aio method (skipping a method this build or kernel lacks)
// plus a pool, and checks for leaked pins, handles and fds after every test.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aio/aio.h"
#include "aio/faults.h"
#include "aio/file.h"
#include "bufmgr/buffer_pool.h"
#include "engine/core/error.h"
#include "engine/core/page.h"
#include "tests/aio/aio_test_util.h"

namespace tp::bufmgr::testing {

using aio::testing::count_open_fds;
using aio::testing::ScratchDir;

// The item every test page carries: who it is and how often it was rewritten.
struct PageStamp {
  uint32_t relnumber;
  BlockNumber block;
  uint32_t version;
  uint32_t filler[13];
};

// Formats `page` as block `block` of relation `relnumber`, version `version`.
inline void stamp_page(char* page, uint32_t relnumber, BlockNumber block, uint32_t version) {
  page_init(page, 0);
  PageStamp s{relnumber, block, version, {}};
  for (uint32_t i = 0; i < 13; ++i) s.filler[i] = block * 31 + version * 7 + i;
  TP_ASSERT(page_add_item(page, &s, sizeof s) == 1);
}

// The stamp on a page, or nullopt if the page does not carry one.
inline std::optional<PageStamp> read_stamp(const char* page) {
  if (page_is_new(page) || page_max_offset(page) < 1) return std::nullopt;
  PageStamp s;
  std::memcpy(&s, page_item(page, 1), sizeof s);
  return s;
}

// True if `page` is block `block` of `relnumber` at `version` and its bytes are intact.
inline bool page_is(const char* page, uint32_t relnumber, BlockNumber block, uint32_t version) {
  auto s = read_stamp(page);
  if (!s || s->relnumber != relnumber || s->block != block || s->version != version) return false;
  for (uint32_t i = 0; i < 13; ++i)
    if (s->filler[i] != block * 31 + version * 7 + i) return false;
  return true;
}

// Writes `nblocks` stamped, checksummed pages (version 1) with plain pwrite, so the
// file's contents do not depend on the code under test.
inline void write_relation_file(const std::string& path, uint32_t relnumber, BlockNumber nblocks) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) std::abort();
  alignas(8) char page[kBlockSize];
  for (BlockNumber b = 0; b < nblocks; ++b) {
    stamp_page(page, relnumber, b, 1);
    page_set_checksum(page, b);
    if (::pwrite(fd, page, kBlockSize, off_t(b) * kBlockSize) != ssize_t(kBlockSize)) std::abort();
  }
  ::close(fd);
}

// Reads block `block` straight from the file (pread), bypassing the pool.
inline std::vector<char> read_block_raw(const std::string& path, BlockNumber block) {
  std::vector<char> page(kBlockSize);
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) std::abort();
  ssize_t n = ::pread(fd, page.data(), kBlockSize, off_t(block) * kBlockSize);
  ::close(fd);
  if (n != ssize_t(kBlockSize)) page.clear();
  return page;
}

// A scratch directory, an IoSystem of the parameter's method and a pool; after the test,
// asserts that nothing is pinned, every I/O handle of this thread is idle and no fd leaked.
class PoolTest : public ::testing::TestWithParam<aio::IoMethodKind> {
 protected:
  void SetUp() override {
    fds_before_ = count_open_fds();
    try {
      io_ = std::make_unique<aio::IoSystem>(aio::IoConfig{.method = GetParam()});
    } catch (const Error& e) {
      GTEST_SKIP() << "io_method " << aio::io_method_name(GetParam())
                   << " unavailable here: " << e.what();
    }
  }
  void TearDown() override {
    if (!io_) return;
    if (pool_) {
      EXPECT_EQ(pool_->pins_held(), 0u) << "a test leaked pins";
      pool_.reset();
    }
    EXPECT_EQ(io_->in_flight_count(), 0) << "a test left I/O in flight";
    EXPECT_EQ(io_->idle_count(), io_->config().handles_per_thread) << "a test leaked a handle";
    files_.clear();
    io_.reset();
    EXPECT_EQ(count_open_fds(), fds_before_) << "a test leaked a file descriptor";
  }

  BufferPool& make_pool(int buffers, int max_pins = 0) {
    pool_ = std::make_unique<BufferPool>(
        *io_, BufferPoolConfig{.shared_buffers = buffers, .max_pins_per_thread = max_pins});
    return *pool_;
  }

  // A relation file of `nblocks` stamped pages, opened; named `name` in messages.
  aio::IoFile& make_relation(const std::string& name, BlockNumber nblocks) {
    std::string path = dir_.file(name);
    uint32_t relnumber = next_relnumber_++;
    write_relation_file(path, relnumber, nblocks);
    files_.push_back(aio::IoFile::open(path, name, relnumber));
    return *files_.back();
  }

  ScratchDir dir_;
  std::unique_ptr<aio::IoSystem> io_;
  std::unique_ptr<BufferPool> pool_;
  std::vector<std::unique_ptr<aio::IoFile>> files_;
  int fds_before_ = 0;
  uint32_t next_relnumber_ = 7000;
};

inline std::string method_param_name(const ::testing::TestParamInfo<aio::IoMethodKind>& info) {
  return info.param == aio::IoMethodKind::kIoUring ? "io_uring" : aio::io_method_name(info.param);
}

#define TP_ALL_IO_METHODS                                                             \
  ::testing::Values(::tp::aio::IoMethodKind::kSync, ::tp::aio::IoMethodKind::kWorker, \
                    ::tp::aio::IoMethodKind::kIoUring),                               \
      ::tp::bufmgr::testing::method_param_name

}  // namespace tp::bufmgr::testing
