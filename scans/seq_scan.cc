#include "scans/seq_scan.h"

#include <algorithm>

#include "engine/core/heap_tuple.h"
#include "engine/core/page.h"

namespace tp::scans {

SeqScanNode::SeqScanNode(bufmgr::BufferPool& pool, aio::IoFile& file, SeqScanParams params)
    : pool_(pool), file_(file), params_(std::move(params)) {}

SeqScanNode::~SeqScanNode() {
  page_ = bufmgr::ReadGuard();  // before the stream and ring go
}

void SeqScanNode::do_open() {
  page_ = bufmgr::ReadGuard();
  stream_.reset();
  ring_ = bufmgr::BufferStrategy::for_seq_scan(pool_, params_.nblocks,
                                               params_.stream.effective_io_concurrency,
                                               params_.stream.io_combine_limit);
  bufmgr::ReadStreamConfig config = params_.stream;
  config.strategy = ring_.get();
  config.sequential = true;
  config.label = "seq scan";
  next_block_ = 0;
  if (params_.parallel) {
    // As PostgreSQL caps a backend's pins at its share of the pool: the participants'
    // streams together pin at most half the pool, so many workers on a small pool
    // still leave buffers to evict (each also holds the page it returns).
    config.max_pinned =
        std::max(1, pool_.shared_buffers() / (2 * std::max(1, params_.parallel->participants())));
    claimer_.emplace(*params_.parallel);
    stream_ = std::make_unique<bufmgr::ReadStream>(pool_, file_, config,
                                                   [this](void*) { return claimer_->next(); });
  } else {
    stream_ = std::make_unique<bufmgr::ReadStream>(pool_, file_, config, [this](void*) {
      return next_block_ < params_.nblocks ? next_block_++ : kInvalidBlock;
    });
  }
  batch_.reset(params_.output.width(), kMaxHeapTuplesPerPage);
  batch_.shape = params_.output.shape();
}

const RowBatch* SeqScanNode::do_next() {
  const TupleReader& out = params_.output;
  const bool has_qual = !params_.qual.empty();
  const uint64_t cap = row_limit_hint;
  for (;;) {
    if (!page_.valid()) {
      bufmgr::PinGuard pin = stream_->next_buffer();
      if (!pin) break;
      page_ = std::move(pin).lock_shared();
      next_offset_ = 1;
    }
    const char* page = page_.page();
    const OffsetNumber max = page_max_offset(page);
    batch_.clear_rows();
    uint64_t filtered = 0;
    OffsetNumber o = next_offset_;
    for (; o <= max && batch_.count < cap; ++o) {
      const ItemId* id = page_item_id(page, o);
      if (id->state != uint32_t(ItemState::kNormal)) continue;
      const char* tuple = page + id->off;
      if (has_qual && !out.passes(params_.qual, tuple, id->len, scratch_)) {
        ++filtered;
        continue;
      }
      out.read(tuple, id->len, batch_, scratch_);
    }
    instr.rows_filtered += filtered;
    next_offset_ = o;
    if (o > max) page_ = bufmgr::ReadGuard();  // page done: unlock and unpin
    if (batch_.count > 0) return &batch_;
  }
  last_stats_ = stream_->stats();
  stream_.reset();  // unpins everything read ahead
  ring_.reset();
  return nullptr;
}

const bufmgr::ReadStreamStats* SeqScanNode::stream_stats() const {
  return stream_ ? &stream_->stats() : &last_stats_;
}

void SeqScanNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!params_.filter_text.empty()) {
    lines.push_back("Filter: " + params_.filter_text);
    if (analyze && instr.rows_filtered > 0)
      lines.push_back(rows_removed_line("Filter", instr.rows_filtered, instr.loops));
  }
}

}  // namespace tp::scans
