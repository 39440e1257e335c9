// The data directory: marker, lock, catalog, relation files and the statement journal.
//
//   DIR/TIDEPOOL_DATADIR marker: "this is a tidepool data directory", with its format
//   DIR/tidepool.pid     lock file (flock), holds the owner's pid
//   DIR/tidepool.conf    optional settings, "name = value" lines
//   DIR/catalog          the committed catalog (engine/storage/catalog.h)
//   DIR/base/<relnumber> one file per table or index, 8 kB pages
//   DIR/base/<relnumber>_vm a table's visibility map, when VACUUM marked a page
//   DIR/statement.undo   before-images of pages an unfinished statement changed
//   DIR/pgsql_tmp/       temporary files of running statements (aio/temp_file.h), made
//                        on demand; a crashed run's are removed when the directory opens
//
// Recognition comes before anything is touched (engine/storage/README.md "Data
// directory"): a directory with the marker is opened; one that does not exist
// or is empty is initialised; a directory of an earlier tidepool (a version-1
// catalog and base/, no marker) is adopted by writing the marker; anything else
// is refused without creating, changing or removing a single file.
//
// The all-or-nothing rule (engine/storage/README.md): a statement changes files only
// by (a) appending blocks past the committed size, (b) creating new files, or
// (c) overwriting a committed block after its before-image is durable in the
// journal. It commits by replacing the catalog. Until then, restore() puts the
// directory back exactly as the catalog describes it, after an error in this
// process or, at the next open, after a crash.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>

#include "engine/core/page.h"
#include "engine/storage/catalog.h"

namespace tp {

inline constexpr const char* kDataDirMarker = "TIDEPOOL_DATADIR";
inline constexpr int kDataDirFormat = 1;

struct DataDirOptions {
  // false: a directory that does not exist or is empty is an error, not a new
  // data directory (`tidepool check` opens this way).
  bool create_if_missing = true;
};

class DataDir {
 public:
  // Recognises (or initialises) and locks `path`, then restores it to the
  // committed state. Throws tp::Error if it is not a tidepool data directory,
  // if another process holds the lock, or if the catalog is missing or damaged.
  explicit DataDir(std::string path, DataDirOptions options = {});
  ~DataDir();
  DataDir(const DataDir&) = delete;
  DataDir& operator=(const DataDir&) = delete;

  const std::string& path() const { return path_; }
  std::string relation_path(uint32_t relnumber) const;
  // The table's visibility map, base/<relnumber>_vm (engine/storage/visibility_map.h).
  std::string vm_path(uint32_t relnumber) const { return relation_path(relnumber) + "_vm"; }
  std::string conf_path() const { return path_ + "/tidepool.conf"; }
  // Where statements spill (Storage::temp_space()); created by the first spill.
  std::string temp_path() const { return path_ + "/pgsql_tmp"; }

  // The committed catalog, for the one statement that may commit (it holds
  // the writer's lock) and for code that runs while no statement does: the
  // reference dies with the next commit.
  const Catalog& catalog() const { return *catalog_; }
  // The committed catalog as a value that outlives later commits: what a
  // statement that only reads works from, while another may commit.
  std::shared_ptr<const Catalog> catalog_snapshot() const;
  // Makes file creations and removals in base/ durable (before a commit names them).
  void sync_base_directory();
  // Makes `next` the committed catalog (version = current + 1), durably, and
  // ends the statement journal. A pending cancel (engine/core/interrupts.h) throws
  // here instead, before anything is written: the last point a statement stops.
  void commit(Catalog next);
  // Runs at the start of every commit, before its cancel check: tests use it
  // to deliver a cancel at the last moment a statement can still stop.
  void set_before_commit_hook(std::function<void()> hook) { before_commit_hook_ = std::move(hook); }

  // --- damaged relations ---
  // What is wrong with the file of relation `relnumber` as the last restore()
  // found it (missing, shorter than the catalog says), or nullptr when it is
  // sound. A damaged relation cannot be read or written; it can be dropped.
  std::optional<std::string> damage(uint32_t relnumber) const;
  // Every damaged relation: relnumber -> the problem.
  std::map<uint32_t, std::string> damaged() const;

  // --- statement journal ---
  // Records the before-image of committed block `block` of file `relnumber`
  // unless already recorded in this statement (or the block is not committed:
  // nothing to record); durable when it returns.
  void save_before_image(uint32_t relnumber, BlockNumber block, const char* page);
  bool has_before_image(uint32_t relnumber, BlockNumber block) const;
  // Puts every file back as the committed catalog describes it: before-images
  // written back, files cut to their committed size, files tidepool created
  // that the catalog does not know removed; records damaged relations instead
  // of failing on them. Callers drop cached pages of these files first.
  // Throws tp::Error naming the file when the journal cannot be read.
  void restore();

 private:
  void recognise_and_lock(const DataDirOptions& options);
  void lock();
  void initialise();
  void load_catalog();
  void replay_journal();
  void reconcile_base_directory();
  void close_journal();
  void publish(Catalog next);

  std::string path_;
  int lock_fd_ = -1;
  int journal_fd_ = -1;
  // Guards the pointer catalog_ (not the Catalog it points to) and damaged_:
  // readers of other sessions look at both while the writer replaces them.
  mutable std::mutex publish_mutex_;
  std::shared_ptr<const Catalog> catalog_;  // never null after the constructor
  std::unordered_set<uint64_t> journaled_;
  std::map<uint32_t, std::string> damaged_;
  std::function<void()> before_commit_hook_;
};

// Writes `content` to `path` durably and atomically (tmp file, fsync, rename,
// fsync of the directory). Throws tp::Error naming the file.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tp
