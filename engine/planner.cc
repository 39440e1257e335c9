#include "engine/planner.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "engine/analyze.h"
#include "engine/btree_store.h"
#include "engine/error.h"
#include "engine/index_quals.h"
#include "engine/indexes.h"
#include "engine/stats.h"
#include "engine/value.h"
#include "scans/index_scan.h"
#include "scans/seq_scan.h"

namespace tp {
namespace {

// PostgreSQL's disable_cost: what enable_* = off adds to a path.
constexpr double kDisableCost = 1.0e10;

// PostgreSQL's enable_* = off: the path stays possible but costs 1e10 more.
PathCost disabled_if(bool disabled, PathCost p) {
  if (disabled) {
    p.startup += kDisableCost;
    p.total += kDisableCost;
  }
  return p;
}

// The in-memory sort refuses to hold more row data than this (scans/README.md).
constexpr uint64_t kSortMemoryLimitBytes = uint64_t(2) << 30;

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

bool has_column_ref(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::ColumnRef) return true;
  for (const auto& a : e.args)
    if (has_column_ref(*a)) return true;
  return false;
}

// Binds names of the one table of the query.
class Binder {
 public:
  explicit Binder(const RelationEntry& rel) : rel_(rel) {}

  int column(const sql::Expr& e) const {
    for (size_t c = 0; c < rel_.columns.size(); ++c)
      if (rel_.columns[c].name == e.name) return int(c);
    throw Error("column " + quoted(e.name) + " does not exist").at_position(e.position);
  }

  // A constant of the WHERE clause: an integer, NULL (nullopt), or a
  // fraction (`fraction` set, then the value is in `frac`).
  struct Constant {
    bool is_null = false;
    bool fractional = false;
    double frac = 0;
    int64_t value = 0;
  };
  Constant constant(const sql::Expr& e) const {
    if (has_column_ref(e))
      throw Error(
          "WHERE compares a column with a constant only; this compares two expressions "
          "over columns")
          .at_position(e.position);
    EvalContext ctx;
    Value v = evaluate(e, ctx);
    Constant c;
    switch (v.type) {
      case ValueType::Null:
        c.is_null = true;
        break;
      case ValueType::Int4:
      case ValueType::Int8:
        c.value = v.i;
        break;
      case ValueType::Numeric:
      case ValueType::Float8:
        if (!(std::fabs(v.d) < 9.2e18))
          throw Error("constant " + v.to_string() + " is out of range for an integer comparison")
              .at_position(e.position);
        if (v.d == std::floor(v.d)) {
          c.value = int64_t(v.d);
        } else {
          c.fractional = true;
          c.frac = v.d;
        }
        break;
      case ValueType::Text:
        c.value = cast_value(v, "bigint").i;
        break;
      case ValueType::Bool:
        throw Error("operator does not exist: integer = boolean").at_position(e.position);
    }
    return c;
  }

  // sql::Expr (a WHERE clause) -> the estimator's expression.
  Expr where(const sql::Expr& e) const {
    using K = sql::ExprKind;
    switch (e.kind) {
      case K::And:
      case K::Or: {
        std::vector<Expr> args;
        for (const auto& a : e.args) args.push_back(where(*a));
        return e.kind == K::And ? Expr::and_of(std::move(args)) : Expr::or_of(std::move(args));
      }
      case K::Not:
        return Expr::not_of(where(*e.args[0]));
      case K::BoolConst:
        return Expr::boolean(e.ival != 0);
      case K::Compare:
        return compare(e);
      case K::Between: {
        int col = column_arg(e, *e.args[0]);
        Constant lo = constant(*e.args[1]), hi = constant(*e.args[2]);
        if (lo.is_null || hi.is_null) return Expr::boolean(e.negated && false);
        int64_t l = lo.fractional ? int64_t(std::ceil(lo.frac)) : lo.value;
        int64_t h = hi.fractional ? int64_t(std::floor(hi.frac)) : hi.value;
        return Expr::between(col, l, h, e.negated);
      }
      case K::InList: {
        int col = column_arg(e, *e.args[0]);
        std::vector<StatsValue> list;
        for (size_t i = 1; i < e.args.size(); ++i) {
          Constant c = constant(*e.args[i]);
          if (c.fractional) continue;  // never equal to an integer
          list.push_back(c.is_null ? StatsValue{} : StatsValue{c.value});
        }
        if (list.empty()) return Expr::boolean(e.negated);
        // PostgreSQL's parser turns a one-element IN into a plain comparison.
        if (list.size() == 1) return Expr::cmp(col, e.negated ? CmpOp::kNe : CmpOp::kEq, list[0]);
        return Expr::in(col, std::move(list), e.negated);
      }
      case K::NullConst:
        return Expr::boolean(false);
      default:
        throw Error(
            "WHERE takes comparisons of a column with a constant (=, <>, <, <=, >, >=), "
            "BETWEEN, IN, AND, OR and NOT")
            .at_position(e.position);
    }
  }

 private:
  int column_arg(const sql::Expr& parent, const sql::Expr& e) const {
    if (e.kind != sql::ExprKind::ColumnRef)
      throw Error("WHERE compares a column with a constant only").at_position(parent.position);
    return column(e);
  }

  Expr compare(const sql::Expr& e) const {
    static const std::pair<const char*, CmpOp> ops[] = {
        {"=", CmpOp::kEq},  {"<>", CmpOp::kNe}, {"!=", CmpOp::kNe}, {"<", CmpOp::kLt},
        {"<=", CmpOp::kLe}, {">", CmpOp::kGt},  {">=", CmpOp::kGe}};
    CmpOp op = CmpOp::kEq;
    bool found = false;
    for (auto& [name, o] : ops)
      if (e.name == name) op = o, found = true;
    if (!found) throw Error("operator " + e.name + " is not supported").at_position(e.position);
    const sql::Expr* col = e.args[0].get();
    const sql::Expr* cst = e.args[1].get();
    if (col->kind != sql::ExprKind::ColumnRef) {
      std::swap(col, cst);
      op = commute(op);
    }
    if (col->kind != sql::ExprKind::ColumnRef)
      throw Error("WHERE compares a column with a constant only").at_position(e.position);
    int c = column(*col);
    Constant k = constant(*cst);
    if (k.is_null) return Expr::cmp(c, op, StatsValue{});
    if (!k.fractional) return Expr::cmp(c, op, k.value);
    // An integer column against a fraction: the same rows as an integer bound.
    switch (op) {
      case CmpOp::kEq:
        return Expr::boolean(false);
      case CmpOp::kNe:
        return Expr::boolean(true);
      case CmpOp::kLt:
      case CmpOp::kLe:
        return Expr::cmp(c, CmpOp::kLe, int64_t(std::floor(k.frac)));
      case CmpOp::kGt:
      case CmpOp::kGe:
        return Expr::cmp(c, CmpOp::kGe, int64_t(std::ceil(k.frac)));
    }
    return Expr::boolean(false);
  }

  const RelationEntry& rel_;
};

scans::QualOp qual_op(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return scans::QualOp::kEq;
    case CmpOp::kNe:
      return scans::QualOp::kNe;
    case CmpOp::kLt:
      return scans::QualOp::kLt;
    case CmpOp::kLe:
      return scans::QualOp::kLe;
    case CmpOp::kGt:
      return scans::QualOp::kGt;
    case CmpOp::kGe:
      return scans::QualOp::kGe;
  }
  return scans::QualOp::kEq;
}

scans::QualTerm const_term(bool v) {
  scans::QualTerm t;
  t.kind = scans::QualTerm::Kind::kConst;
  t.value = v ? 1 : 0;
  return t;
}

// A normalized clause -> the per-row form (columns resolved to tuple offsets).
scans::QualTerm compile(const Expr& e, const TupleLayout& layout) {
  using K = Expr::Kind;
  scans::QualTerm t;
  auto set_column = [&](int c) {
    t.column = c;
    t.offset = layout.offset(size_t(c));
    t.is_int8 = layout.type(size_t(c)) == ColumnType::Int8;
  };
  switch (e.kind) {
    case K::kCompare:
      if (!e.value) return const_term(false);  // comparison with NULL is never true
      t.kind = scans::QualTerm::Kind::kCompare;
      set_column(e.column);
      t.op = qual_op(e.op);
      t.value = *e.value;
      return t;
    case K::kBetween: {  // normalize() removes these; kept for completeness
      t.kind = scans::QualTerm::Kind::kAnd;
      t.args.push_back(compile(Expr::cmp(e.column, CmpOp::kGe, e.lo), layout));
      t.args.push_back(compile(Expr::cmp(e.column, CmpOp::kLe, e.hi), layout));
      if (!e.negated) return t;
      scans::QualTerm n;
      n.kind = scans::QualTerm::Kind::kNot;
      n.args.push_back(std::move(t));
      return n;
    }
    case K::kIn: {
      t.kind = scans::QualTerm::Kind::kIn;
      set_column(e.column);
      t.negated = e.negated;
      for (const StatsValue& v : e.list) {
        if (!v) {
          if (e.negated) return const_term(false);  // x NOT IN (.., NULL) is never true
          continue;
        }
        t.list.push_back(*v);
      }
      std::sort(t.list.begin(), t.list.end());
      t.list.erase(std::unique(t.list.begin(), t.list.end()), t.list.end());
      return t;
    }
    case K::kIsNull:
      return const_term(e.negated);  // columns hold no NULLs
    case K::kAnd:
    case K::kOr:
      t.kind = e.kind == K::kAnd ? scans::QualTerm::Kind::kAnd : scans::QualTerm::Kind::kOr;
      for (const Expr& a : e.args) t.args.push_back(compile(a, layout));
      return t;
    case K::kNot:
      t.kind = scans::QualTerm::Kind::kNot;
      t.args.push_back(compile(e.args[0], layout));
      return t;
    case K::kBool:
      return const_term(e.value && *e.value != 0);
  }
  return const_term(false);
}

// A constant as PostgreSQL's deparser prints it next to an integer column.
std::string const_text(const StatsValue& v) {
  if (!v) return "NULL::integer";
  int64_t x = *v;
  bool int4 = x >= std::numeric_limits<int32_t>::min() && x <= std::numeric_limits<int32_t>::max();
  if (x >= 0 && int4) return std::to_string(x);
  return "'" + std::to_string(x) + "'::" + (int4 ? "integer" : "bigint");
}

std::string deparse(const Expr& e, const RelationEntry& rel) {
  using K = Expr::Kind;
  auto col = [&](int c) { return rel.columns[size_t(c)].name; };
  switch (e.kind) {
    case K::kCompare:
      return "(" + col(e.column) + " " + cmp_op_name(e.op) + " " + const_text(e.value) + ")";
    case K::kBetween:
      return deparse(normalize(e), rel);
    case K::kIn: {
      std::string items;
      bool int4 = true;
      for (const StatsValue& v : e.list) {
        items += (items.empty() ? "" : ",") + (v ? std::to_string(*v) : std::string("NULL"));
        if (v &&
            (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()))
          int4 = false;
      }
      return "(" + col(e.column) + (e.negated ? " <> ALL ('{" : " = ANY ('{") + items +
             "}'::" + (int4 ? "integer" : "bigint") + "[]))";
    }
    case K::kIsNull:
      return "(" + col(e.column) + (e.negated ? " IS NOT NULL)" : " IS NULL)");
    case K::kAnd:
    case K::kOr: {
      std::string s = "(";
      for (size_t i = 0; i < e.args.size(); ++i)
        s += (i ? (e.kind == K::kAnd ? " AND " : " OR ") : "") + deparse(e.args[i], rel);
      return s + ")";
    }
    case K::kNot:
      return "(NOT " + deparse(e.args[0], rel) + ")";
    case K::kBool:
      return e.value && *e.value ? "true" : "false";
  }
  return "";
}

std::string clauses_text(const std::vector<Expr>& clauses, const RelationEntry& rel) {
  if (clauses.empty()) return "";
  if (clauses.size() == 1) return deparse(clauses[0], rel);
  return deparse(Expr::and_of(clauses), rel);
}

// PostgreSQL's estimate_rel_size for a heap: the file's current pages, and
// tuples from the density ANALYZE / VACUUM saw, or from the row width before
// either ran (with the 10-page floor for never-analyzed tables).
struct SizeEstimate {
  double pages = 0;
  double tuples = 0;
};
SizeEstimate estimate_rel_size(const RelationEntry& rel, const TableStats* stats) {
  double curpages = double(rel.pages);
  bool analyzed = stats != nullptr;
  if (curpages < 10 && !analyzed) curpages = 10;
  if (curpages == 0) return {0, 0};
  double density;
  if (analyzed && stats->relpages > 0) {
    density = stats->reltuples / stats->relpages;
  } else {
    int32_t data_width = 0;
    for (const Column& c : rel.columns) data_width += int32_t(column_type_size(c.type));
    int32_t tuple_width =
        data_width + int32_t(maxalign(kHeapTupleHeaderSize)) + int32_t(kItemIdSize);
    density = double((int32_t(kBlockSize) - int32_t(kPageHeaderSize)) / tuple_width);
  }
  return {curpages, std::rint(density * curpages)};
}

// Per-tuple transition and final function cost of an aggregate (every
// transition / final function of these has procost 1).
void add_agg_costs(const CostSettings& cs, scans::AggKind kind, ColumnType input, QualCost& trans,
                   QualCost& final_cost) {
  trans.per_tuple += cs.cpu_operator_cost;
  bool has_final =
      kind == scans::AggKind::kAvg || (kind == scans::AggKind::kSum && input == ColumnType::Int8);
  if (has_final) final_cost.per_tuple += cs.cpu_operator_cost;
}

int output_width(OutputType t) {
  return t == OutputType::kInt4 ? 4 : t == OutputType::kInt8 ? 8 : 32;
}

// A clause the B-tree scan can apply on one of `key_columns`: a comparison
// other than <> with a constant, or an IN list without NULLs (one scan per
// element, PostgreSQL's `= ANY` index qual).
bool usable_index_clause(const Expr& c, const std::vector<int>& key_columns) {
  bool ok = (c.kind == Expr::Kind::kCompare && c.value && c.op != CmpOp::kNe) ||
            (c.kind == Expr::Kind::kIn && !c.negated &&
             std::all_of(c.list.begin(), c.list.end(), [](const StatsValue& v) { return v; }));
  if (!ok) return false;
  for (int k : key_columns)
    if (is_btree_indexable(c, k)) return true;
  return false;
}

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

// The B-tree condition sets for usable index clauses: one set, or one per
// combination of IN-list elements (ascending; descending for a backward scan).
constexpr size_t kMaxConditionSets = 100000;
scans::ConditionSets condition_sets(const std::vector<Expr>& clauses,
                                    const std::vector<int>& key_columns, bool backward) {
  auto pos_of = [&](int column) {
    for (size_t i = 0; i < key_columns.size(); ++i)
      if (key_columns[i] == column) return int(i);
    return 0;
  };
  scans::ConditionSets sets(1);
  for (const Expr& c : clauses) {
    if (c.kind == Expr::Kind::kCompare) {
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

// An index opened for one query: its page store over the pool and the tree.
struct OpenIndex {
  std::unique_ptr<PoolPageStore> store;
  std::optional<btree::BTree> tree;
};

// What indexes tell the estimator about column `c`, as PostgreSQL's planner
// learns it: a unique index on exactly the column, and the column's current
// min and max read from the ends of an index that leads with it
// (get_actual_variable_range), which refine the histogram's end buckets.
void describe_from_indexes(Session& session, const RelationEntry& table, int c,
                           ColumnStatsView& v) {
  for (const RelationEntry* idx : session.catalog().indexes_of(table.oid)) {
    if (idx->key_columns.empty() || idx->key_columns[0] != c) continue;
    if (idx->unique && idx->key_columns.size() == 1) v.unique = true;
    if (v.actual_min) continue;
    Storage& st = session.storage();
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

scans::IndexHandle open_index(Session& session, const RelationEntry& table,
                              const RelationEntry& index) {
  auto h = std::make_shared<OpenIndex>();
  Storage& st = session.storage();
  h->store = std::make_unique<PoolPageStore>(st.pool(), st.file(index), nullptr, 0);
  h->tree.emplace(btree::BTree::open(*h->store, index_def(table, index)));
  scans::IndexHandle handle;
  handle.name = index.name;
  handle.tree = &*h->tree;
  handle.owner = h;
  return handle;
}
}  // namespace

CostSettings session_cost_settings(const Settings& s) {
  CostSettings cs;
  cs.seq_page_cost = s.get_real("seq_page_cost");
  cs.random_page_cost = s.get_real("random_page_cost");
  cs.cpu_tuple_cost = s.get_real("cpu_tuple_cost");
  cs.cpu_index_tuple_cost = s.get_real("cpu_index_tuple_cost");
  cs.cpu_operator_cost = s.get_real("cpu_operator_cost");
  cs.effective_cache_size_pages = double(s.get_int("effective_cache_size"));
  cs.work_mem_kb = s.get_int("work_mem");
  cs.validate();
  return cs;
}

PlannedQuery plan_select(Session& session, const sql::Select& s) {
  const RelationEntry* found = session.catalog().find(s.from->name);
  if (!found)
    throw Error("relation " + quoted(s.from->name) + " does not exist")
        .at_position(s.from->position);
  if (!found->is_table())
    throw Error("cannot read index " + quoted(found->name) + " as a table")
        .at_position(s.from->position);
  const RelationEntry& rel = *found;
  const Settings& settings = session.settings();
  CostSettings cs = session_cost_settings(settings);
  Binder binder(rel);
  TupleLayout layout(rel.columns);
  PlannedQuery q;

  // Select list: either all plain columns or all aggregates (no GROUP BY).
  std::vector<int> target_columns;  // plain: table column per output column
  std::vector<std::pair<scans::AggKind, int>> aggs;
  const sql::Expr* first_plain = nullptr;
  for (const sql::Target& t : s.targets) {
    const sql::Expr& e = *t.expr;
    if (e.kind == sql::ExprKind::Star) {
      for (size_t c = 0; c < rel.columns.size(); ++c) {
        target_columns.push_back(int(c));
        q.column_names.push_back(rel.columns[c].name);
      }
      if (!first_plain) first_plain = &e;
      continue;
    }
    if (e.kind == sql::ExprKind::ColumnRef) {
      target_columns.push_back(binder.column(e));
      q.column_names.push_back(t.alias.empty() ? e.name : t.alias);
      if (!first_plain) first_plain = &e;
      continue;
    }
    if (e.kind == sql::ExprKind::FuncCall) {
      static const std::pair<const char*, scans::AggKind> kinds[] = {
          {"count", scans::AggKind::kCount},
          {"sum", scans::AggKind::kSum},
          {"min", scans::AggKind::kMin},
          {"max", scans::AggKind::kMax},
          {"avg", scans::AggKind::kAvg}};
      std::optional<scans::AggKind> kind;
      for (auto& [name, k] : kinds)
        if (e.name == name) kind = k;
      if (!kind)
        throw Error("function " + e.name +
                    "() is not available in a query over a table: the "
                    "select list takes columns and count, sum, min, max, avg")
            .at_position(e.position);
      if (e.star_arg) {
        if (*kind != scans::AggKind::kCount)
          throw Error(e.name + "(*) is not an aggregate; only count(*) is").at_position(e.position);
        aggs.push_back({scans::AggKind::kCountStar, -1});
      } else {
        if (e.args.size() != 1 || e.args[0]->kind != sql::ExprKind::ColumnRef)
          throw Error(e.name + "() takes one column here").at_position(e.position);
        aggs.push_back({*kind, binder.column(*e.args[0])});
      }
      q.column_names.push_back(t.alias.empty() ? e.name : t.alias);
      continue;
    }
    throw Error(
        "the select list takes *, columns and aggregates (count, sum, min, max, avg); "
        "expressions are not supported")
        .at_position(e.position);
  }
  if (!aggs.empty() && first_plain)
    throw Error(
        "column \"" + rel.name + "." +
        (first_plain->kind == sql::ExprKind::Star ? rel.columns[0].name : first_plain->name) +
        "\" must appear in the GROUP BY clause or be used in an aggregate function")
        .at_position(first_plain->position);

  // Sort keys: an output column name or position, else a table column.
  std::vector<std::pair<int, bool>> order;  // table column, descending
  std::string key_text;
  for (const sql::OrderItem& o : s.order_by) {
    if (!aggs.empty())
      throw Error("ORDER BY is not supported with aggregates (the result is one row)")
          .at_position(o.expr->position);
    int col = -1;
    if (o.expr->kind == sql::ExprKind::IntConst) {
      int64_t k = o.expr->ival;
      if (k < 1 || k > int64_t(target_columns.size()))
        throw Error("ORDER BY position " + std::to_string(k) + " is not in select list")
            .at_position(o.expr->position);
      col = target_columns[size_t(k - 1)];
    } else if (o.expr->kind == sql::ExprKind::ColumnRef) {
      for (size_t i = 0; i < q.column_names.size() && col < 0; ++i)
        if (q.column_names[i] == o.expr->name) col = target_columns[i];
      if (col < 0) col = binder.column(*o.expr);
    } else {
      throw Error("ORDER BY takes columns (by name or position)").at_position(o.expr->position);
    }
    order.push_back({col, o.descending});
    key_text += (key_text.empty() ? "" : ", ") + rel.columns[size_t(col)].name +
                (o.descending ? " DESC" : "");
  }

  // Scan output: the columns the nodes above read, each once.
  std::vector<int> scan_columns;
  auto slot_of = [&](int col) -> uint32_t {
    for (size_t i = 0; i < scan_columns.size(); ++i)
      if (scan_columns[i] == col) return uint32_t(i);
    scan_columns.push_back(col);
    return uint32_t(scan_columns.size() - 1);
  };
  for (int c : target_columns) q.output_slots.push_back(slot_of(c));
  std::vector<scans::SortKey> sort_keys;
  for (auto& [c, desc] : order) sort_keys.push_back({slot_of(c), desc});
  std::vector<scans::AggSpec> agg_specs;
  for (auto& [kind, c] : aggs) agg_specs.push_back({kind, c >= 0 ? slot_of(c) : 0});
  int scan_width = 0;
  for (int c : scan_columns) scan_width += int(column_type_size(rel.columns[size_t(c)].type));

  // WHERE: PostgreSQL's restriction clauses, estimated and compiled.
  std::vector<Expr> clauses;
  if (s.where) clauses = restriction_clauses(binder.where(*s.where));
  // PostgreSQL orders a scan's quals by evaluation cost (order_qual_clauses).
  std::stable_sort(clauses.begin(), clauses.end(), [&](const Expr& a, const Expr& b) {
    return qual_cost(cs, std::span(&a, 1)).per_tuple < qual_cost(cs, std::span(&b, 1)).per_tuple;
  });

  std::optional<TableStats> stats;
  if (!rel.stats.empty()) stats = stats_from_catalog(rel.stats);
  SizeEstimate size = estimate_rel_size(rel, stats ? &*stats : nullptr);
  RelationStatsView view;
  view.tuples = size.tuples;
  for (size_t c = 0; c < rel.columns.size(); ++c) {
    ColumnStatsView v;
    if (stats && c < stats->columns.size() && stats->columns[c].valid) v.stats = &stats->columns[c];
    describe_from_indexes(session, rel, int(c), v);
    view.columns.push_back(v);
  }
  RelSize rs{.pages = size.pages, .tuples = size.tuples, .rows = 0};
  rs.rows = clamp_row_est(clauselist_selectivity(view, clauses) * size.tuples);
  std::vector<scans::OutputColumn> output;
  for (int c : scan_columns)
    output.push_back({layout.offset(size_t(c)), rel.columns[size_t(c)].type == ColumnType::Int8});
  auto compile_all = [&](const std::vector<Expr>& list) {
    scans::Qual qual;
    for (const Expr& c : list) qual.terms.push_back(compile(c, layout));
    return qual;
  };
  const QualCost all_quals = qual_cost(cs, clauses);
  const double limit_rows = s.limit ? double(*s.limit) : -1;
  // What the nodes above a scan add: a sort (unless the scan gives the
  // order) and the limit. Candidates are compared on this total.
  auto finished_total = [&](PathCost p, bool ordered) {
    if (!aggs.empty()) return p.total;
    if (!sort_keys.empty() && !ordered) p = cost_sort(cs, p, p.rows, scan_width, 0, limit_rows);
    if (s.limit) p = cost_limit(p, 0, limit_rows);
    return p.total;
  };

  // Sequential scan.
  PathCost path = cost_seq_scan(cs, rs, all_quals);
  path = disabled_if(!settings.get_bool("enable_seqscan"), path);
  double best_total = finished_total(path, false);
  bool ordered = false;
  std::function<std::unique_ptr<scans::ExecNode>()> build_scan = [&] {
    scans::SeqScanParams params;
    params.relation = rel.name;
    params.nblocks = BlockNumber(rel.pages);
    params.stream = session.storage().stream_config();
    params.output = output;
    params.qual = compile_all(clauses);
    params.filter_text = clauses_text(clauses, rel);
    return std::make_unique<scans::SeqScanNode>(session.storage().pool(),
                                                session.storage().file(rel), std::move(params));
  };

  // Index and bitmap paths, one per index.
  struct IndexInfo {
    const RelationEntry* entry;
    BtreeIndexInfo info;
  };
  std::vector<IndexInfo> indexes;
  for (const RelationEntry* idx : session.catalog().indexes_of(rel.oid))
    indexes.push_back({idx, BtreeIndexInfo{.pages = double(idx->pages),
                                           .tuples = size.tuples,
                                           .tree_height = session.index_height(*idx),
                                           .key_columns = int(idx->key_columns.size()),
                                           .unique = idx->unique}});
  const std::string& prefetch_mode = settings.get_enum("index_prefetch");
  const bool prefetch = prefetch_mode != "off";
  const int prefetch_start_switches =
      prefetch_mode == "immediate" ? 0 : scans::kPrefetchStartSwitches;
  const int64_t work_mem_bytes = cs.work_mem_kb * 1024;
  // A bitmap index scan on `ix` for `arm` (the clauses of one AND arm); null if none apply.
  struct BitmapChoice {
    BitmapNode node;
    const IndexInfo* index = nullptr;
    std::vector<Expr> index_clauses;
  };
  auto bitmap_for = [&](const std::vector<Expr>& arm) -> std::optional<BitmapChoice> {
    std::optional<BitmapChoice> best;
    double best_cost = 0;
    for (const IndexInfo& ix : indexes) {
      std::vector<Expr> ic;
      for (const Expr& c : arm)
        if (usable_index_clause(c, ix.entry->key_columns)) ic.push_back(c);
      if (ic.empty()) continue;
      BtreeQuals bq = summarize_btree_quals(view, ix.entry->key_columns, ix.entry->unique, ic);
      BitmapNode bn =
          BitmapNode::index_scan(cost_btree_index(cs, rs, ix.info, bq), rs.rows, ix.info.pages);
      double cost = cost_bitmap_tree_node(cs, bn).cost;
      if (!best || cost < best_cost) {
        best = BitmapChoice{bn, &ix, ic};
        best_cost = cost;
      }
    }
    return best;
  };
  auto make_bitmap_index = [&](const BitmapChoice& ch) {
    auto node = std::make_unique<scans::BitmapIndexScanNode>(
        open_index(session, rel, *ch.index->entry),
        condition_sets(ch.index_clauses, ch.index->entry->key_columns, false),
        clauses_text(ch.index_clauses, rel));
    PathCost e = explain_bitmap_node(cs, ch.node, rs.tuples);
    node->estimate = {e.startup, e.total, e.rows, 0};
    return node;
  };
  auto make_bitmap_heap = [&](std::unique_ptr<scans::BitmapNode> child,
                              const std::vector<Expr>& recheck, const std::vector<Expr>& filter,
                              const PathCost& p) {
    scans::BitmapHeapScanParams bp;
    bp.relation = rel.name;
    bp.work_mem_bytes = work_mem_bytes;
    bp.stream = session.storage().stream_config();
    bp.output = output;
    bp.recheck = compile_all(recheck);
    bp.filter = compile_all(filter);
    bp.recheck_text = clauses_text(recheck, rel);
    bp.filter_text = clauses_text(filter, rel);
    auto node = std::make_unique<scans::BitmapHeapScanNode>(
        session.storage().pool(), session.storage().file(rel), std::move(child), std::move(bp));
    node->estimate = {p.startup, p.total, p.rows, scan_width};
    return node;
  };
  const bool bitmap_disabled = !settings.get_bool("enable_bitmapscan");
  const bool index_disabled = !settings.get_bool("enable_indexscan");
  for (const IndexInfo& ix : indexes) {
    const std::vector<int>& keys = ix.entry->key_columns;
    std::vector<Expr> ic, qp;
    for (const Expr& c : clauses) (usable_index_clause(c, keys) ? ic : qp).push_back(c);
    // The order the index gives: ORDER BY a prefix of its keys, one direction.
    bool gives_order = !order.empty() && order.size() <= keys.size();
    for (size_t i = 0; gives_order && i < order.size(); ++i)
      gives_order = order[i].first == keys[i] && order[i].second == order[0].second;
    // IN lists run one B-tree scan per element, which keeps key order only in
    // some shapes; tidepool does not rely on it (a Sort is added instead).
    for (const Expr& c : ic) gives_order = gives_order && c.kind != Expr::Kind::kIn;
    bool backward = gives_order && order[0].second;
    if (!ic.empty() || gives_order) {
      BtreeQuals bq = summarize_btree_quals(view, keys, ix.entry->unique, ic);
      IndexScanCost isc = cost_index_scan(cs, rs, ix.info, bq, qual_cost(cs, qp));
      PathCost p = isc.path;
      p = disabled_if(index_disabled, p);
      double total = finished_total(p, gives_order);
      if (total < best_total) {
        best_total = total;
        path = p;
        ordered = gives_order;
        build_scan = [&, ix_entry = ix.entry, ic, qp, backward, p] {
          scans::IndexScanParams ip;
          ip.relation = rel.name;
          ip.index = open_index(session, rel, *ix_entry);
          ip.condition_sets = condition_sets(ic, ix_entry->key_columns, backward);
          ip.direction = backward ? btree::ScanDirection::Backward : btree::ScanDirection::Forward;
          ip.stream = session.storage().stream_config();
          ip.prefetch = prefetch;
          ip.prefetch_start_switches = prefetch_start_switches;
          ip.output = output;
          ip.filter = compile_all(qp);
          ip.index_cond_text = clauses_text(ic, rel);
          ip.filter_text = clauses_text(qp, rel);
          return std::unique_ptr<scans::ExecNode>(std::make_unique<scans::IndexScanNode>(
              session.storage().pool(), session.storage().file(rel), std::move(ip)));
        };
      }
    }
  }
  // Bitmap heap scan over the best single index.
  if (std::optional<BitmapChoice> ch = bitmap_for(clauses)) {
    BitmapHeapScanCost bc = cost_bitmap_heap_scan(cs, rs, ch->node, all_quals);
    PathCost p = bc.path;
    p = disabled_if(bitmap_disabled, p);
    double total = finished_total(p, false);
    if (total < best_total) {
      best_total = total;
      path = p;
      ordered = false;
      build_scan = [&, ch = *ch, p] {
        std::vector<Expr> filter;
        for (const Expr& c : clauses) {
          bool is_index = false;
          for (const Expr& i : ch.index_clauses) is_index |= deparse(i, rel) == deparse(c, rel);
          if (!is_index) filter.push_back(c);
        }
        return std::unique_ptr<scans::ExecNode>(
            make_bitmap_heap(make_bitmap_index(ch), ch.index_clauses, filter, p));
      };
    }
  }
  // BitmapOr for an OR clause whose every arm an index covers completely.
  for (size_t oi = 0; oi < clauses.size(); ++oi) {
    const Expr& orc = clauses[oi];
    if (orc.kind != Expr::Kind::kOr) continue;
    std::vector<BitmapChoice> arms;
    bool covered = true;
    for (const Expr& arm : orc.args) {
      std::vector<Expr> parts = arm.kind == Expr::Kind::kAnd ? arm.args : std::vector<Expr>{arm};
      std::optional<BitmapChoice> ch = bitmap_for(parts);
      if (!ch || ch->index_clauses.size() != parts.size()) {
        covered = false;
        break;
      }
      arms.push_back(*ch);
    }
    if (!covered || arms.size() < 2) continue;
    std::vector<BitmapNode> kids;
    for (const BitmapChoice& a : arms) kids.push_back(a.node);
    BitmapNode or_node = BitmapNode::or_of(kids);
    BitmapHeapScanCost bc = cost_bitmap_heap_scan(cs, rs, or_node, all_quals);
    PathCost p = bc.path;
    p = disabled_if(bitmap_disabled, p);
    double total = finished_total(p, false);
    if (total < best_total) {
      best_total = total;
      path = p;
      ordered = false;
      build_scan = [&, arms, or_node, oi, p] {
        std::vector<std::unique_ptr<scans::BitmapNode>> children;
        for (const BitmapChoice& a : arms) children.push_back(make_bitmap_index(a));
        auto bor = std::make_unique<scans::BitmapCombineNode>(false, std::move(children));
        PathCost e = explain_bitmap_node(cs, or_node, rs.tuples);
        bor->estimate = {e.startup, e.total, e.rows, 0};
        std::vector<Expr> filter;
        for (size_t i = 0; i < clauses.size(); ++i)
          if (i != oi) filter.push_back(clauses[i]);
        return std::unique_ptr<scans::ExecNode>(
            make_bitmap_heap(std::move(bor), {clauses[oi]}, filter, p));
      };
    }
  }

  std::unique_ptr<scans::ExecNode> node = build_scan();
  node->estimate = {path.startup, path.total, path.rows, scan_width};

  if (!aggs.empty()) {
    QualCost trans, final_cost;
    int width = 0;
    for (auto& [kind, c] : aggs) {
      ColumnType in = c >= 0 ? rel.columns[size_t(c)].type : ColumnType::Int8;
      add_agg_costs(cs, kind, in, trans, final_cost);
      OutputAggregate oa{kind, in, OutputType::kInt8};
      if (kind == scans::AggKind::kAvg || (kind == scans::AggKind::kSum && in == ColumnType::Int8))
        oa.type = OutputType::kNumeric;
      else if ((kind == scans::AggKind::kMin || kind == scans::AggKind::kMax) &&
               in == ColumnType::Int4)
        oa.type = OutputType::kInt4;
      width += output_width(oa.type);
      q.aggregates.push_back(oa);
      q.output_types.push_back(oa.type);
    }
    PathCost agg;
    agg.startup = path.total + trans.startup + trans.per_tuple * path.rows + final_cost.startup +
                  final_cost.per_tuple;
    agg.total = agg.startup + cs.cpu_tuple_cost;
    agg.rows = 1;
    auto a = std::make_unique<scans::AggregateNode>(std::move(node), std::move(agg_specs));
    q.aggregate = a.get();
    a->estimate = {agg.startup, agg.total, agg.rows, width};
    node = std::move(a);
    path = agg;
  } else {
    for (int c : target_columns)
      q.output_types.push_back(rel.columns[size_t(c)].type == ColumnType::Int8 ? OutputType::kInt8
                                                                               : OutputType::kInt4);
  }

  if (!sort_keys.empty() && !ordered) {
    double limit_tuples = s.limit ? double(*s.limit) : -1;
    PathCost sorted = cost_sort(cs, path, path.rows, scan_width, 0, limit_tuples);
    sorted = disabled_if(!settings.get_bool("enable_sort"), sorted);
    auto sort = std::make_unique<scans::SortNode>(std::move(node), std::move(sort_keys), key_text,
                                                  s.limit ? *s.limit : 0, kSortMemoryLimitBytes);
    sort->estimate = {sorted.startup, sorted.total, sorted.rows, scan_width};
    node = std::move(sort);
    path = sorted;
  }
  if (s.limit) {
    PathCost limited = cost_limit(path, 0, double(*s.limit));
    int width = node->estimate.width;
    auto limit = std::make_unique<scans::LimitNode>(std::move(node), *s.limit);
    limit->estimate = {limited.startup, limited.total, limited.rows, width};
    node = std::move(limit);
  }
  q.root = std::move(node);
  return q;
}

std::string numeric_div_text(__int128 num, int64_t den) {
  TP_ASSERT(den > 0);
  // Weight and leading digit in base 10000, as PostgreSQL's NumericVar holds them.
  auto weight_first = [](unsigned __int128 x, int& weight, int& first) {
    weight = 0;
    first = 0;
    if (x == 0) return;
    weight = -1;
    while (x > 0) {
      first = int(x % 10000);
      x /= 10000;
      ++weight;
    }
  };
  bool negative = num < 0;
  unsigned __int128 mag = negative ? (unsigned __int128)(-num) : (unsigned __int128)num;
  int w1, f1, w2, f2;
  weight_first(mag, w1, f1);
  weight_first((unsigned __int128)den, w2, f2);
  int qweight = w1 - w2;
  if (f1 <= f2) --qweight;
  int rscale = std::clamp(16 - qweight * 4, 0, 1000);
  // q = round(mag * 10^rscale / den), half away from zero; long double if it would overflow.
  unsigned __int128 scaled = mag;
  bool overflow = false;
  for (int i = 0; i < rscale && !overflow; ++i) {
    if (scaled > (~(unsigned __int128)0) / 10) overflow = true;
    scaled *= 10;
  }
  std::string digits;
  if (!overflow) {
    unsigned __int128 q = scaled / (unsigned __int128)den;
    unsigned __int128 r = scaled % (unsigned __int128)den;
    if (r * 2 >= (unsigned __int128)den) ++q;
    if (q == 0) digits = "0";
    while (q > 0) {
      digits.insert(digits.begin(), char('0' + int(q % 10)));
      q /= 10;
    }
  } else {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.*Lf", std::min(rscale, 30),
                  (long double)mag / (long double)den);
    std::string t = buf;
    if (negative && t.find_first_not_of("0.") != std::string::npos) t = "-" + t;
    return t;
  }
  if (rscale > 0) {
    if (digits.size() <= size_t(rscale)) digits.insert(0, size_t(rscale) + 1 - digits.size(), '0');
    digits.insert(digits.size() - size_t(rscale), ".");
  }
  bool zero = digits.find_first_not_of("0.") == std::string::npos;
  return (negative && !zero ? "-" : "") + digits;
}

std::string format_aggregate(const OutputAggregate& agg, const scans::AggState& st) {
  using scans::AggKind;
  switch (agg.kind) {
    case AggKind::kCountStar:
    case AggKind::kCount:
      return std::to_string(st.count);
    default:
      break;
  }
  if (st.count == 0) return "";  // NULL
  switch (agg.kind) {
    case AggKind::kMin:
      return std::to_string(st.min);
    case AggKind::kMax:
      return std::to_string(st.max);
    case AggKind::kSum: {
      if (agg.input == ColumnType::Int4) {
        if (st.sum > std::numeric_limits<int64_t>::max() ||
            st.sum < std::numeric_limits<int64_t>::min())
          throw Error("bigint out of range");
        return std::to_string(int64_t(st.sum));
      }
      __int128 v = st.sum;
      bool neg = v < 0;
      unsigned __int128 m = neg ? (unsigned __int128)(-v) : (unsigned __int128)v;
      std::string d;
      do {
        d.insert(d.begin(), char('0' + int(m % 10)));
        m /= 10;
      } while (m > 0);
      return (neg ? "-" : "") + d;
    }
    case AggKind::kAvg:
      return numeric_div_text(st.sum, st.count);
    default:
      return "";
  }
}

}  // namespace tp
