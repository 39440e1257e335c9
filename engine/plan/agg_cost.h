// What aggregates cost, as PostgreSQL 15 counts it (prepagg.c
// get_agg_clause_costs, costsize.c cost_agg for AGG_PLAIN), for the three ways
// an aggregate runs: whole (Aggregate), as a Partial Aggregate in each
// participant of a parallel plan (transition function per row, then the
// serialization function once for an `internal` state), and as a Finalize
// Aggregate above the Gather (combine function, plus deserialization for an
// `internal` state, per partial row; then the final function).
//
// As PostgreSQL, identical aggregates are computed once and aggregates with
// the same transition function over the same column share one transition
// state (sum(int8) and avg(int8) both accumulate with int8_avg_accum), so
// each transition is paid once. Every function here has procost 1: one
// cpu_operator_cost per call.
//
//   AggClauseCosts c = agg_clause_costs(cs, calls, AggSplit::kInitialSerial);
//   PathCost partial = cost_plain_agg(cs, parallel_scan, c);
#pragma once

#include <string>
#include <vector>

#include "engine/core/heap_tuple.h"
#include "engine/plan/cost_model.h"
#include "scans/sort_limit_agg.h"

namespace tp {

// One aggregate of the select list: count(*) has no column.
struct AggCall {
  scans::AggKind kind = scans::AggKind::kCountStar;
  int column = -1;
  ColumnType input = ColumnType::kInt8;
  bool distinct = false;  // count(DISTINCT a): merged only with its twin, never shares a state
  // An expression argument: its text (calls over the same one share a state, as
  // PostgreSQL's equal() args do) and its cost_qual_eval units, paid per input row by each
  // transition state that reads it.
  std::string arg_key = {};
  double arg_units = 0;
  // The input's typmod: min / max keep a state of the input's type and typmod, whose
  // average width sizes a hash table's entries (char(8) is 8 characters wide).
  int32_t typmod = kNoTypmod;
};

// PostgreSQL's AggSplit for the three modes tidepool plans.
enum class AggSplit { kSimple, kInitialSerial, kFinalDeserial };

struct AggClauseCosts {
  QualCost trans;       // per input row (and startup)
  QualCost final_cost;  // once per group (per_tuple), plus startup
};

AggClauseCosts agg_clause_costs(const CostSettings& cs, const std::vector<AggCall>& calls,
                                AggSplit split);

// The transition states the calls need (shared ones once) and the hash table's bytes per
// group for their by-reference values (get_agg_clause_costs' transitionSpace: an
// aggregate's declared space, else the state type's average width, MAXALIGNed, plus
// two pointers of allocation overhead).
struct AggTransitions {
  int states = 0;
  double space = 0;
};
AggTransitions agg_transitions(const std::vector<AggCall>& calls);

// cost_agg for AGG_PLAIN: all input first, then one row. Startup = input total +
// transitions per input row + final costs; total = startup + cpu_tuple_cost.
PathCost cost_plain_agg(const CostSettings& cs, const PathCost& input, const AggClauseCosts& costs);

// EXPLAIN's width of a Partial Aggregate's output: each distinct aggregate's
// transition state as PostgreSQL sizes its type (int8 8, int4 4, the _int8
// array of avg(int4) and the bytea of a serialized `internal` state 32).
int partial_agg_width(const std::vector<AggCall>& calls);

}  // namespace tp
