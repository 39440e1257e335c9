#include "scans/subplan_host.h"

#include <cstring>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"

namespace tp::scans {

namespace {

// The bytes a hashed SubPlan keys a value by: the Datum of a by-value type (the types
// hashed are those whose equal values have equal bytes).
std::string key_bytes(Datum d) {
  std::string k(sizeof d, '\0');
  std::memcpy(k.data(), &d, sizeof d);
  return k;
}

}  // namespace

SubPlanHostNode::SubPlanHostNode(std::unique_ptr<ExecNode> main,
                                 std::vector<InitPlanRun> init_plans,
                                 std::vector<SubPlanRun> sub_plans,
                                 std::vector<std::unique_ptr<ExecParams>> params)
    : main_(std::move(main)),
      init_plans_(std::move(init_plans)),
      sub_plans_(std::move(sub_plans)),
      params_(std::move(params)) {
  estimate = main_->estimate;
}

std::vector<const ExecNode*> SubPlanHostNode::children() const {
  std::vector<const ExecNode*> out{main_.get()};
  for (const InitPlanRun& p : init_plans_)
    if (p.plan) out.push_back(p.plan.get());
  for (const SubPlanRun& p : sub_plans_) out.push_back(p.plan.get());
  return out;
}

void SubPlanHostNode::shutdown() {
  Scope scope(this);
  ExecNode::shutdown();
}

void SubPlanHostNode::do_open() {
  init_values_.assign(init_plans_.size(), InitValue{});
  hashed_.assign(sub_plans_.size(), HashedRows{});
  opened_.assign(sub_plans_.size(), false);
  arena_.clear();
  Scope scope(this);
  for (size_t i = 0; i < init_plans_.size(); ++i)
    if (init_plans_[i].eager) {
      bool isnull = false;
      const Datum v = param(uint32_t(i), isnull);
      params_.at(0)->set(i, v, isnull);
    }
  main_->open();
}

const RowBatch* SubPlanHostNode::do_next() {
  Scope scope(this);
  return main_->next();
}

void SubPlanHostNode::run_init_plan(size_t i) {
  InitPlanRun& p = init_plans_[i];
  InitValue& v = init_values_[i];
  // EXISTS needs one row; a scalar subquery a second to know it has too many.
  p.plan->row_limit_hint = p.exists ? 1 : 2;
  p.plan->open();
  bool found = false;
  while (const RowBatch* b = p.plan->next()) {
    if (b->count == 0) continue;
    if (p.exists) {
      found = true;
      break;
    }
    if (found || b->count > 1)
      throw Error("more than one row returned by a subquery used as an expression")
          .with_sqlstate(sqlstate::kCardinalityViolation);
    found = true;
    ValueArena scratch;
    bool isnull = false;
    const Datum d = p.value(*b, 0, scratch, isnull);
    v.isnull = isnull;
    if (isnull) continue;
    const TypeInfo& info = type_info(p.type);
    if (info.byval) {
      v.value = d;
    } else {
      v.bytes.assign(datum_pointer(d), datum_ref_size(info.len, d));
      v.value = pointer_datum(v.bytes.data());
    }
  }
  if (p.exists) {
    v.isnull = false;
    v.value = found ? 1 : 0;
  }
  v.done = true;
}

Datum SubPlanHostNode::param(uint32_t id, bool& isnull) {
  // A correlated SubPlan's parameter: the outer row's value it was called with.
  for (const SubPlanRun& p : sub_plans_)
    if (p.params != nullptr && id >= p.param_base && id - p.param_base < p.outer_values) {
      isnull = p.params->is_null(id - p.param_base);
      return p.params->value(id - p.param_base);
    }
  if (id >= init_plans_.size() || !init_plans_[id].plan)
    throw Error("no subquery parameter $" + std::to_string(id))
        .with_sqlstate(sqlstate::kInternalError);
  if (!init_values_[id].done) run_init_plan(id);
  isnull = init_values_[id].isnull;
  return init_values_[id].value;
}

void SubPlanHostNode::build_hashed(size_t i) {
  SubPlanRun& p = sub_plans_[i];
  HashedRows& h = hashed_[i];
  p.plan->open();
  ValueArena scratch;
  while (const RowBatch* b = p.plan->next()) {
    for (uint32_t r = 0; r < b->count; ++r) {
      bool isnull = false;
      const Datum d = p.value(*b, r, scratch, isnull);
      h.empty = false;
      if (isnull)
        h.any_null = true;
      else
        h.keys.insert(key_bytes(d));
    }
    scratch.clear();
  }
  h.built = true;
}

Datum SubPlanHostNode::run_correlated(size_t i, const Datum* args, const bool* arg_nulls,
                                      bool& isnull) {
  SubPlanRun& p = sub_plans_[i];
  if (p.params != nullptr) {
    for (size_t k = 0; k < p.outer_values; ++k) p.params->set(k, args[k], arg_nulls[k]);
    derived_bytes_.clear();
    EvalState st{&derived_bytes_, 0};
    for (size_t j = 0; j < p.derived.size(); ++j) {
      bool isnull = false;
      const Datum d = evaluate(p.derived[j], args, arg_nulls, st, isnull);
      p.params->set(p.outer_values + j, d, isnull);
    }
  }
  if (!opened_[i]) {
    p.plan->open();
    opened_[i] = true;
  } else {
    p.plan->rescan();
  }
  isnull = true;
  bool found = false;
  Datum result = 0;
  // Read to the end: a second row is PostgreSQL's 21000.
  p.plan->row_limit_hint = 2;
  while (const RowBatch* b = p.plan->next()) {
    if (b->count == 0) continue;
    if (found || b->count > 1)
      throw Error("more than one row returned by a subquery used as an expression")
          .with_sqlstate(sqlstate::kCardinalityViolation);
    found = true;
    bool n = false;
    const Datum d = p.value(*b, 0, arena_, n);
    isnull = n;
    if (n) continue;
    const TypeInfo& info = type_info(p.type);
    if (info.byval) {
      result = d;
      continue;
    }
    // The value outlives the batch: copied into the host's arena (kept for the statement).
    const uint32_t size = datum_ref_size(info.len, d);
    char* bytes = arena_.allocate(size);
    std::memcpy(bytes, datum_pointer(d), size);
    result = pointer_datum(bytes);
  }
  return result;
}

Datum SubPlanHostNode::run_any(size_t i, const Datum* args, const bool* arg_nulls, bool& isnull) {
  SubPlanRun& p = sub_plans_[i];
  if (!opened_[i]) {
    p.plan->open();
    opened_[i] = true;
  } else {
    p.plan->rescan();
  }
  // x IN (rows), read until a row equals x: SQL's NULL rules as the hashed form's.
  bool any_row = false, any_null = false;
  ValueArena scratch;
  while (const RowBatch* b = p.plan->next()) {
    for (uint32_t r = 0; r < b->count; ++r) {
      bool n = false;
      const Datum d = p.value(*b, r, scratch, n);
      any_row = true;
      if (n || arg_nulls[0]) {
        any_null = true;
        continue;
      }
      if (d == args[0]) {
        isnull = false;
        return 1;
      }
    }
    scratch.clear();
  }
  isnull = any_row && any_null;
  return 0;
}

Datum SubPlanHostNode::subplan(uint32_t id, const Datum* args, const bool* arg_nulls,
                               bool& isnull) {
  if (id >= sub_plans_.size())
    throw Error("no SubPlan " + std::to_string(id + 1)).with_sqlstate(sqlstate::kInternalError);
  SubPlanRun& p = sub_plans_[id];
  if (p.kind == SubPlanRun::Kind::kExpr) return run_correlated(id, args, arg_nulls, isnull);
  if (!p.hashed) return run_any(id, args, arg_nulls, isnull);
  HashedRows& h = hashed_[id];
  if (!h.built) build_hashed(id);
  // x IN (rows): true when some row equals x; otherwise NULL when x or some row is NULL
  // (and there are rows), false when none.
  isnull = false;
  if (h.empty) return 0;
  if (arg_nulls[0]) {
    isnull = true;
    return 0;
  }
  if (h.keys.count(key_bytes(args[0])) != 0) return 1;
  if (h.any_null) isnull = true;
  return 0;
}

void GatingResultNode::do_open() {
  ValueArena arena;
  EvalState st{&arena, 0};
  pass_ = evaluate_qual(filter_, nullptr, nullptr, st);
  if (pass_) child_->open();
}

const RowBatch* GatingResultNode::do_next() {
  if (!pass_) return nullptr;
  return child_->next();
}

std::unique_ptr<ExecNode> gating_result(std::unique_ptr<ExecNode> child,
                                        const std::vector<TypedExpr>& quals) {
  TypedExpr filter = quals.at(0);
  if (quals.size() > 1) {
    filter = TypedExpr{};
    filter.kind = TypedExpr::Kind::kAnd;
    filter.type = TypeId::kBool;
    filter.args = quals;
  }
  const PlanEstimate estimate = child->estimate;
  auto node = std::make_unique<GatingResultNode>(std::move(child), std::move(filter));
  node->estimate = estimate;
  return node;
}

}  // namespace tp::scans
