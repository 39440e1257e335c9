#include "scans/nest_loop_prefetch.h"

#include <algorithm>

#include "engine/core/error.h"

namespace tp::scans {

NestLoopPrefetch::NestLoopPrefetch(IndexScanNode& inner, ExecParams& params,
                                   std::vector<uint32_t> param_slots, int rows_ahead,
                                   size_t max_blocks_per_row)
    : inner_(inner),
      params_(params),
      param_slots_(std::move(param_slots)),
      rows_ahead_(std::clamp(rows_ahead, 1, 1024)),
      max_blocks_per_row_(max_blocks_per_row) {}

NestLoopPrefetch::~NestLoopPrefetch() {
  stream_.reset();
}

void NestLoopPrefetch::reset() {
  if (stream_) stream_->reset();
  probed_ = 0;
  chunk_probed_ = false;
  skip_chunks_ = backoff_ = 0;
  reads_at_chunk_ = 0;
  blocks_.clear();
  row_blocks_.clear();
  yielded_ = drained_ = rows_drained_ = 0;
}

BlockNumber NestLoopPrefetch::next_block() {
  // Nothing queued yet: pause; before_row resumes the stream once it queued more.
  if (yielded_ >= blocks_.size()) return bufmgr::kReadStreamPause;
  return blocks_[yielded_++];
}

void NestLoopPrefetch::new_batch() {
  // Every row of the last batch was joined, so every block queued for it was drained.
  TP_ASSERT(rows_drained_ == row_blocks_.size());
  blocks_.clear();
  row_blocks_.clear();
  yielded_ = drained_ = rows_drained_ = 0;
  probed_ = 0;
}

void NestLoopPrefetch::before_row(const RowBatch& batch, uint32_t at) {
  probed_ = std::max(probed_, at);
  const uint32_t until = uint32_t(std::min<uint64_t>(batch.count, uint64_t(at) + rows_ahead_));
  // Refilled in chunks, when half the window is left, so that each chunk's reads tell
  // whether looking up is worth it.
  if (probed_ < until && (probed_ == at || probed_ - at <= uint32_t(rows_ahead_) / 2)) {
    // Compact what every joined row has taken back.
    if (drained_ > 0 && drained_ == yielded_) {
      blocks_.erase(blocks_.begin(), blocks_.begin() + std::ptrdiff_t(drained_));
      row_blocks_.erase(row_blocks_.begin(), row_blocks_.begin() + std::ptrdiff_t(rows_drained_));
      yielded_ -= drained_;
      drained_ = rows_drained_ = 0;
    }
    // A chunk whose blocks were all in the pool read nothing: looking up the next ones
    // would cost an index descent per row for nothing, so the next 1, 2, 4 ... 64 chunks
    // are not looked up (their rows queue no block), then it tries again.
    const uint64_t reads = stream_ ? stream_->stats().io_blocks : 0;
    if (chunk_probed_) {
      if (reads == reads_at_chunk_) {
        backoff_ = std::min(64, std::max(1, backoff_ * 2));
        skip_chunks_ = backoff_;
      } else {
        backoff_ = 0;
      }
    }
    chunk_probed_ = skip_chunks_ == 0;
    if (!chunk_probed_) --skip_chunks_;
    reads_at_chunk_ = reads;
    for (; probed_ < until; ++probed_) {
      const size_t before = blocks_.size();
      if (chunk_probed_) {
        params_.set_from_row(param_slots_, batch.ref(probed_));
        inner_.probe_heap_blocks(blocks_, max_blocks_per_row_);
      }
      row_blocks_.push_back(uint32_t(blocks_.size() - before));
    }
    if (!stream_) {
      bufmgr::ReadStreamConfig config = inner_.stream_config();
      config.sequential = false;
      config.label = "nestloop heap";
      stream_ = std::make_unique<bufmgr::ReadStream>(inner_.pool(), inner_.heap(), config,
                                                     [this](void*) { return next_block(); });
    }
    stream_->resume();
  }
  // Row `at`'s blocks: read (or waited for) and let go; its inner scan hits them.
  if (rows_drained_ >= row_blocks_.size()) return;
  for (uint32_t n = row_blocks_[rows_drained_++]; n > 0; --n) {
    bufmgr::PinGuard pin = stream_->next_buffer();
    while (!pin && stream_->paused()) {
      stream_->resume();
      pin = stream_->next_buffer();
    }
    TP_ASSERT(pin && pin.block() == blocks_[drained_]);
    ++drained_;
  }
}

}  // namespace tp::scans
