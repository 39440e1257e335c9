// Page guards: the only way to reach a buffer's page bytes.
//
//   PinGuard    holds a pin: the buffer keeps its page (cannot be evicted), but the
//               bytes may change under you, so it gives no access to them.
//   ReadGuard   a pin plus the shared content lock: const char* page().
//   WriteGuard  a pin plus the exclusive content lock: char* page(), mark_dirty().
//
// A guard is a pool pointer and a buffer index; its type is its mode. Guards are
// move-only and release what they hold when destroyed; only BufferPool (and the read
// stream, through it) creates them. Upgrading a PinGuard consumes it:
//   PinGuard pin = pool.read_buffer(file, 17);
//   ReadGuard page = std::move(pin).lock_shared();
#pragma once

#include <cstdint>
#include <utility>

#include "engine/core/block.h"

namespace tp::aio {
class IoFile;
}

namespace tp::bufmgr {

class BufferPool;
class ReadGuard;
class WriteGuard;

inline constexpr int32_t kInvalidBuffer = -1;

class PinGuard {
 public:
  PinGuard() = default;
  PinGuard(PinGuard&& other) noexcept : pool_(other.pool_), buffer_(other.buffer_) {
    other.buffer_ = kInvalidBuffer;
  }
  PinGuard& operator=(PinGuard&& other) noexcept;
  PinGuard(const PinGuard&) = delete;
  PinGuard& operator=(const PinGuard&) = delete;
  ~PinGuard() { reset(); }

  bool valid() const { return buffer_ != kInvalidBuffer; }
  explicit operator bool() const { return valid(); }
  int32_t buffer() const { return buffer_; }
  // The block and relation this buffer holds (stable while pinned).
  BlockNumber block() const;
  uint32_t relnumber() const;

  // Takes the content lock; the pin moves into the returned guard. Blocks while another
  // thread holds a conflicting lock. Precondition: valid().
  ReadGuard lock_shared() &&;
  WriteGuard lock_exclusive() &&;

  // Unpins now (the guard becomes empty). No-op when already empty.
  void reset();
  // Gives up ownership of the pin without unpinning (for the pool's own bookkeeping).
  int32_t release() { return std::exchange(buffer_, kInvalidBuffer); }

 private:
  friend class BufferPool;
  friend class ReadStream;
  friend class ReadGuard;
  friend class WriteGuard;
  PinGuard(BufferPool* pool, int32_t buffer) : pool_(pool), buffer_(buffer) {}
  BufferPool* pool_ = nullptr;
  int32_t buffer_ = kInvalidBuffer;
};

class ReadGuard {
 public:
  ReadGuard() = default;
  ReadGuard(ReadGuard&& other) noexcept : pool_(other.pool_), buffer_(other.buffer_) {
    other.buffer_ = kInvalidBuffer;
  }
  ReadGuard& operator=(ReadGuard&& other) noexcept;
  ReadGuard(const ReadGuard&) = delete;
  ReadGuard& operator=(const ReadGuard&) = delete;
  ~ReadGuard() { reset(); }

  bool valid() const { return buffer_ != kInvalidBuffer; }
  int32_t buffer() const { return buffer_; }
  BlockNumber block() const;
  const char* page() const;

  // Drops the content lock and keeps the pin (e.g. a seq scan that copied what it needs).
  PinGuard unlock() &&;
  // Unlocks and unpins now.
  void reset();

 private:
  friend class BufferPool;
  friend class PinGuard;
  ReadGuard(BufferPool* pool, int32_t buffer) : pool_(pool), buffer_(buffer) {}
  BufferPool* pool_ = nullptr;
  int32_t buffer_ = kInvalidBuffer;
};

class WriteGuard {
 public:
  WriteGuard() = default;
  WriteGuard(WriteGuard&& other) noexcept : pool_(other.pool_), buffer_(other.buffer_) {
    other.buffer_ = kInvalidBuffer;
  }
  WriteGuard& operator=(WriteGuard&& other) noexcept;
  WriteGuard(const WriteGuard&) = delete;
  WriteGuard& operator=(const WriteGuard&) = delete;
  ~WriteGuard() { reset(); }

  bool valid() const { return buffer_ != kInvalidBuffer; }
  int32_t buffer() const { return buffer_; }
  BlockNumber block() const;
  char* page() const;
  // Records that the page changed: it will be written back (with a fresh checksum)
  // before the buffer is reused, or by a flush. Call it after every change.
  void mark_dirty();

  PinGuard unlock() &&;
  void reset();

 private:
  friend class BufferPool;
  friend class PinGuard;
  WriteGuard(BufferPool* pool, int32_t buffer) : pool_(pool), buffer_(buffer) {}
  BufferPool* pool_ = nullptr;
  int32_t buffer_ = kInvalidBuffer;
};

}  // namespace tp::bufmgr
