// BufferPool: tidepool's shared buffer pool.
//
// Map of bufmgr/ (bufmgr/README.md is the design document):
//   buffer_pool.h/.cc   this class: pin/unpin, lookup-or-allocate, victims, write-back,
//                       extend, flush, counters
//   pool_lifecycle.cc   building the pool (memory checks), resize, and invalidation:
//                       drop_relation / evict_all waiting for other threads' pins and I/O
//   pool_io.cc          reads: StartReadBuffers / WaitReadBuffers, the shared-completion
//                       callback that verifies checksums, zero-fill, write-back
//   buffer_state.h/.cc  the state word layout and the buffer lifecycle
//   buffer_desc.h       the descriptor and its header lock
//   mapping_table.h/.cc tag -> buffer, 128 partitions
//   strategy.h/.cc      clock sweep and ring strategies (bulk read, bulk write)
//   thread_pins.h/.cc   per-thread pin counts, pin budget, open streams, counters
//   pool_counters.h     PoolCounters: hits, reads, writes, evictions, extends per IoContext
//   page_guard.h/.cc    PinGuard / ReadGuard / WriteGuard
//   read_stream.h/.cc   read streams (look-ahead, I/O combining, distance control)
//   buffer_usage.h      per-thread counters for EXPLAIN (ANALYZE, BUFFERS)
//   latch.h             RwLatch (partition and content locks)
//
// Usage:
//   tp::aio::IoSystem io({.method = tp::aio::IoMethodKind::kWorker});
//   tp::bufmgr::BufferPool pool(io, {.shared_buffers = 16384});
//   {
//     tp::bufmgr::ReadGuard page = pool.read_buffer(*file, 17).lock_shared();
//     use(page.page());                       // const char*, 8 kB
//   }                                         // unlocked, unpinned
//   tp::bufmgr::WriteGuard fresh = pool.extend(*file);  // new zeroed block, locked
//   tp::page_init(fresh.page(), 0);
//   fresh.mark_dirty();
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <vector>

#include "aio/aio.h"
#include "aio/file.h"
#include "bufmgr/buffer_desc.h"
#include "bufmgr/buffer_usage.h"
#include "bufmgr/mapping_table.h"
#include "bufmgr/page_guard.h"
#include "bufmgr/pool_counters.h"
#include "bufmgr/strategy.h"
#include "bufmgr/thread_pins.h"

namespace tp::bufmgr {

struct BufferPoolConfig {
  // Number of 8 kB buffers (shared_buffers). 16384 = 128 MB. At least 16.
  int shared_buffers = 16384;
  // Distinct buffers one thread may pin at once; 0 = max(16, shared_buffers / 16).
  int max_pins_per_thread = 0;
  // Verify each page's checksum when it is read (PostgreSQL's data_checksums). Off, a read
  // page is checked only for a sane header, as PostgreSQL does without checksums.
  // Checksums are set on every write either way, so files stay verifiable.
  bool verify_checksums = true;
};

enum class ReadMode : uint8_t {
  kNormal,    // read the block from the file unless it is in the pool
  kZeroFill,  // the caller is creating the block: never read it, give a zeroed page if
              // the pool does not hold it (it is valid at once, not dirty)
};

// One in-progress read of consecutive blocks (StartReadBuffers / WaitReadBuffers). Lives
// in the caller's memory until waited for; the aio layer writes `result` into it.
struct ReadBuffersOp {
  static constexpr int kMaxBlocks = aio::kMaxBlocksPerIo;

  // Set by the caller before start_read_buffers.
  aio::IoFile* file = nullptr;
  BufferStrategy* strategy = nullptr;
  bool advice = false;  // pass kIoFlagAdvice (the caller reads ahead)
  // A pin the caller already holds on the first block (forwarded by the previous op),
  // or kInvalidBuffer. start_read_buffers takes it over.
  int32_t forwarded_in = kInvalidBuffer;

  // Filled by start_read_buffers. buffers[0..nblocks) are pinned for the caller;
  // if `forwarded` is set, buffers[nblocks] is also pinned (block first_block+nblocks,
  // already valid) and the caller must use or unpin it.
  BlockNumber first_block = kInvalidBlock;
  int nblocks = 0;
  bool forwarded = false;
  int32_t buffers[kMaxBlocks + 1];

  // Internal: progress of the I/O.
  int nblocks_done = 0;
  int io_nblocks = 0;       // blocks in the current I/O
  bool foreign_io = false;  // waiting on another thread's read of buffers[nblocks_done]
  aio::IoWaitRef io_ref;
  aio::IoResult result;
  uint64_t started_ns = 0;
};

class BufferPool {
 public:
  // Allocates the buffers (one 4096-aligned block of shared_buffers * 8 kB) and the
  // descriptors. Throws tp::Error for a bad config, or naming shared_buffers and the
  // machine's memory if the pool does not fit in it or cannot be allocated.
  BufferPool(aio::IoSystem& io, const BufferPoolConfig& config);
  // Precondition: nothing pinned and no read in flight. Dirty pages are discarded: call
  // flush_all() first to keep them.
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  aio::IoSystem& io() { return *io_; }
  int shared_buffers() const { return nbuffers_; }
  int max_pins_per_thread() const { return max_pins_; }
  bool verify_checksums() const { return verify_checksums_; }

  // -- reading ---------------------------------------------------------------------

  // Returns `block` of `file` pinned, reading it if the pool does not hold it (or, with
  // kZeroFill, zero-filling it). `strategy` (may be null) confines the eviction this
  // causes to a ring. Throws tp::Error if the read fails ("could not read block 17 of
  // relation \"t\": ..."), the page fails verification ("invalid page in block 17 of
  // relation \"t\""), every buffer is pinned, or this thread's pin budget is spent.
  PinGuard read_buffer(aio::IoFile& file, BlockNumber block, ReadMode mode = ReadMode::kNormal,
                       BufferStrategy* strategy = nullptr);

  // StartReadBuffers: pins up to *nblocks (1..128) consecutive blocks from `block`, and
  // starts one read for the run that is not valid yet, stopping at the first block that
  // already is (that pin is forwarded, see ReadBuffersOp). Sets *nblocks to the blocks
  // the op covers. Returns true if wait_read_buffers must be called before the pages
  // are used; false if all covered blocks were valid (then the op is finished).
  // op.file must be set. The caller holds the pins (op.buffers) from here on.
  bool start_read_buffers(ReadBuffersOp& op, BlockNumber block, int* nblocks);
  // WaitReadBuffers: completes the op's reads, issuing the rest after a short read and
  // retrying blocks whose other reader failed. Returns true if it had to wait for an I/O
  // (or ran one synchronously). On failure throws tp::Error naming relation and block;
  // the buffers stay pinned (the caller unpins them) and are not valid.
  bool wait_read_buffers(ReadBuffersOp& op);

  // -- creating --------------------------------------------------------------------

  // Extends `file` by `count` zeroed blocks (written to the file as zeroes now) and
  // returns them pinned and exclusively locked, in block order. Serialised per file.
  std::vector<WriteGuard> extend(aio::IoFile& file, int count, BufferStrategy* strategy = nullptr);
  WriteGuard extend(aio::IoFile& file, BufferStrategy* strategy = nullptr);

  // -- writing back, dropping ------------------------------------------------------

  // Writes every dirty page of `file` (checksummed) and fsyncs it. Takes each page's
  // content lock exclusively for the write, so the caller must hold no content lock of
  // this file. Throws tp::Error if a write fails (the page stays dirty).
  void flush_relation(aio::IoFile& file);
  // Writes every dirty page of every file and fsyncs each file written.
  void flush_all();
  // Discards every buffer of `file`, dirty or not (TRUNCATE, DROP, a failed load).
  // Like PostgreSQL's InvalidateBuffer, a buffer another thread pins for a moment (a
  // clock sweep looking at it, a read in progress) is waited for and its tag checked
  // again. Throws tp::Error if this thread pins one of them (waiting would never end).
  // Call holding no content lock, before closing the file; nobody may start reading
  // the relation meanwhile.
  void drop_relation(aio::IoFile& file);
  // Flushes everything, then empties the pool (cold-run experiments), waiting for
  // other threads' pins and reads as drop_relation does, and writing back pages that
  // were dirtied meanwhile. Throws tp::Error if this thread pins a buffer.
  void evict_all();
  // Rebuilds the pool with `shared_buffers` buffers (and the default pin budget unless
  // max_pins_per_thread is given). The new pool is allocated first and dirty pages are
  // written next: if either fails (tp::Error, e.g. not enough memory), the pool is left
  // as it was and usable. Precondition: no other thread uses the pool during the call;
  // throws tp::Error if a buffer is pinned.
  void resize(int shared_buffers, int max_pins_per_thread = 0);

  // Moves the pool onto another I/O system (SET io_method, io_workers, io_direct): writes
  // every dirty page and empties the pool through the old one (evict_all: cached pages
  // name files about to be reopened), then issues all later I/O through `io`. The
  // buffers are kept, so this never allocates. Same precondition as resize; throws
  // tp::Error if a buffer is pinned or a write fails (the pool stays on the old system).
  void switch_io(aio::IoSystem& io);

  // The bytes a pool of `shared_buffers` buffers takes (pages, descriptors, mapping).
  static size_t memory_needed(int shared_buffers);

  // -- introspection ---------------------------------------------------------------

  PoolCounters counters(IoContext context) const { return threads_->totals(context); }
  PoolCounters counters_total() const;
  // Pins held by all threads (racy while they run; exact when quiescent).
  uint64_t pins_held() const { return threads_->pins_held(); }
  // Buffers this thread pins.
  uint32_t my_pin_count() { return threads_->mine().distinct(); }
  // Pages of `file` the pool holds valid right now.
  int cached_blocks(const aio::IoFile& file) const;
  // True if the pool holds `block` of `file` valid (no pin taken; for tests).
  bool is_cached(const aio::IoFile& file, BlockNumber block);

  // One buffer as its header shows it: lifecycle state (kFree: no tag; kReading: a read
  // in flight; kDirty), refcount (pinning threads plus one per read in flight), usage
  // count and tag (meaningful unless kFree).
  struct BufferInfo {
    BufferState state;
    uint32_t refcount;
    uint32_t usage;
    BufferTag tag;
  };
  BufferInfo inspect(int32_t buffer) const;
  // Every buffer, in buffer order (pg_buffercache). Callable from any thread while
  // others use the pool: each header is read under its own header lock (held for a
  // copy, as pins and I/O completions hold it), so each row is consistent, but rows
  // are taken one after the other, not at one instant. Excludes only resize's swap.
  std::vector<BufferInfo> snapshot() const;
  // The buffer the clock sweep's hand looks at next.
  int32_t clock_hand() const;
  // The rings (BufferStrategy) alive now, for the live page's outlines.
  const std::shared_ptr<RingRegistry>& ring_registry() const { return rings_; }

  // -- for guards, strategies and read streams -------------------------------------

  // Adds a pin for this thread to a buffer it already pins (a second guard).
  void pin_again(int32_t buffer);
  void unpin(int32_t buffer);
  char* page_of(int32_t buffer) const { return pages_ + size_t(buffer) * kBlockSize; }
  BufferDesc& desc(int32_t buffer) { return descs_[size_t(buffer)]; }
  const BufferDesc& desc(int32_t buffer) const { return descs_[size_t(buffer)]; }
  void mark_dirty(int32_t buffer);
  ThreadPins& my_pins() { return threads_->mine(); }
  // Throws tp::Error if this thread may not pin `more` additional buffers.
  void check_pin_budget(uint32_t more);

 private:
  friend class BufferStrategy;
  friend class ClockSweep;

  // Everything sized by shared_buffers, built whole before it replaces the pool's own.
  struct Parts;
  static Parts allocate(int shared_buffers, int max_pins);
  void install(Parts&& parts) noexcept;
  void tear_down();

  // Pins the buffer for `tag`, allocating (evicting) one on a miss. *valid tells whether
  // the page is valid. Throws tp::Error when no buffer can be had.
  int32_t pin_block(aio::IoFile& file, BlockNumber block, BufferStrategy* strategy,
                    IoContext context, bool* valid);
  // First pin of this thread on a buffer whose tag is known stable (mapping latch held or
  // already pinned). Returns the state word after pinning.
  uint32_t pin_shared(BufferDesc& d, bool ring);
  // Registers a pin taken on the shared refcount (victim or lookup) with this thread.
  void note_private_pin(int32_t buffer);
  // Finds a buffer to reuse, pinned (refcount 1, ours), written back and detached from
  // its old tag. Throws if all are pinned.
  BufferDesc& get_victim(BufferStrategy* strategy, IoContext context);
  // Writes one dirty page back, under its exclusive content lock (which the caller holds).
  void write_back_locked(BufferDesc& d, IoContext context);
  // Detaches an unpinned-by-others victim from its tag. False if it got pinned or dirtied.
  bool invalidate_victim(BufferDesc& d, IoContext context);
  // InvalidateBuffer: detaches `d` from `tag` (if it still holds it), waiting while other
  // threads pin it or read into it. keep_dirty: write a dirty page back first (evict);
  // otherwise dirty contents are discarded (drop). Throws if this thread pins it.
  void invalidate_buffer(BufferDesc& d, const BufferTag& tag, bool keep_dirty);
  // Writes `d` back if it still holds `tag` and is dirty (pins and locks it meanwhile).
  void write_back_tagged(BufferDesc& d, const BufferTag& tag);

  // Reads: the I/O half of start/wait (pool_io.cc).
  void start_io(ReadBuffersOp& op);
  void zero_fill(BufferDesc& d);
  // Blocks until IO_IN_PROGRESS is clear on `d` (waiting on the read's wait ref if any).
  void wait_io_done(BufferDesc& d);
  static void read_completed(const aio::IoCompletionInfo& info, aio::IoResult& result) noexcept;
  // Flush (buffer_pool.cc): writes dirty pages in batches; see flush_buffers.
  struct PendingWrite;
  void flush_buffers(uint32_t relnumber, bool all);
  aio::IoFile* pin_dirty_buffer(int32_t buffer, uint32_t relnumber, bool all);
  void start_flush_write(int32_t buffer, aio::IoFile& file, std::vector<PendingWrite>& batch);
  void finish_flush_batch(std::vector<PendingWrite>& batch);
  void abandon_flush_batch(std::vector<PendingWrite>& batch);

  // Held shared by snapshot() and exclusively by resize while it swaps the parts, so a
  // reader on another thread never sees the descriptors freed under it.
  mutable std::shared_mutex layout_mutex_;
  aio::IoSystem* io_;  // changes only in switch_io
  int nbuffers_ = 0;
  int max_pins_ = 0;
  const bool verify_checksums_;
  char* pages_ = nullptr;
  std::unique_ptr<BufferDesc[]> descs_;
  std::unique_ptr<MappingTable> table_;
  std::unique_ptr<PoolThreads> threads_;
  std::unique_ptr<ClockSweep> sweep_;
  // Not sized by shared_buffers: a ring registers here whatever the pool's size.
  std::shared_ptr<RingRegistry> rings_ = std::make_shared<RingRegistry>();
  // Extension is serialised per file by one of these (chosen by relnumber).
  static constexpr int kExtendLocks = 64;
  std::unique_ptr<std::mutex[]> extend_locks_;
};

}  // namespace tp::bufmgr
