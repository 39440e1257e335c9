#include "engine/plan/param_paths.h"

#include <algorithm>
#include <optional>

#include "engine/plan/btree_qual_summary.h"
#include "engine/plan/index_conditions.h"
#include "engine/plan/prepqual.h"

namespace tp {

namespace {

// The parameterized Bitmap Heap Scan over one index (create_bitmap_heap_path with the
// loop count): its Bitmap Index Scan searches with the parameters as runtime keys, and
// the heap scan rechecks them (scan_nodes.cc: by the key type's order).
ParamScanPath bitmap_path(const ParamPathInputs& in, const std::vector<ParamClause>& clauses,
                          const IndexInfo& ix, const std::vector<Clause>& ic, const BtreeQuals& bq,
                          const std::vector<Clause>& quals, const RelSize& size,
                          double loop_count) {
  const BitmapPath node = BitmapPath::index_scan(
      cost_btree_index(in.cs, size, ix.info, bq, loop_count), size.rows, ix.info.pages);
  // The heap scan evaluates the join clauses per row, their outer expressions (a cast
  // of the outer column) included.
  QualCost qc = qual_cost(in.cs, quals);
  for (const ParamClause& c : clauses)
    qc.per_tuple += c.operand_cost_units * in.cs.cpu_operator_cost;
  const BitmapHeapScanCost bc = cost_bitmap_heap_scan(in.cs, size, node, qc, loop_count);
  BitmapCandidate cand;
  cand.node = node;
  cand.scan = BitmapChoice{node, &ix, ic};
  cand.quals = ic;
  const std::vector<int> keys = ix.entry->key_columns;
  return {disabled_if(!in.settings.enable_bitmapscan, bc.path),
          [table = in.table, restrictions = in.restrictions, cand, node, keys,
           cost = bc.path](const scans::ExecParams* p) {
            BitmapHeapPlan plan = bitmap_heap_plan(table, restrictions, {cand}, node);
            auto* index_scan = dynamic_cast<scans::BitmapIndexScanNode*>(plan.tree.get());
            if (index_scan)
              index_scan->set_runtime_keys(runtime_keys(cand.scan.index_clauses, keys), p);
            plan.params.params = p;
            return make_bitmap_heap(table, std::move(plan), cost);
          },
          {}};
}

// The request's clauses an index applies: every equality, or none (the index does not
// serve the request), and each inequality on one of its keys.
std::optional<std::vector<size_t>> applied_clauses(const std::vector<ParamClause>& clauses,
                                                   const std::vector<int>& keys) {
  std::vector<size_t> applied;
  for (size_t i = 0; i < clauses.size(); ++i) {
    const bool key = std::find(keys.begin(), keys.end(), clauses[i].column) != keys.end();
    if (key) applied.push_back(i);
    if (!key && clauses[i].op == CmpOp::kEq) return std::nullopt;
  }
  if (applied.empty()) return std::nullopt;
  return applied;
}

}  // namespace

std::vector<ParamScanPath> parameterized_index_paths(const ParamPathInputs& in,
                                                     const std::vector<ParamClause>& request,
                                                     double loop_count) {
  std::vector<ParamScanPath> out;
  for (const IndexInfo& ix : in.indexes) {
    const std::vector<int>& keys = ix.entry->key_columns;
    const std::optional<std::vector<size_t>> applied = applied_clauses(request, keys);
    if (!applied) continue;
    std::vector<ParamClause> clauses;
    std::vector<Clause> params;
    for (size_t i : *applied) {
      const ParamClause& c = request[i];
      clauses.push_back(c);
      params.push_back(Clause::param_cmp(c.column, c.op, uint32_t(params.size()), c.outer_name));
      params.back().constant_left = c.outer_left;
    }
    // get_parameterized_baserel_size: the join clauses, then the restrictions.
    std::vector<Clause> all = params;
    all.insert(all.end(), in.restrictions.begin(), in.restrictions.end());
    RelSize size = in.size;
    size.rows = clamp_row_est(size.tuples * clauselist_selectivity(in.view, all));
    std::vector<Clause> ic = params, qp;
    for (const Clause& c : in.index_pool) {
      const bool usable = usable_index_clause(c, keys) && !is_index_in_list(c);
      if (c.derived_from) {  // a LIKE's prefix range: an index condition or nothing
        if (usable) ic.push_back(c);
        continue;
      }
      (usable ? ic : qp).push_back(c);
    }
    qp = order_qual_clauses(in.cs, qp);
    const bool index_only = in.settings.enable_indexonlyscan && in.covers_query(keys);
    BtreeQuals bq = summarize_btree_quals(in.view, keys, ix.entry->unique, ic);
    // index_other_operands_eval_cost: the outer expressions, once per scan.
    for (const ParamClause& c : clauses) bq.operand_cost_units += c.operand_cost_units;
    const IndexScanCost isc =
        cost_index_scan(in.cs, size, ix.info, bq, qual_cost(in.cs, qp), loop_count, index_only);
    IndexPathSpec spec{ix.entry, in_key_order(ic, keys), qp, false, index_only};
    out.push_back({disabled_if(!in.settings.enable_indexscan, isc.path),
                   [table = in.table, spec](const scans::ExecParams* p) mutable {
                     spec.params = p;
                     return make_index_scan(table, spec);
                   },
                   *applied});
    if (ParamScanPath b = bitmap_path(in, clauses, ix, ic, bq, all, size, loop_count); b.build) {
      b.applied = *applied;
      out.push_back(std::move(b));
    }
  }
  return out;
}

}  // namespace tp
