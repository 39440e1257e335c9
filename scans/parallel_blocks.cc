#include "scans/parallel_blocks.h"

#include <bit>

namespace tp::scans {

uint32_t parallel_scan_chunk_size(BlockNumber nblocks) {
  uint32_t per_chunk = nblocks / kParallelScanChunks;
  uint32_t size = std::bit_ceil(per_chunk < 1 ? 1u : per_chunk);
  return size < kParallelScanMaxChunk ? size : kParallelScanMaxChunk;
}

BlockNumber ParallelBlockClaimer::next() {
  const BlockNumber nblocks = shared_.nblocks();
  if (remaining_ > 0) {
    ++last_;
    --remaining_;
  } else {
    // Ramp down: past the point where 64 chunks of the current size remain,
    // halve the size, so the last claims are single blocks. The threshold is
    // 32-bit arithmetic as in PostgreSQL: for a table smaller than 64 chunks it
    // wraps and never triggers (such tables have chunk size 1 anyway).
    const uint32_t threshold = nblocks - chunk_size_ * kParallelScanRampdownChunks;
    if (chunk_size_ > 1 && last_ > threshold) chunk_size_ >>= 1;
    last_ = shared_.claim(chunk_size_);
    remaining_ = chunk_size_ - 1;
  }
  return last_ < nblocks ? BlockNumber(last_) : kInvalidBlock;
}

}  // namespace tp::scans
