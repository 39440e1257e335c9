// Temporary files (temp_file.h has the design): plain pread/pwrite at explicit offsets,
// so appends and reads keep their own positions, through 8 kB buffers.
#include "aio/temp_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "engine/core/error.h"

namespace tp::aio {

// What a space's files need after the space may be gone: the set of live files (whose
// names the space removes when it goes), the counters and the test fault.
struct TempSpaceState {
  std::string directory;
  std::mutex mutex;
  std::unordered_set<TempFile*> live;  // guarded by mutex
  // Names already removed (by the space's end or a failed write), guarded by mutex.
  std::unordered_set<const TempFile*> unlinked;
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> files_open{0};
  std::atomic<uint64_t> files_created{0};
  std::atomic<int> fault_err{0};
  std::atomic<uint64_t> fault_limit{0};

  // Removes `f`'s name unless already done. Mutex held.
  void unlink_locked(const TempFile* f, const std::string& path) {
    if (unlinked.insert(f).second) ::unlink(path.c_str());
  }
};

namespace {

constexpr size_t kBufferBytes = 8192;

// One counter for the whole process: two spaces over one directory never collide.
std::atomic<uint64_t> next_file_number{0};

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw Error("could not " + what + " \"" + path + "\": " + std::strerror(err))
      .with_sqlstate(sqlstate::for_errno(err));
}

// 1-`max` digits, no leading zero unless the number is 0.
bool is_number(std::string_view s, size_t max) {
  if (s.empty() || s.size() > max || (s.size() > 1 && s[0] == '0')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool is_temp_file_name(std::string_view name) {
  if (!name.starts_with(kTempFilePrefix)) return false;
  name.remove_prefix(kTempFilePrefix.size());
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view pid = name.substr(0, dot), counter = name.substr(dot + 1);
  return is_number(pid, 10) && pid != "0" && is_number(counter, 20);
}

size_t remove_leftover_temp_files(const std::string& directory) {
  const int dfd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return 0;
    fail("open temporary file directory", directory, errno);
  }
  DIR* dir = fdopendir(dfd);
  if (!dir) {
    const int err = errno;
    ::close(dfd);
    fail("open temporary file directory", directory, err);
  }
  size_t removed = 0;
  int err = 0;
  std::string failed;
  errno = 0;
  while (dirent* e = readdir(dir)) {
    if (!is_temp_file_name(e->d_name)) continue;
    // Only what tidepool creates: a regular file, never a symlink's target or a
    // directory that happens to carry such a name.
    struct stat st;
    if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (unlinkat(dfd, e->d_name, 0) == 0) {
      ++removed;
    } else if (errno != ENOENT && err == 0) {
      err = errno;
      failed = directory + "/" + e->d_name;
    }
    errno = 0;
  }
  if (errno != 0 && err == 0) {
    err = errno;
    failed = directory;
  }
  closedir(dir);
  if (err != 0)
    fail(failed == directory ? "read temporary file directory" : "remove file", failed, err);
  return removed;
}

// --- TempFile ---

TempFile::TempFile(std::shared_ptr<TempSpaceState> space, std::string path, int fd)
    : space_(std::move(space)), path_(std::move(path)), fd_(fd) {}

TempFile::~TempFile() {
  {
    std::lock_guard lock(space_->mutex);
    space_->unlink_locked(this, path_);
    space_->unlinked.erase(this);
    space_->live.erase(this);
  }
  ::close(fd_);
  space_->bytes.fetch_sub(written_, std::memory_order_relaxed);
  space_->files_open.fetch_sub(1, std::memory_order_relaxed);
}

void TempFile::check_usable() const {
  if (failed_)
    throw Error("temporary file \"" + path_ + "\" was removed after a write error")
        .with_sqlstate(sqlstate::kIoError);
}

// A full disk or another write error: the bytes written are given back at once (the
// disk is full: another query may need them) and the name goes, so nothing is left
// whatever the owner does next.
void TempFile::fail_write(int err) {
  failed_ = true;
  {
    std::lock_guard lock(space_->mutex);
    space_->unlink_locked(this, path_);
  }
  if (ftruncate(fd_, 0) == 0) {
    space_->bytes.fetch_sub(written_, std::memory_order_relaxed);
    written_ = 0;
  }
  write_buffer_.clear();
  fail("write to file", path_, err);
}

void TempFile::write_at(const char* data, size_t len, uint64_t offset) {
  const int fault = space_->fault_err.load(std::memory_order_relaxed);
  if (fault != 0 && offset + len > space_->fault_limit.load(std::memory_order_relaxed))
    fail_write(fault);
  while (len > 0) {
    const ssize_t n = pwrite(fd_, data, len, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    // A write that makes no progress without an errno is a full disk (as fd.c assumes).
    if (n <= 0) fail_write(n < 0 ? errno : ENOSPC);
    data += n;
    len -= size_t(n);
    offset += uint64_t(n);
    written_ += uint64_t(n);
    space_->bytes.fetch_add(uint64_t(n), std::memory_order_relaxed);
  }
}

void TempFile::flush() {
  if (write_buffer_.empty()) return;
  write_at(write_buffer_.data(), write_buffer_.size(), written_);
  write_buffer_.clear();
}

void TempFile::append(const void* data, size_t len) {
  check_usable();
  const char* p = static_cast<const char*>(data);
  if (write_buffer_.size() + len <= kBufferBytes) {
    write_buffer_.insert(write_buffer_.end(), p, p + len);
  } else {
    // A big run goes straight to the file after what is buffered: one copy fewer.
    flush();
    if (len >= kBufferBytes)
      write_at(p, len, written_);
    else
      write_buffer_.assign(p, p + len);
  }
  size_ += len;
  if (write_buffer_.capacity() < kBufferBytes) write_buffer_.reserve(kBufferBytes);
}

size_t TempFile::read(void* data, size_t len) {
  check_usable();
  if (!write_buffer_.empty() && read_at_ + len > written_) flush();
  char* out = static_cast<char*>(data);
  size_t done = 0;
  while (done < len && read_at_ < written_) {
    const uint64_t buffer_end = read_buffer_at_ + read_buffer_.size();
    size_t n;
    if (read_at_ >= read_buffer_at_ && read_at_ < buffer_end) {
      n = size_t(std::min<uint64_t>(len - done, buffer_end - read_at_));
      std::memcpy(out + done, read_buffer_.data() + (read_at_ - read_buffer_at_), n);
    } else {
      // A long read goes straight into the caller's memory; a short one fills the buffer.
      const bool direct = len - done >= kBufferBytes;
      n = size_t(std::min<uint64_t>(direct ? len - done : kBufferBytes, written_ - read_at_));
      char* to = out + done;
      if (!direct) {
        read_buffer_.resize(n);
        to = read_buffer_.data();
      }
      const ssize_t got = pread(fd_, to, n, off_t(read_at_));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail("read from temporary file", path_, errno);
      if (got == 0)
        throw Error("could not read from temporary file \"" + path_ + "\": read only " +
                    std::to_string(read_at_) + " of " + std::to_string(written_) + " bytes")
            .with_sqlstate(sqlstate::kIoError);
      n = size_t(got);
      if (!direct) {
        read_buffer_.resize(n);
        read_buffer_at_ = read_at_;
        continue;
      }
    }
    done += n;
    read_at_ += n;
  }
  return done;
}

void TempFile::read_exact(void* data, size_t len) {
  const size_t got = read(data, len);
  if (got != len)
    throw Error("could not read from temporary file \"" + path_ + "\": read only " +
                std::to_string(got) + " of " + std::to_string(len) + " bytes")
        .with_sqlstate(sqlstate::kIoError);
}

// --- TempFileSpace ---

TempFileSpace::TempFileSpace(std::string directory) : state_(std::make_shared<TempSpaceState>()) {
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  state_->directory = std::move(directory);
}

TempFileSpace::~TempFileSpace() {
  std::lock_guard lock(state_->mutex);
  for (const TempFile* f : state_->live) state_->unlink_locked(f, f->path());
}

const std::string& TempFileSpace::directory() const {
  return state_->directory;
}

std::unique_ptr<TempFile> TempFileSpace::create() {
  const std::string& dir = state_->directory;
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) fail("create directory", dir, errno);
  const std::string stem =
      dir + "/" + std::string(kTempFilePrefix) + std::to_string(getpid()) + ".";
  for (int attempt = 0;; ++attempt) {
    std::string path = stem + std::to_string(next_file_number.fetch_add(1));
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    // EEXIST: a file of an earlier process with our pid that no open cleaned up yet.
    if (fd < 0 && errno == EEXIST && attempt < 1000) continue;
    if (fd < 0) fail("create temporary file", path, errno);
    std::unique_ptr<TempFile> f(new TempFile(state_, std::move(path), fd));
    {
      std::lock_guard lock(state_->mutex);
      state_->live.insert(f.get());
    }
    state_->files_open.fetch_add(1, std::memory_order_relaxed);
    state_->files_created.fetch_add(1, std::memory_order_relaxed);
    return f;
  }
}

uint64_t TempFileSpace::bytes_held() const {
  return state_->bytes.load(std::memory_order_relaxed);
}
uint64_t TempFileSpace::files_open() const {
  return state_->files_open.load(std::memory_order_relaxed);
}
uint64_t TempFileSpace::files_created() const {
  return state_->files_created.load(std::memory_order_relaxed);
}

void TempFileSpace::fail_writes_for_testing(int err, uint64_t limit_bytes) {
  state_->fault_limit.store(limit_bytes, std::memory_order_relaxed);
  state_->fault_err.store(err, std::memory_order_relaxed);
}

}  // namespace tp::aio
