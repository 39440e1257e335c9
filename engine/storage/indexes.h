// Indexes as the engine sees them: building one (CREATE INDEX, PRIMARY KEY),
// keeping every index of a table up to date during INSERT, and checking one
// (tp_verify). The B-tree itself is engine/btree/; its pages live in the buffer
// pool through PoolPageStore.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/btree/btree.h"
#include "engine/btree/btree_build.h"
#include "engine/btree/btree_verify.h"
#include "engine/storage/catalog.h"
#include "engine/storage/datadir.h"
#include "engine/storage/pool_page_store.h"
#include "engine/storage/storage.h"

namespace tp {

// Where the maintenance commands poll for Ctrl-C (check_for_interrupts()):
// CREATE INDEX once per heap page it reads, every btree::kInterruptInterval
// comparisons of its sort and tuples of its load; ANALYZE once per sampled page.
// A cancel throws, and the statement's rollback removes the half-built file.
enum class CancelPoint { IndexScan, IndexSort, IndexLoad, AnalyzeBlock };
// Polls at `point`: the test observer first (if any), then check_for_interrupts().
void check_cancel_at(CancelPoint point);
// For tests: `observer` runs at every poll, before it, so a test can set
// cancel_requested() at a chosen point of a build. Set it between statements.
void set_cancel_point_observer(std::function<void(CancelPoint)> observer);

// The B-tree definition of a catalog index over `table`.
btree::IndexDef index_def(const RelationEntry& table, const RelationEntry& index);

// PostgreSQL's name for a new index: t_a_idx, t_a_b_idx, t_pkey; a number is
// appended (t_a_idx1, ...) while the name is taken.
std::string choose_index_name(const Catalog& catalog, const RelationEntry& table,
                              const std::vector<int>& columns, bool primary);

// Sorted build of `index` (an empty file) from every row of `table`, written
// and fsynced before it returns. Returns the build's statistics; throws
// tp::Error on a duplicate in a unique index or a cancel.
// The table is read through a read stream configured as `stream`; `progress`
// prints a line on stderr for large builds.
btree::BuildStats build_index(Storage& storage, const RelationEntry& table,
                              const RelationEntry& index, const bufmgr::ReadStreamConfig& stream,
                              bool progress);

// Height of a B-tree index as PostgreSQL counts it: the root's level (0 when
// the root is a leaf; 2 for 10 M int4 keys).
int index_height(Storage& storage, const RelationEntry& table, const RelationEntry& index);

// Index maintenance for one INSERT statement. An index that was empty when the
// statement began is rebuilt at the end by a sorted build into a new file (the
// fast path a bulk load into a fresh table takes; the result is the shape a
// sorted build gives, as PostgreSQL's CREATE INDEX after a load would); every
// other index gets each new row inserted as it comes.
class IndexMaintainer {
 public:
  IndexMaintainer(Storage& storage, DataDir& dir, Catalog& next, const RelationEntry& table);
  ~IndexMaintainer();

  // Adds the row stored at `tid` to every index. Throws on a unique violation.
  void add(const int64_t* values, Tid tid);
  // Finishes the bulk builds and records the indexes' new relnumbers, sizes
  // and entry counts in `next`. Returns the files to unlink after commit.
  std::vector<uint32_t> finish();

 private:
  struct Target;
  Storage& storage_;
  DataDir& dir_;
  Catalog& next_;
  std::vector<std::unique_ptr<Target>> targets_;
};

// The live tuple at `off` of heap page `page`, or nullptr when that slot holds
// none or its line pointer points outside the page or at fewer than
// `tuple_size` bytes: a damaged page whose checksum passed (a writer's bug) is
// reported as a missing row, never read past its end.
const char* heap_tuple_at(const char* page, OffsetNumber off, uint32_t tuple_size);

// Checks an index (tp_verify): structure, ordering, links, metapage, and that
// every entry points at a live heap row whose columns equal its key.
btree::VerifyReport verify_index(Storage& storage, const RelationEntry& table,
                                 const RelationEntry& index);

}  // namespace tp
