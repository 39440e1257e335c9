// How a query reads its one table, chosen as PostgreSQL's planner chooses a base
// relation's path: a sequential scan; an index scan on each index that has usable
// clauses or gives the wanted order; a bitmap heap scan over the cheapest index; and a
// BitmapOr when indexes cover every arm of an OR clause. Candidates are compared on their
// total cost including the Sort and Limit the query would still need above them;
// enable_* = off adds PostgreSQL's disable cost (1e10), so a disabled path still wins
// when nothing else can answer. A `Gather -> Parallel Seq Scan` competes too, kept only
// where PostgreSQL's add_path would keep it beside the serial paths (fuzzily cheaper);
// for an ORDER BY, PostgreSQL's two `Gather Merge -> Sort -> Parallel Seq Scan` paths
// compete with the serial ordered paths and the Sort over the cheapest path as
// PostgreSQL's ordered and final relations weigh them (add_path, then the cheapest).
//
//   ChosenScan scan = choose_scan(ctx, query);
//   scan.node->open();  ...                  // rows carry query.scan_columns, in order
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/plan/cost_model.h"
#include "engine/plan/distinct.h"
#include "engine/plan/parallel_paths.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/selectivity.h"
#include "engine/plan/serial_paths.h"
#include "engine/storage/catalog.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"

namespace tp {

struct ChosenScan;
struct TablePaths;

struct ScanQuery {
  const RelationEntry* rel = nullptr;
  // Restriction clauses in PostgreSQL's baserestrictinfo order: the equalities its
  // equivalence classes give back come last, from `class_start` on.
  std::vector<Clause> clauses;
  size_t class_start = 0;
  std::vector<int> scan_columns;  // the table columns the nodes above read, by slot
  // The leading scan columns EXPLAIN's width counts (the others feed computed select-list
  // columns only, which count `computed_width` instead); SIZE_MAX: all.
  size_t width_columns = SIZE_MAX;
  int computed_width = 0;
  std::vector<std::pair<int, bool>> order;  // the wanted order: table column, descending
  // How many leading keys of `order` an index may give: those before the first key
  // with NULLS FIRST ascending or NULLS LAST descending.
  size_t index_orderable_keys = SIZE_MAX;
  std::vector<int> constant_columns;  // fixed by `col = const`: no key in any order
  // Columns a join above may merge on: an index that leads with one gives a path in its
  // order even with no condition to apply (PostgreSQL keeps it for its useful pathkeys).
  std::vector<int> merge_columns;
  std::vector<int> merge_descending;  // those the ORDER BY wants descending: a backward scan
  // A join's ORDER BY, its leading keys that are this table's columns (descending, NULLs
  // where an index scan puts them): an index in that order gives a path, backward for
  // DESC, that a join above may keep for it (pathkeys_useful_for_ordering).
  std::vector<std::pair<int, bool>> join_order;
  // Only paths that give `order` themselves (no Sort): a min/max InitPlan's subquery,
  // which PostgreSQL answers from presorted paths only. choose_scan's node is null when
  // there is none.
  bool presorted_only = false;
  std::string alias;        // EXPLAIN's alias after the relation name ("t1_1"), if any
  std::string table_alias;  // the FROM clause's alias (`FROM t1 x`), unquoted; empty: none
  bool aggregate = false;   // an Aggregate reads the scan (one result row)
  // The restrictions are false (engine/plan/equivalence.h): one row is estimated, no
  // parallel path is made, and the scan sits under a Result whose One-Time Filter
  // is false, so it never runs.
  bool one_time_false = false;
  bool one_time_null = false;  // that filter is a NULL (`One-Time Filter: NULL::boolean`)
  // Quals over InitPlans' values and no column (`WHERE EXISTS (...)`, $0): the scan sits
  // under a Result whose One-Time Filter they are (scans/subplan_host.h).
  std::vector<TypedExpr> gating;
  // The restrictions reduced to a constant FALSE or NULL (`WHERE 1 = 2`, `a = NULL`):
  // PostgreSQL's dummy relation, no scan at all, only a Result that returns nothing
  // (relation_excluded_by_constraints).
  bool proven_empty = false;
  // The wanted order has computed keys (SELECT DISTINCT a + 1): no path gives it, and the
  // distinct plan is made over the serial paths only (its participants would not compute
  // the expressions).
  bool order_unavailable = false;
  std::optional<int64_t> limit;
  // How a participant of a Gather Merge sorts (keys over the scan's slots), for an
  // ORDER BY: the Sort the planner would add above the scan, per participant.
  SortSpec sort;
  // SELECT DISTINCT (`order` then holds the DISTINCT keys, `sort` the Sort a Gather
  // Merge's participants would do in that order): what create_distinct_paths needs; the
  // groups are estimated here over `distinct_columns` (the DISTINCT clause); choose_scan
  // then returns the input of the distinct plan PostgreSQL would pick
  // (engine/plan/distinct.h, engine/plan/distinct_paths.h).
  std::optional<DistinctQuery> distinct;
  std::vector<int> distinct_columns;
  int distinct_boolean_exprs = 0;       // computed boolean DISTINCT entries (two groups each)
  std::vector<int> distinct_expr_vars;  // the columns the computed DISTINCT entries read
  // The computed select list's cost per row, which every path of the table includes
  // before anything is built over it (apply_scanjoin_target_to_paths: the scan computes
  // the target list, below a Sort, an Incremental Sort, a Gather, a DISTINCT's Unique or
  // HashAggregate), partial paths for each participant's rows.
  double projection_cost = 0;
  std::vector<uint32_t> distinct_group_slots;  // over the scan's slots, for a HashAggregate
  std::string distinct_group_text;             // its Group Key
  // GROUP BY: the plan above the table's paths picks one (`order` holds the grouping
  // keys), and returns it built.
  std::function<ChosenScan(TablePaths)> upper;
};

// A join clause `column op outer value` a parameterized path may apply (op: =, <, <=, >,
// >=; `outer_left`: written `outer op' column`). An equality must be an index condition of
// every path of the request; an inequality is one where the index holds its column.
struct ParamClause {
  int column = 0;
  std::string outer_name;         // as EXPLAIN prints the outer value ("a.x", "(a.k + 1)")
  double operand_cost_units = 0;  // an outer expression's calls, evaluated once per scan
  CmpOp op = CmpOp::kEq;
  bool outer_left = false;
  bool hashable = true;  // a hashable equality (a Memoize above compares by value)
  // A Join Filter's key: the filter a path whose index does not apply it filters by
  // (kNestLoopParamBase, as the request's join filters); null for a class's key.
  std::shared_ptr<const Clause> unapplied = nullptr;
};

// A join clause a parameterized path filters by without keying its index (PostgreSQL's
// ppi_clauses that are no index condition: `(sm * 2) < 7932 OR abs(s3.n - 500) = 1.5`
// moved into the inner scan of a Nested Loop over s3): a Clause over the table's columns
// whose outer values are kParam nodes numbered from kNestLoopParamBase, in the order of
// the outer values the Nested Loop passes after its index keys'.
inline constexpr uint32_t kNestLoopParamBase = 1u << 20;

// A parameterized index path (build_index_paths with join clauses): the index applies
// the request's clauses `applied` (in that order: parameter i of the Nested Loop above is
// the value of applied[i]'s outer side), each scan reads the rows of one outer value.
struct ParamScanPath {
  PathCost cost;  // one scan's: its rows are get_parameterized_baserel_size's
  std::function<std::unique_ptr<scans::ExecNode>(const scans::ExecParams*)> build;
  std::vector<size_t> applied;
  double batch_gain = 0;  // an index scan's IndexScanCost::batch_gain (prefetch_aware)
  double batch_gain_first_page = 0;
};

// The table's paths as the scan chooser made them, for a plan above that weighs them
// itself (GROUP BY: engine/plan/grouping_paths.h; joins: engine/plan/join_select.h).
struct TablePaths {
  // Serial paths, then the Gather and Gather Merges; `keys`: the leading `order` keys
  // each gives.
  std::vector<TablePath> paths;
  std::vector<std::function<std::unique_ptr<scans::ExecNode>()>> builders;
  std::vector<PartialScan> partials;  // as add_partial_path kept them
  const RelationStatsView* view = nullptr;
  RelSize size;
  int width = 0;
  // An Incremental Sort's cost over a path ordered by its first `presorted` keys
  // (`limit` rows wanted, -1: all).
  std::function<PathCost(const PathCost&, size_t presorted, double limit)> incremental_sort;
  // The parameterized index paths over every index whose keys hold all of `clauses`, costed
  // for `loop_count` scans (valid while the chooser runs, as `builders` are).
  // `join_filters`: the join clauses every such path filters by (kNestLoopParamBase).
  std::function<std::vector<ParamScanPath>(const std::vector<ParamClause>& clauses,
                                           const std::vector<Clause>& join_filters,
                                           double loop_count)>
      param_paths;
};

struct ChosenScan {
  std::unique_ptr<scans::ExecNode> node;  // its EXPLAIN estimate filled in
  PathCost path;
  bool ordered = false;       // rows come in the wanted order: no Sort needed
  bool parallel_safe = true;  // false when `node` is a Gather or Gather Merge
  int width = 0;              // bytes of an output row, as EXPLAIN's width
  // The table's partial paths (Parallel Seq, Index, Index Only and Bitmap Heap Scans)
  // that PostgreSQL's add_partial_path keeps, cheapest total first, for an aggregate's
  // Finalize / Partial plan; `node` may already be a Gather over the first when that
  // was cheapest (engine/plan/parallel_paths.h).
  std::vector<PartialScan> partials;
  // SELECT DISTINCT: the plan above `node`, and the columns PostgreSQL's scan would
  // return as its physical row (an index-only scan's keys, else the table's columns;
  // empty when the node returns exactly the select list, as a Gather does).
  std::optional<DistinctChoice> distinct;
  std::vector<int> physical_columns;
};

ChosenScan choose_scan(PlanContext& ctx, const ScanQuery& query);

// choose_scan's plan for a query proven empty (scan_empty.cc): PostgreSQL's dummy
// relation, a Result with a false One-Time Filter.
ChosenScan empty_scan(PlanContext& ctx, const ScanQuery& q);

}  // namespace tp
