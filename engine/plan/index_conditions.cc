#include "engine/plan/index_conditions.h"

#include <algorithm>
#include <limits>

#include "engine/core/error.h"
#include "engine/plan/btree_qual_summary.h"

namespace tp {
namespace {

btree::ColumnCondition condition_on(int pos, CmpOp op, int64_t v) {
  switch (op) {
    case CmpOp::kEq:
      return btree::ColumnCondition::eq(pos, v);
    case CmpOp::kLt:
      return btree::ColumnCondition::lt(pos, v);
    case CmpOp::kLe:
      return btree::ColumnCondition::le(pos, v);
    case CmpOp::kGt:
      return btree::ColumnCondition::gt(pos, v);
    case CmpOp::kGe:
      return btree::ColumnCondition::ge(pos, v);
    case CmpOp::kNe:
      break;
  }
  TP_ASSERT(false);
  return {};
}

constexpr size_t kMaxConditionSets = 100000;

}  // namespace

bool usable_index_clause(const Clause& c, const std::vector<int>& key_columns) {
  bool ok = !c.numeric &&
            ((c.kind == Clause::Kind::kCompare && c.value && c.op != CmpOp::kNe) ||
             (c.kind == Clause::Kind::kIn && !c.negated &&
              std::all_of(c.list.begin(), c.list.end(), [](const StatsValue& v) { return v; })) ||
             c.kind == Clause::Kind::kIsNull);  // B-trees search for NULLs (amsearchnulls)
  if (!ok) return false;
  for (int k : key_columns)
    if (is_btree_indexable(c, k)) return true;
  return false;
}

std::vector<Clause> in_key_order(std::vector<Clause> clauses, const std::vector<int>& key_columns) {
  auto key_of = [&](const Clause& c) {
    for (size_t k = 0; k < key_columns.size(); ++k)
      if (is_btree_indexable(c, key_columns[k])) return k;
    return key_columns.size();
  };
  std::stable_sort(clauses.begin(), clauses.end(),
                   [&](const Clause& a, const Clause& b) { return key_of(a) < key_of(b); });
  return clauses;
}

scans::ConditionSets condition_sets(const std::vector<Clause>& clauses,
                                    const std::vector<int>& key_columns, bool backward) {
  auto pos_of = [&](int column) {
    for (size_t i = 0; i < key_columns.size(); ++i)
      if (key_columns[i] == column) return int(i);
    return 0;
  };
  scans::ConditionSets sets(1);
  for (const Clause& c : clauses) {
    if (c.kind == Clause::Kind::kIsNull) {
      for (auto& set : sets)
        set.push_back(c.negated ? btree::ColumnCondition::not_null(pos_of(c.column))
                                : btree::ColumnCondition::is_null(pos_of(c.column)));
      continue;
    }
    if (c.kind == Clause::Kind::kCompare) {
      for (auto& set : sets) set.push_back(condition_on(pos_of(c.column), c.op, *c.value));
      continue;
    }
    std::vector<int64_t> values;
    for (const StatsValue& v : c.list) values.push_back(*v);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (backward) std::reverse(values.begin(), values.end());
    if (sets.size() * values.size() > kMaxConditionSets)
      throw Error("IN lists in the index conditions combine into more than " +
                  std::to_string(kMaxConditionSets) + " index scans")
          .with_sqlstate(sqlstate::kProgramLimitExceeded);
    scans::ConditionSets next;
    for (const auto& set : sets)
      for (int64_t v : values) {
        next.push_back(set);
        next.back().push_back(btree::ColumnCondition::eq(pos_of(c.column), v));
      }
    sets = std::move(next);
  }
  return sets;
}

}  // namespace tp
