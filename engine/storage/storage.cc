#include "engine/storage/storage.h"

#include <optional>
#include <vector>

#include "engine/core/error.h"

namespace tp {

Storage::Storage(DataDir& dir, const StorageConfig& config)
    : dir_(dir), temp_space_(dir.temp_path()) {
  io_ = std::make_unique<aio::IoSystem>(config.io);
  pool_ = std::make_unique<bufmgr::BufferPool>(
      *io_, bufmgr::BufferPoolConfig{.shared_buffers = config.shared_buffers});
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

void Storage::set_io_config(const aio::IoConfig& wanted) {
  const aio::IoConfig& have = io_->config();
  if (wanted.method == have.method && wanted.io_workers == have.io_workers &&
      wanted.io_direct == have.io_direct && wanted.handles_per_thread == have.handles_per_thread)
    return;
  // Start the new method first: if it cannot start (io_uring refused), nothing changed.
  // The pool keeps its buffers and moves over (switch_io writes dirty pages and empties
  // it first), so a method change never needs memory for a second pool; if a write
  // fails, the pool stays on the old method.
  auto next_io = std::make_unique<aio::IoSystem>(wanted);
  pool_->switch_io(*next_io);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  std::lock_guard lock(files_mutex_);  // no statement runs (the database lock), but say so
  files_.clear();  // direct/buffered fds are chosen per I/O; reopening keeps it simple
  io_ = std::move(next_io);
}

void Storage::set_shared_buffers(int buffers) {
  // On error the old pool stays in use (and Settings puts the old value back).
  if (buffers != pool_->shared_buffers()) pool_->resize(buffers);
}

aio::IoFile& Storage::file(const RelationEntry& rel) {
  std::lock_guard lock(files_mutex_);
  auto it = files_.find(rel.relnumber);
  if (it != files_.end()) return *it->second;
  if (std::optional<std::string> why = dir_.damage(rel.relnumber))
    throw Error(*why, "",
                "DROP " + std::string(rel.is_table() ? "TABLE" : "INDEX") +
                    " removes the damaged relation (or restore its file from a backup); "
                    "`tidepool check` lists every damaged relation.")
        .with_sqlstate(sqlstate::kDataCorrupted);
  auto f = aio::IoFile::open(dir_.relation_path(rel.relnumber), rel.name, rel.relnumber);
  return *files_.emplace(rel.relnumber, std::move(f)).first->second;
}

aio::IoFile& Storage::create_file(const RelationEntry& rel) {
  forget(rel.relnumber);
  auto f = aio::IoFile::create(dir_.relation_path(rel.relnumber), rel.name, rel.relnumber);
  std::lock_guard lock(files_mutex_);
  return *files_.emplace(rel.relnumber, std::move(f)).first->second;
}

void Storage::forget(uint32_t relnumber) {
  forget_if([relnumber](uint32_t r) { return r == relnumber; });
}

void Storage::forget_if(const std::function<bool(uint32_t relnumber)>& which) {
  // Taken out of the map first, so that no other statement opens the same
  // IoFile while its pages are dropped (none should: the caller holds these
  // relations exclusively). The pool drops pages without the map's mutex: it
  // may wait for another thread's I/O on them.
  generation_.fetch_add(1, std::memory_order_acq_rel);
  std::vector<std::unique_ptr<aio::IoFile>> going;
  {
    std::lock_guard lock(files_mutex_);
    for (auto it = files_.begin(); it != files_.end();) {
      if (which(it->first)) {
        going.push_back(std::move(it->second));
        it = files_.erase(it);
      } else {
        ++it;
      }
    }
    std::erase_if(maps_, [&](const auto& entry) { return which(entry.first); });
  }
  for (auto& f : going) pool_->drop_relation(*f);
}

std::shared_ptr<const VisibilityMap> Storage::visibility_map(const RelationEntry& table) {
  std::lock_guard lock(files_mutex_);
  auto it = maps_.find(table.relnumber);
  if (it != maps_.end()) return it->second;
  auto map =
      std::make_shared<const VisibilityMap>(read_visibility_map(dir_.vm_path(table.relnumber)));
  maps_[table.relnumber] = map;
  return map;
}

void Storage::write_visibility_map(const RelationEntry& table, const VisibilityMap& map) {
  // The caller holds the table exclusively or is its one writer (VACUUM): no other
  // statement changes the map meanwhile; scans keep the copy they started with.
  tp::write_visibility_map(dir_.vm_path(table.relnumber), map);
  generation_.fetch_add(1, std::memory_order_acq_rel);  // an index-only scan's plan holds a map
  std::lock_guard lock(files_mutex_);
  maps_[table.relnumber] = std::make_shared<const VisibilityMap>(map);
}

void Storage::flush(const RelationEntry& rel) {
  pool_->flush_relation(file(rel));
}

void Storage::evict_all() {
  pool_->evict_all();
}

}  // namespace tp
