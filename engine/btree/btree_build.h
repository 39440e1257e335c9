// Sorted bottom-up build: the CREATE INDEX path.
//
//   BTreeBuilder builder(store, def);           // store must be empty
//   for (each heap tuple) builder.add(key, tid);
//   BuildStats stats = builder.finish(progress); // sorts, writes pages, metapage last
//
// Pages are filled left to right exactly the way PostgreSQL's nbtsort.c fills
// them: a leaf page is closed once its free space drops below 10% of the page
// (leaf fillfactor 90), an internal page below 30% (fillfactor 70); at least
// two items per page; the last item of a closed page moves to the next page
// and becomes (suffix-truncated) the closed page's high key. So page counts
// match PostgreSQL's: 2,745 pages for 1 M distinct int4 keys. A non-unique
// index with deduplication on merges each run of equal keys into posting lists
// first (PostgreSQL 13+), so an index over a duplicate-heavy column is smaller.
#pragma once

#include <functional>
#include <memory>

#include "engine/btree/btree.h"

namespace tp::btree {

struct BuildProgress {
  enum class Phase { kSorting, kLoading, kDone };
  Phase phase;
  uint64_t tuples_done;
  uint64_t tuples_total;
  BlockNumber pages_written;
};
const char* build_phase_name(BuildProgress::Phase phase);
using BuildProgressFn = std::function<void(const BuildProgress&)>;
// Called at bounded intervals while finish() sorts (every kInterruptInterval
// comparisons) and loads (every kInterruptInterval tuples), so the caller can
// cancel the build by throwing; the store then holds a partial index to discard.
using BuildInterruptFn = std::function<void(BuildProgress::Phase)>;
inline constexpr uint64_t kInterruptInterval = 1 << 16;

struct BuildStats {
  uint64_t tuples = 0;
  BlockNumber pages = 0;  // including the metapage
  BlockNumber leaf_pages = 0;
  uint32_t root_level = 0;  // height - 1; 0 also for an empty index
};

// Leaf and internal fillfactors of a sorted build, and the free space below
// which a page is closed: BLCKSZ * (100 - fillfactor) / 100.
inline constexpr uint32_t kLeafBuildFillfactor = 90;
inline constexpr uint32_t kInternalBuildFillfactor = 70;
// A deduplicating build caps its posting lists at the space a leaf page keeps
// free at fillfactor 90, less a line pointer (PostgreSQL's nbtsort.c): many
// duplicates then still fill pages about 90% full.
inline constexpr uint32_t kBuildMaxPostingSize = (kBlockSize * 10 / 100) / 8 * 8 - 4;

class SortBuffer;

// Lifecycle of a builder: Collecting -(finish)-> Writing -> Finished, or
// -> Failed when finish() throws (unique violation, store errors).
enum class BuilderState : uint8_t {
  kCollecting,  // add() queues entries
  kWriting,     // finish() is sorting and writing pages
  kFinished,    // the index is complete; the builder can only be destroyed
  kFailed,      // finish() threw; the store may hold a partial index
};
const char* builder_state_name(BuilderState state);

class BTreeBuilder {
 public:
  // `store` must be empty. Throws tp::Error for a bad definition.
  BTreeBuilder(PageStore& store, IndexDef def);
  ~BTreeBuilder();

  void reserve(size_t tuples);
  // Queues one entry. Throws tp::Error if a value is out of range or the TID invalid.
  void add(const KeyValues& key, Tid tid);

  // Sorts and writes the index. A unique index with equal keys throws
  // tp::Error "could not create unique index" before any page is written, naming
  // the key of the entry that repeats an earlier one with the lowest TID (the first
  // row by insertion order that a row-at-a-time insert would refuse).
  // `progress` (optional) is called when sorting starts, about every 1% of
  // the loading, and at the end. `interrupt` (optional) may throw to cancel.
  BuildStats finish(const BuildProgressFn& progress = {}, const BuildInterruptFn& interrupt = {});

  BuilderState state() const { return state_; }
  // After finish() threw for equal keys: the TID of the entry it named.
  Tid repeated_tid() const { return repeated_tid_; }

 private:
  void set_state(BuilderState next);
  BuildStats write(const BuildProgressFn& progress, const BuildInterruptFn& interrupt);

  PageStore* store_;
  IndexDef def_;
  TupleLayout layout_;
  std::unique_ptr<SortBuffer> entries_;
  bool typed_entries_ = false;  // entries_ holds Datums and NULLs (TypedSortBuffer)
  BuilderState state_ = BuilderState::kCollecting;
  Tid repeated_tid_;
};

// Convenience for tests: builds from an unsorted list of entries.
BuildStats build_index(PageStore& store, const IndexDef& def,
                       const std::vector<std::pair<KeyValues, Tid>>& entries,
                       const BuildProgressFn& progress = {});

}  // namespace tp::btree
