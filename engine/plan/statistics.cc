// ANALYZE mathematics after PostgreSQL 15's analyze.c (acquire_sample_rows,
// compute_scalar_stats, analyze_mcv_list) and sampling.c (BlockSampler,
// reservoir sampling), with PostgreSQL's PRNG so the algorithms behave alike.
#include "engine/plan/statistics.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine/core/error.h"

namespace tp {

namespace {

// ---- random numbers: pg_prng (xoroshiro128**, seeded through splitmix64) ----

class PgPrng {
 public:
  explicit PgPrng(uint64_t seed) {
    s0_ = splitmix64(&seed);
    s1_ = splitmix64(&seed);
    if (s0_ == 0 && s1_ == 0) {  // xoroshiro must not start all-zero
      s0_ = 1;
      s1_ = 1;
    }
  }

  // A double in [0, 1) with 52 random bits.
  double next_double() { return std::ldexp(static_cast<double>(next() >> 12), -52); }

  // sampler_random_fract: (0, 1); zero is rejected because callers take logs.
  double random_fract() {
    double r;
    do {
      r = next_double();
    } while (r == 0.0);
    return r;
  }

 private:
  static uint64_t rotl(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }
  static uint64_t splitmix64(uint64_t* state) {
    uint64_t v = (*state += 0x9E3779B97F4A7C15ull);
    v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
    v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
    return v ^ (v >> 31);
  }
  uint64_t next() {
    const uint64_t s0 = s0_;
    const uint64_t sx = s1_ ^ s0;
    const uint64_t val = rotl(s0 * 5, 7) * 9;
    s0_ = rotl(s0, 24) ^ sx ^ (sx << 16);
    s1_ = rotl(sx, 37);
    return val;
  }
  uint64_t s0_;
  uint64_t s1_;
};

// ---- stage one: Knuth's Algorithm S over block numbers ----

class BlockSampler {
 public:
  BlockSampler(BlockNumber total_blocks, int sample_size, uint32_t seed)
      : N_(total_blocks), n_(sample_size), rng_(seed) {}
  bool has_more() const { return t_ < N_ && m_ < static_cast<BlockNumber>(n_); }
  BlockNumber blocks_selected() const { return m_; }

  // Selects each remaining block with probability k/K (k still to pick, K
  // still to see), drawing one random number per selected block: while the
  // draw says "skip", the same draw is rescaled against the next block.
  BlockNumber next() {
    BlockNumber K = N_ - t_;
    const int k = n_ - static_cast<int>(m_);
    if (static_cast<BlockNumber>(k) >= K) {
      ++m_;
      return t_++;
    }
    const double V = rng_.random_fract();
    double p = 1.0 - static_cast<double>(k) / static_cast<double>(K);
    while (V < p) {
      ++t_;
      --K;
      p *= 1.0 - static_cast<double>(k) / static_cast<double>(K);
    }
    ++m_;
    return t_++;
  }

 private:
  BlockNumber N_;
  int n_;
  BlockNumber t_ = 0;  // blocks seen
  BlockNumber m_ = 0;  // blocks selected
  PgPrng rng_;
};

// ---- stage two: Vitter's reservoir sampling (Algorithm X, then Z) ----

class Reservoir {
 public:
  Reservoir(int n, uint32_t seed) : rng_(seed), n_(n) {
    W_ = std::exp(-std::log(rng_.random_fract()) / n_);
  }
  PgPrng& rng() { return rng_; }

  // How many records to skip before the next one replaces a reservoir slot,
  // `t` records having been seen so far.
  double next_skip(double t) {
    const double n = n_;
    double S;
    if (t <= 22.0 * n) {
      // Algorithm X: walk the skip distribution until it exceeds one draw.
      const double V = rng_.random_fract();
      S = 0;
      t += 1;
      double quot = (t - n) / t;
      while (quot > V) {
        S += 1;
        t += 1;
        quot *= (t - n) / t;
      }
      return S;
    }
    // Algorithm Z: rejection sampling against a continuous envelope.
    double W = W_;
    const double term = t - n + 1;
    for (;;) {
      const double U = rng_.random_fract();
      const double X = t * (W - 1.0);
      S = std::floor(X);
      double tmp = (t + 1) / term;
      const double lhs = std::exp(std::log(((U * tmp * tmp) * (term + S)) / (t + X)) / n);
      const double rhs = (((t + X) / (term + S)) * term) / t;
      if (lhs <= rhs) {
        W = rhs / lhs;
        break;
      }
      double y = (((U * (t + 1)) / term) * (t + S + 1)) / (t + X);
      double denom, numer_lim;
      if (n < S) {
        denom = t;
        numer_lim = term + S;
      } else {
        denom = t - n + S;
        numer_lim = t + 1;
      }
      for (double numer = t + S; numer >= numer_lim; numer -= 1) {
        y *= numer / denom;
        denom -= 1;
      }
      W = std::exp(-std::log(rng_.random_fract()) / n);
      if (std::exp(std::log(y) / n) <= (t + X) / t) break;
    }
    W_ = W;
    return S;
  }

 private:
  PgPrng rng_;
  int n_;
  double W_;
};

struct PositionedRow {
  BlockNumber block;
  uint32_t index;  // position within the block
  StatsRow row;
};

uint32_t low32(uint64_t v) {
  return static_cast<uint32_t>(v);
}
uint32_t high32(uint64_t v) {
  return static_cast<uint32_t>(v >> 32);
}

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

uint32_t block_sampler_seed(uint64_t seed) {
  return low32(seed ^ 0x5deece66dull);
}

}  // namespace

std::vector<BlockNumber> sample_blocks(BlockNumber total_blocks, int target_rows, uint64_t seed) {
  TP_ASSERT(target_rows > 0);
  BlockSampler blocks(total_blocks, target_rows, block_sampler_seed(seed));
  std::vector<BlockNumber> out;
  out.reserve(std::min<size_t>(total_blocks, size_t(target_rows)));
  while (blocks.has_more()) out.push_back(blocks.next());
  return out;
}

RowSample acquire_sample_rows(BlockNumber total_blocks, int target_rows, uint64_t seed,
                              const BlockRowsFn& rows_of_block) {
  TP_ASSERT(target_rows > 0);
  BlockSampler blocks(total_blocks, target_rows, block_sampler_seed(seed));
  Reservoir reservoir(target_rows, high32(seed * 0x9E3779B97F4A7C15ull) ^ low32(seed));
  std::vector<PositionedRow> sample;
  sample.reserve(static_cast<size_t>(std::min<double>(target_rows, 1e6)));
  std::vector<StatsRow> block_rows;
  double samplerows = 0;  // rows seen in sampled blocks (Vitter's t)
  double rowstoskip = -1;

  while (blocks.has_more()) {
    const BlockNumber block = blocks.next();
    block_rows.clear();
    rows_of_block(block, block_rows);
    for (uint32_t i = 0; i < block_rows.size(); ++i) {
      if (static_cast<int>(sample.size()) < target_rows) {
        sample.push_back({block, i, std::move(block_rows[i])});
      } else {
        if (rowstoskip < 0) rowstoskip = reservoir.next_skip(samplerows);
        if (rowstoskip <= 0) {
          // Keep this row in place of a random one.
          const int k = static_cast<int>(target_rows * reservoir.rng().random_fract());
          TP_ASSERT(k >= 0 && k < target_rows);
          sample[k] = {block, i, std::move(block_rows[i])};
        }
        rowstoskip -= 1;
      }
      samplerows += 1;
    }
  }
  if (static_cast<int>(sample.size()) == target_rows) {
    std::sort(sample.begin(), sample.end(), [](const PositionedRow& a, const PositionedRow& b) {
      return a.block != b.block ? a.block < b.block : a.index < b.index;
    });
  }

  RowSample out;
  out.sampled_blocks = blocks.blocks_selected();
  out.live_rows_seen = samplerows;
  // Extrapolate assuming unsampled blocks are as dense as sampled ones.
  out.total_rows = out.sampled_blocks > 0
                       ? std::floor((samplerows / out.sampled_blocks) * total_blocks + 0.5)
                       : 0.0;
  out.rows.reserve(sample.size());
  for (PositionedRow& r : sample) out.rows.push_back(std::move(r.row));
  return out;
}

namespace {

// A non-null sample value and its position among the non-null values in physical
// order (tupno), as PostgreSQL numbers them.
struct SampleItem {
  int64_t value;
  int tupno;
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

ValueGroups scan_value_groups(const std::vector<SampleItem>& items, int max_mcv) {
  ValueGroups g;
  g.track.reserve(size_t(max_mcv));
  const int values_cnt = static_cast<int>(items.size());
  int dups_cnt = 0;
  for (int i = 0; i < values_cnt; i++) {
    g.corr_xysum += static_cast<double>(i) * static_cast<double>(items[i].tupno);
    dups_cnt++;
    const bool last_of_group = i + 1 == values_cnt || items[i + 1].value != items[i].value;
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
float estimate_n_distinct(const ValueGroups& g, int samplerows, int null_cnt, float null_frac,
                          double total_rows) {
  float n_distinct;
  if (g.nmultiple == 0) {
    // No value repeats: assume a unique column (less the NULLs).
    n_distinct = static_cast<float>(-1.0 * (1.0 - null_frac));
  } else if (g.nmultiple == g.ndistinct) {
    // Every value repeats: assume these are all the values there are.
    n_distinct = static_cast<float>(g.ndistinct);
  } else {
    // Haas and Stokes' Duj1 estimator n*d / (n - f1 + f1*n/N) over non-nulls.
    const int f1 = g.ndistinct - g.nmultiple;
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
                     double total_rows) {
  const int track_cnt = static_cast<int>(g.track.size());
  if (track_cnt == g.ndistinct && st.n_distinct > 0 && track_cnt <= num_mcv)
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
std::vector<int64_t> values_without_mcvs(const std::vector<SampleItem>& items,
                                         const std::vector<McvTrack>& track, int num_mcv) {
  std::vector<McvTrack> mcvs(track.begin(), track.begin() + num_mcv);
  std::sort(mcvs.begin(), mcvs.end(),
            [](const McvTrack& a, const McvTrack& b) { return a.first < b.first; });
  const int values_cnt = static_cast<int>(items.size());
  std::vector<int64_t> rest;
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
std::vector<int64_t> histogram_bounds(const std::vector<int64_t>& rest, int num_hist) {
  const int nvals = static_cast<int>(rest.size());
  TP_ASSERT(nvals >= num_hist);
  std::vector<int64_t> bounds;
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

ColumnStats compute_column_stats(std::span<const StatsValue> values, double total_rows,
                                 int statistics_target) {
  ColumnStats st;
  const int samplerows = static_cast<int>(values.size());
  if (samplerows == 0) return st;

  std::vector<SampleItem> items;
  items.reserve(values.size());
  int null_cnt = 0;
  for (const StatsValue& v : values) {
    if (!v) {
      ++null_cnt;
      continue;
    }
    items.push_back({*v, static_cast<int>(items.size())});
  }
  const int values_cnt = static_cast<int>(items.size());
  if (values_cnt == 0) {
    // Only NULLs: the column is taken to be entirely NULL.
    st.valid = true;
    st.null_frac = 1.0f;
    st.n_distinct = 0.0f;
    return st;
  }
  std::sort(items.begin(), items.end(), [](const SampleItem& a, const SampleItem& b) {
    return a.value != b.value ? a.value < b.value : a.tupno < b.tupno;
  });

  const ValueGroups groups = scan_value_groups(items, statistics_target);
  st.valid = true;
  st.null_frac =
      static_cast<float>(static_cast<double>(null_cnt) / static_cast<double>(samplerows));
  st.has_range = true;
  st.min_value = items.front().value;
  st.max_value = items.back().value;
  st.n_distinct = estimate_n_distinct(groups, samplerows, null_cnt, st.null_frac, total_rows);

  const int num_mcv = choose_mcv_count(groups, statistics_target, st, samplerows, total_rows);
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

TableStats analyze_table(int column_count, BlockNumber total_blocks,
                         const BlockRowsFn& rows_of_block, const AnalyzeOptions& options,
                         const std::vector<bool>& skip_columns) {
  const int target_rows = analyze_target_rows(options);
  TP_ASSERT(column_count >= 0);
  BlockRowsFn checked = [&](BlockNumber b, std::vector<StatsRow>& rows) {
    const size_t before = rows.size();
    rows_of_block(b, rows);
    for (size_t i = before; i < rows.size(); ++i) {
      if (static_cast<int>(rows[i].size()) != column_count) {
        throw Error("ANALYZE: block " + std::to_string(b) + " returned a row with " +
                    std::to_string(rows[i].size()) + " columns, expected " +
                    std::to_string(column_count))
            .with_sqlstate(sqlstate::kDataCorrupted);
      }
    }
  };
  RowSample sample = acquire_sample_rows(total_blocks, target_rows, options.seed, checked);

  TableStats st;
  st.reltuples = sample.total_rows;
  st.relpages = total_blocks;
  st.sampled_blocks = sample.sampled_blocks;
  st.sample_rows = static_cast<double>(sample.rows.size());
  st.columns.resize(column_count);
  if (sample.rows.empty()) return st;
  std::vector<StatsValue> column(sample.rows.size());
  for (int c = 0; c < column_count; ++c) {
    if (size_t(c) < skip_columns.size() && skip_columns[size_t(c)]) {
      // Only the average width so far: each sampled row holds the value's stored size
      // (0: NULL or a fixed-width type), as compute_*_stats's stawidth.
      int64_t total = 0, counted = 0;
      for (const StatsRow& row : sample.rows)
        if (const std::optional<int64_t>& v = row[size_t(c)]; v && *v > 0) total += *v, ++counted;
      if (counted > 0) st.columns[size_t(c)].avg_width = int32_t(double(total) / double(counted));
      continue;
    }
    for (size_t r = 0; r < sample.rows.size(); ++r) column[r] = sample.rows[r][c];
    st.columns[c] = compute_column_stats(column, sample.total_rows, options.statistics_target);
  }
  return st;
}

}  // namespace tp
