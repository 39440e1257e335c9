// Storage: the I/O side of a session. It owns the asynchronous I/O system, the
// shared buffer pool and the open relation files, builds them from the
// settings, and rebuilds them when SET changes io_method, io_workers,
// io_direct or shared_buffers (dirty pages are written first).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "aio/aio.h"
#include "aio/file.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "engine/catalog.h"
#include "engine/datadir.h"
#include "engine/settings.h"

namespace tp {

class Storage {
 public:
  // Builds the I/O system and the pool from `settings` and registers apply
  // hooks so that later SETs rebuild them. Throws tp::Error with advice when
  // the I/O method cannot start.
  Storage(DataDir& dir, Settings& settings);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  aio::IoSystem& io() { return *io_; }
  bufmgr::BufferPool& pool() { return *pool_; }

  // The open file of a relation (opened on first use). Throws tp::Error naming
  // the problem for a relation DataDir found damaged (missing or short file).
  aio::IoFile& file(const RelationEntry& rel);
  // Creates the (empty) file of a new relation and returns it open.
  aio::IoFile& create_file(const RelationEntry& rel);
  // Drops the relation's pages from the pool (dirty or not) and closes its
  // file: before DROP / TRUNCATE unlink it, or after a failed statement.
  void forget(uint32_t relnumber);
  // Drops every cached page and closes every file (statement rollback: the
  // files are about to be put back by DataDir::restore).
  void forget_all();
  // Writes the relation's dirty pages and fsyncs its file.
  void flush(const RelationEntry& rel);
  // Writes all dirty pages and empties the pool (cold runs).
  void evict_all();

  // Read-stream settings as the session's settings say.
  bufmgr::ReadStreamConfig stream_config() const;
  int effective_io_concurrency() const;
  int io_combine_limit() const;

 private:
  aio::IoConfig io_config() const;
  void rebuild_io();
  void resize_pool();

  DataDir& dir_;
  Settings& settings_;
  std::unique_ptr<aio::IoSystem> io_;
  std::unique_ptr<bufmgr::BufferPool> pool_;
  std::map<uint32_t, std::unique_ptr<aio::IoFile>> files_;
};

}  // namespace tp
