// The steps every SELECT plan over one table shares, whatever sits between the scan and
// the top: its restriction clauses, the node tree as it grows with its top's cost, the
// LIMIT's bound and the Limit node.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/core/clause.h"
#include "engine/plan/cost_model.h"
#include "engine/sql/ast.h"
#include "engine/storage/catalog.h"
#include "scans/exec_node.h"

namespace tp {

// The in-memory sort (and hash table) refuses to hold more row data than this
// (scans/README.md).
inline constexpr uint64_t kSortMemoryLimitBytes = uint64_t(2) << 30;

// WHERE (and `extra`, conjuncts moved there: HAVING's without aggregates): PostgreSQL's
// restriction clauses (its baserestrictinfo), equalities after the rest as its
// equivalence classes give them back, from `class_start` on. Index conditions keep this
// order within a column; a Filter is sorted by evaluation cost (order_qual_clauses).
// `contradiction`: two constants for one column.
std::vector<Clause> restrictions(const RelationEntry& rel, const sql::Select& s,
                                 const std::vector<const sql::Expr*>& extra, bool& contradiction,
                                 size_t& class_start);

// The node tree as it grows from the scan up, with the cost of its top.
struct PlanTop {
  std::unique_ptr<scans::ExecNode> node;
  PathCost path;
};

// The rows a LIMIT and OFFSET let through at most (PostgreSQL's limit_tuples: count +
// offset, when there is a count), or nullopt.
std::optional<int64_t> limit_tuples(const sql::Select& s);

// Limit: OFFSET rows skipped, then at most `count` (nullopt: all the rest).
void add_limit(std::optional<int64_t> count, int64_t offset, PlanTop& top);

}  // namespace tp
