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
  const ConditionSets sets = runtime_keys_.empty()
                                 ? condition_sets_
                                 : with_runtime_keys(condition_sets_, runtime_keys_, *params_);
  for (const auto& conditions : sets) {
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

std::unique_ptr<BitmapNode> BitmapIndexScanNode::clone() const {
  // The copy runs on another thread: a page store of its own.
  auto n = std::make_unique<BitmapIndexScanNode>(
      index_.reopen ? index_.reopen() : index_, condition_sets_, index_cond_text_, leaf_readahead_);
  // A parameterized scan's copy reads the same parameters (a parallel participant reads
  // the leader's values, set before the participants start).
  n->set_runtime_keys(runtime_keys_, params_);
  n->estimate = estimate;
  return n;
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

std::unique_ptr<BitmapNode> BitmapCombineNode::clone() const {
  std::vector<std::unique_ptr<BitmapNode>> children;
  for (const auto& c : children_) children.push_back(c->clone());
  auto n = std::make_unique<BitmapCombineNode>(is_and_, std::move(children));
  n->estimate = estimate;
  return n;
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

void SharedBitmap::reset(int participants) {
  std::lock_guard lock(mutex_);
  iter_.reset();
  bitmap_.reset();
  state_ = State::kEmpty;
  participants_ = std::max(1, participants);
}

const TidBitmap* SharedBitmap::bitmap(const std::function<std::unique_ptr<TidBitmap>()>& build) {
  {
    std::unique_lock lock(mutex_);
    // Whoever comes first builds it (PostgreSQL's BitmapShouldInitializeSharedState).
    if (state_ == State::kEmpty) {
      state_ = State::kBuilding;
    } else {
      built_.wait(lock, [&] { return state_ != State::kBuilding; });
      return state_ == State::kReady ? bitmap_.get() : nullptr;
    }
  }
  std::unique_ptr<TidBitmap> bitmap;
  try {
    bitmap = build();
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      state_ = State::kFailed;
    }
    built_.notify_all();
    throw;
  }
  {
    std::lock_guard lock(mutex_);
    bitmap_ = std::move(bitmap);
    iter_ = std::make_unique<TidBitmapIterator>(bitmap_->begin_iterate());
    state_ = State::kReady;
  }
  built_.notify_all();
  return bitmap_.get();
}

bool SharedBitmap::next_page(TbmPage& page, OffsetNumber* offsets) {
  std::lock_guard lock(mutex_);
  if (!iter_ || !iter_->next(&page)) return false;
  // The iterator's offsets change with its next page: copy them while it is ours.
  std::copy(page.offsets.begin(), page.offsets.end(), offsets);
  page.offsets = {offsets, page.offsets.size()};
  return true;
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
  for (const BitmapHeapScanParams::ParamRecheck& r : params_.param_rechecks) {
    CompiledClause& c = params_.recheck.clauses[r.clause];
    c.value = int64_t(params_.params->value(r.param));
    if (c.kind == CompiledClause::Kind::kParamCompare) c.negated = params_.params->is_null(r.param);
  }
  child_->instr.timing = instr.timing;
  bufmgr::ReadStreamConfig config = params_.stream;
  config.per_buffer_data_size = sizeof(PageData);
  config.sequential = false;
  config.label = "bitmap heap";
  batch_.reset(params_.output.width(), kMaxHeapTuplesPerPage);
  batch_.shape = params_.output.shape();
  if (params_.parallel) {
    SharedBitmap& shared = *params_.parallel;
    if (!shared.bitmap([&] { return child_->build(params_.work_mem_bytes); })) return;
    // The participants' look-aheads together keep effective_io_concurrency reads in
    // flight, and pin at most half the pool (as a parallel seq scan's).
    const int n = shared.participants();
    if (config.effective_io_concurrency > 0)
      config.effective_io_concurrency = std::max(1, (config.effective_io_concurrency + n - 1) / n);
    config.max_pinned = std::max(1, pool_.shared_buffers() / (2 * n));
    stream_ = std::make_unique<bufmgr::ReadStream>(pool_, heap_, config, [this](void* data) {
      auto* pd = static_cast<PageData*>(data);
      TbmPage page;
      if (!params_.parallel->next_page(page, pd->offsets)) return kInvalidBlock;
      pd->lossy = page.lossy;
      pd->recheck = page.recheck;
      pd->count = uint16_t(page.offsets.size());
      return page.block;
    });
    return;
  }
  bitmap_ = child_->build(params_.work_mem_bytes);
  iter_ = std::make_unique<TidBitmapIterator>(bitmap_->begin_iterate());
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
}

const RowBatch* BitmapHeapScanNode::do_next() {
  if (!stream_) return nullptr;
  void* data = nullptr;
  while (bufmgr::PinGuard pin = stream_->next_buffer(&data)) {
    const PageData pd = *static_cast<const PageData*>(data);
    bufmgr::ReadGuard guard = std::move(pin).lock_shared();
    const char* page = guard.page();
    const OffsetNumber max = page_max_offset(page);
    batch_.clear_rows();
    auto visit = [&](OffsetNumber o, bool recheck) {
      if (o > max) return;
      const ItemId* id = page_item_id(page, o);
      if (id->state != uint32_t(ItemState::kNormal)) return;
      const char* tuple = page + id->off;
      if (recheck && !params_.output.passes(params_.recheck, tuple, id->len, scratch_)) {
        ++instr.rows_rechecked_out;
        return;
      }
      if (!params_.filter.empty() &&
          !params_.output.passes(params_.filter, tuple, id->len, scratch_)) {
        ++instr.rows_filtered;
        return;
      }
      params_.output.read(tuple, id->len, batch_, scratch_);
    };
    if (pd.lossy) {
      ++instr.lossy_pages;
      for (OffsetNumber o = 1; o <= max; ++o) visit(o, true);
    } else {
      ++instr.exact_pages;
      for (uint16_t i = 0; i < pd.count; ++i) visit(pd.offsets[i], pd.recheck);
    }
    if (batch_.count > 0) return &batch_;
  }
  last_stats_ = stream_->stats();
  stream_.reset();
  return nullptr;
}

const bufmgr::ReadStreamStats* BitmapHeapScanNode::stream_stats() const {
  return stream_ ? &stream_->stats() : &last_stats_;
}

void BitmapHeapScanNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!params_.recheck_text.empty()) lines.push_back("Recheck Cond: " + params_.recheck_text);
  if (analyze && instr.rows_rechecked_out > 0)
    lines.push_back(rows_removed_line("Index Recheck", instr.rows_rechecked_out, instr.loops));
  if (!params_.filter_text.empty()) {
    lines.push_back("Filter: " + params_.filter_text);
    if (analyze && instr.rows_filtered > 0)
      lines.push_back(rows_removed_line("Filter", instr.rows_filtered, instr.loops));
  }
  if (analyze) {
    std::string h = "Heap Blocks:";
    if (instr.exact_pages) h += " exact=" + std::to_string(instr.exact_pages);
    if (instr.lossy_pages) h += " lossy=" + std::to_string(instr.lossy_pages);
    if (instr.exact_pages || instr.lossy_pages) lines.push_back(h);
  }
}

}  // namespace tp::scans
