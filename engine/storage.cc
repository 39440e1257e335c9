#include "engine/storage.h"

#include "engine/error.h"

namespace tp {

Storage::Storage(DataDir& dir, Settings& settings) : dir_(dir), settings_(settings) {
  io_ = std::make_unique<aio::IoSystem>(io_config());
  pool_ = std::make_unique<bufmgr::BufferPool>(
      *io_, bufmgr::BufferPoolConfig{.shared_buffers = int(settings_.get_int("shared_buffers"))});
  for (const char* name : {"io_method", "io_workers", "io_direct"})
    settings_.on_apply(name, [this](const std::string&) { rebuild_io(); });
  settings_.on_apply("shared_buffers", [this](const std::string&) { resize_pool(); });
}

Storage::~Storage() {
  // Keep committed work: write what is dirty, then close files before the I/O system goes.
  try {
    if (pool_) pool_->flush_all();
  } catch (const Error&) {
    // Nothing to report to: every statement already flushed what it committed.
  }
  pool_.reset();
  files_.clear();
  io_.reset();
}

aio::IoConfig Storage::io_config() const {
  aio::IoConfig c;
  c.method = aio::parse_io_method(settings_.get_enum("io_method"));
  c.io_workers = int(settings_.get_int("io_workers"));
  c.io_direct = settings_.get_bool("io_direct");
  return c;
}

void Storage::rebuild_io() {
  aio::IoConfig wanted = io_config();
  const aio::IoConfig& have = io_->config();
  if (wanted.method == have.method && wanted.io_workers == have.io_workers &&
      wanted.io_direct == have.io_direct)
    return;
  // Start the new method first: if it cannot start (io_uring refused), nothing changed.
  auto next = std::make_unique<aio::IoSystem>(wanted);
  int nbuffers = pool_->shared_buffers();
  pool_->flush_all();
  pool_.reset();
  files_.clear();  // direct/buffered fds are chosen per I/O; reopening keeps it simple
  io_ = std::move(next);
  pool_ = std::make_unique<bufmgr::BufferPool>(
      *io_, bufmgr::BufferPoolConfig{.shared_buffers = nbuffers});
}

void Storage::resize_pool() {
  int wanted = int(settings_.get_int("shared_buffers"));
  if (wanted != pool_->shared_buffers()) pool_->resize(wanted);
}

aio::IoFile& Storage::file(const RelationEntry& rel) {
  auto it = files_.find(rel.relnumber);
  if (it != files_.end()) return *it->second;
  if (const std::string* why = dir_.damage(rel.relnumber))
    throw Error(*why, "",
                "DROP " + std::string(rel.is_table() ? "TABLE" : "INDEX") +
                    " removes the damaged relation (or restore its file from a backup); "
                    "`tidepool check` lists every damaged relation.");
  auto f = aio::IoFile::open(dir_.relation_path(rel.relnumber), rel.name, rel.relnumber);
  return *files_.emplace(rel.relnumber, std::move(f)).first->second;
}

aio::IoFile& Storage::create_file(const RelationEntry& rel) {
  forget(rel.relnumber);
  auto f = aio::IoFile::create(dir_.relation_path(rel.relnumber), rel.name, rel.relnumber);
  return *files_.emplace(rel.relnumber, std::move(f)).first->second;
}

void Storage::forget(uint32_t relnumber) {
  auto it = files_.find(relnumber);
  if (it == files_.end()) return;
  pool_->drop_relation(*it->second);
  files_.erase(it);
}

void Storage::forget_all() {
  for (auto& [relnumber, f] : files_) pool_->drop_relation(*f);
  files_.clear();
}

void Storage::flush(const RelationEntry& rel) {
  pool_->flush_relation(file(rel));
}

void Storage::evict_all() {
  pool_->evict_all();
}

int Storage::effective_io_concurrency() const {
  return int(settings_.get_int("effective_io_concurrency"));
}
int Storage::io_combine_limit() const {
  return int(settings_.get_int("io_combine_limit"));
}

bufmgr::ReadStreamConfig Storage::stream_config() const {
  bufmgr::ReadStreamConfig c;
  c.effective_io_concurrency = effective_io_concurrency();
  c.io_combine_limit = io_combine_limit();
  return c;
}

}  // namespace tp
