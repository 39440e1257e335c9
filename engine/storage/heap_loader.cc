#include "engine/storage/heap_loader.h"

#include <algorithm>
#include <cstring>

#include "engine/core/error.h"

namespace tp {

namespace {

std::vector<TypeId> column_types(const std::vector<Column>& columns) {
  std::vector<TypeId> types;
  for (const Column& c : columns) types.push_back(c.type);
  return types;
}

}  // namespace

HeapLoader::HeapLoader(DataDir& dir, Storage& storage, const RelationEntry& table)
    : dir_(dir),
      pool_(storage.pool()),
      file_(storage.file(table)),
      relnumber_(table.relnumber),
      layout_(table.columns),
      format_(TupleFormat::of_types(column_types(table.columns))),
      fillfactor_(table.fillfactor),
      ring_(bufmgr::BufferStrategy::bulk_write(pool_)),
      tuple_(std::make_unique<char[]>(kBlockSize)) {
  // Rows of integer columns all have one size: one too large for an empty page can
  // never be stored (PostgreSQL's MaxHeapTupleSize), so say so before any row.
  if (layout_.all_integers()) check_fits(layout_.tuple_size());
  // Runs of up to 128 blocks (1 MB), as many in flight as the pin budget allows
  // (at most 4), keeping one run's worth of pins for the run being filled.
  int budget = pool_.max_pins_per_thread() - 2;
  run_blocks_ = std::clamp(budget / (max_runs_in_flight_ + 1), 1, 128);
  max_runs_in_flight_ = std::clamp(budget / run_blocks_ - 1, 1, max_runs_in_flight_);
  next_block_ = BlockNumber(table.pages);
  end_block_ = next_block_;
  table_pages_ = table.pages;
}

HeapLoader::~HeapLoader() {
  // The pages of runs in flight are being read by the kernel: wait before unpinning.
  for (auto& run : in_flight_) pool_.io().wait(run->ref);
}

void HeapLoader::check_fits(uint32_t len) {
  if (len > kMaxStoredTuple)
    throw Error("row is too big: size " + std::to_string(len) + ", maximum size " +
                    std::to_string(kMaxStoredTuple),
                "", "tidepool has no TOAST yet: a row must fit in one page as it is.")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
}

// The page the next tuple of `len` bytes goes to, as PostgreSQL's heap_insert finds it
// (RelationGetBufferForTuple): first the relation's last page, then the page being
// filled while it has room; when it has none, the free space map's choice among the
// pages left earlier (engine/storage/free_space_map.h), else a new page.
Tid HeapLoader::place(uint32_t len) {
  const uint32_t need = heap_target_free_space(maxalign(len), fillfactor_);
  if (!started_) {
    started_ = true;
    if (table_pages_ > 0) {
      move_to(BlockNumber(table_pages_ - 1));
    } else {
      next_page();
    }
  }
  for (uint32_t free; (free = heap_page_free_space(page_)) < need;) {
    const BlockNumber other = fsm_.record_and_get(page_block_, free, need);
    if (other == kInvalidBlock) {
      next_page();  // an empty page takes any row check_fits allows
      break;
    }
    move_to(other);
  }
  return {page_block_, OffsetNumber(page_max_offset(page_) + 1)};
}

// Makes block `b` the page rows go to: one of the run being filled, or a page read back
// through the pool (a written run's, after its write completes, or a committed one).
void HeapLoader::move_to(BlockNumber b) {
  revisit_ = bufmgr::WriteGuard();
  if (current_ && b >= current_->first && b < current_->first + BlockNumber(current_->used)) {
    page_ = current_->pages[b - current_->first].page();
    page_block_ = b;
    return;
  }
  const auto holds = [b](const std::unique_ptr<Run>& r) {
    return b >= r->first && b < r->first + BlockNumber(r->used);
  };
  while (std::any_of(in_flight_.begin(), in_flight_.end(), holds)) wait_oldest();
  revisit_ = pool_.read_buffer(file_, b).lock_exclusive();
  page_ = revisit_.page();
  page_block_ = b;
}

Tid HeapLoader::add(const int64_t* values) {
  const uint32_t len = layout_.tuple_size();
  const Tid self = place(len);
  layout_.form(values, self, tuple_.get());
  store(self, len);
  return self;
}

Tid HeapLoader::add_row(const Datum* values, const bool* isnull) {
  const uint32_t len = format_.tuple_size(values, isnull);
  check_fits(len);
  const Tid self = place(len);
  format_.form(values, isnull, self, tuple_.get(), len);
  store(self, len);
  return self;
}

void HeapLoader::store(Tid self, uint32_t len) {
  if (revisit_.valid()) {
    // A page read back: a committed one keeps its before-image in the statement's
    // journal; the pool writes it (finish flushes the relation).
    if (page_block_ < table_pages_ && !dir_.has_before_image(relnumber_, page_block_))
      dir_.save_before_image(relnumber_, page_block_, page_);
    revisit_.mark_dirty();
  }
  OffsetNumber off = page_add_item(page_, tuple_.get(), len);
  TP_ASSERT(off == self.offset);
  end_block_ = std::max(end_block_, page_block_ + 1);
  ++rows_added_;
}

void HeapLoader::next_page() {
  revisit_ = bufmgr::WriteGuard();
  if (!current_ || current_->used == int(current_->pages.size())) {
    if (current_) submit_run();
    start_run();
  }
  Run& run = *current_;
  page_ = run.pages[size_t(run.used)].page();
  page_block_ = run.first + BlockNumber(run.used);
  page_init(page_, 0);
  ++run.used;
}

void HeapLoader::start_run() {
  while (int(in_flight_.size()) >= max_runs_in_flight_) wait_oldest();
  auto run = std::make_unique<Run>();
  run->pages = pool_.extend(file_, run_blocks_, ring_.get());
  run->first = run->pages.front().block();
  TP_ASSERT(run->first == next_block_);
  next_block_ += BlockNumber(run_blocks_);
  current_ = std::move(run);
}

void HeapLoader::submit_run() {
  Run& run = *current_;
  if (run.used == 0) {
    current_.reset();
    return;
  }
  std::byte* ptrs[aio::kMaxBlocksPerIo];
  for (int i = 0; i < run.used; ++i) {
    char* p = run.pages[size_t(i)].page();
    page_set_checksum(p, run.first + BlockNumber(i));
    ptrs[i] = reinterpret_cast<std::byte*>(p);
  }
  aio::IoSystem& io = pool_.io();
  aio::IoHandle* h = io.acquire(&run.result);
  h->set_flags(aio::kIoFlagDirect);
  h->set_context(aio::IoContext::kBulkWrite);
  run.ref = h->wait_ref();
  io.start_writev(h, file_, run.first, std::span<std::byte* const>(ptrs, size_t(run.used)));
  bytes_written_ += uint64_t(run.used) * kBlockSize;
  in_flight_.push_back(std::move(current_));
}

void HeapLoader::wait_oldest() {
  std::unique_ptr<Run> run = std::move(in_flight_.front());
  in_flight_.pop_front();
  pool_.io().wait(run->ref);
  aio::check_io_result(run->result, file_);
  // The pages on disk now equal the pool's copies: valid and clean. Unpin them.
  run->pages.clear();
}

uint64_t HeapLoader::finish() {
  if (current_) submit_run();
  while (!in_flight_.empty()) wait_oldest();
  revisit_ = bufmgr::WriteGuard();
  // Blocks extended but never used (the last run was not full) hold zeros: drop
  // them from the pool and cut the file back. Pages read back and refilled are dirty:
  // flush_relation writes them (and fsyncs) before anything is dropped.
  pool_.flush_relation(file_);
  if (next_block_ > end_block_) {
    pool_.drop_relation(file_);
    file_.truncate(end_block_);
  }
  file_.fsync();
  return end_block_;
}

}  // namespace tp
