// EXPLAIN as the experiments read it: the parsers of its text, and the one way
// an experiment measures a query (run EXPLAIN (ANALYZE, BUFFERS), check the
// plan's top node and its row count, return the measured figures):
//
//   Timed t = explain_analyze(lab, "SELECT * FROM t", {"Seq Scan", rows}, "rpc: cold seq scan");
//   PlanChoice p = explain_plan(lab, "SELECT * FROM t WHERE a < 5", "selectivity");
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tools/experiments/lab.h"

namespace tp::experiments {

// What a measured plan must be: a forced plan the planner does not produce, or
// one that returns other rows, is an error, never a figure.
struct PlanCheck {
  std::string node;              // top node: "Seq Scan", "Index Scan", "Bitmap Heap Scan", ...
  std::optional<uint64_t> rows;  // rows the top node must return (not checked when empty)
};

// Runs `EXPLAIN (ANALYZE, BUFFERS) <query>` (Lab::timed: Execution Time, the top
// node's Buffers line) and checks it against `check`. Throws tp::Error starting
// with `what` when the plan or the row count differs.
Timed explain_analyze(Lab& lab, const std::string& query, const PlanCheck& check,
                      const std::string& what);

// The plan `EXPLAIN <query>` chooses (no ANALYZE): top node and total cost.
struct PlanChoice {
  std::string node;
  double total_cost = 0;
};
PlanChoice explain_plan(Lab& lab, const std::string& query, const std::string& what);

// Parsers of EXPLAIN (ANALYZE, BUFFERS) text. Each returns false when absent.
// The number after `key` on an EXPLAIN line ("hit=" on "Buffers: shared hit=12 read=3",
// "ios=" on a Prefetch line); 0 if absent.
uint64_t explain_field(const std::string& line, const char* key);
bool parse_execution_time_ms(const ResultSet& explain, double* ms);
bool parse_top_buffers(const ResultSet& explain, uint64_t* hit, uint64_t* read);
// The "actual ... rows=N" of the top node.
bool parse_top_actual_rows(const ResultSet& explain, uint64_t* rows);
// The first Gather's "Workers Planned: N" and, with ANALYZE, "Workers Launched: M"
// (-1 when EXPLAIN printed no such line). False when the plan has no Gather.
bool parse_gather_workers(const ResultSet& explain, int* planned, int* launched);
// The top plan node: name ("Seq Scan", "Index Scan", "Bitmap Heap Scan", ...) and
// total cost from "(cost=0.00..554546.12 rows=...)".
bool parse_top_plan(const ResultSet& explain, std::string* node, double* total_cost);

// What EXPLAIN ANALYZE printed for one plan node: the TOTAL of "actual time=START..TOTAL"
// and its "Buffers: shared hit=H read=R" line (zeros when absent). As in PostgreSQL both
// include the node's children, so a node's own share is its figures minus its children's.
struct NodeActuals {
  double total_ms = 0;
  uint64_t shared_hit = 0;
  uint64_t shared_read = 0;
  // Its read stream's "Prefetch: ... in flight max=M of L" line: the most reads it had in
  // flight and the limit it ran with (effective_io_concurrency clamped to what the thread's
  // I/O handles allow; JSON's "Prefetch I/Os Limit"). -1 when the node printed no such line.
  int64_t prefetch_in_flight_max = -1;
  int64_t prefetch_limit = -1;
};
// Node 0 is the top node, node 1 the first "->" below it, and so on in print order.
bool parse_node_actuals(const ResultSet& explain, size_t node, NodeActuals* out);

}  // namespace tp::experiments
