#include "engine/plan/param_paths.h"

#include <algorithm>

#include "engine/plan/btree_qual_summary.h"
#include "engine/plan/index_conditions.h"
#include "engine/plan/prepqual.h"

namespace tp {

std::vector<ParamScanPath> parameterized_index_paths(const ParamPathInputs& in,
                                                     const std::vector<ParamClause>& clauses,
                                                     double loop_count) {
  std::vector<Clause> params;
  for (size_t i = 0; i < clauses.size(); ++i)
    params.push_back(Clause::param_eq(clauses[i].column, uint32_t(i), clauses[i].outer_name));
  // get_parameterized_baserel_size: the join clauses, then the restrictions.
  std::vector<Clause> all = params;
  all.insert(all.end(), in.restrictions.begin(), in.restrictions.end());
  RelSize size = in.size;
  size.rows = clamp_row_est(size.tuples * clauselist_selectivity(in.view, all));
  std::vector<ParamScanPath> out;
  for (const IndexInfo& ix : in.indexes) {
    const std::vector<int>& keys = ix.entry->key_columns;
    if (!std::all_of(params.begin(), params.end(), [&](const Clause& c) {
          return std::find(keys.begin(), keys.end(), c.column) != keys.end();
        }))
      continue;
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
                   }});
  }
  return out;
}

}  // namespace tp
