// ANALYZE's second stage after PostgreSQL 15's analyze.c (compute_scalar_stats,
// analyze_mcv_list): each column's statistics from the sampled rows.
#include "engine/plan/statistics.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"

namespace tp {

namespace {

// ---- most common values ----

struct McvTrack {
  int count;
  int first;  // index of the value's first occurrence in the sorted sample
};

// analyze_mcv_list: drops the least common candidates while they are not
// significantly (two standard errors of a hypergeometric count, plus a
// continuity correction) more common than an average non-MCV value would be.
int analyze_mcv_list(const std::vector<int>& mcv_counts, int num_mcv, float stadistinct,
                     float stanullfrac, int samplerows, double totalrows) {
  if (samplerows == totalrows || totalrows <= 1.0) return num_mcv;
  double ndistinct_table = stadistinct;
  if (ndistinct_table < 0) ndistinct_table = -ndistinct_table * totalrows;

  double sumcount = 0.0;
  for (int i = 0; i < num_mcv - 1; i++) sumcount += mcv_counts[i];

  while (num_mcv > 0) {
    double selec = 1.0 - sumcount / samplerows - stanullfrac;
    selec = std::clamp(selec, 0.0, 1.0);
    const double otherdistinct = ndistinct_table - (num_mcv - 1);
    if (otherdistinct > 1) selec /= otherdistinct;

    const double N = totalrows;
    const double n = samplerows;
    const double K = N * mcv_counts[num_mcv - 1] / n;
    const double variance = n * K * (N - K) * (N - n) / (N * N * (N - 1));
    const double stddev = std::sqrt(variance);
    if (mcv_counts[num_mcv - 1] > selec * samplerows + 2 * stddev + 0.5) break;
    num_mcv--;
    if (num_mcv == 0) break;
    sumcount -= mcv_counts[num_mcv - 1];
  }
  return num_mcv;
}

}  // namespace

namespace {

// A non-null sample value and its position among the non-null values in physical
// order (tupno), as PostgreSQL numbers them.
struct SampleItem {
  Datum value;
  int tupno;
};

// The type's btree order over Datums; integers (and dates, timestamps, booleans)
// compare as the integers they are.
struct ValueOrder {
  TypeId type;
  bool integral = datum_is_integral(type);
  int compare(Datum a, Datum b) const {
    if (integral) return a < b ? -1 : (a > b ? 1 : 0);
    return compare_datums(type, a, b);
  }
};

// One pass over the sorted values: the groups of equal values, the most common
// repeated ones (at most `max_mcv`, ordered by count, equal counts keeping the smaller
// value first) and the correlation's cross sum.
struct ValueGroups {
  std::vector<McvTrack> track;
  int ndistinct = 0;
  int nmultiple = 0;  // distinct values seen more than once
  double corr_xysum = 0;
};

ValueGroups scan_value_groups(const std::vector<SampleItem>& items, int max_mcv,
                              const ValueOrder& order) {
  ValueGroups g;
  g.track.reserve(size_t(max_mcv));
  const int values_cnt = static_cast<int>(items.size());
  int dups_cnt = 0;
  for (int i = 0; i < values_cnt; i++) {
    g.corr_xysum += static_cast<double>(i) * static_cast<double>(items[i].tupno);
    dups_cnt++;
    const bool last_of_group =
        i + 1 == values_cnt || order.compare(items[i + 1].value, items[i].value) != 0;
    if (!last_of_group) continue;
    g.ndistinct++;
    if (dups_cnt > 1) {
      g.nmultiple++;
      std::vector<McvTrack>& track = g.track;
      const int track_cnt = static_cast<int>(track.size());
      if (track_cnt < max_mcv || dups_cnt > track[track_cnt - 1].count) {
        // Insert keeping the list ordered by count; equal counts keep the
        // earlier (smaller) value first.
        if (track_cnt < max_mcv) track.push_back({0, 0});
        int j;
        for (j = static_cast<int>(track.size()) - 1; j > 0; j--) {
          if (dups_cnt <= track[j - 1].count) break;
          track[j] = track[j - 1];
        }
        track[j] = {dups_cnt, i + 1 - dups_cnt};
      }
    }
    dups_cnt = 0;
  }
  return g;
}

// stadistinct: negative for a fraction of the rows (a count that grows with the table).
// `toowide`: values left out of the ordering, taken to be distinct.
float estimate_n_distinct(const ValueGroups& g, int samplerows, int null_cnt, int toowide,
                          float null_frac, double total_rows) {
  float n_distinct;
  if (g.nmultiple == 0) {
    // No value repeats: assume a unique column (less the NULLs).
    n_distinct = static_cast<float>(-1.0 * (1.0 - null_frac));
  } else if (toowide == 0 && g.nmultiple == g.ndistinct) {
    // Every value repeats: assume these are all the values there are.
    n_distinct = static_cast<float>(g.ndistinct);
  } else {
    // Haas and Stokes' Duj1 estimator n*d / (n - f1 + f1*n/N) over non-nulls.
    const int f1 = g.ndistinct - g.nmultiple + toowide;
    const int d = f1 + g.nmultiple;
    const double n = samplerows - null_cnt;
    const double N = total_rows * (1.0 - null_frac);
    double stadistinct = N > 0 ? (n * d) / ((n - f1) + f1 * n / N) : 0;
    if (stadistinct < d) stadistinct = d;
    if (stadistinct > N) stadistinct = N;
    n_distinct = static_cast<float>(std::floor(stadistinct + 0.5));
  }
  // Many distinct values probably grow with the table: store a fraction.
  if (n_distinct > 0.1 * total_rows) n_distinct = static_cast<float>(-(n_distinct / total_rows));
  return n_distinct;
}

// How many of the tracked values become the MCV list.
int choose_mcv_count(const ValueGroups& g, int num_mcv, const ColumnStats& st, int samplerows,
                     int toowide, double total_rows) {
  const int track_cnt = static_cast<int>(g.track.size());
  if (track_cnt == g.ndistinct && toowide == 0 && st.n_distinct > 0 && track_cnt <= num_mcv)
    return track_cnt;  // the list covers every value and fits: keep it whole
  if (num_mcv > track_cnt) num_mcv = track_cnt;
  if (num_mcv > 0) {
    std::vector<int> counts(num_mcv);
    for (int i = 0; i < num_mcv; i++) counts[i] = g.track[i].count;
    num_mcv =
        analyze_mcv_list(counts, num_mcv, st.n_distinct, st.null_frac, samplerows, total_rows);
  }
  return num_mcv;
}

// The values left after removing the first `num_mcv` tracked MCVs, in order.
std::vector<Datum> values_without_mcvs(const std::vector<SampleItem>& items,
                                       const std::vector<McvTrack>& track, int num_mcv) {
  std::vector<McvTrack> mcvs(track.begin(), track.begin() + num_mcv);
  std::sort(mcvs.begin(), mcvs.end(),
            [](const McvTrack& a, const McvTrack& b) { return a.first < b.first; });
  const int values_cnt = static_cast<int>(items.size());
  std::vector<Datum> rest;
  rest.reserve(values_cnt);
  size_t j = 0;
  for (int src = 0; src < values_cnt;) {
    if (j < mcvs.size() && src >= mcvs[j].first) {
      src = mcvs[j].first + mcvs[j].count;
      ++j;
      continue;
    }
    const int stop = j < mcvs.size() ? mcvs[j].first : values_cnt;
    for (; src < stop; ++src) rest.push_back(items[src].value);
  }
  return rest;
}

// First, last and evenly spaced values between: the i-th bound is
// rest[i * (nvals - 1) / (num_hist - 1)], computed without overflow.
std::vector<Datum> histogram_bounds(const std::vector<Datum>& rest, int num_hist) {
  const int nvals = static_cast<int>(rest.size());
  TP_ASSERT(nvals >= num_hist);
  std::vector<Datum> bounds;
  const int delta = (nvals - 1) / (num_hist - 1);
  const int deltafrac = (nvals - 1) % (num_hist - 1);
  int pos = 0, posfrac = 0;
  for (int i = 0; i < num_hist; i++) {
    bounds.push_back(rest[pos]);
    pos += delta;
    posfrac += deltafrac;
    if (posfrac >= num_hist - 1) {
      pos++;
      posfrac -= num_hist - 1;
    }
  }
  return bounds;
}

}  // namespace

namespace {

// analyze.c's WIDTH_THRESHOLD: wider values are left out of the ordering.
constexpr size_t kWidthThreshold = 1024;

// Gives `st` its own copies of its by-reference values (the sample's go away).
void own_stat_values(ColumnStats& st, int16_t ref_len) {
  if (ref_len == 0) return;
  StatsValueStore store(ref_len);
  std::vector<size_t> mcv, hist;
  const size_t min = store.add(st.min_value), max = store.add(st.max_value);
  for (Datum d : st.mcv_values) mcv.push_back(store.add(d));
  for (Datum d : st.histogram) hist.push_back(store.add(d));
  store.finish(st);
  st.min_value = store.datum(min);
  st.max_value = store.datum(max);
  for (size_t i = 0; i < mcv.size(); ++i) st.mcv_values[i] = store.datum(mcv[i]);
  for (size_t i = 0; i < hist.size(); ++i) st.histogram[i] = store.datum(hist[i]);
}

}  // namespace

ColumnStats compute_column_stats(std::span<const StatsValue> values, double total_rows,
                                 int statistics_target, TypeId type) {
  ColumnStats st;
  const int samplerows = static_cast<int>(values.size());
  if (samplerows == 0) return st;
  const TypeInfo& info = type_info(type);
  const bool varwidth = info.len < 0;
  const ValueOrder order{type};

  std::vector<SampleItem> items;
  items.reserve(values.size());
  int null_cnt = 0, toowide = 0;
  double total_width = 0;
  for (const StatsValue& v : values) {
    if (!v) {
      ++null_cnt;
      continue;
    }
    if (varwidth) {
      const char* p = datum_pointer(*v);
      total_width += varlena_size(p);
      // The raw size PostgreSQL measures: the payload under a 4-byte header.
      if (varlena_payload(p).size() + kVarlenaHeader > kWidthThreshold) {
        ++toowide;
        continue;
      }
    }
    items.push_back({*v, static_cast<int>(items.size())});
  }
  const int nonnull_cnt = samplerows - null_cnt;
  st.null_frac =
      static_cast<float>(static_cast<double>(null_cnt) / static_cast<double>(samplerows));
  if (varwidth && nonnull_cnt > 0) st.avg_width = int32_t(total_width / nonnull_cnt);
  const int values_cnt = static_cast<int>(items.size());
  if (values_cnt == 0) {
    st.valid = true;
    // Only NULLs: the column is taken to be entirely NULL; only values too wide to
    // order: each taken to be distinct.
    st.n_distinct = nonnull_cnt == 0 ? 0.0f : static_cast<float>(-1.0 * (1.0 - st.null_frac));
    return st;
  }
  std::sort(items.begin(), items.end(), [&](const SampleItem& a, const SampleItem& b) {
    const int c = order.compare(a.value, b.value);
    return c != 0 ? c < 0 : a.tupno < b.tupno;
  });

  const ValueGroups groups = scan_value_groups(items, statistics_target, order);
  st.valid = true;
  st.has_range = true;
  st.min_value = items.front().value;
  st.max_value = items.back().value;
  st.n_distinct =
      estimate_n_distinct(groups, samplerows, null_cnt, toowide, st.null_frac, total_rows);

  const int num_mcv =
      choose_mcv_count(groups, statistics_target, st, samplerows, toowide, total_rows);
  for (int i = 0; i < num_mcv; i++) {
    st.mcv_values.push_back(items[groups.track[i].first].value);
    st.mcv_freqs.push_back(static_cast<float>(static_cast<double>(groups.track[i].count) /
                                              static_cast<double>(samplerows)));
  }

  // Histogram over the values left after removing the MCVs, if at least two
  // distinct ones remain.
  int num_hist = groups.ndistinct - num_mcv;
  if (num_hist > statistics_target) num_hist = statistics_target + 1;
  if (num_hist >= 2)
    st.histogram = histogram_bounds(values_without_mcvs(items, groups.track, num_mcv), num_hist);

  if (values_cnt > 1) {
    // Pearson correlation of (sorted position, physical position); both are
    // permutations of 0..n-1, so the sums are closed forms.
    const double n = values_cnt;
    const double corr_xsum = (n - 1) * n / 2.0;
    const double corr_x2sum = (n - 1) * n * (2 * n - 1) / 6.0;
    st.has_correlation = true;
    st.correlation = static_cast<float>((n * groups.corr_xysum - corr_xsum * corr_xsum) /
                                        (n * corr_x2sum - corr_xsum * corr_xsum));
  }
  own_stat_values(st, info.byval ? 0 : info.len);
  return st;
}

int analyze_target_rows(const AnalyzeOptions& options) {
  if (options.statistics_target < 1 || options.statistics_target > 10000) {
    throw Error(
        std::to_string(options.statistics_target) +
        " is outside the valid range for parameter \"default_statistics_target\" (1 .. 10000)")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  }
  return 300 * options.statistics_target;
}

namespace {

// A BlockRows that refuses rows with the wrong column count (a damaged table).
class CheckedRows : public BlockRows {
 public:
  CheckedRows(BlockRows& source, size_t columns) : source_(source), columns_(columns) {}
  size_t open(BlockNumber block) override {
    block_ = block;
    return source_.open(block);
  }
  void row(size_t i, StatsRow& out) override {
    source_.row(i, out);
    if (out.size() != columns_) {
      throw Error("ANALYZE: block " + std::to_string(block_) + " returned a row with " +
                  std::to_string(out.size()) + " columns, expected " + std::to_string(columns_))
          .with_sqlstate(sqlstate::kDataCorrupted);
    }
  }

 private:
  BlockRows& source_;
  size_t columns_;
  BlockNumber block_ = 0;
};

}  // namespace

TableStats analyze_table(const std::vector<TypeId>& types, BlockNumber total_blocks,
                         BlockRows& source, const AnalyzeOptions& options) {
  const int target_rows = analyze_target_rows(options);
  std::vector<int16_t> ref_lens;
  for (TypeId t : types) ref_lens.push_back(type_info(t).byval ? 0 : type_info(t).len);
  CheckedRows checked(source, types.size());
  RowSample sample =
      acquire_sample_rows(total_blocks, target_rows, options.seed, checked, ref_lens);

  TableStats st;
  st.reltuples = sample.total_rows;
  st.relpages = total_blocks;
  st.sampled_blocks = sample.sampled_blocks;
  st.sample_rows = static_cast<double>(sample.rows.size());
  st.columns.resize(types.size());
  if (sample.rows.empty()) return st;
  std::vector<StatsValue> column(sample.rows.size());
  for (size_t c = 0; c < types.size(); ++c) {
    for (size_t r = 0; r < sample.rows.size(); ++r) column[r] = sample.rows[r][c];
    st.columns[c] =
        compute_column_stats(column, sample.total_rows, options.statistics_target, types[c]);
  }
  return st;
}

TableStats analyze_table(int column_count, BlockNumber total_blocks,
                         const BlockRowsFn& rows_of_block, const AnalyzeOptions& options) {
  TP_ASSERT(column_count >= 0);
  ListedBlockRows source(rows_of_block);
  return analyze_table(std::vector<TypeId>(size_t(column_count), TypeId::kInt8), total_blocks,
                       source, options);
}

}  // namespace tp
