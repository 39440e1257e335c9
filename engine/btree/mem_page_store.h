// MemPageStore: a page store that keeps every page in memory, for tests and
// benchmarks. A subclass may fill frames on first access (load): the tests'
// FilePageStore reads them from a file.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "engine/btree/page_store.h"

namespace tp::btree {

// Every block lives in a frame with its own reader/writer latch. Frames sit in
// fixed-size chunks that never move, so readers need no store-wide lock while
// another thread extends the relation.
class MemPageStore : public PageStore {
 public:
  explicit MemPageStore(std::string relation_name);
  ~MemPageStore() override;

  PageGuard read(BlockNumber block, PageLock lock) override;
  PageGuard extend() override;
  BlockNumber nblocks() const override { return nblocks_.load(std::memory_order_acquire); }
  // Memory needs no read-ahead: the stream reads each block when next() asks for it.
  std::unique_ptr<BlockStream> open_stream(BlockSource source) override;
  const std::string& relation_name() const override { return name_; }

  // Test hook: the bytes of `block` without latching (corruption tests).
  char* raw_page(BlockNumber block);

  // Number of read() calls so far: tests assert page-visit counts with it.
  uint64_t reads() const { return reads_.load(std::memory_order_relaxed); }
  // Number of blocks handed out by streams (open_stream) so far; also counted in reads().
  uint64_t stream_reads() const { return stream_reads_.load(std::memory_order_relaxed); }

 protected:
  struct Frame {
    std::unique_ptr<char[]> bytes;
    std::shared_mutex latch;
    std::atomic<bool> loaded{false};  // bytes hold the block's contents (see load)
    bool dirty = false;               // a loading subclass: differs from its source
  };
  static constexpr uint32_t kFramesPerChunk = 1024;
  static constexpr uint32_t kMaxChunks = 1u << 16;  // 64 M blocks, 512 GiB

  Frame& frame(BlockNumber block);
  // Makes room for one more block, latched exclusively if `latch`; returns its
  // number. Caller holds extend_mutex_ (or is the constructor).
  BlockNumber append_frame(bool loaded, bool latch);
  // Fills a frame on first access (a subclass backed by a file); the memory store has
  // nothing to load.
  virtual void load(BlockNumber, Frame&) {}

  void on_mark_dirty(BlockNumber block, uint64_t slot) override;
  void on_release(BlockNumber block, uint64_t slot, PageLock lock, bool dirty) noexcept override;

  std::string name_;
  std::unique_ptr<std::atomic<Frame*>[]> chunks_;
  std::atomic<BlockNumber> nblocks_{0};
  std::mutex extend_mutex_;
  std::mutex load_mutex_;
  std::atomic<uint64_t> reads_{0};
  std::atomic<uint64_t> stream_reads_{0};
};

}  // namespace tp::btree
