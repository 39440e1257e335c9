// FilePageStore: a B-tree page store over one file, for the B-tree's own tests (the
// engine's indexes live in the buffer pool, engine/storage/pool_page_store.h).
#pragma once

#include <string>

#include "engine/btree/mem_page_store.h"

namespace tp::btree {

// A relation file read with pread and written with pwrite. A block is read
// (and its checksum verified) on first access and kept in memory; flush()
// writes the changed blocks back with fresh checksums. A checksum mismatch is
// a tp::Error naming the relation and block.
class FilePageStore : public MemPageStore {
 public:
  // Opens (creating if absent) `path`, whose size must be a multiple of 8 kB.
  FilePageStore(std::string relation_name, std::string path);
  ~FilePageStore() override;  // flushes; errors are reported to stderr only

  // Writes every dirty block (checksum set on the written copy) and fsyncs.
  void flush();
  // flush(), then forgets every cached block so the next read() goes to the
  // file. No guard may be held.
  void drop_cache();

  const std::string& path() const { return path_; }

  PageGuard extend() override;

 private:
  void load(BlockNumber block, Frame& frame) override;
  void on_mark_dirty(BlockNumber block, uint64_t slot) override;

  std::string path_;
  int fd_ = -1;
};

}  // namespace tp::btree
