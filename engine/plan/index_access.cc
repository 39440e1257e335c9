#include "engine/plan/index_access.h"

#include <algorithm>
#include <memory>
#include <optional>

#include "engine/core/error.h"
#include "engine/plan/index_quals.h"
#include "engine/sql/identifier.h"
#include "engine/storage/indexes.h"
#include "engine/storage/pool_page_store.h"

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
// An index opened for one query: its page store over the pool and the tree.
struct OpenIndex {
  std::unique_ptr<PoolPageStore> store;
  std::optional<btree::BTree> tree;
};

}  // namespace

bool usable_index_clause(const Clause& c, const std::vector<int>& key_columns) {
  bool ok = (c.kind == Clause::Kind::kCompare && c.value && c.op != CmpOp::kNe) ||
            (c.kind == Clause::Kind::kIn && !c.negated &&
             std::all_of(c.list.begin(), c.list.end(), [](const StatsValue& v) { return v; }));
  if (!ok) return false;
  for (int k : key_columns)
    if (is_btree_indexable(c, k)) return true;
  return false;
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
                  std::to_string(kMaxConditionSets) + " index scans");
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

void describe_from_indexes(PlanContext& ctx, const RelationEntry& table, int c,
                           ColumnStatsView& v) {
  for (const RelationEntry* idx : ctx.catalog.indexes_of(table.oid)) {
    if (ctx.data_dir.damage(idx->relnumber)) continue;  // unreadable: plan without it
    if (idx->key_columns.empty() || idx->key_columns[0] != c) continue;
    if (idx->unique && idx->key_columns.size() == 1) v.unique = true;
    if (v.actual_min) continue;
    Storage& st = ctx.storage;
    PoolPageStore store(st.pool(), st.file(*idx), nullptr, 0);
    btree::BTree tree = btree::BTree::open(store, index_def(table, *idx));
    btree::IndexBatch batch;
    btree::IndexScan lowest(tree, {}, btree::ScanDirection::Forward);
    if (!lowest.next_batch(batch) || batch.empty()) continue;
    v.actual_min = batch.key(0)[0];
    btree::IndexScan highest(tree, {}, btree::ScanDirection::Backward);
    if (highest.next_batch(batch) && !batch.empty()) v.actual_max = batch.key(0)[0];
  }
}

scans::IndexHandle open_index(PlanContext& ctx, const RelationEntry& table,
                              const RelationEntry& index) {
  auto h = std::make_shared<OpenIndex>();
  Storage& st = ctx.storage;
  h->store = std::make_unique<PoolPageStore>(st.pool(), st.file(index), nullptr, 0);
  h->tree.emplace(btree::BTree::open(*h->store, index_def(table, index)));
  scans::IndexHandle handle;
  handle.name = sql::quote_identifier(index.name);  // as EXPLAIN prints it
  handle.tree = &*h->tree;
  handle.owner = h;
  return handle;
}

}  // namespace tp
