// Storage: the I/O side of a data directory. It owns the asynchronous I/O
// system, the shared buffer pool and the open relation files, builds them from
// a StorageConfig, and moves them to a new configuration when the session layer
// asks (SET io_method, io_workers, io_direct or shared_buffers; dirty pages are
// written first).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "aio/aio.h"
#include "aio/file.h"
#include "aio/temp_file.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "engine/storage/catalog.h"
#include "engine/storage/datadir.h"
#include "engine/storage/visibility_map.h"

namespace tp {

struct StorageConfig {
  aio::IoConfig io;
  int shared_buffers = 16384;  // pool size in 8 kB buffers
};

class Storage {
 public:
  // Builds the I/O system and the pool. Throws tp::Error with advice when the
  // I/O method cannot start.
  Storage(DataDir& dir, const StorageConfig& config);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  aio::IoSystem& io() { return *io_; }
  bufmgr::BufferPool& pool() { return *pool_; }
  // Where every session's statements spill (DIR/pgsql_tmp): nodes that outgrow work_mem
  // take a TempFileSpace* (scans/materialize.h). Its files go with their nodes; any left
  // when the Storage goes lose their names with it.
  aio::TempFileSpace& temp_space() { return temp_space_; }

  // The open file of a relation (opened on first use). Throws tp::Error naming
  // the problem for a relation DataDir found damaged (missing or short file).
  aio::IoFile& file(const RelationEntry& rel);
  // Creates the (empty) file of a new relation and returns it open.
  aio::IoFile& create_file(const RelationEntry& rel);
  // Drops the relation's pages from the pool (dirty or not) and closes its
  // file: before DROP / TRUNCATE unlink it, or after a failed statement.
  void forget(uint32_t relnumber);
  // Drops the cached pages and closes the files of every open relation whose
  // relnumber `which` accepts (a failed statement's own files, before
  // DataDir::restore puts them back). Others' pages stay.
  void forget_if(const std::function<bool(uint32_t relnumber)>& which);
  // The table's visibility map as its file holds it, read on first use and
  // shared by every scan until the next write (a missing file is an empty
  // map). Throws tp::Error naming the file when it is damaged.
  std::shared_ptr<const VisibilityMap> visibility_map(const RelationEntry& table);
  // Replaces the table's map file (durably, atomically) and the copy scans get.
  void write_visibility_map(const RelationEntry& table, const VisibilityMap& map);
  // Writes the relation's dirty pages and fsyncs its file.
  void flush(const RelationEntry& rel);
  // Writes all dirty pages and empties the pool (cold runs).
  void evict_all();

  // Moves to another I/O method, worker count or direct mode. The new I/O
  // system starts first: if it cannot (io_uring refused), nothing changes.
  void set_io_config(const aio::IoConfig& wanted);
  // Resizes the pool (built before the old one goes; refused when the
  // machine's memory cannot hold it, leaving the old pool in use).
  void set_shared_buffers(int buffers);

  // Counts the changes that end what a plan holds of this Storage: a relation's file
  // closed (forget), the I/O system replaced, a visibility map rewritten. A plan kept to
  // run again (engine/session/plan_cache.h) is made again when it moved.
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

 private:
  DataDir& dir_;
  std::unique_ptr<aio::IoSystem> io_;
  std::unique_ptr<bufmgr::BufferPool> pool_;
  // Statements of many sessions open files at once; the map is guarded, the
  // files are not (an IoFile is safe to share, and only a statement holding
  // its table exclusively closes one: forget, create_file).
  std::mutex files_mutex_;
  std::map<uint32_t, std::unique_ptr<aio::IoFile>> files_;
  std::map<uint32_t, std::shared_ptr<const VisibilityMap>> maps_;  // guarded by files_mutex_
  aio::TempFileSpace temp_space_;
  std::atomic<uint64_t> generation_{0};
};

}  // namespace tp
