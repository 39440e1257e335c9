// What the join node tests share (join_node_test.cc, materialize_spill_test.cc): a test
// node returning (int4, text, numeric) rows with NULLs in small batches, random rows with
// duplicate and NULL keys, the filters, and the brute-force nested loop the joins' rows
// are checked against.
#pragma once

#include <gmock/gmock.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/datum_ops.h"
#include "engine/core/numeric.h"
#include "engine/core/typed_expr.h"
#include "scans/exec_params.h"
#include "scans/join_row.h"

namespace tp::join_test {

using scans::JoinType;

// A row of the test's tables: (key int4, t text, n numeric), any of them NULL.
struct TRow {
  std::optional<int32_t> key;
  std::optional<std::string> t;
  std::optional<std::string> n;  // numeric text
};

inline const std::vector<TypeId> kTypes = {TypeId::kInt4, TypeId::kText, TypeId::kNumeric};

inline std::string text_varlena(const std::string& s) {
  return make_varlena(s);
}

// Returns its rows in batches of `batch` rows, the by-reference bytes in the batch's arena
// (reused by the next batch, as a scan's are); counts its opens and rescans.
class RowsNode : public scans::ExecNode {
 public:
  RowsNode(std::vector<TRow> rows, uint32_t batch) : rows_(std::move(rows)), batch_rows_(batch) {
    for (const TRow& r : rows_) {
      texts_.push_back(r.t ? text_varlena(*r.t) : "");
      nums_.push_back(r.n ? numeric_in(*r.n, kNoTypmod) : "");
    }
    shape_ = std::make_shared<const scans::RowShape>(kTypes);
  }
  std::string explain_name() const override { return "Rows"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  void rescan() override {
    ++rescans;
    ExecNode::rescan();
  }
  int opens = 0;    // do_open calls (a rescan's included)
  int rescans = 0;  // rescan() calls
  // Called when the last batch is returned (a cancel test sets its flag there).
  std::atomic<bool>* cancel_at_end = nullptr;

 protected:
  // Whether row i is returned in this loop (a parameterized node filters).
  virtual bool wanted(const TRow&) const { return true; }
  void do_open() override {
    ++opens;
    at_ = 0;
  }
  const scans::RowBatch* do_next() override {
    batch_.shape = shape_;
    batch_.reset(3, batch_rows_);
    while (at_ < rows_.size() && batch_.count < batch_rows_) {
      const size_t i = at_++;
      const TRow& r = rows_[i];
      if (!wanted(r)) continue;
      const uint32_t row = batch_.count;
      Datum* v = batch_.row(row);
      v[0] = v[1] = v[2] = 0;
      if (batch_.has_nulls) std::fill_n(batch_.null_flags(row), 3, uint8_t(0));
      if (r.key)
        v[0] = Datum(*r.key);
      else
        batch_.set_null(row, 0);
      if (r.t)
        v[1] = batch_.arena.copy(texts_[i].data(), texts_[i].size());
      else
        batch_.set_null(row, 1);
      if (r.n)
        v[2] = batch_.arena.copy(nums_[i].data(), nums_[i].size());
      else
        batch_.set_null(row, 2);
      ++batch_.count;
    }
    if (at_ >= rows_.size() && cancel_at_end) cancel_at_end->store(true);
    return batch_.count > 0 ? &batch_ : nullptr;
  }

  std::vector<TRow> rows_;

 private:
  uint32_t batch_rows_;
  std::vector<std::string> texts_, nums_;
  std::shared_ptr<const scans::RowShape> shape_;
  size_t at_ = 0;
  scans::RowBatch batch_;
};

// Returns the rows whose key equals parameter $0 (none for a NULL $0): a parameterized
// inner scan, as an Index Scan on `key = $0` will be.
class ParamRowsNode final : public RowsNode {
 public:
  ParamRowsNode(std::vector<TRow> rows, uint32_t batch, const scans::ExecParams& params)
      : RowsNode(std::move(rows), batch), params_(params) {}

 protected:
  bool wanted(const TRow& r) const override {
    return !params_.is_null(0) && r.key && Datum(*r.key) == params_.value(0);
  }

 private:
  const scans::ExecParams& params_;
};

inline std::vector<TRow> random_rows(std::mt19937& rng, size_t n, int keys) {
  std::vector<TRow> out;
  for (size_t i = 0; i < n; ++i) {
    TRow r;
    if (rng() % 10 != 0) r.key = int32_t(rng() % uint32_t(keys));
    // Texts of several lengths (short and 4-byte varlena headers alike).
    if (rng() % 12 != 0)
      r.t = "t" + std::to_string(i) + std::string(rng() % 40, char('a' + i % 26));
    if (rng() % 8 != 0)
      r.n = std::to_string(int(rng() % 2000) - 1000) + "." + std::to_string(rng() % 100);
    out.push_back(r);
  }
  return out;
}

// The filter functions the test's TypedExprs call.
inline int64_t g_filter_calls = 0;
inline Datum numeric_le(const Datum* a, const TypedExpr&, EvalState&) {
  ++g_filter_calls;
  return compare_datums(TypeId::kNumeric, a[0], a[1]) <= 0;
}
inline Datum int4_eq(const Datum* a, const TypedExpr&, EvalState&) {
  return a[0] == a[1];
}
inline Datum always_false(const Datum*, const TypedExpr&, EvalState&) {
  ++g_filter_calls;
  return 0;
}

inline TypedExpr call(ScalarFn fn, TypedExpr a, TypedExpr b) {
  TypedExpr e;
  e.kind = TypedExpr::Kind::kCall;
  e.type = TypeId::kBool;
  e.fn = fn;
  e.args = {std::move(a), std::move(b)};
  return e;
}
inline TypedExpr col(uint32_t slot, TypeId t) {
  return column_expr(slot, t, kNoTypmod, "c");
}

// o.n <= i.n over the combined row (outer slots 0-2, inner 3-5).
inline std::shared_ptr<const TypedExpr> n_le_filter() {
  return std::make_shared<TypedExpr>(
      call(numeric_le, col(2, TypeId::kNumeric), col(5, TypeId::kNumeric)));
}
// o.key = i.key AND o.n <= i.n: a Nested Loop without parameters carries the key in its filter.
inline std::shared_ptr<const TypedExpr> key_and_n_filter() {
  TypedExpr e;
  e.kind = TypedExpr::Kind::kAnd;
  e.type = TypeId::kBool;
  e.args = {call(int4_eq, col(0, TypeId::kInt4), col(3, TypeId::kInt4)), *n_le_filter()};
  return std::make_shared<TypedExpr>(std::move(e));
}

inline bool is_semi_or_anti(JoinType t) {
  return t == JoinType::kSemi || t == JoinType::kAnti;
}

inline scans::JoinSpec spec_for(JoinType type, std::shared_ptr<const TypedExpr> filter) {
  scans::JoinSpec s;
  s.type = type;
  s.outer_types = kTypes;
  s.inner_types = kTypes;
  // Chosen and reordered slots of the combined row.
  s.output = is_semi_or_anti(type) ? std::vector<uint32_t>{2, 0, 1}
                                   : std::vector<uint32_t>{5, 1, 0, 3, 2, 4};
  s.filter = std::move(filter);
  if (s.filter) s.filter_text = "(o.n <= i.n)";
  return s;
}

using Out = std::vector<std::string>;  // one output row, each slot's text or "NULL"

// The rows the join must return, by a nested loop over the test's rows, joined on slot
// `key` (0: the int4, 1: the text, 2: the numeric, equal by value).
inline std::vector<Out> brute_force(const std::vector<TRow>& outer, const std::vector<TRow>& inner,
                                    const scans::JoinSpec& spec, bool filtered, uint32_t key = 0) {
  auto slots = [](const TRow* r) {
    std::vector<std::optional<std::string>> s(3);
    if (r && r->key) s[0] = std::to_string(*r->key);
    if (r && r->t) s[1] = *r->t;
    if (r && r->n)
      s[2] = datum_out(TypeId::kNumeric, pointer_datum(numeric_in(*r->n, kNoTypmod).data()));
    return s;
  };
  auto keys_equal = [&](const TRow& o, const TRow& i) {
    if (key == 1) return o.t && i.t && *o.t == *i.t;
    if (key == 2) {
      if (!o.n || !i.n) return false;
      const std::string a = numeric_in(*o.n, kNoTypmod), b = numeric_in(*i.n, kNoTypmod);
      return compare_datums(TypeId::kNumeric, pointer_datum(a.data()), pointer_datum(b.data())) ==
             0;
    }
    return o.key && i.key && *o.key == *i.key;
  };
  auto matches = [&](const TRow& o, const TRow& i) {
    if (!keys_equal(o, i)) return false;
    if (!filtered) return true;
    if (!o.n || !i.n) return false;
    const std::string a = numeric_in(*o.n, kNoTypmod), b = numeric_in(*i.n, kNoTypmod);
    return compare_datums(TypeId::kNumeric, pointer_datum(a.data()), pointer_datum(b.data())) <= 0;
  };
  std::vector<Out> out;
  auto emit = [&](const TRow* o, const TRow* i) {
    auto a = slots(o), b = slots(i);
    a.insert(a.end(), b.begin(), b.end());
    Out row;
    for (uint32_t s : spec.output) row.push_back(a[s] ? *a[s] : "NULL");
    out.push_back(row);
  };
  std::vector<bool> inner_matched(inner.size());
  for (const TRow& o : outer) {
    bool any = false;
    for (size_t j = 0; j < inner.size(); ++j) {
      if (!matches(o, inner[j])) continue;
      any = true;
      inner_matched[j] = true;
      if (!is_semi_or_anti(spec.type)) emit(&o, &inner[j]);
    }
    if ((spec.type == JoinType::kSemi && any) || (!any && scans::fills_outer(spec.type)))
      emit(&o, nullptr);
  }
  if (scans::fills_inner(spec.type))
    for (size_t j = 0; j < inner.size(); ++j)
      if (!inner_matched[j]) emit(nullptr, &inner[j]);
  std::sort(out.begin(), out.end());
  return out;
}

// Every row as text, in the order returned.
inline std::vector<Out> drain_in_order(scans::ExecNode& node, bool open = true) {
  if (open) node.open();
  std::vector<Out> out;
  while (const scans::RowBatch* b = node.next())
    for (uint32_t i = 0; i < b->count; ++i) {
      Out row;
      for (uint32_t s = 0; s < b->width; ++s)
        row.push_back(b->is_null(i, s) ? "NULL" : datum_out(b->shape->type(s), b->row(i)[s]));
      out.push_back(row);
    }
  return out;
}

// Every row as text, sorted (joins promise no order).
inline std::vector<Out> drain(scans::ExecNode& node, bool open = true) {
  std::vector<Out> out = drain_in_order(node, open);
  std::sort(out.begin(), out.end());
  return out;
}

inline const JoinType kAllTypes[] = {JoinType::kInner, JoinType::kLeft, JoinType::kRight,
                                     JoinType::kFull,  JoinType::kSemi, JoinType::kAnti};
inline constexpr uint64_t kBig = uint64_t(1) << 30;

}  // namespace tp::join_test
