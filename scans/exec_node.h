// The executor's plan nodes: a pull-based tree in which every call of next()
// returns a batch of rows (PostgreSQL's ExecProcNode, a page's worth of rows
// at a time instead of one, so the per-row cost of the tree is a loop body,
// not a virtual call).
//
// Rows are Datums with NULL flags, by-reference values in the batch's arena
// (scans/row_batch.h). A node's output columns are named by the planner (the slot
// layout is part of the plan, not of the batch).
//
//   SeqScanNode scan(...);            // leaf
//   LimitNode limit(scan, 10);        // parent pulls from the child
//   limit.open();
//   while (const RowBatch* b = limit.next())
//     for (uint32_t i = 0; i < b->count; ++i) use(b->row(i));
//
// Each node keeps its own run-time counters (rows, loops, time, buffers) for
// EXPLAIN ANALYZE; engine/session/explain.cc prints them.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bufmgr/buffer_usage.h"
#include "bufmgr/read_stream.h"
#include "scans/row_batch.h"

namespace tp::scans {

// What EXPLAIN shows as estimates for a node (set by the planner).
struct PlanEstimate {
  double startup_cost = 0;
  double total_cost = 0;
  double rows = 0;
  int width = 0;
};

// What EXPLAIN ANALYZE shows as actuals (collected while the node runs).
struct NodeInstrumentation {
  bool timing = false;  // measure time (EXPLAIN's TIMING option)
  uint64_t loops = 0;   // times the node was opened
  uint64_t rows = 0;    // rows returned over all loops
  // Time in the node to its first row, summed over loops (EXPLAIN divides by loops,
  // as PostgreSQL: a parallel node's loops are its participants).
  double startup_ms = 0;
  double total_ms = 0;         // time in open() and next() over all loops
  uint64_t rows_filtered = 0;  // rows a Filter removed
  // Node-specific counts that a parallel node's participants add up, as
  // PostgreSQL's ntuples2: rows an Index Recheck removed, an Index Only Scan's heap
  // fetches, and a Bitmap Heap Scan's exact and lossy pages.
  uint64_t rows_rechecked_out = 0;
  uint64_t heap_fetches = 0;
  uint64_t exact_pages = 0;
  uint64_t lossy_pages = 0;
  bufmgr::BufferUsage buffers;  // inclusive of children, like PostgreSQL
  // Parallel workers' read streams (a Gather adds them); EXPLAIN adds them to the
  // node's own stream's figures.
  bufmgr::ReadStreamStats worker_streams;

  // Adds a parallel worker's copy of the node, as PostgreSQL's InstrAggNode.
  void add(const NodeInstrumentation& o);
  // Time of the current loop up to now (for the first row's time).
  double loop_start_total_ms = 0;
  bool loop_has_row = false;
};

class ExecNode {
 public:
  virtual ~ExecNode() = default;

  // Starts (or restarts) the node and its children. Throws tp::Error for
  // failures a user can cause (e.g. a read error naming relation and block).
  void open();
  // Starts over, possibly with new parameter values (scans/exec_params.h): PostgreSQL's
  // ExecReScan, which a Nested Loop calls on its inner side once per outer row. Counts a
  // loop as open() does (EXPLAIN's loops=N are the rescans). The default is open(); a
  // node that can keep work across rescans (Materialize's rows, a Hash Join's table)
  // overrides it and calls rescan_counted().
  virtual void rescan() { open(); }
  // The next batch of at least one row, or nullptr at the end. The batch
  // stays valid until the next call.
  const RowBatch* next();

  // Node name as EXPLAIN prints it ("Seq Scan", "Sort", ...) and the part
  // after it (" on t").
  virtual std::string explain_name() const = 0;
  virtual std::string explain_target() const { return ""; }
  // Detail lines under the node ("Filter: (a < 5)"); `analyze` adds run-time ones.
  virtual void explain_details(std::vector<std::string>& lines, bool analyze) const = 0;
  // The read stream this node reads through, for the Prefetch line; null if none.
  virtual const bufmgr::ReadStreamStats* stream_stats() const { return nullptr; }
  virtual std::vector<const ExecNode*> children() const { return {}; }
  // A node EXPLAIN does not show: its only child's line stands for it (a projection
  // PostgreSQL's scans do themselves).
  virtual bool explain_transparent() const { return false; }
  // A transparent node over a plan of its own range-table entries (a LATERAL subquery's):
  // the table whose columns EXPLAIN qualifies above that plan's scan, and those columns.
  virtual bool upper_prefix(std::string& /*table*/, std::vector<std::string>& /*columns*/) const {
    return false;
  }
  // What EXPLAIN prints above child i when it is no plain input ("InitPlan 1 (returns
  // $0)"); "" for an input.
  virtual std::string child_label(size_t) const { return ""; }
  // Releases what the node holds beyond its rows (PostgreSQL's ExecShutdownNode):
  // a Gather ends its workers. Called once the rows are no longer needed, before
  // EXPLAIN prints the figures. The default passes it to the children.
  virtual void shutdown();
  // The same children, to add workers' instrumentation to (a Gather does).
  std::vector<ExecNode*> mutable_children();

  PlanEstimate estimate;
  NodeInstrumentation instr;
  // InitPlans that PostgreSQL attaches to this node (the plan's top) though a node below
  // runs them (SELECT DISTINCT over min/max InitPlans): EXPLAIN prints them, with their
  // labels, before this node's children.
  std::vector<std::pair<std::string, const ExecNode*>> shown_init_plans;
  // SubPlans whose expressions this node evaluates (its Filter's `(hashed SubPlan 1)`)
  // though the plan's subquery host (scans/subplan_host.h) runs them: EXPLAIN prints
  // them, labelled "SubPlan N", after this node's children.
  std::vector<std::pair<std::string, const ExecNode*>> shown_sub_plans;
  // Set by a Limit above: the parent needs at most this many more rows, so a
  // scan returns no bigger batch (and reads no page) beyond them.
  uint64_t row_limit_hint = UINT64_MAX;
  // A scan whose Filter runs a subquery per row: it returns each passing row at once, so
  // that the rows a parent never asks for cost no subquery.
  bool row_at_a_time = false;

 protected:
  virtual void do_open() = 0;
  virtual const RowBatch* do_next() = 0;
  // What a node's own rescan() does inside rescan_counted(); the default starts over.
  virtual void do_rescan() { do_open(); }
  // Counts a loop and its buffers and time as open() does, around do_rescan().
  void rescan_counted();

 private:
  template <typename Start>
  void start_loop(Start start);
};

// "Rows Removed by <what>: N", N the average per loop rounded as PostgreSQL does.
std::string rows_removed_line(const char* what, uint64_t removed, uint64_t loops);

}  // namespace tp::scans
