// Which typed restriction clauses (Clause::Kind::kExpr over columns of any type) a
// B-tree can search, as PostgreSQL's match_clause_to_indexcol finds them: `column op
// constant` (either side; <> never), `column IS [NOT] NULL` (the column under a
// binary-compatible cast, as min(varchar)'s InitPlan writes it) and `column = ANY
// (constants)`, where the
// constant's type is one the column's operator family compares with the column's own
// order: the same type, another integer width, or text against varchar (text_ops).
//
//   // WHERE 'abc' < name AND v IN ('x', 'y'): name > 'abc' on name, an IN list on v
//   std::optional<TypedIndexQual> q = typed_index_qual(*clause.expr);
//   q->column, q->op == CmpOp::kGt, q->values[0] points into the clause's constant
#pragma once

#include <optional>
#include <vector>

#include "engine/btree/btree_scan.h"
#include "engine/core/clause.h"
#include "engine/core/typed_expr.h"

namespace tp {

struct TypedIndexQual {
  int column = -1;
  bool in_list = false;    // column = ANY (values)
  bool null_test = false;  // column IS NULL (negated: IS NOT NULL), through a relabel
  bool negated = false;
  CmpOp op = CmpOp::kEq;      // as if the column were written on the left
  std::vector<Datum> values;  // non-NULL constants (by-reference ones point into the clause)
  size_t elements = 1;        // an IN list's length, NULLs included (btcostestimate's)
  TypeId column_type = TypeId::kInt4;
  TypeId value_type = TypeId::kInt4;  // the constants' type (the column's, or in its family)
};

std::optional<TypedIndexQual> typed_index_qual(const TypedExpr& e);

// The B-tree condition `key pos op v` (op not <>), v of the column's type.
btree::ColumnCondition compare_condition(int pos, CmpOp op, Datum v);

// The B-tree condition on key `pos` for a comparison `q` (not an IN list or a NULL
// test), its bound a value of the column's type: a constant of another type of the
// family is converted, exactly or to the nearest column value on the right side
// (`real_col < 1.1` is real_col <= 1.0999999; `date_col = '2020-01-01 12:00'` holds for
// none: an empty range).
btree::ColumnCondition typed_condition(const TypedIndexQual& q, int pos);
// An IN list's values as the column's type, those no column value equals dropped.
std::vector<Datum> typed_in_values(const TypedIndexQual& q);
inline std::optional<TypedIndexQual> typed_index_qual(const Clause& c) {
  if (c.kind != Clause::Kind::kExpr || !c.expr) return std::nullopt;
  return typed_index_qual(*c.expr);
}

// A boolean column as a clause (b, NOT b, b IS TRUE / FALSE), which an index applies
// as `b = true` / `b = false` (match_boolean_index_clause): that operator clause is
// what a bitmap's conditions hold, so the original stays a Filter there.
bool is_boolean_index_clause(const Clause& c);

// PostgreSQL's match_pattern_prefix: the index conditions a LIKE / ILIKE with a fixed
// prefix on a text or varchar column gives (`col = prefix` for a pattern without
// wildcards, else `col >= prefix` and `col < greater_string(prefix)`), marked
// `derived`; none for any other clause.
std::vector<Clause> pattern_index_clauses(const Clause& c);

// The clause as an Index Cond prints it: a comparison written `constant op column`
// turned around (PostgreSQL commutes an index qual). For EXPLAIN only: the turned
// comparison is not evaluated.
// `index_only`: an Index Only Scan's condition, which reads the index's own column, so a
// binary-compatible cast over it goes (`v = 'x'::text`, not `(v)::text = ...`).
Clause index_cond_form(Clause c, bool index_only = false);
std::vector<Clause> index_cond_form(std::vector<Clause> clauses, bool index_only = false);

}  // namespace tp
