#include "engine/plan/param_paths.h"

#include <algorithm>
#include <map>
#include <optional>

#include "engine/core/datetime.h"
#include "engine/plan/btree_qual_summary.h"
#include "engine/plan/index_conditions.h"
#include "engine/plan/prepqual.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/expr_ops.h"
#include "scans/exec_params.h"

namespace tp {

bool reads_outer_values(const TypedExpr& e) {
  if (e.kind == TypedExpr::Kind::kParam && !is_extern_param(e) && e.slot >= kNestLoopParamBase)
    return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [](const TypedExpr& a) { return reads_outer_values(a); });
}

namespace {

// The request's clauses an index applies: every class equality, or none (the index does
// not serve the request), and each other clause on one of its keys.
std::optional<std::vector<size_t>> applied_clauses(const std::vector<ParamClause>& clauses,
                                                   const std::vector<int>& keys) {
  std::vector<size_t> applied;
  for (size_t i = 0; i < clauses.size(); ++i) {
    const bool key = std::find(keys.begin(), keys.end(), clauses[i].column) != keys.end();
    if (key) applied.push_back(i);
    // A class's equality it cannot apply makes no path (a Join Filter's is its Filter).
    if (!key && clauses[i].op == CmpOp::kEq && !clauses[i].unapplied) return std::nullopt;
  }
  if (applied.empty()) return std::nullopt;
  return applied;
}

// The request's clauses `applied` as parameterized clauses, parameter i the request's
// clause i.
std::vector<Clause> param_clauses(const std::vector<ParamClause>& request,
                                  const std::vector<size_t>& applied) {
  std::vector<Clause> params;
  for (size_t i : applied) {
    const ParamClause& c = request[i];
    params.push_back(Clause::param_cmp(c.column, c.op, uint32_t(i), c.outer_name));
    params.back().constant_left = c.outer_left;
  }
  return params;
}

// get_parameterized_baserel_size: the join clauses (index keys, then the others), then
// the restrictions.
RelSize param_size(const ParamPathInputs& in, const std::vector<Clause>& params,
                   const std::vector<Clause>& join_filters) {
  std::vector<Clause> all = params;
  all.insert(all.end(), join_filters.begin(), join_filters.end());
  all.insert(all.end(), in.restrictions.begin(), in.restrictions.end());
  RelSize size = in.size;
  size.rows = clamp_row_est(size.tuples * clauselist_selectivity(in.view, all));
  return size;
}

// A join filter's outer value at run time: parameter `self.slot` of the Nested Loop's
// parameters, whose address the node carries (set_nestloop_params).
Datum read_nestloop_param(const Datum*, const TypedExpr& self, EvalState& st) {
  const auto* params = reinterpret_cast<const scans::ExecParams*>(self.value.datum());
  if (params->is_null(self.slot)) {
    st.null_result = true;
    return 0;
  }
  return params->value(self.slot);
}

void bind_outer_values(TypedExpr& e, const scans::ExecParams* params, size_t first) {
  if (e.kind == TypedExpr::Kind::kParam && !is_extern_param(e) && e.slot >= kNestLoopParamBase) {
    e.kind = TypedExpr::Kind::kCall;
    e.form = TypedExpr::Form::kSqlSyntax;  // printed as its name, the outer column
    e.fn = read_nestloop_param;
    e.slot = uint32_t(first + (e.slot - kNestLoopParamBase));
    e.value = OwnedDatum::by_value(Datum(reinterpret_cast<uintptr_t>(params)));
    return;
  }
  for (TypedExpr& a : e.args) bind_outer_values(a, params, first);
}

// The join filters among `clauses` made to read their outer values from `params`, after
// the `first` index keys'.
void set_nestloop_params(std::vector<Clause>& clauses, const scans::ExecParams* params,
                         size_t first) {
  for (Clause& c : clauses) {
    if (c.kind != Clause::Kind::kExpr || !c.expr || !reads_outer_values(*c.expr)) continue;
    TypedExpr bound = *c.expr;
    bind_outer_values(bound, params, first);
    c.expr = std::make_shared<const TypedExpr>(std::move(bound));
  }
}

// What a path applying `applied` filters by beyond its keys: the request's join filters,
// and each filter key its index does not apply.
std::vector<Clause> path_filters(const std::vector<ParamClause>& request,
                                 const std::vector<size_t>& applied,
                                 const std::vector<Clause>& join_filters) {
  std::vector<Clause> out = join_filters;
  for (size_t i = 0; i < request.size(); ++i)
    if (request[i].unapplied && std::find(applied.begin(), applied.end(), i) == applied.end())
      out.push_back(*request[i].unapplied);
  return out;
}

// Whether an index's keys hold every column the join filters read (an Index Only Scan
// evaluates them over the index tuple).
bool covers_columns(const std::vector<int>& keys, const std::vector<Clause>& join_filters) {
  std::vector<int> columns;
  for (const Clause& c : join_filters) clause_columns(c, columns);
  return std::all_of(columns.begin(), columns.end(), [&](int col) {
    return std::find(keys.begin(), keys.end(), col) != keys.end();
  });
}

// The first `count` clauses, the join clauses' parameters, renumbered by their place in
// `applied` (the Nested Loop's order); the others (an InitPlan's `$n`) stay.
void renumber(std::vector<Clause>& clauses, size_t count, const std::vector<size_t>& applied) {
  for (size_t i = 0; i < count && i < clauses.size(); ++i)
    if (clauses[i].param)
      clauses[i].param =
          uint32_t(std::find(applied.begin(), applied.end(), *clauses[i].param) - applied.begin());
}

// The request's clauses a bitmap group's parameterized scans apply, in request order.
std::vector<size_t> group_applied(const std::vector<const BitmapCandidate*>& group) {
  std::vector<size_t> applied;
  for (const BitmapCandidate* c : group)
    for (size_t i : c->join_params)
      if (std::find(applied.begin(), applied.end(), i) == applied.end()) applied.push_back(i);
  std::sort(applied.begin(), applied.end());
  return applied;
}

struct HeapCost {
  BitmapHeapScanCost cost;
  RelSize size;
};

// The parameterized heap scan over a bitmap whose scans apply `applied` (cost_bitmap_heap_scan
// with the loop count): the join clauses evaluated per row, their outer expressions too.
HeapCost param_heap_cost(const ParamPathInputs& in, const std::vector<ParamClause>& request,
                         const std::vector<Clause>& join_filters,
                         const std::vector<size_t>& applied, const BitmapPath& bitmap,
                         double loop_count) {
  const std::vector<Clause> params = param_clauses(request, applied);
  const std::vector<Clause> filters = path_filters(request, applied, join_filters);
  const RelSize size = param_size(in, params, filters);
  std::vector<Clause> all = params;
  all.insert(all.end(), filters.begin(), filters.end());
  all.insert(all.end(), in.restrictions.begin(), in.restrictions.end());
  QualCost qc = qual_cost(in.cs, all);
  for (size_t i : applied) qc.per_tuple += request[i].operand_cost_units * in.cs.cpu_operator_cost;
  return {cost_bitmap_heap_scan(in.cs, size, bitmap, qc, loop_count), size};
}

// create_index_paths' join bitmap paths: the parameterized bitmap index scans and the
// restrictions' bitmap candidates, ANDed as choose_bitmap_and picks; a parameterized
// Bitmap Heap Scan when the pick holds a parameterized scan.
std::optional<ParamScanPath> bitmap_path(const ParamPathInputs& in,
                                         const std::vector<ParamClause>& request,
                                         const std::vector<Clause>& join_filters,
                                         std::vector<BitmapCandidate> candidates,
                                         double loop_count) {
  if (candidates.empty() || !in.bitmap_candidates) return std::nullopt;
  for (BitmapCandidate& c : in.bitmap_candidates()) add_bitmap_candidate(candidates, c, in.cs);
  BitmapPath bitmap;
  std::vector<BitmapCandidate> chosen = choose_bitmap_and(
      std::move(candidates), in.cs,
      [&](const BitmapPath& b, const std::vector<const BitmapCandidate*>& group) {
        const std::vector<size_t> applied = group_applied(group);
        if (applied.empty()) return in.heap_cost(b);
        return param_heap_cost(in, request, join_filters, applied, b, loop_count).cost.path.total;
      },
      bitmap);
  std::vector<const BitmapCandidate*> members;
  for (const BitmapCandidate& c : chosen) members.push_back(&c);
  const std::vector<size_t> applied = group_applied(members);
  if (applied.empty()) return std::nullopt;  // the unparameterized Bitmap Heap Scan
  const HeapCost hc = param_heap_cost(in, request, join_filters, applied, bitmap, loop_count);
  for (BitmapCandidate& c : chosen) {
    renumber(c.quals, c.join_params.size(), applied);
    renumber(c.scan.index_clauses, c.join_params.size(), applied);
  }
  const PathCost cost = disabled_if(!in.settings.enable_bitmapscan, hc.cost.path);
  return ParamScanPath{cost,
                       [table = in.table, restrictions = in.restrictions,
                        filters = path_filters(request, applied, join_filters),
                        keys = applied.size(), chosen, bitmap, cost](const scans::ExecParams* p) {
                         std::vector<Clause> heap = restrictions;
                         heap.insert(heap.end(), filters.begin(), filters.end());
                         set_nestloop_params(heap, p, keys);
                         BitmapHeapPlan plan = bitmap_heap_plan(table, heap, chosen, bitmap, p);
                         plan.params.params = p;
                         return make_bitmap_heap(table, std::move(plan), cost);
                       },
                       applied};
}

}  // namespace

std::vector<ParamScanPath> parameterized_index_paths(const ParamPathInputs& in,
                                                     const std::vector<ParamClause>& request,
                                                     const std::vector<Clause>& join_filters,
                                                     double loop_count) {
  std::vector<ParamScanPath> out;
  std::vector<BitmapCandidate> bitmap_candidates;
  for (const IndexInfo& ix : in.indexes) {
    const std::vector<int>& keys = ix.entry->key_columns;
    const std::optional<std::vector<size_t>> applied = applied_clauses(request, keys);
    if (!applied) continue;
    const std::vector<Clause> params = param_clauses(request, *applied);
    const std::vector<Clause> filters = path_filters(request, *applied, join_filters);
    const RelSize size = param_size(in, params, filters);
    std::vector<Clause> ic = params, qp;
    for (const Clause& c : in.index_pool) {
      // An InitPlan's `$n` is no key beside the join's parameters (one set of runtime
      // keys per scan): it filters.
      const bool usable = usable_index_clause(c, keys) && !is_index_in_list(c) && !c.param;
      if (c.derived_from) {  // a LIKE's prefix range: an index condition or nothing
        if (usable) ic.push_back(c);
        continue;
      }
      (usable ? ic : qp).push_back(c);
    }
    qp.insert(qp.end(), filters.begin(), filters.end());
    qp = order_qual_clauses(in.cs, qp);
    const bool index_only =
        in.settings.enable_indexonlyscan && in.covers_query(keys) && covers_columns(keys, filters);
    BtreeQuals bq = summarize_btree_quals(in.view, keys, ix.entry->unique, ic);
    // index_other_operands_eval_cost: the outer expressions, once per scan.
    for (size_t i : *applied) bq.operand_cost_units += request[i].operand_cost_units;
    const IndexScanCost isc =
        cost_index_scan(in.cs, size, ix.info, bq, qual_cost(in.cs, qp), loop_count, index_only);
    BitmapCandidate cand;
    cand.node = BitmapPath::index_scan(cost_btree_index(in.cs, size, ix.info, bq, loop_count),
                                       size.rows, ix.info.pages);
    cand.scan = BitmapChoice{cand.node, &ix, ic};
    cand.quals = ic;
    cand.join_params = *applied;
    bitmap_candidates.push_back(std::move(cand));
    renumber(ic, applied->size(), *applied);
    IndexPathSpec spec{ix.entry, in_key_order(ic, keys), qp, false, index_only};
    out.push_back(
        {disabled_if(!in.settings.enable_indexscan, isc.path),
         [table = in.table, spec, keys = applied->size()](const scans::ExecParams* p) mutable {
           spec.params = p;
           set_nestloop_params(spec.filter, p, keys);
           return make_index_scan(table, spec);
         },
         *applied, isc.batch_gain, isc.batch_gain_first_page});
  }
  if (std::optional<ParamScanPath> b =
          bitmap_path(in, request, join_filters, std::move(bitmap_candidates), loop_count))
    out.push_back(std::move(*b));
  return out;
}

namespace {

// A timestamp parameter into a date key (PostgreSQL's date = timestamp operator): the
// date it equals, NULL (no key matches) when it is not a midnight.
Datum timestamp_date_exact(const Datum* args, const TypedExpr&, EvalState& st) {
  const int64_t ts = int64_t(args[0]);
  if (ts == kTimestampNoBegin) return Datum(int64_t(kDateNoBegin));
  if (ts == kTimestampNoEnd) return Datum(int64_t(kDateNoEnd));
  if (ts % kUsecsPerDay != 0) {
    st.null_result = true;
    return 0;
  }
  return Datum(ts / kUsecsPerDay);
}

}  // namespace

bool date_from_timestamp(TypeId value, TypeId key) {
  return key == TypeId::kDate && (value == TypeId::kTimestamp || value == TypeId::kTimestamptz);
}

TypedExpr exact_date_of(TypedExpr value) {
  TypedExpr exact;
  exact.kind = TypedExpr::Kind::kCall;
  exact.type = TypeId::kDate;
  exact.name = "date_exact";
  exact.fn = timestamp_date_exact;
  exact.args.push_back(std::move(value));
  return exact;
}

bool same_key_type(TypeId a, TypeId b) {
  const auto is_text = [](TypeId t) { return t == TypeId::kText || t == TypeId::kVarchar; };
  return a == b || (expr::is_integer(a) && expr::is_integer(b)) || (is_text(a) && is_text(b));
}

bool widens_to(TypeId from, TypeId to) {
  return (from == TypeId::kDate && (to == TypeId::kTimestamp || to == TypeId::kTimestamptz)) ||
         (from == TypeId::kTimestamp && to == TypeId::kTimestamptz) ||
         (from == TypeId::kFloat4 && to == TypeId::kFloat8);
}

}  // namespace tp
