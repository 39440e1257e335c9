#include "engine/plan/from_subquery_names.h"

#include <algorithm>
#include <functional>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/join_exprs.h"

namespace tp::from_subqueries {
namespace {

// pull_up_simple_subquery needs no PlaceHolderVar over a column, or an expression strict
// over the subquery's columns (it goes NULL with them).
bool strict_over_columns(const sql::Expr& e) {
  std::function<bool(const sql::Expr&)> strict = [&](const sql::Expr& x) {
    switch (x.kind) {
      case sql::ExprKind::kColumnRef:
      case sql::ExprKind::kIntConst:
      case sql::ExprKind::kNumConst:
      case sql::ExprKind::kStrConst:
        return true;
      case sql::ExprKind::kUnary:
      case sql::ExprKind::kBinary:
      case sql::ExprKind::kCompare:
      case sql::ExprKind::kCast:
        return std::all_of(x.args.begin(), x.args.end(),
                           [&](const sql::ExprPtr& a) { return strict(*a); });
      default:
        return false;
    }
  };
  std::function<bool(const sql::Expr&)> has_column = [&](const sql::Expr& x) {
    return x.kind == sql::ExprKind::kColumnRef ||
           std::any_of(x.args.begin(), x.args.end(),
                       [&](const sql::ExprPtr& a) { return has_column(*a); });
  };
  return strict(e) && has_column(e);
}

// A LATERAL subquery reads item `i` of the level around it.
void note_lateral(const Scope& scope, size_t i, const std::string& name, int position) {
  if (scope.not_lateral != nullptr &&
      std::find(scope.not_lateral->begin(), scope.not_lateral->end(), i) !=
          scope.not_lateral->end())
    throw Error("invalid reference to FROM-clause entry for table " + quoted(name),
                "The combining JOIN type must be INNER or LEFT for a LATERAL reference.", "")
        .at_position(position)
        .with_sqlstate(sqlstate::kInvalidColumnReference);
  if (scope.touched != nullptr) scope.touched->push_back(i);
}

}  // namespace

const NsCol& using_side(const std::string& name, const std::vector<NsCol>& side, int position,
                        const char* which) {
  const NsCol* found = nullptr;
  for (const NsCol& c : side)
    if (c.name == name) {
      if (found)
        throw Error("common column name " + quoted(name) + " appears more than once in " + which +
                    " table")
            .at_position(position)
            .with_sqlstate(sqlstate::kAmbiguousColumn);
      found = &c;
    }
  if (!found)
    throw Error("column " + quoted(name) + " specified in USING clause does not exist in " + which +
                " table")
        .at_position(position)
        .with_sqlstate(sqlstate::kUndefinedColumn);
  return *found;
}

void expand_star(const sql::Expr& star, const Scope& scope, std::vector<sql::Target>& out) {
  if (star.qualifier.empty()) {
    for (const NsCol& c : *scope.cols) out.push_back({copy_expr(*c.expr), c.name});
    return;
  }
  bool found = false;
  for (const Item& it : *scope.items) {
    if (!star.qualifier.empty() && it.name != star.qualifier) continue;
    found = true;
    for (size_t c = 0; c < it.columns.size(); ++c)
      out.push_back({copy_expr(*it.exprs[c]), it.columns[c]});
  }
  if (!found)
    throw Error("missing FROM-clause entry for table " + quoted(star.qualifier))
        .at_position(star.position)
        .with_sqlstate(sqlstate::kUndefinedTable);
}

// A copy of `e` with each column reference replaced by what it names among
// items[begin, end) (an ON clause sees its join's items only).
sql::ExprPtr rewrite(const sql::Expr& e, const Scope& scope) {
  check_stack_depth();
  if (e.kind == sql::ExprKind::kColumnRef) return copy_expr(*resolve(e, scope));
  if (e.kind == sql::ExprKind::kSubLink) {
    if (scope.sublink == nullptr)
      throw not_supported("a subquery in an expression of a query with a subquery in FROM",
                          e.position);
    return (*scope.sublink)(e, scope);
  }
  sql::ExprPtr c = copy_expr(e);
  c->args.clear();
  c->height = 1;
  for (const sql::ExprPtr& a : e.args) {
    c->args.push_back(a->kind == sql::ExprKind::kStar ? copy_expr(*a) : rewrite(*a, scope));
    c->height = std::max(c->height, 1 + c->args.back()->height);
  }
  return c;
}

const sql::Expr* resolve(const sql::Expr& ref, const Scope& scope) {
  const std::vector<Item>& items = *scope.items;
  if (scope.parent != nullptr) {
    const bool here = ref.qualifier.empty()
                          ? std::any_of(scope.cols->begin(), scope.cols->end(),
                                        [&](const NsCol& c) { return c.name == ref.name; })
                          : std::any_of(items.begin(), items.end(),
                                        [&](const Item& it) { return it.name == ref.qualifier; });
    if (!here) return resolve(ref, *scope.parent);
  }
  if (!ref.qualifier.empty()) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].name != ref.qualifier) continue;
      if (i < scope.begin || i >= scope.end)
        throw Error("invalid reference to FROM-clause entry for table " + quoted(ref.qualifier), "",
                    "There is an entry for table " + quoted(ref.qualifier) +
                        ", but it cannot be referenced from this part of the query.")
            .at_position(ref.position)
            .with_sqlstate(sqlstate::kUndefinedTable);
      const sql::Expr* found = nullptr;
      for (size_t c = 0; c < items[i].columns.size(); ++c)
        if (items[i].columns[c] == ref.name) {
          if (found)
            throw Error("column reference " + quoted(ref.name) + " is ambiguous")
                .at_position(ref.position)
                .with_sqlstate(sqlstate::kAmbiguousColumn);
          found = items[i].exprs[c];
        }
      if (!found)
        throw Error("column " + ref.qualifier + "." + ref.name + " does not exist")
            .at_position(ref.position)
            .with_sqlstate(sqlstate::kUndefinedColumn);
      note_lateral(scope, i, items[i].name, ref.position);
      return checked(found, items[i], ref.position);
    }
    // A table of a query around this subquery: PostgreSQL's hint toward LATERAL.
    for (const std::vector<Item>* level : *scope.outer)
      for (const Item& it : *level)
        if (it.name == ref.qualifier)
          throw Error("invalid reference to FROM-clause entry for table " + quoted(ref.qualifier),
                      "",
                      "There is an entry for table " + quoted(ref.qualifier) +
                          ", but it cannot be referenced from this part of the query.")
              .at_position(ref.position)
              .with_sqlstate(sqlstate::kUndefinedTable);
    throw Error("missing FROM-clause entry for table " + quoted(ref.qualifier))
        .at_position(ref.position)
        .with_sqlstate(sqlstate::kUndefinedTable);
  }
  const sql::Expr* found = nullptr;
  const Item* from = nullptr;
  for (const NsCol& c : *scope.cols)
    if (c.name == ref.name) {
      if (found)
        throw Error("column reference " + quoted(ref.name) + " is ambiguous")
            .at_position(ref.position)
            .with_sqlstate(sqlstate::kAmbiguousColumn);
      found = c.expr;
      from = &items[c.item];
    }
  if (!found)
    throw Error("column " + quoted(ref.name) + " does not exist")
        .at_position(ref.position)
        .with_sqlstate(sqlstate::kUndefinedColumn);
  note_lateral(scope, size_t(from - items.data()), from->name, ref.position);
  return checked(found, *from, ref.position);
}

// pull_up_simple_subquery wraps an output read above an outer join that nulls it in a
// PlaceHolderVar unless it is a column, or strict over the subquery's columns (then it
// goes NULL with them): only those are pulled up here.
const sql::Expr* checked(const sql::Expr* e, const Item& item, int position) {
  if (item.nullable && item.subquery && !strict_over_columns(*e))
    throw not_supported(
        "an expression of a subquery in FROM on the nullable side of an outer "
        "join (a PlaceHolderVar)",
        position);
  return e;
}

// buildMergedJoinVar: an inner join's merged column is the side not coerced to the
// common type (the left one when neither is), a LEFT (RIGHT) join's its left (right)
// side's, coerced.
const NsCol& merged_column(const sql::FromItem& f, const NsCol& l, const NsCol& r,
                           std::optional<TypeId> lt, std::optional<TypeId> rt) {
  if (!lt || !rt || *lt == *rt) return f.join == sql::JoinKind::kRight ? r : l;
  auto rank = [](TypeId t) {
    switch (t) {
      case TypeId::kInt2:
        return 1;
      case TypeId::kInt4:
        return 2;
      case TypeId::kInt8:
        return 3;
      case TypeId::kVarchar:
        return 11;
      case TypeId::kText:
        return 12;
      default:
        return 0;
    }
  };
  const int a = rank(*lt), b = rank(*rt);
  // select_common_type: a number widens to the larger type; varchar and text coerce to
  // each other implicitly, so the left side's type stays (a varchar's typmod dropped,
  // which this does not model: text must be on the left).
  if (a == 0 || b == 0 || (a > 10) != (b > 10) || a == 11)
    throw not_supported("JOIN ... USING over columns of different types beside a subquery",
                        f.position);
  const bool left_is_common = a > b;
  // An outer join's merged column is its kept side's coerced: the column itself only
  // when that side already has the common type.
  const bool kept_side_is_common = f.join == sql::JoinKind::kInner ||
                                   (f.join == sql::JoinKind::kLeft && left_is_common) ||
                                   (f.join == sql::JoinKind::kRight && !left_is_common);
  if (!kept_side_is_common)
    throw not_supported("JOIN ... USING over columns of different types beside a subquery",
                        f.position);
  return left_is_common ? l : r;
}

bool calls_volatile(const sql::Expr& e) {
  static const char* const kVolatile[] = {"random",          "setseed",     "nextval",
                                          "clock_timestamp", "timeofday",   "gen_random_uuid",
                                          "random_normal",   "txid_current"};
  if (e.kind == sql::ExprKind::kFuncCall)
    for (const char* f : kVolatile)
      if (e.name == f) return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [](const sql::ExprPtr& a) { return calls_volatile(*a); });
}

sql::ExprPtr and_of(sql::ExprPtr a, sql::ExprPtr b) {
  if (!a) return b;
  if (!b) return a;
  auto e = std::make_unique<sql::Expr>(sql::ExprKind::kAnd, a->position);
  e->height = 1 + std::max(a->height, b->height);
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

void item_names(const sql::FromItem& f, std::vector<std::pair<std::string, int>>& out) {
  for (const sql::FromItem& side : f.sides) item_names(side, out);
  if (!f.is_join()) out.emplace_back(f.alias.empty() ? f.name : f.alias, f.position);
}

// A FROM item's column aliases (buildRelationAliases), or a WITH query's own
// (analyzeCTETargetList, its error at the WITH query's name).
void alias_columns(Item& item, const std::vector<std::string>& aliases,
                   const sql::CommonTableExpr* cte) {
  if (aliases.size() > item.columns.size())
    throw Error(std::string(cte ? "WITH query " : "table ") + quoted(cte ? cte->name : item.name) +
                " has " + std::to_string(item.columns.size()) + " columns available but " +
                std::to_string(aliases.size()) + " columns specified")
        .at_position(cte ? cte->position : 0)
        .with_sqlstate(sqlstate::kInvalidColumnReference);
  for (size_t i = 0; i < aliases.size(); ++i) item.columns[i] = aliases[i];
}

}  // namespace tp::from_subqueries
