#include "engine/plan/agg_cost.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace tp {
namespace {

using scans::AggKind;

// An aggregate's support functions, as pg_aggregate lists them for its input type.
struct AggFunctions {
  std::string transfn;
  bool has_final;   // avg, sum(int8), sum(numeric)
  bool internal;    // state type internal: serialize / deserialize across a Gather
  int state_width;  // what EXPLAIN counts for the partial state
};

AggFunctions sum_or_avg_functions(const AggCall& c) {
  const bool sum = c.kind == AggKind::kSum;
  switch (c.input) {
    case TypeId::kInt2:
      return sum ? AggFunctions{"int2_sum", false, false, 8}
                 : AggFunctions{"int2_avg_accum", true, false, 32};
    case TypeId::kInt4:
      return sum ? AggFunctions{"int4_sum", false, false, 8}
                 : AggFunctions{"int4_avg_accum", true, false, 32};
    case TypeId::kInt8:
      return {"int8_avg_accum", true, true, 32};
    case TypeId::kNumeric:
      return {"numeric_avg_accum", true, true, 32};
    case TypeId::kFloat4:
      return sum ? AggFunctions{"float4pl", false, false, 4}
                 : AggFunctions{"float4_accum", true, false, 32};
    default:
      return sum ? AggFunctions{"float8pl", false, false, 8}
                 : AggFunctions{"float8_accum", true, false, 32};
  }
}

AggFunctions functions_of(const AggCall& c) {
  switch (c.kind) {
    case AggKind::kCountStar:
      return {"int8inc", false, false, 8};
    case AggKind::kCount:
      return {"int8inc_any", false, false, 8};
    case AggKind::kSum:
    case AggKind::kAvg:
      return sum_or_avg_functions(c);
    case AggKind::kMin:
    case AggKind::kMax: {
      // The type's smaller / larger function (max(varchar) is max(text)); its state
      // is a value of the type.
      const TypeId t = c.input == TypeId::kVarchar ? TypeId::kText : c.input;
      const TypeInfo& info = type_info(t);
      return {
          std::string(c.kind == AggKind::kMin ? "smaller:" : "larger:") + std::string(info.pg_name),
          false, false, info.len > 0 ? info.len : 32};
    }
  }
  return {"", false, false, 8};
}

// pg_aggregate's aggtransspace for the `internal` states (int8's 128-bit sums, numeric's
// accumulators), else the by-reference state type's average width (the arrays of avg
// over integers and floats, min / max of a by-reference type): MAXALIGNed, plus two
// pointers of palloc overhead. By-value states take nothing.
double transition_space(const AggCall& c, const AggFunctions& f) {
  if (f.transfn == "int8_avg_accum") return 48;
  if (f.transfn == "numeric_avg_accum") return 128;
  if (f.transfn == "int2_avg_accum" || f.transfn == "int4_avg_accum" ||
      f.transfn == "float4_accum" || f.transfn == "float8_accum")
    return 32 + 16;
  if (c.kind != AggKind::kMin && c.kind != AggKind::kMax) return 0;
  // max(varchar) is max(text): a text state, with no typmod.
  const bool varchar = c.input == TypeId::kVarchar;
  const TypeId t = varchar ? TypeId::kText : c.input;
  if (type_info(t).byval) return 0;
  const double width = type_avg_width(t, varchar ? kNoTypmod : c.typmod);
  return std::ceil(width / 8) * 8 + 16;
}

bool same_call(const AggCall& a, const AggCall& b) {
  return a.kind == b.kind && a.column == b.column && a.arg_key == b.arg_key &&
         a.distinct == b.distinct;
}

// The calls left once identical ones are merged (PostgreSQL's find_compatible_agg).
std::vector<AggCall> distinct_calls(const std::vector<AggCall>& calls) {
  std::vector<AggCall> out;
  for (const AggCall& c : calls) {
    bool seen = false;
    for (const AggCall& o : out) seen = seen || same_call(c, o);
    if (!seen) out.push_back(c);
  }
  return out;
}

}  // namespace

AggClauseCosts agg_clause_costs(const CostSettings& cs, const std::vector<AggCall>& calls,
                                AggSplit split) {
  const std::vector<AggCall> aggs = distinct_calls(calls);
  AggClauseCosts costs;
  // One transition state per transition function and column (find_compatible_trans).
  std::vector<std::pair<std::string, int>> transitions;
  for (const AggCall& c : aggs) {
    AggFunctions f = functions_of(c);
    std::pair<std::string, int> key{f.transfn + "|" + c.arg_key, c.column};
    bool shared = false;
    for (const auto& t : transitions) shared = shared || t == key;
    if (shared && !c.distinct) continue;
    if (!c.distinct) transitions.push_back(key);
    costs.trans.per_tuple += cs.cpu_operator_cost;  // transfn, or combinefn when finalizing
    // The arguments are evaluated where rows go in, not where states combine.
    if (split != AggSplit::kFinalDeserial)
      costs.trans.per_tuple += c.arg_units * cs.cpu_operator_cost;
    if (split == AggSplit::kFinalDeserial && f.internal)
      costs.trans.per_tuple += cs.cpu_operator_cost;  // deserialfn
    if (split == AggSplit::kInitialSerial && f.internal)
      costs.final_cost.per_tuple += cs.cpu_operator_cost;  // serialfn
  }
  if (split != AggSplit::kInitialSerial)
    for (const AggCall& c : aggs)
      if (functions_of(c).has_final) costs.final_cost.per_tuple += cs.cpu_operator_cost;
  return costs;
}

PathCost cost_plain_agg(const CostSettings& cs, const PathCost& input,
                        const AggClauseCosts& costs) {
  PathCost agg;
  agg.startup = input.total;
  agg.startup += costs.trans.startup;
  agg.startup += costs.trans.per_tuple * input.rows;
  agg.startup += costs.final_cost.startup;
  agg.startup += costs.final_cost.per_tuple;
  agg.total = agg.startup + cs.cpu_tuple_cost;
  agg.rows = 1;
  return agg;
}

AggTransitions agg_transitions(const std::vector<AggCall>& calls) {
  AggTransitions out;
  std::vector<std::pair<std::string, int>> seen;
  for (const AggCall& c : distinct_calls(calls)) {
    const AggFunctions f = functions_of(c);
    const std::pair<std::string, int> key{f.transfn + "|" + c.arg_key, c.column};
    if (!c.distinct && std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    if (!c.distinct) seen.push_back(key);
    ++out.states;
    out.space += transition_space(c, f);
  }
  return out;
}

int partial_agg_width(const std::vector<AggCall>& calls) {
  int width = 0;
  for (const AggCall& c : distinct_calls(calls)) width += functions_of(c).state_width;
  return width;
}

}  // namespace tp
