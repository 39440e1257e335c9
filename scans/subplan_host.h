// The subqueries PostgreSQL runs inside expressions (nodeSubplan.c):
//
//   Seq Scan on t  (cost=54.95..90.95 rows=40 width=4)
//     Filter: (k = $0)
//     InitPlan 1 (returns $0)                 an InitPlan: run once, when $0 is first read
//       ->  Aggregate  ...
//   Seq Scan on t  (cost=54.50..90.50 rows=1000 width=4)
//     Filter: (NOT (hashed SubPlan 1))        a hashed SubPlan: its rows in a hash table
//     SubPlan 1
//       ->  Seq Scan on u  ...
//   Seq Scan on t  (cost=0.00..526.81 rows=9 width=12)
//     SubPlan 1                               a SubPlan: run per row, the row's values
//       ->  Aggregate  ...                    its parameters
//
// SubPlanHostNode sits above the query's plan (EXPLAIN does not show it: the plan's top
// stands for it) and is the ParamSource (engine/core/typed_expr.h) the expressions of the
// plan read $n and SubPlans from while it runs. GatingResultNode is PostgreSQL's Result
// with a One-Time Filter that reads them (`One-Time Filter: $0` over an uncorrelated
// EXISTS).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/core/value_arena.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"

namespace tp::scans {

// A subquery's value in row `i` of `b` (its first output column), by-reference bytes
// in `arena` or in the batch.
using SubqueryValue =
    std::function<Datum(const RowBatch& b, uint32_t i, ValueArena& arena, bool& isnull)>;

struct InitPlanRun {
  std::unique_ptr<ExecNode> plan;
  SubqueryValue value;
  TypeId type = TypeId::kInt4;
  bool exists = false;  // EXISTS: true when the plan returns a row (it stops at the first)
  // An index scan's key reads it (`Index Cond: (k = $0)`): run when the plan starts, its
  // value set in the host's first ExecParams at $n.
  bool eager = false;
};

struct SubPlanRun {
  enum class Kind : uint8_t {
    kExpr,  // a correlated scalar subquery: its one row's value, NULL for none
    kAny,   // args[0] = ANY (its rows): x IN (SELECT ...), SQL's NULL rules
  };
  Kind kind = Kind::kExpr;
  std::unique_ptr<ExecNode> plan;
  SubqueryValue value;
  TypeId type = TypeId::kInt4;
  // Hashed (kAny, uncorrelated): the rows read once into a set, probed per row.
  bool hashed = false;
  // Correlated: the row's values (the expression's args) become these parameters
  // before the plan is rescanned.
  ExecParams* params = nullptr;
  // The kParam slot of params' first entry (the subquery's expressions read them).
  uint32_t param_base = 0;
  // params: the `outer_values` args, then one per `derived` expression (over the args
  // as a row: an index key's cast of an outer value), computed before each rescan.
  size_t outer_values = 0;
  std::vector<TypedExpr> derived;
};

class SubPlanHostNode final : public ExecNode, public ParamSource {
 public:
  SubPlanHostNode(std::unique_ptr<ExecNode> main, std::vector<InitPlanRun> init_plans,
                  std::vector<SubPlanRun> sub_plans,
                  std::vector<std::unique_ptr<ExecParams>> params = {});

  std::string explain_name() const override { return main_->explain_name(); }
  void explain_details(std::vector<std::string>&, bool) const override {}
  bool explain_transparent() const override { return true; }
  std::vector<const ExecNode*> children() const override;
  void shutdown() override;

  Datum param(uint32_t id, bool& isnull) override;
  Datum subplan(uint32_t id, const Datum* args, const bool* arg_nulls, bool& isnull) override;

  ExecNode& main() { return *main_; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  struct Scope {
    explicit Scope(ParamSource* s) : saved(current_param_source()) { current_param_source() = s; }
    ~Scope() { current_param_source() = saved; }
    ParamSource* saved;
  };
  struct InitValue {
    bool done = false;
    bool isnull = true;
    Datum value = 0;
    std::string bytes;
  };
  struct HashedRows {
    bool built = false;
    bool any_null = false;  // the subquery returned a NULL
    bool empty = true;
    std::unordered_set<std::string> keys;  // each non-NULL value's bytes
  };
  void run_init_plan(size_t i);
  void build_hashed(size_t i);
  Datum run_correlated(size_t i, const Datum* args, const bool* arg_nulls, bool& isnull);
  Datum run_any(size_t i, const Datum* args, const bool* arg_nulls, bool& isnull);

  std::unique_ptr<ExecNode> main_;
  std::vector<InitPlanRun> init_plans_;
  std::vector<SubPlanRun> sub_plans_;
  std::vector<std::unique_ptr<ExecParams>> params_;
  std::vector<InitValue> init_values_;
  std::vector<HashedRows> hashed_;
  std::vector<bool> opened_;  // a correlated SubPlan's first call opens, later ones rescan
  ValueArena arena_;
  ValueArena derived_bytes_;  // the derived parameters' values of the running SubPlan
};

// Result with a One-Time Filter over subquery values (`One-Time Filter: $0`): the filter is
// evaluated when the node first runs; false or NULL, no row and the child never starts.
class GatingResultNode final : public ExecNode {
 public:
  GatingResultNode(std::unique_ptr<ExecNode> child, TypedExpr filter)
      : child_(std::move(child)), filter_(std::move(filter)) {}
  std::string explain_name() const override { return "Result"; }
  void explain_details(std::vector<std::string>& lines, bool) const override {
    lines.push_back("One-Time Filter: " + deparse(filter_));
  }
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  std::unique_ptr<ExecNode> child_;
  TypedExpr filter_;
  bool pass_ = false;
};

// `child` under a GatingResultNode whose filter is the AND of `quals`, with its estimate.
std::unique_ptr<ExecNode> gating_result(std::unique_ptr<ExecNode> child,
                                        const std::vector<TypedExpr>& quals);

}  // namespace tp::scans
