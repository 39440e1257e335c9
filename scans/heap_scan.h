// HeapScan: every tuple of a table, page by page, through a read stream.
//
// The stream asks for blocks 0..nblocks-1 in order, so consecutive blocks merge into
// io_combine_limit-sized reads and up to effective_io_concurrency of them are in flight.
// A table larger than a quarter of the pool is read under a bulk-read ring, so a big
// scan does not flush everything else out of the pool (bufmgr/README.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "aio/file.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "bufmgr/strategy.h"
#include "engine/core/page.h"

namespace tp::scans {

class HeapScan {
 public:
  // `config` gives the stream's eic and io_combine_limit; the ring is chosen here.
  HeapScan(bufmgr::BufferPool& pool, aio::IoFile& file, BlockNumber nblocks,
           bufmgr::ReadStreamConfig config);

  // Calls `page_fn(block, page)` for each page in block order, with the page
  // share-locked for the duration of the call. Throws tp::Error on read failures.
  void for_each_page(const std::function<void(BlockNumber, const char*)>& page_fn);

  const bufmgr::ReadStreamStats& stream_stats() const { return stream_->stats(); }

 private:
  BlockNumber nblocks_;
  BlockNumber next_ = 0;
  std::unique_ptr<bufmgr::BufferStrategy> ring_;
  std::unique_ptr<bufmgr::ReadStream> stream_;
};

}  // namespace tp::scans
