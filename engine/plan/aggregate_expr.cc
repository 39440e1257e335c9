#include "engine/plan/aggregate_expr.h"

#include <limits>

#include "engine/core/error.h"

namespace tp {

int operator_count(const AggregateExpr& e) {
  int n = e.kind == AggregateExpr::Kind::kNegate || e.kind == AggregateExpr::Kind::kBinary;
  for (const AggregateExpr& a : e.args) n += operator_count(a);
  return n;
}

namespace {

int64_t checked(__int128 v, OutputType type) {
  const bool int8 = type == OutputType::kInt8;
  const __int128 lo =
      int8 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min();
  const __int128 hi =
      int8 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max();
  if (v < lo || v > hi)
    throw Error(int8 ? "bigint out of range" : "integer out of range")
        .with_sqlstate(sqlstate::kNumericValueOutOfRange);
  return int64_t(v);
}

}  // namespace

std::optional<int64_t> evaluate_aggregate_expr(const AggregateExpr& e,
                                               const std::vector<OutputAggregate>& aggregates,
                                               const std::vector<scans::AggState>& results) {
  using K = AggregateExpr::Kind;
  switch (e.kind) {
    case K::kConst:
      return e.value;
    case K::kAggregate: {
      const OutputAggregate& a = aggregates[e.aggregate];
      const scans::AggState& st = results[e.aggregate];
      switch (a.kind) {
        case scans::AggKind::kCountStar:
        case scans::AggKind::kCount:
          return st.count;
        case scans::AggKind::kMin:
          return st.count ? std::optional<int64_t>(st.min) : std::nullopt;
        case scans::AggKind::kMax:
          return st.count ? std::optional<int64_t>(st.max) : std::nullopt;
        case scans::AggKind::kSum:  // of an int4 column only (bigint: numeric, refused)
          if (!st.count) return std::nullopt;
          return checked(st.sum, OutputType::kInt8);
        case scans::AggKind::kAvg:
          break;
      }
      return std::nullopt;
    }
    case K::kNegate: {
      std::optional<int64_t> v = evaluate_aggregate_expr(e.args[0], aggregates, results);
      if (!v) return std::nullopt;
      return checked(-__int128(*v), e.type);
    }
    case K::kBinary: {
      std::optional<int64_t> l = evaluate_aggregate_expr(e.args[0], aggregates, results);
      std::optional<int64_t> r = evaluate_aggregate_expr(e.args[1], aggregates, results);
      if (!l || !r) return std::nullopt;
      const __int128 a = *l, b = *r;
      switch (e.op) {
        case '+':
          return checked(a + b, e.type);
        case '-':
          return checked(a - b, e.type);
        case '*':
          return checked(a * b, e.type);
        default:
          if (b == 0) throw Error("division by zero").with_sqlstate(sqlstate::kDivisionByZero);
          return checked(e.op == '/' ? a / b : a % b, e.type);
      }
    }
  }
  return std::nullopt;
}

}  // namespace tp
