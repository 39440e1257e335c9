#include "scans/heap_scan.h"

namespace tp::scans {

HeapScan::HeapScan(bufmgr::BufferPool& pool, aio::IoFile& file, BlockNumber nblocks,
                   bufmgr::ReadStreamConfig config)
    : pool_(pool), nblocks_(nblocks) {
  ring_ = bufmgr::BufferStrategy::for_seq_scan(pool, nblocks, config.effective_io_concurrency,
                                               config.io_combine_limit);
  config.strategy = ring_.get();
  config.sequential = true;
  stream_ = std::make_unique<bufmgr::ReadStream>(
      pool, file, config, [this](void*) { return next_ < nblocks_ ? next_++ : kInvalidBlock; });
}

void HeapScan::for_each_page(const std::function<void(BlockNumber, const char*)>& page_fn) {
  while (bufmgr::PinGuard pin = stream_->next_buffer()) {
    BlockNumber block = pin.block();
    bufmgr::ReadGuard page = std::move(pin).lock_shared();
    page_fn(block, page.page());
  }
}

uint64_t HeapScan::count_tuples() {
  uint64_t n = 0;
  for_each_page([&](BlockNumber, const char* page) {
    OffsetNumber max = page_max_offset(page);
    for (OffsetNumber o = 1; o <= max; ++o)
      if (page_item_id(page, o)->state == uint32_t(ItemState::Normal)) ++n;
  });
  return n;
}

}  // namespace tp::scans
