// The data directory: lock, catalog, relation files and the statement journal.
//
//   DIR/tidepool.pid     lock file (flock), holds the owner's pid
//   DIR/tidepool.conf    optional settings, "name = value" lines
//   DIR/catalog          the committed catalog (engine/catalog.h)
//   DIR/base/<relnumber> one file per table or index, 8 kB pages
//   DIR/statement.undo   before-images of pages an unfinished statement changed
//
// The all-or-nothing rule (engine/README.md): a statement changes files only
// by (a) appending blocks past the committed size, (b) creating new files, or
// (c) overwriting a committed block after its before-image is durable in the
// journal. It commits by replacing the catalog. Until then, restore() puts the
// directory back exactly as the catalog describes it, after an error in this
// process or, at the next open, after a crash.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "engine/catalog.h"
#include "engine/page.h"

namespace tp {

class DataDir {
 public:
  // Opens (creating it if missing) and locks `path`, then restores it to the
  // committed state. Throws tp::Error if another process holds the lock.
  explicit DataDir(std::string path);
  ~DataDir();
  DataDir(const DataDir&) = delete;
  DataDir& operator=(const DataDir&) = delete;

  const std::string& path() const { return path_; }
  std::string relation_path(uint32_t relnumber) const;
  std::string conf_path() const { return path_ + "/tidepool.conf"; }

  const Catalog& catalog() const { return catalog_; }
  // Makes file creations and removals in base/ durable (before a commit names them).
  void sync_base_directory();
  // Makes `next` the committed catalog (version = current + 1), durably, and
  // ends the statement journal.
  void commit(Catalog next);

  // --- statement journal ---
  // Records the before-image of committed block `block` of file `relnumber`
  // unless already recorded in this statement; durable when it returns.
  void save_before_image(uint32_t relnumber, BlockNumber block, const char* page);
  bool has_before_image(uint32_t relnumber, BlockNumber block) const;
  // Puts every file back as the committed catalog describes it: before-images
  // written back, files cut to their committed size, files the catalog does
  // not know removed. Callers drop cached pages of these files first.
  void restore();

 private:
  void load_catalog();
  void close_journal();

  std::string path_;
  int lock_fd_ = -1;
  int journal_fd_ = -1;
  Catalog catalog_;
  std::unordered_set<uint64_t> journaled_;
};

// Writes `content` to `path` durably and atomically (tmp file, fsync, rename,
// fsync of the directory). Throws tp::Error naming the file.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tp
