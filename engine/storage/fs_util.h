// Small POSIX file helpers for the data directory (datadir*.cc): every failure
// is a tp::Error naming the file and the system's reason.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "engine/core/error.h"

namespace tp::fs {

[[noreturn]] inline void fail(const std::string& what, const std::string& path, int err = errno) {
  throw Error("could not " + what + " \"" + path + "\": " + std::strerror(err))
      .with_sqlstate(sqlstate::for_errno(err));
}

inline void write_all(int fd, const void* data, size_t len, off_t offset, const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = pwrite(fd, p, len, offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write to file", path);
    }
    p += n;
    len -= size_t(n);
    offset += n;
  }
}

// Reads up to `len` bytes at `offset`; fewer only at the end of the file. A
// read error is raised, never taken for the end of the file.
inline size_t read_up_to(int fd, void* data, size_t len, off_t offset, const std::string& path) {
  char* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(fd, p + done, len - done, offset + off_t(done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("read file", path);
    }
    if (n == 0) break;
    done += size_t(n);
  }
  return done;
}

inline void fsync_path(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) fail("open", path);
  if (fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    fail("fsync", path, err);
  }
  ::close(fd);
}

inline void make_dir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) fail("create directory", path);
}

}  // namespace tp::fs
