// The B-tree's only door to its pages, shaped like a buffer pool.
//
//   PageGuard g = store.read(block, PageLock::kShared);   // pinned + latched
//   const char* bytes = g.data();
//   ...
//   PageGuard w = store.read(block, PageLock::kExclusive);
//   w.mark_dirty();                 // BEFORE the first modification
//   char* bytes = w.data_for_write();
//
// A guard is move-only and releases its page when destroyed. The interface is
// deliberately small so the engine can put it on top of the shared buffer pool:
// one virtual call to get a page, one to dirty it, one to release it, and no
// allocation per visit (a guard is a pointer, a slot number and a mode).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/core/error.h"
#include "engine/core/page.h"

namespace tp::btree {

enum class PageLock : uint8_t { kShared, kExclusive };

class PageStore;

// Access to one page while it is held. Only a PageStore constructs a live guard.
class PageGuard {
 public:
  PageGuard() = default;
  PageGuard(const PageGuard&) = delete;
  PageGuard& operator=(const PageGuard&) = delete;
  PageGuard(PageGuard&& other) noexcept { take(other); }
  PageGuard& operator=(PageGuard&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~PageGuard() { release(); }

  bool valid() const { return store_ != nullptr; }
  BlockNumber block() const { return block_; }
  PageLock lock() const { return lock_; }
  bool dirty() const { return dirty_; }
  const char* data() const { return page_; }

  // Declares that the page is about to change. Must precede every
  // modification (the engine's statement undo journal hooks in here); only
  // legal on an exclusive guard. Idempotent.
  inline void mark_dirty();

  // The page bytes for modification. Requires mark_dirty() first.
  char* data_for_write() {
    TP_ASSERT(dirty_);
    return page_;
  }

  // Gives the page back early; the guard becomes empty.
  inline void release() noexcept;

 private:
  friend class PageStore;
  PageGuard(PageStore* store, BlockNumber block, char* page, PageLock lock, uint64_t slot)
      : store_(store), page_(page), slot_(slot), block_(block), lock_(lock) {}
  void take(PageGuard& other) {
    store_ = other.store_;
    page_ = other.page_;
    slot_ = other.slot_;
    block_ = other.block_;
    lock_ = other.lock_;
    dirty_ = other.dirty_;
    other.store_ = nullptr;
    other.page_ = nullptr;
  }

  PageStore* store_ = nullptr;
  char* page_ = nullptr;
  uint64_t slot_ = 0;  // the store's own handle (a frame index in a buffer pool)
  BlockNumber block_ = kInvalidBlock;
  PageLock lock_ = PageLock::kShared;
  bool dirty_ = false;
};

// What a BlockStream did, for EXPLAIN's "Leaf Read-ahead" line. A store that reads
// nothing ahead reports only blocks_returned.
struct StreamCounters {
  uint64_t blocks_returned = 0;
  uint64_t ios = 0;           // reads started (each may cover several consecutive blocks)
  uint64_t io_blocks = 0;     // blocks those reads covered
  uint64_t waits = 0;         // times the consumer waited for a read
  uint64_t distance_sum = 0;  // look-ahead distance at each returned block
  StreamCounters& operator+=(const StreamCounters& o) {
    blocks_returned += o.blocks_returned;
    ios += o.ios;
    io_blocks += o.io_blocks;
    waits += o.waits;
    distance_sum += o.distance_sum;
    return *this;
  }
  double avg_distance() const {
    return blocks_returned ? double(distance_sum) / double(blocks_returned) : 0.0;
  }
};

// Yields the blocks a BlockStream is to read, in order; kInvalidBlock ends the stream.
// It may read pages of the same store (shared) while it decides.
using BlockSource = std::function<BlockNumber()>;

// Pages of a store in the order a BlockSource yields them, read ahead by the store
// (a buffer pool's read stream) or simply when asked (MemPageStore). Belongs to one
// thread; the source must outlive it.
class BlockStream {
 public:
  virtual ~BlockStream() = default;
  // The next block the source yielded, latched shared; an empty guard once the source
  // ended. Throws tp::Error as PageStore::read does.
  virtual PageGuard next() = 0;
  virtual StreamCounters counters() const = 0;
};

// A relation's pages. Implementations: MemPageStore (tests, benchmarks) and
// engine/storage's PoolPageStore (the buffer pool).
class PageStore {
 public:
  virtual ~PageStore() = default;

  // Pins and latches `block` (< nblocks()). Throws tp::Error naming the
  // relation and block if the block does not exist or its bytes are corrupt.
  virtual PageGuard read(BlockNumber block, PageLock lock) = 0;

  // Appends a zeroed block and returns it latched exclusively, not yet dirty.
  virtual PageGuard extend() = 0;

  virtual BlockNumber nblocks() const = 0;

  // Opens a stream over the blocks `source` yields (see BlockStream). Guards from the
  // stream follow the same rules as read()'s.
  virtual std::unique_ptr<BlockStream> open_stream(BlockSource source) = 0;

  // The relation's name, for error messages.
  virtual const std::string& relation_name() const = 0;

 protected:
  PageGuard make_guard(BlockNumber block, char* page, PageLock lock, uint64_t slot) {
    return PageGuard(this, block, page, lock, slot);
  }
  // Called once per guard, before its first modification.
  virtual void on_mark_dirty(BlockNumber block, uint64_t slot) = 0;
  // Called when a guard lets go of its page.
  virtual void on_release(BlockNumber block, uint64_t slot, PageLock lock, bool dirty) noexcept = 0;

 private:
  friend class PageGuard;
};

inline void PageGuard::mark_dirty() {
  TP_ASSERT(store_ != nullptr && lock_ == PageLock::kExclusive);
  if (dirty_) return;
  store_->on_mark_dirty(block_, slot_);
  dirty_ = true;
}

inline void PageGuard::release() noexcept {
  if (store_ == nullptr) return;
  store_->on_release(block_, slot_, lock_, dirty_);
  store_ = nullptr;
  page_ = nullptr;
  dirty_ = false;
}

}  // namespace tp::btree
