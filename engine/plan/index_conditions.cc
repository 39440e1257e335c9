#include "engine/plan/index_conditions.h"

#include <algorithm>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/plan/btree_qual_summary.h"
#include "engine/plan/typed_index_qual.h"

namespace tp {
namespace {

constexpr size_t kMaxConditionSets = 100000;

}  // namespace

bool usable_index_clause(const Clause& c, const std::vector<int>& key_columns) {
  // An integer IN list with a NULL element stays a filter.
  if (c.kind == Clause::Kind::kIn &&
      !std::all_of(c.list.begin(), c.list.end(), [](const StatsValue& v) { return v; }))
    return false;
  for (int k : key_columns)
    if (is_btree_indexable(c, k)) return true;  // B-trees search for NULLs (amsearchnulls)
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
    if (c.param) continue;  // a runtime key (runtime_keys)
    if (c.kind == Clause::Kind::kIsNull) {
      for (auto& set : sets)
        set.push_back(c.negated ? btree::ColumnCondition::not_null(pos_of(c.column))
                                : btree::ColumnCondition::is_null(pos_of(c.column)));
      continue;
    }
    if (c.kind == Clause::Kind::kCompare) {
      for (auto& set : sets) set.push_back(compare_condition(pos_of(c.column), c.op, *c.value));
      continue;
    }
    std::vector<Datum> values;
    int column = c.column;
    TypeId type = TypeId::kInt8;  // an integer IN list's values compare as integers
    if (c.kind == Clause::Kind::kExpr) {
      // A typed comparison or IN list: its constants, which the clause's expression
      // holds (it lives as long as the plan).
      std::optional<TypedIndexQual> q = typed_index_qual(c);
      TP_ASSERT(q.has_value());
      column = q->column;
      type = q->column_type;
      if (q->null_test) {
        for (auto& set : sets)
          set.push_back(q->negated ? btree::ColumnCondition::not_null(pos_of(column))
                                   : btree::ColumnCondition::is_null(pos_of(column)));
        continue;
      }
      if (!q->in_list) {
        for (auto& set : sets) {
          set.push_back(typed_condition(*q, pos_of(column)));
          set.back().owner = c.expr;
        }
        continue;
      }
      values = typed_in_values(*q);
    } else {
      for (const StatsValue& v : c.list) values.push_back(*v);
    }
    std::sort(values.begin(), values.end(),
              [&](Datum a, Datum b) { return compare_datums(type, a, b) < 0; });
    values.erase(std::unique(values.begin(), values.end(),
                             [&](Datum a, Datum b) { return compare_datums(type, a, b) == 0; }),
                 values.end());
    if (backward) std::reverse(values.begin(), values.end());
    if (sets.size() * values.size() > kMaxConditionSets)
      throw Error("IN lists in the index conditions combine into more than " +
                  std::to_string(kMaxConditionSets) + " index scans")
          .with_sqlstate(sqlstate::kProgramLimitExceeded);
    scans::ConditionSets next;
    for (const auto& set : sets)
      for (Datum v : values) {
        next.push_back(set);
        next.back().push_back(btree::ColumnCondition::eq(pos_of(column), v));
        next.back().back().owner = c.expr;
      }
    sets = std::move(next);
  }
  return sets;
}

std::vector<scans::IndexScanParams::RuntimeKey> runtime_keys(const std::vector<Clause>& clauses,
                                                             const std::vector<int>& key_columns) {
  std::vector<scans::IndexScanParams::RuntimeKey> keys;
  for (const Clause& c : clauses) {
    if (!c.param) continue;
    for (size_t k = 0; k < key_columns.size(); ++k)
      if (key_columns[k] == c.column) {
        keys.push_back({int(k), *c.param, c.op, {}, {}, TypeId::kInt8});
        if (!c.param_array.empty()) {
          keys.back().array.assign(c.param_array.begin(), c.param_array.end());
          keys.back().constants = c.array_constants;
          keys.back().type = c.expr->args[0].type;  // the key column's
        }
        break;
      }
  }
  return keys;
}

}  // namespace tp
