#include "engine/plan/join_star.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/plan/join_exprs.h"

namespace tp {
namespace {

// `*` over a FROM item: its columns in PostgreSQL's order (a USING join's merged
// columns first, once).
void star_columns(const JoinQuery& q, const sql::FromItem& f, std::vector<RelColumn>& out) {
  if (!f.is_join()) {
    const int rel = rel_named(q, f.alias.empty() ? f.name : f.alias);
    for (size_t c = 0; c < q.rels[size_t(rel)].rel->columns.size(); ++c)
      out.push_back({rel, int(c)});
    return;
  }
  std::vector<RelColumn> left, right;
  star_columns(q, f.sides[0], left);
  star_columns(q, f.sides[1], right);
  auto named = [&](const RelColumn& r) {
    return q.rels[size_t(r.rel)].rel->columns[size_t(r.column)].name;
  };
  auto is_using = [&](const RelColumn& r) {
    return std::find(f.using_columns.begin(), f.using_columns.end(), named(r)) !=
           f.using_columns.end();
  };
  // The merged columns: a RIGHT join's are its right side's.
  const std::vector<RelColumn>& merged = f.join == sql::JoinKind::kRight ? right : left;
  for (const std::string& u : f.using_columns)
    for (const RelColumn& r : merged)
      if (named(r) == u) {
        out.push_back(r);
        break;
      }
  for (const RelColumn& r : left)
    if (!is_using(r)) out.push_back(r);
  for (const RelColumn& r : right)
    if (!is_using(r)) out.push_back(r);
}

}  // namespace

int rel_named(const JoinQuery& q, const std::string& refname) {
  for (size_t i = 0; i < q.rels.size(); ++i)
    if (q.rels[i].refname == refname) return int(i);
  return -1;
}

// The columns `*` or `t.*` stands for.
std::vector<RelColumn> star_of(const JoinQuery& q, const sql::FromItem& from, const sql::Expr& e) {
  std::vector<RelColumn> cols;
  if (e.qualifier.empty()) {
    star_columns(q, from, cols);
    return cols;
  }
  const int rel = rel_named(q, e.qualifier);
  if (rel < 0)
    throw Error("missing FROM-clause entry for table " + quoted(e.qualifier))
        .at_position(e.position)
        .with_sqlstate(sqlstate::kUndefinedTable);
  for (size_t c = 0; c < q.rels[size_t(rel)].rel->columns.size(); ++c)
    cols.push_back({rel, int(c)});
  return cols;
}

}  // namespace tp
