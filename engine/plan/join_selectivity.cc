// After PostgreSQL 15: eqjoinsel, eqjoinsel_inner, eqjoinsel_semi and neqjoinsel
// (selfuncs.c), calc_joinrel_size_estimate and compute_semi_anti_join_factors
// (costsize.c). MCV frequencies and null fractions are float4, as pg_statistic stores
// them; a product of two frequencies is rounded to float4 before it is summed, as C
// computes `float * float`.
#include "engine/plan/join_selectivity.h"

#include <optional>

#include <algorithm>
#include <memory>
#include <vector>

#include "engine/core/datetime.h"
#include "engine/core/datum_ops.h"

namespace tp {

namespace {

Datum date_as_timestamp(Datum d) {
  const auto date = int32_t(int64_t(d));
  if (date == kDateNoBegin) return Datum(kTimestampNoBegin);
  if (date == kDateNoEnd) return Datum(kTimestampNoEnd);
  return Datum(int64_t(date) * kUsecsPerDay);
}

Datum real_as_double(Datum d) {
  return float8_datum(double(datum_float4(d)));
}

bool is_timestamp(TypeId t) {
  return t == TypeId::kTimestamp || t == TypeId::kTimestamptz;
}

// A value of a `from` column as the operator comparing it with a `to` column sees it:
// a date against a timestamp is its midnight (TimeZone being UTC), a real against a
// double precision widened.
Datum compared_as(TypeId from, TypeId to, Datum v) {
  if (from == TypeId::kDate && is_timestamp(to)) return date_as_timestamp(v);
  if (from == TypeId::kFloat4 && to == TypeId::kFloat8) return real_as_double(v);
  return v;
}

const ColumnStats* stats_of(const JoinVar& v) {
  return v.stats != nullptr && v.stats->valid ? v.stats : nullptr;
}

// Whether the side has an MCV list (get_attstatsslot for STATISTIC_KIND_MCV). A column
// whose values are all distinct has statistics but no MCVs.
bool has_mcvs(const JoinVar& v) {
  const ColumnStats* st = stats_of(v);
  return st != nullptr && !st->mcv_values.empty();
}

double null_frac(const JoinVar& v) {
  const ColumnStats* st = stats_of(v);
  return st ? st->null_frac : 0.0;
}

// The MCV matching both estimators share: each MCV of side 1 is paired with the first
// not yet paired MCV of side 2 (among the first `n2`) that the equality operator calls
// equal. An equality operator pairs a value at most once, so each pair is a value both
// relations hold with known frequencies.
struct McvMatch {
  std::vector<bool> matched1;
  std::vector<bool> matched2;
  int nmatches = 0;
  double matchprodfreq = 0;  // sum over pairs of freq1 * freq2: their share of the product
};

McvMatch match_mcvs(const JoinVar& v1, const JoinVar& v2, size_t n2, TypeId cmp_type) {
  const ColumnStats& s1 = *v1.stats;
  const ColumnStats& s2 = *v2.stats;
  McvMatch m;
  m.matched1.assign(s1.mcv_values.size(), false);
  m.matched2.assign(n2, false);
  for (size_t i = 0; i < s1.mcv_values.size(); ++i) {
    for (size_t j = 0; j < n2; ++j) {
      if (m.matched2[j]) continue;
      if (datums_equal(cmp_type, compared_as(v1.type, v2.type, s1.mcv_values[i]),
                       compared_as(v2.type, v1.type, s2.mcv_values[j]))) {
        m.matched1[i] = m.matched2[j] = true;
        m.matchprodfreq += s1.mcv_freqs[i] * s2.mcv_freqs[j];  // float4 product, as C's
        ++m.nmatches;
        break;
      }
    }
  }
  m.matchprodfreq = clamp_probability(m.matchprodfreq);
  return m;
}

}  // namespace

double join_var_numdistinct(const JoinVar& var, bool* is_default) {
  RelationStatsView rel{.tuples = var.tuples, .columns = {ColumnStatsView{}}};
  rel.columns[0].stats = var.stats;
  rel.columns[0].unique = var.unique;
  rel.columns[0].type = var.type;
  return get_variable_numdistinct(rel, 0, is_default);
}

double eqjoinsel_inner(const JoinVar& outer, const JoinVar& inner, TypeId cmp_type) {
  bool isdefault1 = false;
  bool isdefault2 = false;
  const double nd1 = join_var_numdistinct(outer, &isdefault1);
  const double nd2 = join_var_numdistinct(inner, &isdefault2);
  if (!has_mcvs(outer) || !has_mcvs(inner)) {
    // Non-NULL values spread evenly over their distinct values: a row of the side with
    // fewer values meets rows of the other side with probability 1/max(nd1, nd2) (an
    // upper bound taken as-is: most rows of that side should have partners).
    double selec = (1.0 - null_frac(outer)) * (1.0 - null_frac(inner));
    if (nd1 > nd2) {
      selec /= nd1;
    } else {
      selec /= nd2;
    }
    return selec;
  }
  const ColumnStats& s1 = *stats_of(outer);
  const ColumnStats& s2 = *stats_of(inner);
  const McvMatch m = match_mcvs(outer, inner, s2.mcv_values.size(), cmp_type);
  double matchfreq1 = 0, unmatchfreq1 = 0, matchfreq2 = 0, unmatchfreq2 = 0;
  for (size_t i = 0; i < s1.mcv_freqs.size(); ++i) {
    (m.matched1[i] ? matchfreq1 : unmatchfreq1) += s1.mcv_freqs[i];
  }
  for (size_t i = 0; i < s2.mcv_freqs.size(); ++i) {
    (m.matched2[i] ? matchfreq2 : unmatchfreq2) += s2.mcv_freqs[i];
  }
  matchfreq1 = clamp_probability(matchfreq1);
  unmatchfreq1 = clamp_probability(unmatchfreq1);
  matchfreq2 = clamp_probability(matchfreq2);
  unmatchfreq2 = clamp_probability(unmatchfreq2);
  // The non-NULL rows outside either MCV list.
  const double nullfrac1 = s1.null_frac;
  const double nullfrac2 = s2.null_frac;
  const double otherfreq1 = clamp_probability(1.0 - nullfrac1 - matchfreq1 - unmatchfreq1);
  const double otherfreq2 = clamp_probability(1.0 - nullfrac2 - matchfreq2 - unmatchfreq2);
  const auto nvalues1 = static_cast<double>(s1.mcv_values.size());
  const auto nvalues2 = static_cast<double>(s2.mcv_values.size());
  // Seen from side 1: the matched pairs exactly; its unmatched MCVs against side 2's
  // rows outside its MCVs, spread over side 2's other values; its rows outside the MCVs
  // against side 2's unmatched MCVs and other rows, spread over the values not matched.
  double totalsel1 = m.matchprodfreq;
  if (nd2 > nvalues2) totalsel1 += unmatchfreq1 * otherfreq2 / (nd2 - nvalues2);
  if (nd2 > m.nmatches) {
    totalsel1 += otherfreq1 * (otherfreq2 + unmatchfreq2) / (nd2 - m.nmatches);
  }
  // The same seen from side 2.
  double totalsel2 = m.matchprodfreq;
  if (nd1 > nvalues1) totalsel2 += unmatchfreq2 * otherfreq1 / (nd1 - nvalues1);
  if (nd1 > m.nmatches) {
    totalsel2 += otherfreq2 * (otherfreq1 + unmatchfreq1) / (nd1 - m.nmatches);
  }
  // The smaller one: as without MCVs, the view of the side with fewer values.
  return totalsel1 < totalsel2 ? totalsel1 : totalsel2;
}

double eqjoinsel_semi(const JoinVar& outer, const JoinVar& inner, TypeId cmp_type,
                      double inner_rel_rows) {
  bool isdefault1 = false;
  bool isdefault2 = false;
  double nd1 = join_var_numdistinct(outer, &isdefault1);
  double nd2 = join_var_numdistinct(inner, &isdefault2);
  // The inner side cannot bring more values than it has rows. This is the one way the
  // inner side's restrictions reach a semi join's size (its rows are outer rows times
  // this selectivity); nd1 is left alone, as the outer restrictions already count in
  // the outer rows. A clamped count is no longer a guess, even for an empty relation.
  if (nd2 >= inner.rows) {
    nd2 = inner.rows;
    isdefault2 = false;
  }
  if (nd2 >= inner_rel_rows) {
    nd2 = inner_rel_rows;
    isdefault2 = false;
  }
  const double nullfrac1 = null_frac(outer);
  if (!has_mcvs(outer) || !has_mcvs(inner)) {
    // Only the distinct counts: with no more outer values than inner ones every
    // non-NULL outer row is assumed to find a partner, else a share nd2/nd1 of them;
    // with a guessed count on either side, half.
    if (!isdefault1 && !isdefault2) {
      if (nd1 <= nd2 || nd2 < 0) return 1.0 - nullfrac1;
      return (nd2 / nd1) * (1.0 - nullfrac1);
    }
    return 0.5 * (1.0 - nullfrac1);
  }
  const ColumnStats& s1 = *stats_of(outer);
  const ColumnStats& s2 = *stats_of(inner);
  // A clamped nd2 below the MCV count: assume the inner input holds exactly its nd2
  // most common values, and match only those.
  const int clamped_nvalues2 =
      static_cast<int>(std::min(static_cast<double>(s2.mcv_values.size()), nd2));
  const McvMatch m =
      match_mcvs(outer, inner, static_cast<size_t>(std::max(clamped_nvalues2, 0)), cmp_type);
  double matchfreq1 = 0;
  for (size_t i = 0; i < s1.mcv_freqs.size(); ++i) {
    if (m.matched1[i]) matchfreq1 += s1.mcv_freqs[i];
  }
  matchfreq1 = clamp_probability(matchfreq1);
  // Matched MCVs surely have partners; of the other non-NULL outer rows, all when the
  // outer side has no more remaining values than the inner, else nd2/nd1 of them, or
  // half when either count is a guess.
  double uncertainfrac;
  if (!isdefault1 && !isdefault2) {
    nd1 -= m.nmatches;
    nd2 -= m.nmatches;
    uncertainfrac = nd1 <= nd2 || nd2 < 0 ? 1.0 : nd2 / nd1;
  } else {
    uncertainfrac = 0.5;
  }
  const double uncertain = clamp_probability(1.0 - matchfreq1 - nullfrac1);
  return matchfreq1 + uncertainfrac * uncertain;
}

double eqjoinsel(const JoinVar& outer, const JoinVar& inner, JoinKind kind, TypeId cmp_type,
                 double inner_rel_rows) {
  const double selec_inner = eqjoinsel_inner(outer, inner, cmp_type);
  double selec = selec_inner;
  if (kind == JoinKind::kSemi || kind == JoinKind::kAnti) {
    if (inner_rel_rows < 0) inner_rel_rows = inner.rows;
    selec = eqjoinsel_semi(outer, inner, cmp_type, inner_rel_rows);
    // A semi join never returns more rows than the inner join of the same inputs:
    // N1 * Ssemi <= N1 * N2 * Sinner. This caps the heuristics above where they punt.
    selec = std::min(selec, inner_rel_rows * selec_inner);
  }
  return clamp_probability(selec);
}

double neqjoinsel(const JoinVar& outer, const JoinVar& inner, JoinKind kind, TypeId cmp_type,
                  double inner_rel_rows) {
  if (kind == JoinKind::kSemi || kind == JoinKind::kAnti) {
    // Assuming the inner side holds two or more values, every non-NULL outer row differs
    // from one of them.
    return 1.0 - null_frac(outer);
  }
  return 1.0 - eqjoinsel(outer, inner, kind, cmp_type, inner_rel_rows);
}

double join_rows(JoinKind kind, double outer_rows, double inner_rows, double jselec,
                 double pselec) {
  double nrows = 0;
  switch (kind) {
    case JoinKind::kInner:
      nrows = outer_rows * inner_rows * jselec;
      break;
    case JoinKind::kLeft:
    case JoinKind::kRight:
      // Every preserved row comes out at least once; WHERE clauses pushed down act after.
      nrows = outer_rows * inner_rows * jselec;
      if (nrows < outer_rows) nrows = outer_rows;
      nrows *= pselec;
      break;
    case JoinKind::kFull:
      nrows = outer_rows * inner_rows * jselec;
      if (nrows < outer_rows) nrows = outer_rows;
      if (nrows < inner_rows) nrows = inner_rows;
      nrows *= pselec;
      break;
    case JoinKind::kSemi:
      nrows = outer_rows * jselec;
      break;
    case JoinKind::kAnti:
      nrows = outer_rows * (1.0 - jselec);
      nrows *= pselec;
      break;
  }
  return clamp_row_est(nrows);
}

SemiAntiFactors semi_anti_join_factors(double jselec, double nselec, double inner_rows) {
  // jselec is the share of outer rows with a match, nselec the share of the Cartesian
  // product that matches: a matched outer row meets nselec * inner_rows / jselec inner
  // rows on average (the inner relation's full rows, every join clause counted).
  double avgmatch = 1.0;
  if (jselec > 0) avgmatch = std::max(1.0, nselec * inner_rows / jselec);
  return {.outer_match_frac = jselec, .match_count = avgmatch};
}

namespace {

struct VariableRange {
  Datum min = 0;
  Datum max = 0;
};

// get_variable_range: the histogram's first and last bounds, widened by the MCVs.
std::optional<VariableRange> variable_range(const RelationStatsView& rel, int column) {
  const ColumnStats* st = rel.columns[size_t(column)].stats;
  if (!st || !st->valid) return std::nullopt;
  const TypeId type = rel.columns[size_t(column)].type;
  std::optional<VariableRange> r;
  if (!st->histogram.empty()) r = VariableRange{st->histogram.front(), st->histogram.back()};
  for (Datum v : st->mcv_values) {
    if (!r) {
      r = VariableRange{v, v};
      continue;
    }
    if (compare_datums(type, v, r->min) < 0) r->min = v;
    if (compare_datums(type, v, r->max) > 0) r->max = v;
  }
  return r;
}

// A column's statistics as those of the type it is merged as: a date's as a timestamp
// column's (each date its midnight, TimeZone being UTC: what PostgreSQL's
// date-against-timestamp operators compare, and the scalar its histogram interpolation
// converts a date to, date2timestamp_no_overflow), a real's as a double precision's
// (float48 operators widen the real).
struct ColumnAsType {
  RelationStatsView view;
  ColumnStats stats;
};

std::unique_ptr<ColumnAsType> column_as(const RelationStatsView& rel, int column, TypeId type,
                                        Datum (*convert)(Datum)) {
  const ColumnStatsView& c = rel.columns[size_t(column)];
  auto out = std::make_unique<ColumnAsType>();
  out->view = rel;
  ColumnStatsView& v = out->view.columns[size_t(column)];
  v.type = type;
  v.convert_actual(convert);
  if (c.stats != nullptr) {
    out->stats = *c.stats;
    for (Datum& d : out->stats.mcv_values) d = convert(d);
    for (Datum& d : out->stats.histogram) d = convert(d);
    v.stats = &out->stats;
  }
  return out;
}

// The type a merge of `from` with `other` compares `from` as (kInvalid: as it is).
std::unique_ptr<ColumnAsType> widened(const RelationStatsView& rel, int column, TypeId other) {
  const TypeId from = rel.columns[size_t(column)].type;
  if (from == TypeId::kDate && is_timestamp(other))
    return column_as(rel, column, TypeId::kTimestamp, date_as_timestamp);
  if (from == TypeId::kFloat4 && other == TypeId::kFloat8)
    return column_as(rel, column, TypeId::kFloat8, real_as_double);
  return nullptr;
}

}  // namespace

MergeScanFractions mergejoinscansel(const RelationStatsView& left, int left_column,
                                    const RelationStatsView& right, int right_column,
                                    bool descending, bool nulls_first) {
  // A date merged with a timestamp compares as timestamps, a real with a double
  // precision as doubles.
  const TypeId lt = left.columns[size_t(left_column)].type;
  const TypeId rt = right.columns[size_t(right_column)].type;
  if (std::unique_ptr<ColumnAsType> l = widened(left, left_column, rt))
    return mergejoinscansel(l->view, left_column, right, right_column, descending, nulls_first);
  if (std::unique_ptr<ColumnAsType> r = widened(right, right_column, lt))
    return mergejoinscansel(left, left_column, r->view, right_column, descending, nulls_first);
  MergeScanFractions f;
  const std::optional<VariableRange> lr = variable_range(left, left_column);
  const std::optional<VariableRange> rr = variable_range(right, right_column);
  if (!lr || !rr) return f;
  const TypeId ltype = left.columns[size_t(left_column)].type;
  const TypeId rtype = right.columns[size_t(right_column)].type;
  // Only estimates from statistics count (scalarineqsel's default is disbelieved).
  auto believed = [](double s, double fallback) { return s != kDefaultIneqSel ? s : fallback; };
  // Descending, each side ends where the other's minimum is and starts past its maximum.
  const CmpOp to_end = descending ? CmpOp::kGe : CmpOp::kLe;
  const CmpOp before = descending ? CmpOp::kGt : CmpOp::kLt;
  double lend = believed(
      ineq_selectivity(left, left_column, to_end, descending ? rr->min : rr->max, ltype), 1.0);
  double rend = believed(
      ineq_selectivity(right, right_column, to_end, descending ? lr->min : lr->max, rtype), 1.0);
  if (lend > rend) {
    lend = 1.0;
  } else if (lend < rend) {
    rend = 1.0;
  } else {
    lend = rend = 1.0;
  }
  double lstart = believed(
      ineq_selectivity(left, left_column, before, descending ? rr->max : rr->min, ltype), 0.0);
  double rstart = believed(
      ineq_selectivity(right, right_column, before, descending ? lr->max : lr->min, rtype), 0.0);
  if (lstart < rstart) {
    lstart = 0.0;
  } else if (lstart > rstart) {
    rstart = 0.0;
  } else {
    lstart = rstart = 0.0;
  }
  // NULLs sorted first are skipped too, whatever the bounds' estimates.
  if (nulls_first) {
    const auto nulls = [](const RelationStatsView& v, int column) {
      const ColumnStats* st = v.columns[size_t(column)].stats;
      return st != nullptr && st->valid ? double(st->null_frac) : 0.0;
    };
    lstart = clamp_probability(lstart + nulls(left, left_column));
    lend = clamp_probability(lend + nulls(left, left_column));
    rstart = clamp_probability(rstart + nulls(right, right_column));
    rend = clamp_probability(rend + nulls(right, right_column));
  }
  if (lstart >= lend) lstart = 0.0, lend = 1.0;
  if (rstart >= rend) rstart = 0.0, rend = 1.0;
  return {lstart, lend, rstart, rend};
}

}  // namespace tp
