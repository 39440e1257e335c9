// EXPLAIN: a plan tree (scans::ExecNode) printed in PostgreSQL's text layout
// (or its JSON layout), with the run-time figures EXPLAIN ANALYZE collects.
//
//   Aggregate  (cost=..) (actual time=.. rows=1 loops=1)
//     Buffers: shared hit=4 read=440
//     ->  Seq Scan on t  (cost=..) (actual ..)
//           Filter: (a < 100)
//           Rows Removed by Filter: 99900
//           Prefetch: distance avg=.. max=.., I/Os=.., avg size=.. kB, waits=..
//
// Beyond PostgreSQL: the Prefetch line, for every node that reads through a
// read stream (ANALYZE only).
#pragma once

#include <string>
#include <vector>

#include "engine/session/explain_prefix.h"
#include "engine/sql/ast.h"
#include "scans/exec_node.h"

namespace tp {

struct ExplainRun {
  const sql::ExplainOptions* options = nullptr;
  bool track_io_timing = false;
  double planning_ms = 0;
  double execution_ms = 0;  // ANALYZE only
  // The "Cost Model:" line's text; empty for PostgreSQL 15's model, whose output stays
  // PostgreSQL's.
  std::string cost_model;
  // The "I/O Trace:" line's text when the statement is traced (io_trace), else empty.
  std::string io_trace;
  // What planning itself read (a B-tree's metapage and root for its height, the index
  // pages an actual-range probe visits): PostgreSQL's "Planning:" buffers, shown with
  // BUFFERS when there are any.
  bufmgr::BufferUsage planning_buffers;
  // The table EXPLAIN qualifies the names above the scan with (PlannedQuery::
  // upper_prefix_table), or none.
  ExplainPrefix prefix;
};

// The lines of EXPLAIN's output (one row each in text format; one row in JSON).
std::vector<std::string> explain_lines(const scans::ExecNode& root, const ExplainRun& run);

}  // namespace tp
