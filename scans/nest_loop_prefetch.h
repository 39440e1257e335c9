// NestLoopPrefetch: nested-loop batching (Oracle's idea, not PostgreSQL's), for a Nested
// Loop whose inner side is a parameterized Index Scan (`SET nestloop_prefetch = on`).
//
// Before the join starts an outer row's inner scan, it looks up the next K outer rows
// (nestloop_prefetch_rows) in the inner index, without running their scans, and feeds
// the heap blocks they will read to one read stream; at each outer row it takes that
// row's blocks from the stream (waiting for reads still in flight) and lets them go, so
// the row's own inner scan finds them in the pool. The rows come out in the order they
// would without it: only the reads move earlier. The window looks ahead within the
// outer side's current batch of rows (a new batch starts it again), and each outer row
// contributes at most `max_blocks_per_row` blocks (kMaxBlocksPerRow; 1 for a semi or
// anti join, whose inner scan stops at its first match). The window is refilled in
// chunks of about K/2 rows; when a chunk's blocks were all in the pool, the next 1, 2,
// 4 ... 64 chunks are not looked up (a cached inner side pays one look-up per row in
// ~64 chunks, not one per row), and a chunk that reads starts it looking up every chunk
// again.
//
//   outer rows   i   i+1  i+2 ... i+K-1     probed: index lookups only, blocks queued
//                │    └────┴──────┘          stream: reads the queued blocks ahead
//                └── drain i's blocks, then rescan the inner scan for i (hits)
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "bufmgr/read_stream.h"
#include "scans/exec_params.h"
#include "scans/index_scan.h"
#include "scans/row_batch.h"

namespace tp::scans {

class NestLoopPrefetch {
 public:
  // Blocks one outer row may queue (a lookup matching more reads the rest as it goes).
  static constexpr size_t kMaxBlocksPerRow = 256;

  // `inner`: the Nested Loop's inner Index Scan, reading `params`, which the outer rows
  // set from `param_slots`. `rows_ahead`: K, 1..1024.
  NestLoopPrefetch(IndexScanNode& inner, ExecParams& params, std::vector<uint32_t> param_slots,
                   int rows_ahead, size_t max_blocks_per_row = kMaxBlocksPerRow);
  ~NestLoopPrefetch();

  // A new run of the join (open or rescan): nothing queued.
  void reset();
  // The join read a new outer batch: the window starts again at its first row.
  void new_batch();
  // Outer row `at` of the current batch is about to be joined: the rows up to at + K are
  // looked up, then row `at`'s blocks are taken from the stream. Leaves the parameters
  // set for whatever row was looked up last: the caller sets them for row `at` after.
  void before_row(const RowBatch& batch, uint32_t at);

  int rows_ahead() const { return rows_ahead_; }
  const bufmgr::ReadStreamStats* stream_stats() const {
    return stream_ ? &stream_->stats() : nullptr;
  }

 private:
  BlockNumber next_block();

  IndexScanNode& inner_;
  ExecParams& params_;
  const std::vector<uint32_t> param_slots_;
  const int rows_ahead_;
  const size_t max_blocks_per_row_;
  uint32_t probed_ = 0;  // rows of the current outer batch looked up so far
  // Queued blocks in row order; per looked-up row not yet joined, its block count.
  std::vector<BlockNumber> blocks_;
  std::vector<uint32_t> row_blocks_;
  size_t yielded_ = 0;  // blocks_ given to the stream
  size_t drained_ = 0;  // blocks_ taken back out of it
  size_t rows_drained_ = 0;
  // The look-ups back off while they find everything in the pool (before_row).
  bool chunk_probed_ = false;    // the last chunk of rows was looked up
  uint64_t reads_at_chunk_ = 0;  // the stream's io_blocks when it was queued
  int skip_chunks_ = 0;          // chunks still to leave un-looked-up
  int backoff_ = 0;              // the last back-off, doubled while nothing is read
  std::unique_ptr<bufmgr::ReadStream> stream_;
};

}  // namespace tp::scans
