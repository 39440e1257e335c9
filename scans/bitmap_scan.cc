#include "scans/bitmap_scan.h"

#include <algorithm>
#include <chrono>

#include "engine/core/interrupts.h"

namespace tp::scans {

BitmapIndexScanNode::BitmapIndexScanNode(IndexHandle index, ConditionSets condition_sets,
                                         std::string index_cond_text, bool leaf_readahead)
    : index_(std::move(index)),
      condition_sets_(std::move(condition_sets)),
      index_cond_text_(std::move(index_cond_text)),
      leaf_readahead_(leaf_readahead) {}

std::unique_ptr<TidBitmap> BitmapIndexScanNode::build(int64_t budget_bytes) {
  auto start = std::chrono::steady_clock::now();
  bufmgr::BufferUsage before = bufmgr::thread_buffer_usage();
  ++instr.loops;
  auto bitmap = std::make_unique<TidBitmap>(budget_bytes);
  btree::IndexBatch batch;
  for (const auto& conditions : condition_sets_) {
    btree::IndexScan scan(*index_.tree, conditions, btree::ScanDirection::kForward,
                          leaf_readahead_);
    while (scan.next_batch(batch)) {
      check_for_interrupts();  // a leaf page at a time
      bitmap->add_tids(batch.tids);
      instr.rows += batch.size();
    }
    readahead_ += scan.leaf_readahead_stats();
  }
  instr.buffers += bufmgr::thread_buffer_usage() - before;
  if (instr.timing) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    instr.total_ms += ms;
    instr.startup_ms += ms;
  }
  return bitmap;
}

void BitmapIndexScanNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!index_cond_text_.empty()) lines.push_back("Index Cond: " + index_cond_text_);
  if (analyze && readahead_.streams > 0) lines.push_back(leaf_readahead_line(readahead_));
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
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    instr.total_ms += ms;
    instr.startup_ms += ms;
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
  config.label = "bitmap heap";
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
      if (id->state != uint32_t(ItemState::kNormal)) return;
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
    lines.push_back(rows_removed_line("Index Recheck", rows_rechecked_out_, instr.loops));
  if (!params_.filter_text.empty()) {
    lines.push_back("Filter: " + params_.filter_text);
    if (analyze && instr.rows_filtered > 0)
      lines.push_back(rows_removed_line("Filter", instr.rows_filtered, instr.loops));
  }
  if (analyze) {
    std::string h = "Heap Blocks:";
    if (exact_pages_) h += " exact=" + std::to_string(exact_pages_);
    if (lossy_pages_) h += " lossy=" + std::to_string(lossy_pages_);
    if (exact_pages_ || lossy_pages_) lines.push_back(h);
  }
}

}  // namespace tp::scans
