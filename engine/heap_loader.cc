#include "engine/heap_loader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "engine/error.h"

namespace tp {

HeapLoader::HeapLoader(DataDir& dir, const RelationEntry& table, uint32_t pages_per_write)
    : dir_(dir),
      name_(table.name),
      path_(dir.relation_path(table.relnumber)),
      layout_(table.columns),
      fillfactor_(table.fillfactor),
      capacity_(pages_per_write < 16 ? 16 : pages_per_write) {
  // Pages go to disk with O_DIRECT: a bulk load would only churn the page
  // cache, and buffered writeback here runs at a fraction of the disk's speed.
  // File systems without O_DIRECT (tmpfs) get buffered writes.
  fd_ = ::open(path_.c_str(), O_RDWR | O_DIRECT);
  if (fd_ < 0 && errno == EINVAL) fd_ = ::open(path_.c_str(), O_RDWR);
  if (fd_ < 0)
    throw Error("could not open file of relation \"" + name_ + "\": " + std::strerror(errno));
  try {
    start(table);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

void HeapLoader::start(const RelationEntry& table) {
  buffer_.reset(static_cast<char*>(std::aligned_alloc(4096, size_t(capacity_) * kBlockSize)));
  tuple_ = std::make_unique<char[]>(layout_.tuple_size());
  first_block_ = BlockNumber(table.pages);
  used_ = 1;
  if (table.pages > 0) {
    // Continue on the committed last page if it has room for a tuple.
    BlockNumber last = BlockNumber(table.pages - 1);
    ssize_t n = pread(fd_, page(0), kBlockSize, off_t(last) * kBlockSize);
    if (n != ssize_t(kBlockSize))
      throw Error("could not read block " + std::to_string(last) + " of relation \"" + name_ +
                  "\": " + (n < 0 ? std::strerror(errno) : "read past end of file"));
    if (!page_verify(page(0), last))
      throw Error("invalid page in block " + std::to_string(last) + " of relation \"" + name_ +
                  "\"");
    if (heap_page_accepts(page(0), maxalign(layout_.tuple_size()), fillfactor_)) {
      dir_.save_before_image(table.relnumber, last, page(0));
      first_block_ = last;
      return;
    }
  }
  page_init(page(0), 0);
}

HeapLoader::~HeapLoader() {
  if (fd_ >= 0) ::close(fd_);
}

void HeapLoader::add(const int64_t* values) {
  uint32_t len = layout_.tuple_size();
  char* p = page(used_ - 1);
  if (!heap_page_accepts(p, maxalign(len), fillfactor_)) {
    next_page();
    p = page(used_ - 1);
  }
  Tid self{first_block_ + used_ - 1, OffsetNumber(page_max_offset(p) + 1)};
  layout_.form(values, self, tuple_.get());
  OffsetNumber off = page_add_item(p, tuple_.get(), len);
  TP_ASSERT(off == self.offset);
  ++rows_added_;
}

void HeapLoader::next_page() {
  if (used_ == capacity_) write_buffer();
  page_init(page(used_), 0);
  ++used_;
}

void HeapLoader::write_buffer() {
  // All buffered pages are complete; set their checksums and write them at once.
  for (uint32_t i = 0; i < used_; ++i) page_set_checksum(page(i), first_block_ + i);
  size_t len = size_t(used_) * kBlockSize;
  off_t off = off_t(first_block_) * kBlockSize;
  const char* src = buffer_.get();
  while (len > 0) {
    ssize_t n = pwrite(fd_, src, len, off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      throw Error("could not extend relation \"" + name_ + "\" at block " +
                      std::to_string(off / kBlockSize) + ": " + std::strerror(err),
                  "", err == ENOSPC ? "Check free disk space." : "");
    }
    ++write_calls_;
    src += n;
    len -= size_t(n);
    off += n;
    bytes_written_ += uint64_t(n);
  }
  first_block_ += used_;
  used_ = 0;
}

uint64_t HeapLoader::finish() {
  bool last_has_rows = used_ > 0 && page_max_offset(page(used_ - 1)) > 0;
  if (!last_has_rows && used_ > 0) --used_;  // an empty page started for nothing
  if (used_ > 0) write_buffer();
  if (fdatasync(fd_) != 0)
    throw Error("could not fsync file of relation \"" + name_ + "\": " + std::strerror(errno));
  return first_block_;
}

}  // namespace tp
