// Integer arithmetic over the select list's aggregates (`max(a) + 1`, `count(*) * 2`),
// evaluated once the aggregates have their results, with PostgreSQL's integer types and
// errors: int4 unless an operand is bigint (count, sum(int4), a bigint column's min or
// max, a constant beyond int4), `integer out of range` / `bigint out of range`,
// `division by zero`, NULL in -> NULL out.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/plan/aggregate_text.h"
#include "engine/sql/ast.h"

namespace tp {

struct AggregateExpr {
  enum class Kind { kConst, kAggregate, kNegate, kBinary } kind = Kind::kConst;
  int64_t value = 0;     // kConst
  size_t aggregate = 0;  // kAggregate: index into the query's aggregates
  char op = '+';         // kBinary: + - * / %
  std::vector<AggregateExpr> args;
  OutputType type = OutputType::kInt4;
};

// The operators PostgreSQL would charge cpu_operator_cost for, once per result row.
int operator_count(const AggregateExpr& e);

// The value of `e` over the aggregates' results; nullopt for NULL. Throws tp::Error
// for an overflow or a division by zero.
std::optional<int64_t> evaluate_aggregate_expr(const AggregateExpr& e,
                                               const std::vector<OutputAggregate>& aggregates,
                                               const std::vector<scans::AggState>& results);

}  // namespace tp
