// JoinSearch's parameterized base relation paths (join_search.h): create_index_paths
// with join clauses. For each other base relation, the class clauses and Join Filters
// that may key an index of this one (`inner member = outer member`, `column op f(outer)`),
// and the other join clauses movable into its scan (PostgreSQL's ppi_clauses), which
// every such path filters by and counts in its rows.
#include <algorithm>
#include <bit>

#include "engine/plan/join_search.h"
#include "engine/plan/outer_joins.h"
#include "engine/plan/param_paths.h"
#include "engine/sql/expr_ops.h"
#include "engine/sql/identifier.h"

namespace tp {

namespace {

// The clause both ways round, as a restrictlist may write it (rel1's side first).
void add_spellings(const TypedExpr& e, std::vector<std::string>& out) {
  out.push_back(deparse(e));
  const std::optional<CmpOp> op = cmp_op_of_name(e.name);
  if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix || !op) return;
  TypedExpr swapped = e;
  std::swap(swapped.args[0], swapped.args[1]);
  swapped.name = cmp_op_name(commute(*op));
  out.push_back(deparse(swapped));
}

}  // namespace

// The index paths that apply a request's keys, costed for as many scans as the other
// relation has rows (get_loop_count), each filtering by the request's moved clauses.
void JoinSearch::add_param_paths(JoinRelation& inner, size_t rel) {
  if (q_.rels[rel].lateral) return add_lateral_path(inner, rel);
  if (!base_[rel].param_paths) return;
  // set_base_rel_consider_startup: a semi or anti join's inner relation alone is read
  // until its first match, so its parameterized paths are weighed by startup cost too.
  bool consider_startup = false;
  for (const SpecialJoin& sj : q_.special_joins)
    if ((sj.kind == JoinKind::kSemi || sj.kind == JoinKind::kAnti) &&
        sj.syn_righthand == (Relids(1) << rel))
      consider_startup = true;
  for (size_t other = 0; other < q_.rels.size(); ++other) {
    if (other == rel || q_.is_removed(other)) continue;
    ParamRequest r;
    add_class_params(rel, other, r);
    add_filter_params(rel, other, r);
    if (r.clauses.empty()) continue;
    std::vector<TypedExpr> values;  // the filters' outer values, parameters after the keys
    std::vector<Clause> forms = moved_clauses(rel, r, values);
    const std::optional<std::vector<size_t>> sides = memo_sides(rel, r, values);
    std::vector<Clause> moved;
    for (size_t m = 0; m < r.movable.size(); ++m) {
      if (r.movable[m].key < 0) {
        moved.push_back(std::move(forms[m]));
      } else {
        r.clauses[size_t(r.movable[m].key)].unapplied =
            std::make_shared<const Clause>(std::move(forms[m]));
      }
    }
    std::vector<JoinPathPtr> kept;
    for (ParamScanPath& sp : base_[rel].param_paths(r.clauses, moved, loop_count(rel, other))) {
      auto path = std::make_shared<JoinPath>();
      path->cost = sp.cost;
      path->relids = inner.relids;
      path->width = inner.width;
      path->required_outer = Relids(1) << other;
      // The keys the path applies (the classes come first in the request).
      for (size_t i : sp.applied) {
        path->param_exprs.push_back(r.outer[i]);
        path->param_keys.push_back(r.written[i]);
        path->param_binary = path->param_binary || !r.clauses[i].hashable;
        if (i < r.classes.size()) path->param_classes.push_back(r.classes[i]);
      }
      // Every movable filter leaves the Join Filter: a key or in the scan's Filter.
      for (const ParamRequest::Movable& m : r.movable) {
        add_spellings(m.filter->expr, path->param_filters);
        path->param_needs |= m.filter->relids;
        const bool applied = m.key >= 0 && std::find(sp.applied.begin(), sp.applied.end(),
                                                     size_t(m.key)) != sp.applied.end();
        path->param_moved = path->param_moved || !applied;
      }
      // The Filter's outer values follow the keys' among the parameters (none to set per
      // outer row when every filter is a key the index applies).
      if (path->param_moved)
        path->param_exprs.insert(path->param_exprs.end(), values.begin(), values.end());
      path->memo_blocked = path->param_moved && !sides;
      if (path->param_moved && sides) set_memo_keys(*path, r, sp.applied, *sides, values);
      path->param_build = std::move(sp.build);
      path->batch_gain = sp.batch_gain;
      path->batch_gain_first_page = sp.batch_gain_first_page;
      add_path(kept, std::move(path), consider_startup);
    }
    inner.param_paths.insert(inner.param_paths.end(), kept.begin(), kept.end());
  }
}

// paraminfo_get_equal_hashops in ppi_clauses' order, the movable filters then the
// classes' keys: each filter keys on its outer side (its key's parameter when the index
// applies it), each class key on its parameter; by bytes when a filter's operator is no
// hashable equality.
void JoinSearch::set_memo_keys(JoinPath& path, const ParamRequest& r,
                               const std::vector<size_t>& applied, const std::vector<size_t>& sides,
                               const std::vector<TypedExpr>& values) const {
  auto position = [&](size_t key) {
    return size_t(std::find(applied.begin(), applied.end(), key) - applied.begin());
  };
  std::vector<TypedExpr> keys;
  path.memo_params.clear();
  for (size_t m = 0; m < r.movable.size(); ++m) {
    const int key = r.movable[m].key;
    if (key >= 0 && position(size_t(key)) < applied.size()) {
      keys.push_back(r.written[size_t(key)]);
      path.memo_params.push_back(position(size_t(key)));
    } else {
      keys.push_back(values[sides[m]]);
      path.memo_params.push_back(applied.size() + sides[m]);
    }
    const TypedExpr& e = r.movable[m].filter->expr;
    const bool hashable = e.name == "=" && same_hash_family(e.args[0].type, e.args[1].type);
    path.param_binary = path.param_binary || !hashable;
  }
  for (size_t i = 0; i < applied.size(); ++i)
    if (applied[i] < r.classes.size()) {
      keys.push_back(r.written[applied[i]]);
      path.memo_params.push_back(i);
    }
  path.param_keys = std::move(keys);
}

// The class clauses linking `rel` to `other` as index keys (`inner member = outer
// member`), or an expression member of `other` as the outer value.
void JoinSearch::add_class_params(size_t rel, size_t other, ParamRequest& r) const {
  for (size_t c = 0; c < q_.classes.size(); ++c) {
    std::optional<uint32_t> in, out;
    for (uint32_t v : q_.classes[c].members) {
      if (size_t(q_.vars[v].rel) == rel && !in) in = v;
      if (size_t(q_.vars[v].rel) == other && !out) out = v;
    }
    if (!in) continue;
    if (!out) {
      // The other relation's expression member as the outer value (`n = (s0.k)::numeric`).
      for (const ClassExpr& e : q_.classes[c].exprs) {
        if (size_t(e.rel) != other || !same_key_type(q_.vars[*in].type, e.expr.type)) continue;
        r.outer.push_back(e.expr);
        r.clauses.push_back({q_.vars[*in].column, deparse(e.expr), expr_cost_units(e.expr)});
        r.written.push_back(e.expr);
        r.classes.push_back(uint32_t(c));
        break;
      }
      continue;
    }
    // A real outer value keys a double precision index, a date one a timestamp index
    // (float_ops, datetime_ops across types); a timestamp keys a date index by the date
    // it is the midnight of.
    const TypeId key_type = q_.vars[*in].type, out_type = q_.vars[*out].type;
    const bool widened = !same_key_type(key_type, out_type) && widens_to(out_type, key_type);
    const bool narrowed = date_from_timestamp(out_type, key_type);
    if (!same_key_type(key_type, out_type) && !widened && !narrowed) continue;
    r.written.push_back(q_.var_equality(*in, *out).args[1]);
    r.outer.push_back(narrowed  ? exact_date_of(r.written.back())
                      : widened ? expr::coerce_implicitly(r.written.back(), key_type, -1)
                                : r.written.back());
    ParamClause pc{q_.vars[*in].column, deparse(r.written.back()), 0};
    pc.hashable = same_hash_family(key_type, out_type);
    r.clauses.push_back(std::move(pc));
    r.classes.push_back(uint32_t(c));
  }
}

// The Join Filters over `rel` and `other` that join_clause_is_movable_into lets into a
// scan of `rel` parameterized by `other`: a key where one compares a column of `rel` with
// an expression of `other` (PostgreSQL: an equivalence class with an expression member,
// or an inequality indxpath takes), otherwise moved into the scan's Filter.
void JoinSearch::add_filter_params(size_t rel, size_t other, ParamRequest& r) const {
  for (const JoinFilterClause& f : q_.filters) {
    // The relations it reads (join_clause_is_movable_into's clause_relids): a clause an
    // outer join below delays is still a key, for a join that holds all it waits for.
    if (q_.relids_of(f.expr) != ((Relids(1) << rel) | (Relids(1) << other))) continue;
    // Not into an outer join's preserved side, nor into a relation an outer join below
    // the clause may null.
    if ((f.outer_relids | f.nullable_relids) & (Relids(1) << rel)) continue;
    if (f.redundant) continue;  // it selects nothing the inner side's constant has not
    const int key = add_filter_key(rel, other, f, r) ? int(r.clauses.size() - 1) : -1;
    r.movable.push_back({&f, key});
  }
}

bool JoinSearch::add_filter_key(size_t rel, size_t other, const JoinFilterClause& f,
                                ParamRequest& r) const {
  const TypedExpr& e = f.expr;
  const std::optional<CmpOp> written_op = cmp_op_of_name(e.name);
  if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix || !written_op ||
      *written_op == CmpOp::kNe)
    return false;
  const bool equality = *written_op == CmpOp::kEq;
  for (size_t side = 0; side < 2; ++side) {
    // A varchar key compares as text (`(v)::text <= s1.t`, an outer join's `(v)::text =
    // s1.t`): the index's order.
    const TypedExpr& written_col = e.args[side];
    const bool varchar_key = written_col.form == TypedExpr::Form::kRelabel &&
                             written_col.args.size() == 1 &&
                             written_col.args[0].kind == TypedExpr::Kind::kColumn &&
                             written_col.args[0].type == TypeId::kVarchar;
    const TypedExpr& col = varchar_key ? written_col.args[0] : written_col;
    const TypedExpr& val = e.args[1 - side];
    // A date key bounded by a timestamp has no exact date bound: that stays a filter.
    if (col.kind != TypedExpr::Kind::kColumn || size_t(q_.vars[col.slot].rel) != rel ||
        q_.relids_of(val) != (Relids(1) << other) ||
        !(same_key_type(col.type, val.type) || widens_to(val.type, col.type) ||
          (equality && date_from_timestamp(val.type, col.type))))
      continue;
    ParamClause pc{q_.vars[col.slot].column, deparse(val), expr_cost_units(val)};
    pc.op = side == 0 ? *written_op : commute(*written_op);
    pc.outer_left = side == 1;
    // An equality of one type, of two integers or of real and double precision hashes.
    pc.hashable =
        equality && (same_key_type(col.type, val.type) || same_hash_family(col.type, val.type));
    r.clauses.push_back(std::move(pc));
    if (date_from_timestamp(val.type, col.type)) {
      r.outer.push_back(exact_date_of(val));
    } else {
      r.outer.push_back(val.type == col.type || same_key_type(col.type, val.type)
                            ? val
                            : expr::coerce_implicitly(val, col.type, -1));
    }
    r.written.push_back(val);
    return true;
  }
  return false;
}

// clause_sides_match_join for each movable filter: its side that reads the other
// relation alone (not volatile), as a place among `values` (added there if new); nullopt
// when one has none (an OR over both relations), which leaves a Memoize no key.
std::optional<std::vector<size_t>> JoinSearch::memo_sides(size_t rel, const ParamRequest& r,
                                                          std::vector<TypedExpr>& values) const {
  std::vector<size_t> sides;
  const Relids inner = Relids(1) << rel;
  for (const ParamRequest::Movable& m : r.movable) {
    const TypedExpr& e = m.filter->expr;
    if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix ||
        e.args.size() != 2 || !cmp_op_of_name(e.name))
      return std::nullopt;
    const Relids r0 = q_.relids_of(e.args[0]), r1 = q_.relids_of(e.args[1]);
    const int outer = r0 == inner && r1 != 0 && !(r1 & inner)   ? 1
                      : r1 == inner && r0 != 0 && !(r0 & inner) ? 0
                                                                : -1;
    if (outer < 0 || expr_is_volatile(e.args[size_t(outer)])) return std::nullopt;
    const std::string text = deparse(e.args[size_t(outer)]);
    auto at = std::find_if(values.begin(), values.end(),
                           [&](const TypedExpr& v) { return deparse(v) == text; });
    if (at == values.end()) at = values.insert(values.end(), e.args[size_t(outer)]);
    sides.push_back(size_t(at - values.begin()));
  }
  return sides;
}

// Each movable filter over the table's columns, each column of the other relation a
// kParam from kNestLoopParamBase; `values` gets those columns in parameter order.
std::vector<Clause> JoinSearch::moved_clauses(size_t rel, const ParamRequest& r,
                                              std::vector<TypedExpr>& values) const {
  const std::function<void(TypedExpr&)> outer_to_params = [&](TypedExpr& e) {
    if (e.kind == TypedExpr::Kind::kColumn && size_t(q_.vars[e.slot].rel) != rel) {
      auto at = std::find_if(values.begin(), values.end(), [&](const TypedExpr& v) {
        return v.kind == TypedExpr::Kind::kColumn && v.slot == e.slot;
      });
      if (at == values.end()) at = values.insert(values.end(), q_.var_expr(e.slot));
      e.kind = TypedExpr::Kind::kParam;
      e.slot = kNestLoopParamBase + uint32_t(at - values.begin());
      return;
    }
    // The scan's own columns print bare, as its restrictions do.
    if (e.kind == TypedExpr::Kind::kColumn)
      e.name =
          sql::quote_identifier(q_.rels[rel].rel->columns[size_t(q_.vars[e.slot].column)].name);
    for (TypedExpr& a : e.args) outer_to_params(a);
  };
  std::vector<Clause> out;
  for (const ParamRequest::Movable& m : r.movable) {
    TypedExpr local = m.filter->expr;
    outer_to_params(local);
    to_columns(local, q_.rels[rel].first_var);
    out.push_back(Clause::expression(std::move(local)));
  }
  return out;
}

}  // namespace tp
