// The executor tree of a chosen join path (create_plan for joins): each path's node
// returns its relation's vars in ascending order (JoinSearch::output_vars), so a join's
// combined row is its outer input's vars, then its inner input's, and its conditions
// are remapped onto those slots. Nested Loop (its Join Filter every clause), Hash Join
// (the class clauses as Hash Cond, outer side first, the others as Join Filter) with its
// Hash, Merge Join with the Sorts and the Materialize the path asked for, Materialize,
// and a Gather over a partial join (join_gather.cc).
//
//   JoinPlanBuilder b(ctx, q, search, scan_builders);
//   std::unique_ptr<scans::ExecNode> root = b.build(*chosen);   // rows: search.output_vars(all)
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engine/plan/join_search.h"
#include "scans/exec_node.h"
#include "scans/join_row.h"

namespace tp {

// A base relation's scan nodes, by path (TablePaths::builders).
using ScanBuilders = std::vector<std::function<std::unique_ptr<scans::ExecNode>()>>;

class JoinPlanBuilder {
 public:
  JoinPlanBuilder(PlanContext& ctx, const JoinQuery& q, const JoinSearch& search,
                  const std::vector<ScanBuilders>& scans)
      : ctx_(ctx), q_(q), search_(search), scans_(scans) {}

  std::unique_ptr<scans::ExecNode> build(const JoinPath& p) const;

 private:
  std::unique_ptr<scans::ExecNode> build_join(const JoinPath& p) const;
  // A Gather over a partial join path (join_gather.cc): every participant's copy of the
  // join, its partial scan reading the blocks they share.
  std::unique_ptr<scans::ExecNode> build_gather(const JoinPath& p) const;
  // A semi join's right side made distinct: HashAggregate, or Unique over a Sort.
  std::vector<uint32_t> layout_of(const JoinPath& p) const;
  const std::vector<TypedExpr>& held_keys(const JoinPath& p) const;
  std::unique_ptr<scans::ExecNode> build_unique(const JoinPath& p) const;
  // A parameterized scan, a Memoize over one, or a join over one (a parameterized join
  // path: its parameterized side reads them), reading `params`.
  std::unique_ptr<scans::ExecNode> parameterized(const JoinPath& p,
                                                 const scans::ExecParams* params) const;
  std::unique_ptr<scans::ExecNode> build_merge(const JoinPath& p,
                                               std::unique_ptr<scans::ExecNode> outer,
                                               std::unique_ptr<scans::ExecNode> inner,
                                               const scans::JoinSpec& spec,
                                               const std::vector<uint32_t>& outer_keys,
                                               const std::vector<uint32_t>& inner_keys,
                                               std::string cond) const;
  std::unique_ptr<scans::ExecNode> sorted(std::unique_ptr<scans::ExecNode> input,
                                          std::vector<scans::SortKey> keys, std::string text,
                                          int width, const PathCost& cost) const;

  PlanContext& ctx_;
  const JoinQuery& q_;
  const JoinSearch& search_;
  const std::vector<ScanBuilders>& scans_;
  // The parameters of the Nested Loop above a parameterized join being built, which its
  // parameterized input reads.
  mutable const scans::ExecParams* passed_params_ = nullptr;
  // While a Gather's copies are built: the participant's partial scan.
  mutable std::function<std::unique_ptr<scans::ExecNode>()> partial_leaf_;
};

// Rewrites `e`'s var slots into positions of `layout` (a var list).
void remap_vars(TypedExpr& e, const std::vector<uint32_t>& layout);

// `computed` (expressions over the join's vars) projected after the columns of `node`,
// whose rows hold the vars `layout`; `layout` gets a sentinel entry per computed column
// (UINT32_MAX - i). The node keeps its input's estimate.
std::unique_ptr<scans::ExecNode> project_join_columns(
    std::unique_ptr<scans::ExecNode> node, const std::vector<std::shared_ptr<TypedExpr>>& computed,
    std::vector<uint32_t>& layout);

}  // namespace tp
