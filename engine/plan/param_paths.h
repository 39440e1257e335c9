// Parameterized index paths (build_index_paths with join clauses): for a join clause
// `column = outer column` a Nested Loop could hand its inner side as a parameter, each
// index whose keys hold the clauses' columns scans once per outer row, the table's
// restrictions it can use beside them as further index conditions, the others a Filter.
// Costed by cost_index with the loop count (the outer relation's rows: index and heap
// pages cached across the loops, Mackert-Lohman), the rows of one scan sized by
// get_parameterized_baserel_size (the join clauses' var_eq_non_const with the
// restrictions). The scan chooser (engine/plan/scan_choice.h) calls this on the join
// search's request.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engine/core/clause.h"
#include "engine/plan/bitmap_or.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/scan_choice.h"
#include "engine/plan/scan_nodes.h"
#include "engine/plan/selectivity.h"

namespace tp {

// What the scan chooser knows of its table, as the parameterized paths need it.
struct ParamPathInputs {
  const CostSettings& cs;
  const PlannerSettings& settings;
  const RelationStatsView& view;
  const RelSize& size;
  const std::vector<Clause>& restrictions;  // baserestrictinfo
  const std::vector<Clause>& index_pool;    // restrictions and their derived index clauses
  const std::vector<IndexInfo>& indexes;
  std::function<bool(const std::vector<int>& keys)> covers_query;  // an index-only scan's test
  TableScan table;  // what the scan nodes are built over (valid while the chooser runs)
  // The restrictions' bitmap candidates (bitindexpaths), and the unparameterized heap
  // scan's cost over a bitmap: what a join bitmap path is chosen among.
  std::function<std::vector<BitmapCandidate>()> bitmap_candidates;
  std::function<double(const BitmapPath&)> heap_cost;
};

// `join_filters` (kNestLoopParamBase) go into every path's Filter and its rows; each
// path's build reads their outer values from the parameters after its index keys'.
std::vector<ParamScanPath> parameterized_index_paths(const ParamPathInputs& in,
                                                     const std::vector<ParamClause>& clauses,
                                                     const std::vector<Clause>& join_filters,
                                                     double loop_count);

// Whether `e` reads an outer value of a join filter (a kParam from kNestLoopParamBase).
bool reads_outer_values(const TypedExpr& e);

// A parameter's value goes into an index key as it is: the same type, integers, or text
// and varchar (one btree operator family: a varchar is relabeled as text).
bool same_key_type(TypeId a, TypeId b);
// A value of `from` that the key type `to` holds exactly, as PostgreSQL's cross-type
// index operators compare them (date with timestamp, real with double precision): the
// parameter is cast to the key's type when it is set.
bool widens_to(TypeId from, TypeId to);
// A timestamp (with or without time zone: TimeZone is UTC) equal to a date key: the
// key's value is the date it is the midnight of (exact_date_of, NULL when it is none).
bool date_from_timestamp(TypeId value, TypeId key);
TypedExpr exact_date_of(TypedExpr value);

}  // namespace tp
