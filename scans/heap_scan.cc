#include "scans/heap_scan.h"

namespace tp::scans {

HeapScan::HeapScan(bufmgr::BufferPool& pool, aio::IoFile& file, BlockNumber nblocks,
                   bufmgr::ReadStreamConfig config)
    : nblocks_(nblocks) {
  ring_ = bufmgr::BufferStrategy::for_seq_scan(pool, nblocks, config.effective_io_concurrency,
                                               config.io_combine_limit);
  config.strategy = ring_.get();
  config.sequential = true;
  config.label = "heap scan";
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

}  // namespace tp::scans
