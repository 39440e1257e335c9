// What the planner reads of the world: the catalog, the data directory (which
// relations are damaged), the storage that opens relations over the pool, and
// the settings of the session it plans for. The session layer fills one in per
// statement; the planner never sees a Session, so plan/ sits below session/.
#pragma once

#include "bufmgr/read_stream.h"
#include "engine/plan/cost_model.h"
#include "engine/storage/catalog.h"
#include "engine/storage/datadir.h"
#include "engine/storage/storage.h"
#include "scans/gather.h"

namespace tp {

// index_prefetch: off; on (after the scan switched heap blocks a few times);
// immediate (from the first TID).
enum class IndexPrefetch { kOff, kOn, kImmediate };

// The settings the planner honours, as plain values.
struct PlannerSettings {
  CostSettings costs;  // validated
  bool enable_seqscan = true;
  bool enable_indexscan = true;
  bool enable_indexonlyscan = true;
  bool enable_bitmapscan = true;
  bool enable_sort = true;
  bool enable_hashagg = true;
  bool enable_gathermerge = true;
  bool enable_incremental_sort = true;  // off: no Incremental Sort path is made
  bool enable_nestloop = true;          // off: the disable cost on each join method's paths
  bool enable_hashjoin = true;
  bool enable_mergejoin = true;
  bool enable_material = true;        // off: no Materialize over a nested loop's inner side
  bool enable_memoize = true;         // off: no Memoize over a parameterized inner side
  bool enable_parallel_hash = false;  // no Parallel Hash (a shared table): only off
  // deconstruct_jointree's limits: beyond them a join search is split into subproblems.
  int join_collapse_limit = 8;
  int from_collapse_limit = 8;
  // A (sub)problem of geqo_threshold items or more would be GEQO's: refused while on.
  bool geqo = true;
  int geqo_threshold = 12;
  IndexPrefetch index_prefetch = IndexPrefetch::kOff;
  // nestloop_prefetch: outer rows a Nested Loop looks up ahead (0: off).
  int nestloop_prefetch_rows = 0;
  // Leaf pages of index scans and bitmap index scans read ahead through a read stream.
  bool index_leaf_readahead = true;
  bufmgr::ReadStreamConfig stream;  // every scan's read stream
  // Parallel query (PostgreSQL's settings of the same names).
  int max_parallel_workers_per_gather = 2;     // 0: no parallel plans
  int max_parallel_workers = 8;                // the Database-wide limit a Gather asks under
  double min_parallel_table_scan_size = 1024;  // 8 kB blocks (8MB)
  double min_parallel_index_scan_size = 64;    // 8 kB blocks (512kB)
  bool parallel_leader_participation = true;
};

struct PlanContext {
  const Catalog& catalog;
  const DataDir& data_dir;
  Storage& storage;
  PlannerSettings settings;
  // The Database's worker threads in use (max_parallel_workers counts against them);
  // null: a Gather's workers are limited by max_parallel_workers alone.
  scans::ParallelWorkerSlots* worker_slots = nullptr;
};

}  // namespace tp
