// PoolPageStore: the B-tree's pages in the shared buffer pool.
//
// The B-tree (engine/btree/) reaches pages only through its PageStore
// interface; this store puts that interface on the buffer pool, so index pages
// are cached, evicted and written back like heap pages. Holding a page is
// holding a bufmgr guard (pin + content lock) kept in a small slot table, so a
// page visit allocates nothing.
//
// Statement atomicity: before the first change to a block that existed when
// the statement began, mark_dirty() saves its before-image in the statement
// journal (engine/storage/README.md, "All or nothing"). Blocks added by the statement
// need no before-image: restore() cuts them off.
//
// A store belongs to one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aio/file.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "engine/btree/page_store.h"
#include "engine/storage/datadir.h"

namespace tp {

class PoolPageStore final : public btree::PageStore {
 public:
  // `journal` may be null (a read-only use, or a file created by this statement);
  // `committed_blocks` is the file's size the catalog knows.
  PoolPageStore(bufmgr::BufferPool& pool, aio::IoFile& file, DataDir* journal,
                BlockNumber committed_blocks);
  ~PoolPageStore() override;

  btree::PageGuard read(BlockNumber block, btree::PageLock lock) override;
  btree::PageGuard extend() override;
  BlockNumber nblocks() const override { return file_.size_blocks(); }
  const std::string& relation_name() const override { return file_.name(); }
  // A read stream (bufmgr/read_stream.h) over the source's blocks, with the stream
  // settings given by set_stream_config.
  std::unique_ptr<btree::BlockStream> open_stream(btree::BlockSource source) override;

  // The settings of the streams open_stream makes (the session's: eic, io_combine_limit).
  void set_stream_config(const bufmgr::ReadStreamConfig& config) { stream_config_ = config; }

 protected:
  void on_mark_dirty(BlockNumber block, uint64_t slot) override;
  void on_release(BlockNumber block, uint64_t slot, btree::PageLock lock,
                  bool dirty) noexcept override;

 private:
  struct Slot {
    bufmgr::ReadGuard shared;
    bufmgr::WriteGuard exclusive;
  };
  friend class PoolBlockStream;
  uint64_t take_slot();
  // Wraps a shared-locked page of a stream in a guard, as read() does.
  btree::PageGuard hold_shared(bufmgr::ReadGuard page);

  bufmgr::BufferPool& pool_;
  aio::IoFile& file_;
  DataDir* journal_;
  BlockNumber committed_blocks_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  bufmgr::ReadStreamConfig stream_config_;
  // Set while a stream's source runs: a page read then first submits the reads the
  // stream has staged (see read()).
  int in_stream_source_ = 0;
};

}  // namespace tp
