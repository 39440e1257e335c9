// Helpers shared by the aio tests: a scratch directory, files filled with a known
// pattern, 4096-aligned buffers, and counting open fds.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aio/aio.h"
#include "aio/file.h"
#include "engine/core/error.h"

namespace tp::aio::testing {

// The parameter of the per-method suites: an I/O method, buffered or direct.
struct Param {
  IoMethodKind method;
  bool direct;
};

// How gtest shows the parameter (ctest names carry it).
inline void PrintTo(const Param& p, std::ostream* os) {
  *os << io_method_name(p.method) << (p.direct ? " direct" : " buffered");
}

inline std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(io_method_name(info.param.method)) +
         (info.param.direct ? "_direct" : "_buffered");
}

// A fresh directory under /tmp, removed with its files at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/tp_aio_test.XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~ScratchDir() {
    if (DIR* d = ::opendir(path_.c_str())) {
      while (dirent* e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name != "." && name != "..") ::unlink((path_ + "/" + name).c_str());
      }
      ::closedir(d);
    }
    ::rmdir(path_.c_str());
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The byte at `offset` of block `block` in a pattern file.
inline std::byte pattern_byte(BlockNumber block, uint32_t offset) {
  return std::byte((block * 131u + offset * 7u + (offset >> 8)) & 0xff);
}

// Writes `nblocks` pattern blocks with plain pwrite (independent of the code under test).
inline void write_pattern_file(const std::string& path, BlockNumber nblocks) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) std::abort();
  std::vector<std::byte> block(kBlockSize);
  for (BlockNumber b = 0; b < nblocks; ++b) {
    for (uint32_t i = 0; i < kBlockSize; ++i) block[i] = pattern_byte(b, i);
    if (::pwrite(fd, block.data(), kBlockSize, off_t(b) * kBlockSize) != ssize_t(kBlockSize))
      std::abort();
  }
  ::close(fd);
}

// True if `page` holds block `block` of a pattern file.
inline bool is_pattern_block(const std::byte* page, BlockNumber block) {
  for (uint32_t i = 0; i < kBlockSize; ++i)
    if (page[i] != pattern_byte(block, i)) return false;
  return true;
}

// nblocks * 8 kB, 4096-aligned, zeroed.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t nblocks) : size_(nblocks * kBlockSize) {
    data_ = static_cast<std::byte*>(std::aligned_alloc(4096, size_));
    std::memset(data_, 0, size_);
  }
  ~AlignedBuffer() { std::free(data_); }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  std::byte* block(size_t i) { return data_ + i * kBlockSize; }
  std::byte* data() { return data_; }
  size_t size() const { return size_; }

 private:
  std::byte* data_;
  size_t size_;
};

inline int count_open_fds() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
    ::closedir(d);
  }
  return n - 1;  // the directory stream itself
}

// One IoSystem of the parameter's method (the test is skipped where the method
// cannot start) and a file "t" of pattern blocks; TearDown checks that no
// handle and no file descriptor leaked. read_blocks()/write_blocks() run one
// I/O and return the issuer's result.
class MethodFixture : public ::testing::TestWithParam<Param> {
 protected:
  explicit MethodFixture(int io_workers = 3, BlockNumber file_blocks = 64)
      : io_workers_(io_workers), file_blocks_(file_blocks) {}

  void SetUp() override {
    fds_before_ = count_open_fds();
    IoConfig config{
        .method = GetParam().method, .io_workers = io_workers_, .io_direct = GetParam().direct};
    try {
      io_ = std::make_unique<IoSystem>(config);
    } catch (const Error& e) {
      GTEST_SKIP() << "method " << io_method_name(config.method) << " unavailable: " << e.what();
    }
    write_pattern_file(dir_.file("t"), file_blocks_);
    file_ = IoFile::open(dir_.file("t"), "t");
  }
  void TearDown() override {
    if (io_ != nullptr) {
      EXPECT_TRUE(io_->in_flight().empty()) << "handles left in use";
      EXPECT_EQ(io_->idle_count(), io_->handles_per_thread()) << "handle leak";
    }
    file_.reset();
    io_.reset();
    EXPECT_EQ(count_open_fds(), fds_before_) << "fd leak";
  }

  IoResult read_blocks(BlockNumber first, int n, std::byte* buf) {
    IoResult result;
    IoHandle* h = io_->acquire(&result);
    IoWaitRef ref = h->wait_ref();
    io_->start_read(h, *file_, first, buf, n);
    io_->wait(ref);
    return result;
  }
  IoResult write_blocks(BlockNumber first, int n, const std::byte* buf) {
    IoResult result;
    IoHandle* h = io_->acquire(&result);
    IoWaitRef ref = h->wait_ref();
    io_->start_write(h, *file_, first, buf, n);
    io_->wait(ref);
    return result;
  }

  ScratchDir dir_;
  std::unique_ptr<IoSystem> io_;
  std::unique_ptr<IoFile> file_;

 private:
  const int io_workers_;
  const BlockNumber file_blocks_;
  int fds_before_ = 0;
};

}  // namespace tp::aio::testing
