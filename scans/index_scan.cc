#include "scans/index_scan.h"

#include <chrono>
#include <cstdio>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"

namespace tp::scans {

namespace {

constexpr uint32_t kIndexBatchRows = 256;

std::string removed_line(const char* what, uint64_t removed, uint64_t loops) {
  return std::string("Rows Removed by ") + what + ": " +
         std::to_string((removed + loops / 2) / std::max<uint64_t>(loops, 1));
}

}  // namespace

// ---------------------------------------------------------------- Index Scan

IndexScanNode::IndexScanNode(bufmgr::BufferPool& pool, aio::IoFile& heap, IndexScanParams params)
    : pool_(pool), heap_(heap), params_(std::move(params)) {}

IndexScanNode::~IndexScanNode() {
  stream_.reset();  // before the ring its callback reads
}

std::string IndexScanNode::explain_name() const {
  std::string name = params_.index_only ? "Index Only Scan" : "Index Scan";
  return params_.direction == btree::ScanDirection::Backward ? name + " Backward" : name;
}

std::string IndexScanNode::explain_target() const {
  return " using " + params_.index.name + " on " + params_.relation;
}

void IndexScanNode::do_open() {
  stream_.reset();
  current_page_ = bufmgr::ReadGuard();
  current_block_ = kInvalidBlock;
  for (auto& b : ring_) spare_.push_back(std::move(b));
  ring_.clear();
  item_ = 0;
  ahead_batch_ = ahead_item_ = 0;
  block_switches_ = 0;
  index_done_ = false;
  TP_ASSERT(!params_.condition_sets.empty());
  condition_set_ = 0;
  scan_ = std::make_unique<btree::IndexScan>(*params_.index.tree, params_.condition_sets[0],
                                             params_.direction);
  batch_.reset(uint32_t(params_.output.size()), kIndexBatchRows);
}

bool IndexScanNode::load_batch() {
  if (index_done_) return false;
  btree::IndexBatch b;
  if (!spare_.empty()) {
    b = std::move(spare_.back());
    spare_.pop_back();
  }
  while (!scan_->next_batch(b)) {
    if (++condition_set_ >= params_.condition_sets.size()) {
      index_done_ = true;
      spare_.push_back(std::move(b));
      return false;
    }
    scan_->rescan(params_.condition_sets[condition_set_]);
  }
  ring_.push_back(std::move(b));
  return true;
}

void IndexScanNode::retire_front_batch() {
  spare_.push_back(std::move(ring_.front()));
  ring_.pop_front();
  item_ = 0;
  if (ahead_batch_ == 0)
    ahead_item_ = 0;
  else
    --ahead_batch_;
  if (stream_ && stream_->paused()) stream_->resume();
}

// The stream's callback: the next heap block after the consumer's, walking
// the ring (and filling it from the index) ahead of the consumer.
BlockNumber IndexScanNode::next_prefetch_block() {
  for (;;) {
    if (ahead_batch_ >= ring_.size()) {
      if (index_done_) return kInvalidBlock;
      if (ring_.size() >= kMaxIndexBatches) return bufmgr::kReadStreamPause;
      // Loading a batch takes a B-tree leaf's content lock. The stream stages its reads
      // in batch mode; a thread that holds the leaf exclusively may be waiting for one
      // of those reads, which only this thread can submit. So submit them first.
      pool_.io().submit_staged();
      if (!load_batch()) return kInvalidBlock;
      continue;
    }
    const btree::IndexBatch& b = ring_[ahead_batch_];
    if (ahead_item_ >= b.size()) {
      ++ahead_batch_;
      ahead_item_ = 0;
      continue;
    }
    BlockNumber block = b.tids[ahead_item_++].block;
    if (block != last_yielded_) {
      last_yielded_ = block;
      return block;
    }
  }
}

void IndexScanNode::start_stream(bool include_current) {
  ahead_batch_ = 0;
  ahead_item_ = item_ + (include_current ? 0 : 1);
  last_yielded_ = current_block_;
  bufmgr::ReadStreamConfig config = params_.stream;
  config.sequential = false;
  stream_ = std::make_unique<bufmgr::ReadStream>(pool_, heap_, config,
                                                 [this](void*) { return next_prefetch_block(); });
  used_stream_ = true;
}

void IndexScanNode::switch_to(BlockNumber block) {
  // index_prefetch = immediate: the stream starts before the first heap read.
  if (!stream_ && params_.prefetch && params_.prefetch_start_switches == 0)
    start_stream(/*include_current=*/true);
  current_page_ = bufmgr::ReadGuard();
  bufmgr::PinGuard pin;
  if (stream_) {
    pin = stream_->next_buffer();
    while (!pin && stream_->paused()) {
      stream_->resume();
      pin = stream_->next_buffer();
    }
    TP_ASSERT(pin && pin.block() == block);
  } else {
    pin = pool_.read_buffer(heap_, block);
  }
  current_page_ = std::move(pin).lock_shared();
  current_block_ = block;
  if (!stream_ && params_.prefetch && ++block_switches_ >= params_.prefetch_start_switches)
    start_stream();
}

const RowBatch* IndexScanNode::do_next() {
  const uint32_t width = uint32_t(params_.output.size());
  const bool has_filter = !params_.filter.empty();
  uint32_t n = 0;
  int64_t* dst = batch_.values.data();
  const uint32_t cap = uint32_t(std::min<uint64_t>(kIndexBatchRows, row_limit_hint));
  while (n < cap) {
    if (ring_.empty() || item_ >= ring_.front().size()) {
      if (!ring_.empty()) {
        retire_front_batch();
        continue;
      }
      if (!load_batch()) break;
      continue;
    }
    Tid tid = ring_.front().tids[item_];
    if (tid.block != current_block_) switch_to(tid.block);
    ++item_;
    ++heap_fetches_;
    const char* page = current_page_.page();
    if (tid.offset > page_max_offset(page))
      throw Error("index \"" + params_.index.name + "\" points past the end of block " +
                  std::to_string(tid.block) + " of relation \"" + params_.relation + "\"");
    const ItemId* id = page_item_id(page, tid.offset);
    if (id->state != uint32_t(ItemState::Normal)) continue;
    const char* tuple = page + id->off;
    if (has_filter && !params_.filter.evaluate(tuple)) {
      ++instr.rows_filtered;
      continue;
    }
    copy_out(tuple, params_.output.data(), uint32_t(params_.output.size()), dst);
    dst += width;
    ++n;
  }
  if (n == 0) {
    current_page_ = bufmgr::ReadGuard();
    if (stream_) {
      last_stats_ = stream_->stats();
      stream_.reset();
    }
    return nullptr;
  }
  batch_.count = n;
  return &batch_;
}

const bufmgr::ReadStreamStats* IndexScanNode::stream_stats() const {
  if (!used_stream_) return nullptr;
  return stream_ ? &stream_->stats() : &last_stats_;
}

void IndexScanNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!params_.index_cond_text.empty()) lines.push_back("Index Cond: " + params_.index_cond_text);
  if (!params_.filter_text.empty()) {
    lines.push_back("Filter: " + params_.filter_text);
    if (analyze && instr.rows_filtered > 0)
      lines.push_back(removed_line("Filter", instr.rows_filtered, instr.loops));
  }
  if (analyze && params_.index_only) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "Heap Fetches: %.0f",
                  double(heap_fetches_) / double(std::max<uint64_t>(1, instr.loops)));
    lines.push_back(buf);
  }
}

// ---------------------------------------------------------------- bitmaps

BitmapIndexScanNode::BitmapIndexScanNode(IndexHandle index, ConditionSets condition_sets,
                                         std::string index_cond_text)
    : index_(std::move(index)),
      condition_sets_(std::move(condition_sets)),
      index_cond_text_(std::move(index_cond_text)) {}

std::unique_ptr<TidBitmap> BitmapIndexScanNode::build(int64_t budget_bytes) {
  auto start = std::chrono::steady_clock::now();
  bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  ++instr.loops;
  auto bitmap = std::make_unique<TidBitmap>(budget_bytes);
  btree::IndexBatch batch;
  for (const auto& conditions : condition_sets_) {
    btree::IndexScan scan(*index_.tree, conditions);
    while (scan.next_batch(batch)) {
      check_for_interrupts();  // a leaf page at a time
      bitmap->add_tids(batch.tids);
      instr.rows += batch.size();
    }
  }
  instr.buffers += bufmgr::thread_buffer_usage() - before;
  if (instr.timing) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    instr.total_ms += ms;
    instr.first_row_ms = instr.total_ms;
  }
  return bitmap;
}

void BitmapIndexScanNode::explain_details(std::vector<std::string>& lines, bool) const {
  if (!index_cond_text_.empty()) lines.push_back("Index Cond: " + index_cond_text_);
}

BitmapCombineNode::BitmapCombineNode(bool is_and, std::vector<std::unique_ptr<BitmapNode>> children)
    : is_and_(is_and), children_(std::move(children)) {}

std::vector<const ExecNode*> BitmapCombineNode::children() const {
  std::vector<const ExecNode*> out;
  for (const auto& c : children_) out.push_back(c.get());
  return out;
}

std::unique_ptr<TidBitmap> BitmapCombineNode::build(int64_t budget_bytes) {
  auto start = std::chrono::steady_clock::now();
  bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  ++instr.loops;
  std::unique_ptr<TidBitmap> result = children_[0]->build(budget_bytes);
  for (size_t i = 1; i < children_.size(); ++i) {
    std::unique_ptr<TidBitmap> other = children_[i]->build(budget_bytes);
    if (is_and_)
      result->intersect_with(*other);
    else
      result->union_with(*other);
  }
  instr.buffers += bufmgr::thread_buffer_usage() - before;
  if (instr.timing) {
    instr.total_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    instr.first_row_ms = instr.total_ms;
  }
  return result;  // PostgreSQL reports 0 rows for BitmapAnd / BitmapOr
}

BitmapHeapScanNode::BitmapHeapScanNode(bufmgr::BufferPool& pool, aio::IoFile& heap,
                                       std::unique_ptr<BitmapNode> child,
                                       BitmapHeapScanParams params)
    : pool_(pool), heap_(heap), child_(std::move(child)), params_(std::move(params)) {}

BitmapHeapScanNode::~BitmapHeapScanNode() {
  stream_.reset();  // its callback reads the iterator
}

void BitmapHeapScanNode::do_open() {
  stream_.reset();
  iter_.reset();
  child_->instr.timing = instr.timing;
  bitmap_ = child_->build(params_.work_mem_bytes);
  iter_ = std::make_unique<TidBitmapIterator>(bitmap_->begin_iterate());
  bufmgr::ReadStreamConfig config = params_.stream;
  config.per_buffer_data_size = sizeof(PageData);
  config.sequential = false;
  stream_ = std::make_unique<bufmgr::ReadStream>(pool_, heap_, config, [this](void* data) {
    TbmPage page;
    if (!iter_->next(&page)) return kInvalidBlock;
    auto* pd = static_cast<PageData*>(data);
    pd->lossy = page.lossy;
    pd->recheck = page.recheck;
    pd->count = uint16_t(page.offsets.size());
    std::copy(page.offsets.begin(), page.offsets.end(), pd->offsets);
    return page.block;
  });
  batch_.reset(uint32_t(params_.output.size()), kMaxHeapTuplesPerPage);
}

const RowBatch* BitmapHeapScanNode::do_next() {
  const uint32_t width = uint32_t(params_.output.size());
  if (!stream_) return nullptr;
  void* data = nullptr;
  while (bufmgr::PinGuard pin = stream_->next_buffer(&data)) {
    const PageData pd = *static_cast<const PageData*>(data);
    bufmgr::ReadGuard guard = std::move(pin).lock_shared();
    const char* page = guard.page();
    const OffsetNumber max = page_max_offset(page);
    uint32_t n = 0;
    int64_t* dst = batch_.values.data();
    auto visit = [&](OffsetNumber o, bool recheck) {
      if (o > max) return;
      const ItemId* id = page_item_id(page, o);
      if (id->state != uint32_t(ItemState::Normal)) return;
      const char* tuple = page + id->off;
      if (recheck && !params_.recheck.evaluate(tuple)) {
        ++rows_rechecked_out_;
        return;
      }
      if (!params_.filter.empty() && !params_.filter.evaluate(tuple)) {
        ++instr.rows_filtered;
        return;
      }
      copy_out(tuple, params_.output.data(), uint32_t(params_.output.size()), dst);
      dst += width;
      ++n;
    };
    if (pd.lossy) {
      ++lossy_pages_;
      for (OffsetNumber o = 1; o <= max; ++o) visit(o, true);
    } else {
      ++exact_pages_;
      for (uint16_t i = 0; i < pd.count; ++i) visit(pd.offsets[i], pd.recheck);
    }
    if (n > 0) {
      batch_.count = n;
      return &batch_;
    }
  }
  last_stats_ = stream_->stats();
  stream_.reset();
  return nullptr;
}

const bufmgr::ReadStreamStats* BitmapHeapScanNode::stream_stats() const {
  return stream_ ? &stream_->stats() : &last_stats_;
}

void BitmapHeapScanNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  lines.push_back("Recheck Cond: " + params_.recheck_text);
  if (analyze && rows_rechecked_out_ > 0)
    lines.push_back(removed_line("Index Recheck", rows_rechecked_out_, instr.loops));
  if (!params_.filter_text.empty()) {
    lines.push_back("Filter: " + params_.filter_text);
    if (analyze && instr.rows_filtered > 0)
      lines.push_back(removed_line("Filter", instr.rows_filtered, instr.loops));
  }
  if (analyze) {
    std::string h = "Heap Blocks:";
    if (exact_pages_) h += " exact=" + std::to_string(exact_pages_);
    if (lossy_pages_) h += " lossy=" + std::to_string(lossy_pages_);
    if (exact_pages_ || lossy_pages_) lines.push_back(h);
  }
}

}  // namespace tp::scans
