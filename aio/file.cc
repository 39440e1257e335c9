#include "aio/file.h"

#include <fcntl.h>
#include <linux/stat.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "engine/core/error.h"

namespace tp::aio {

namespace {

std::atomic<uint32_t> next_relnumber{16384};  // PostgreSQL's first user OID, for familiarity

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

[[noreturn]] void fail_path(const char* what, const std::string& path, int err) {
  throw Error(std::string("could not ") + what + " file " + quoted(path) + ": " +
              std::strerror(err))
      .with_sqlstate(sqlstate::for_errno(err));
}

}  // namespace

IoFile::IoFile(std::string path, std::string name, uint32_t relnumber, int fd)
    : path_(std::move(path)), name_(std::move(name)), relnumber_(relnumber), buffered_fd_(fd) {
  if (relnumber_ == 0) relnumber_ = next_relnumber.fetch_add(1, std::memory_order_relaxed);
  struct statx stx {};
  // The kernel fills stx_dio_* only for files that support direct I/O (ext4, xfs, ...).
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
      (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_mem_align != 0) {
    dio_mem_align_ = std::max<uint32_t>(stx.stx_dio_mem_align, 1);
  }
  refresh_size();
}

std::unique_ptr<IoFile> IoFile::create(const std::string& path, const std::string& relation_name,
                                       uint32_t relnumber) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail_path("create", path, errno);
  return std::unique_ptr<IoFile>(new IoFile(path, relation_name, relnumber, fd));
}

std::unique_ptr<IoFile> IoFile::open(const std::string& path, const std::string& relation_name,
                                     uint32_t relnumber, bool create_if_missing) {
  int flags = O_RDWR | O_CLOEXEC | (create_if_missing ? O_CREAT : 0);
  int fd = ::open(path.c_str(), flags, 0600);
  if (fd < 0) fail_path("open", path, errno);
  return std::unique_ptr<IoFile>(new IoFile(path, relation_name, relnumber, fd));
}

void IoFile::unlink_path(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) fail_path("remove", path, errno);
}

IoFile::~IoFile() {
  // close() errors cannot be reported from a destructor; the data is already written
  // (or fsync() reported the failure).
  ::close(buffered_fd_);
  int dfd = direct_fd_.load(std::memory_order_acquire);
  if (dfd >= 0) ::close(dfd);
}

void IoFile::fail(const char* what, int err) const {
  throw Error(std::string("could not ") + what + " file " + quoted(path_) + " of relation " +
              quoted(name_) + ": " + std::strerror(err))
      .with_sqlstate(sqlstate::for_errno(err));
}

int IoFile::direct_fd() {
  int fd = direct_fd_.load(std::memory_order_acquire);
  if (fd >= 0) return fd;
  std::lock_guard lock(direct_open_mutex_);
  fd = direct_fd_.load(std::memory_order_relaxed);
  if (fd >= 0) return fd;
  fd = ::open(path_.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == EINVAL)
      throw Error("could not open file " + quoted(path_) + " of relation " + quoted(name_) +
                      " for direct I/O: the file system does not support O_DIRECT",
                  {}, "Use a file system such as ext4 or xfs, or set io_direct off.")
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    fail("open (O_DIRECT)", err);
  }
  direct_fd_.store(fd, std::memory_order_release);
  return fd;
}

BlockNumber IoFile::refresh_size() {
  struct stat st {};
  if (::fstat(buffered_fd_, &st) != 0) fail("stat", errno);
  BlockNumber n = BlockNumber(uint64_t(st.st_size) / kBlockSize);
  size_blocks_.store(n, std::memory_order_release);
  return n;
}

void IoFile::extend_zeros(BlockNumber new_size_blocks) {
  BlockNumber current = refresh_size();
  if (new_size_blocks <= current) return;
  off_t start = off_t(current) * kBlockSize;
  off_t len = off_t(new_size_blocks - current) * kBlockSize;
  // Like PostgreSQL's smgrzeroextend: fallocate for bigger extensions, plain writes of
  // zeros for a few blocks (fallocate has a fixed cost and fragments small files).
  if (new_size_blocks - current > 8) {
    int rc = ::posix_fallocate(buffered_fd_, start, len);
    if (rc != 0) fail("extend", rc);
  } else {
    std::vector<char> zeros(size_t(len), 0);
    size_t done = 0;
    while (done < zeros.size()) {
      ssize_t n = ::pwrite(buffered_fd_, zeros.data() + done, zeros.size() - done, start + done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) fail("extend", errno);
      if (n == 0) fail("extend", ENOSPC);
      done += size_t(n);
    }
  }
  refresh_size();
}

void IoFile::truncate(BlockNumber nblocks) {
  if (::ftruncate(buffered_fd_, off_t(nblocks) * kBlockSize) != 0) fail("truncate", errno);
  size_blocks_.store(nblocks, std::memory_order_release);
}

void IoFile::fsync() {
  if (::fsync(buffered_fd_) != 0) fail("fsync", errno);
}

void IoFile::unlink() {
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) fail("remove", errno);
}

void IoFile::note_written_up_to(BlockNumber end_block) {
  BlockNumber cur = size_blocks_.load(std::memory_order_relaxed);
  while (cur < end_block &&
         !size_blocks_.compare_exchange_weak(cur, end_block, std::memory_order_acq_rel)) {
  }
}

}  // namespace tp::aio
