// How the participants of a parallel sequential scan share out a table's
// blocks, as PostgreSQL 15's block-based parallel scan does
// (table_block_parallelscan_nextpage): each participant claims a chunk of
// consecutive blocks with one atomic add, reads it through its own read
// stream, and claims the next. Chunks are sized from the table (about 2048
// chunks, a power of two, at most 8192 blocks) so reads stay large; near the
// end each participant halves its chunk size, down to 1 block, so that all of
// them finish at about the same time. Every block is handed out exactly once.
//
//   ParallelBlocks shared(nblocks);                  // one per scan
//   ParallelBlockClaimer mine(shared);               // one per participant
//   for (BlockNumber b; (b = mine.next()) != kInvalidBlock;) read(b);
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/core/block.h"

namespace tp::scans {

inline constexpr uint32_t kParallelScanChunks = 2048;        // PARALLEL_SEQSCAN_NCHUNKS
inline constexpr uint32_t kParallelScanRampdownChunks = 64;  // PARALLEL_SEQSCAN_RAMPDOWN_CHUNKS
inline constexpr uint32_t kParallelScanMaxChunk = 8192;      // PARALLEL_SEQSCAN_MAX_CHUNK_SIZE

// The first chunk size of a scan of `nblocks` blocks: nblocks / 2048 rounded
// up to a power of two, at least 1, at most 8192.
uint32_t parallel_scan_chunk_size(BlockNumber nblocks);

// The state all participants share: how many blocks have been claimed.
class ParallelBlocks {
 public:
  explicit ParallelBlocks(BlockNumber nblocks) : nblocks_(nblocks) {}
  ParallelBlocks(const ParallelBlocks&) = delete;
  ParallelBlocks& operator=(const ParallelBlocks&) = delete;

  BlockNumber nblocks() const { return nblocks_; }
  // Starts the handing out again (a rescan), before any participant claims.
  void reset() { allocated_.store(0, std::memory_order_relaxed); }
  // How many participants read the blocks (set before any of them starts): each
  // scan's read stream takes its share of the pool's buffers.
  void set_participants(int n) { participants_ = n; }
  int participants() const { return participants_; }
  // Claims `count` blocks; returns the first (may be >= nblocks: nothing left).
  uint64_t claim(uint32_t count) { return allocated_.fetch_add(count, std::memory_order_relaxed); }

 private:
  const BlockNumber nblocks_;
  int participants_ = 1;
  // 64 bits: claims past the end keep adding, and must not wrap around.
  std::atomic<uint64_t> allocated_{0};
};

// One participant's view: its current chunk and chunk size.
class ParallelBlockClaimer {
 public:
  explicit ParallelBlockClaimer(ParallelBlocks& shared)
      : shared_(shared), chunk_size_(parallel_scan_chunk_size(shared.nblocks())) {}

  // The next block this participant reads, or kInvalidBlock when the table
  // is used up. Blocks of one chunk come in ascending order.
  BlockNumber next();

  uint32_t chunk_size() const { return chunk_size_; }

 private:
  ParallelBlocks& shared_;
  uint32_t chunk_size_;
  uint64_t last_ = 0;       // the block handed out last (PostgreSQL's phsw_nallocated)
  uint32_t remaining_ = 0;  // blocks of the current chunk not yet handed out
};

}  // namespace tp::scans
