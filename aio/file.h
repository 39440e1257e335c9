// IoFile: one relation data file, shared by every thread that reads or writes it.
//
// It owns a buffered fd (opened with the file) and an O_DIRECT fd (opened on first use,
// since some file systems such as tmpfs refuse O_DIRECT and a buffered-only user should
// not pay for that). Blocks are kBlockSize (8 kB); block b lives at byte b * 8192.
// Every error names the file and the relation, and is a tp::Error thrown on the calling
// thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "engine/core/block.h"

namespace tp::aio {

class IoFile {
 public:
  // Creates a new, empty file. Throws tp::Error if it exists or cannot be created.
  // `relnumber` 0 picks a fresh process-unique number.
  static std::unique_ptr<IoFile> create(const std::string& path, const std::string& relation_name,
                                        uint32_t relnumber = 0);
  // Opens an existing file (or creates it when `create_if_missing`). Throws tp::Error.
  static std::unique_ptr<IoFile> open(const std::string& path, const std::string& relation_name,
                                      uint32_t relnumber = 0, bool create_if_missing = false);
  // Removes a file by path; a missing file is not an error. Throws tp::Error otherwise.
  static void unlink_path(const std::string& path);

  // Closes both fds. Precondition: no I/O on this file is staged or in flight.
  ~IoFile();
  IoFile(const IoFile&) = delete;
  IoFile& operator=(const IoFile&) = delete;

  const std::string& path() const { return path_; }
  // The relation name used in error messages ("relation \"t\"").
  const std::string& name() const { return name_; }
  // Small numeric id, unique in the process; usable as a tag (buffer tags, fault rules).
  uint32_t relnumber() const { return relnumber_; }

  int buffered_fd() const { return buffered_fd_; }
  // Opens the O_DIRECT fd on first call (thread-safe). Throws tp::Error if the file
  // system refuses O_DIRECT.
  int direct_fd();
  int fd(bool direct) { return direct ? direct_fd() : buffered_fd_; }

  // Direct I/O buffer alignment the file system asks for (statx STATX_DIOALIGN when the kernel
  // reports it, else 4096). tidepool always requires at least kDirectIoAlignment.
  uint32_t dio_mem_align() const { return dio_mem_align_; }

  // Size in whole blocks, as last learned (open, extend, truncate, completed writes).
  BlockNumber size_blocks() const { return size_blocks_.load(std::memory_order_acquire); }
  // Re-reads the size from the kernel (fstat) and returns it. A trailing partial block
  // is not counted.
  BlockNumber refresh_size();
  // Grows the file to `new_size_blocks` with zeroed blocks (allocated, not sparse). No-op
  // if it is already that long.
  void extend_zeros(BlockNumber new_size_blocks);
  // Cuts the file to `nblocks` blocks.
  void truncate(BlockNumber nblocks);
  void fsync();
  // Removes the file from its directory; the open fds stay usable until destruction.
  void unlink();

  // Called by aio when a write reaching `end_block` completed.
  void note_written_up_to(BlockNumber end_block);

 private:
  IoFile(std::string path, std::string name, uint32_t relnumber, int fd);
  [[noreturn]] void fail(const char* what, int err) const;

  std::string path_;
  std::string name_;
  uint32_t relnumber_;
  int buffered_fd_;
  std::atomic<int> direct_fd_{-1};
  std::mutex direct_open_mutex_;
  uint32_t dio_mem_align_ = 4096;
  std::atomic<BlockNumber> size_blocks_{0};
};

}  // namespace tp::aio
