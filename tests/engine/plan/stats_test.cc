#include "engine/plan/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <string>

#include "engine/core/error.h"
#include "tests/engine/plan/pg15_fixtures.h"

namespace tp {
namespace {

// Table s1 of pg15_fixtures.h, 200 rows per block.
void s1_rows(BlockNumber block, std::vector<StatsRow>& out) {
  for (int64_t i = int64_t{block} * 200 + 1; i <= int64_t{block} * 200 + 200; ++i) {
    StatsRow r(4);
    r[0] = i % 250;
    r[1] = (i * 7919) % 20011;
    if (i % 10 != 0) r[2] = i / 3;
    r[3] = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(i))));
    out.push_back(std::move(r));
  }
}

// A table small enough to be sampled whole gives PostgreSQL's statistics
// exactly: same MCVs and frequencies, histogram, n_distinct and correlation.
TEST(Stats, FullSampleMatchesPostgres) {
  TableStats st = analyze_table(4, 100, s1_rows, {.statistics_target = 100, .seed = 1});
  EXPECT_EQ(st.reltuples, 20000);
  EXPECT_EQ(st.sampled_blocks, 100);
  EXPECT_EQ(st.sample_rows, 20000);
  const char* order = "xyzw";
  for (const pg15::PgColumnStats& want : pg15::kS1) {
    const int col = static_cast<int>(std::string(order).find(want.name[0]));
    const ColumnStats& got = st.columns[col];
    SCOPED_TRACE("column " + want.name);
    EXPECT_TRUE(got.valid);
    EXPECT_EQ(got.null_frac, want.null_frac);
    EXPECT_EQ(got.n_distinct, want.n_distinct);
    EXPECT_EQ(got.correlation, want.correlation);
    EXPECT_EQ(got.mcv_values, want.mcv_values);
    EXPECT_EQ(got.mcv_freqs, want.mcv_freqs);
    EXPECT_EQ(got.histogram, want.histogram);
  }
  // Spot checks that make the expectations readable: x has 250 values of 80
  // rows each; 100 become MCVs (ties keep the smallest values), the other 150
  // exceed 100 bins, so the histogram has 101 bounds from 100 to 249.
  const ColumnStats& x = st.columns[0];
  EXPECT_EQ(x.mcv_values.size(), 100u);
  EXPECT_EQ(x.mcv_freqs[0], 0.004f);
  EXPECT_EQ(x.histogram.front(), 100);
  EXPECT_EQ(x.histogram.back(), 249);
  EXPECT_EQ(x.histogram.size(), 101u);
  EXPECT_EQ(x.min_value, 0);
  EXPECT_EQ(x.max_value, 249);
}

TEST(Stats, ReltuplesExtrapolatesFromSampledBlocks) {
  // Block b holds b % 7 rows; 5,000 blocks, 300 rows wanted -> 300 blocks sampled.
  auto rows = [](BlockNumber b, std::vector<StatsRow>& out) {
    for (uint32_t i = 0; i < b % 7; ++i) out.push_back({int64_t{b}});
  };
  RowSample s = acquire_sample_rows(5000, 300, 99, rows);
  EXPECT_EQ(s.sampled_blocks, 300);
  EXPECT_EQ(s.total_rows, std::floor(s.live_rows_seen / 300 * 5000 + 0.5));
  // The true count is 5000/7*21 ~= 15,000; a 6% block sample lands near it.
  EXPECT_NEAR(s.total_rows, 15000, 1500);
  EXPECT_EQ(s.rows.size(), 300u);
  // Physical order after the reservoir sort.
  for (size_t i = 1; i < s.rows.size(); ++i) EXPECT_LE(*s.rows[i - 1][0], *s.rows[i][0]);
}

TEST(Stats, BlockSampleTakesEveryBlockOfSmallTables) {
  std::set<BlockNumber> seen;
  auto rows = [&](BlockNumber b, std::vector<StatsRow>& out) {
    seen.insert(b);
    out.push_back({int64_t{b}});
  };
  RowSample s = acquire_sample_rows(250, 30000, 5, rows);
  EXPECT_EQ(seen.size(), 250u);
  EXPECT_EQ(s.total_rows, 250);
}

TEST(Stats, SamplingIsDeterministicPerSeedAndUniform) {
  // 2,000 blocks of 50 rows, row id = block * 50 + i; 3,000-row reservoir.
  auto rows = [](BlockNumber b, std::vector<StatsRow>& out) {
    for (int i = 0; i < 50; ++i) out.push_back({int64_t{b} * 50 + i});
  };
  RowSample a = acquire_sample_rows(2000, 3000, 7, rows);
  RowSample b = acquire_sample_rows(2000, 3000, 7, rows);
  RowSample c = acquire_sample_rows(2000, 3000, 8, rows);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_NE(a.rows, c.rows);
  ASSERT_EQ(a.rows.size(), 3000u);
  // 3,000 blocks wanted >= 2,000 present: every block read, 100,000 rows seen.
  EXPECT_EQ(a.live_rows_seen, 100000);
  EXPECT_EQ(a.total_rows, 100000);
  // A uniform sample of 0..99,999: mean 49,999.5, standard error of the mean
  // about 28,868 / sqrt(3000) = 527; allow 5 standard errors. And each decile
  // holds about 300 rows (binomial sd ~16.4; allow 6 sd).
  double sum = 0;
  std::vector<int> decile(10, 0);
  std::set<int64_t> distinct;
  for (const StatsRow& r : a.rows) {
    sum += static_cast<double>(*r[0]);
    decile[*r[0] / 10000]++;
    distinct.insert(*r[0]);
  }
  EXPECT_NEAR(sum / 3000, 49999.5, 5 * 527);
  for (int d : decile) EXPECT_NEAR(d, 300, 6 * 16.4);
  EXPECT_EQ(distinct.size(), 3000u);  // sampling without replacement
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<StatsValue> ints(std::initializer_list<int64_t> v) {
  return std::vector<StatsValue>(v.begin(), v.end());
}

TEST(Stats, NDistinctRules) {
  // All distinct: unique column, -1 scaled by the non-null fraction.
  std::vector<StatsValue> uniq;
  for (int i = 0; i < 1000; ++i) uniq.push_back(i % 2 ? StatsValue{} : StatsValue{i});
  ColumnStats u = compute_column_stats(uniq, 1e6);
  EXPECT_EQ(u.null_frac, 0.5f);
  EXPECT_EQ(u.n_distinct, -0.5f);
  EXPECT_TRUE(u.mcv_values.empty());

  // Every value repeated: exactly the values seen.
  ColumnStats rep = compute_column_stats(ints({5, 5, 6, 6, 6, 7, 7}), 1e6);
  EXPECT_EQ(rep.n_distinct, 3.0f);

  // Haas-Stokes: 30,000 sampled values, 10,000 seen twice and 10,000 once:
  //  d = 20,000, f1 = 10,000, n = 30,000.
  //  N = 1e6:    30,000*20,000 / (20,000 + 10,000*30,000/1e6) = 6e8/20,300
  //              = 29,556.65 -> 29,557 (below 10% of N: an absolute count)
  //  N = 200,000: 6e8 / (20,000 + 1,500) = 27,906.98 -> 27,907 > 20,000:
  //              stored as -(27,907 / 200,000) = -0.139535
  std::vector<StatsValue> hs;
  for (int i = 0; i < 10000; ++i) {
    hs.push_back(i);
    hs.push_back(i);
    hs.push_back(100000 + i);
  }
  EXPECT_EQ(compute_column_stats(hs, 1e6).n_distinct, 29557.0f);
  EXPECT_EQ(compute_column_stats(hs, 200000).n_distinct, static_cast<float>(-(27907.0f / 200000)));
}

TEST(Stats, McvListKeepsOnlySignificantlyCommonValues) {
  // 30,000 sampled rows of a 1e6-row table: value 0 in 3,000 rows, 1 in 40,
  // values 2.. once each. n_distinct: d = 26,962, f1 = 26,960 ->
  //  30,000*26,962 / (3,040 + 26,960*0.03) = 208,948 -> -0.208948.
  // Candidates (repeated values) are 0 and 1. For 1: non-MCV selectivity
  //  (1 - 3,000/30,000) / (208,948 - 1) = 4.3073e-6, expected count 0.129,
  //  stddev of a count of 40 ~ 6.23: 40 > 0.129 + 12.46 + 0.5 -> kept (and so
  //  is 0, being more common).
  std::vector<StatsValue> v;
  for (int i = 0; i < 3000; ++i) v.push_back(0);
  for (int i = 0; i < 40; ++i) v.push_back(1);
  for (int i = 0; i < 26960; ++i) v.push_back(2 + i);
  ColumnStats st = compute_column_stats(v, 1e6);
  EXPECT_EQ(st.mcv_values, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(st.mcv_freqs, (std::vector<float>{0.1f, static_cast<float>(40.0 / 30000)}));
  // Value 1 seen only twice: 2 < 0.0065 + 2*0.9999 + 0.5 -> dropped.
  std::vector<StatsValue> w(v.begin(), v.begin() + 3000);
  w.push_back(1);
  w.push_back(1);
  for (int i = 0; i < 26998; ++i) w.push_back(2 + i);
  ColumnStats st2 = compute_column_stats(w, 1e6);
  EXPECT_EQ(st2.mcv_values, (std::vector<int64_t>{0}));
  // The histogram excludes MCVs: bounds run from 1 (value 1 is not an MCV) up.
  EXPECT_EQ(st2.histogram.front(), 1);
  EXPECT_EQ(st2.histogram.size(), 101u);
}

TEST(Stats, HistogramBoundsAreEvenlySpaced) {
  // 1,001 distinct values 0..1000 seen once: 101 bounds at multiples of 10.
  std::vector<StatsValue> v;
  for (int i = 1000; i >= 0; --i) v.push_back(i);
  ColumnStats st = compute_column_stats(v, 1001);
  ASSERT_EQ(st.histogram.size(), 101u);
  for (int i = 0; i <= 100; ++i) EXPECT_EQ(st.histogram[i], i * 10);
  EXPECT_EQ(st.correlation, -1.0f);  // stored in reverse order
  // Fewer distinct values than bins: one bound per value.
  ColumnStats small = compute_column_stats(ints({3, 1, 2}), 3);
  EXPECT_EQ(small.histogram, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_FLOAT_EQ(small.correlation, -0.5f);  // positions (2,0,1) vs (0,1,2)
}

TEST(Stats, OnlyNullsAndEmpty) {
  std::vector<StatsValue> nulls(10);
  ColumnStats st = compute_column_stats(nulls, 10);
  EXPECT_TRUE(st.valid);
  EXPECT_EQ(st.null_frac, 1.0f);
  EXPECT_EQ(st.n_distinct, 0.0f);
  EXPECT_FALSE(st.has_correlation);
  EXPECT_FALSE(compute_column_stats({}, 0).valid);
  TableStats empty = analyze_table(2, 0, [](BlockNumber, std::vector<StatsRow>&) {});
  EXPECT_EQ(empty.reltuples, 0);
  EXPECT_FALSE(empty.columns[1].valid);
}

TEST(Stats, TextRoundTrip) {
  TableStats st = analyze_table(4, 100, s1_rows, {.statistics_target = 100, .seed = 1});
  std::string text = st.to_text();
  TableStats back = TableStats::from_text(text);
  EXPECT_EQ(back, st);
  EXPECT_EQ(back.to_text(), text);
  EXPECT_EQ(text.rfind("tidepool-stats 2\ntable 20000 100 100 20000\ncolumns 4\n", 0), 0u) << text;
}

// Catalogs written before typed statistics (version 1: integers only, the average
// width an optional last field) still read.
TEST(Stats, ReadsVersionOneText) {
  const TableStats st = TableStats::from_text(
      "tidepool-stats 1\ntable 10 1 1 10\ncolumns 2\n"
      "column 1 0.5 -0.5 1 1 1 3 9\nmcv 1 3 0.200000003\nhistogram 2 4 9\n"
      "column 0 0 0 0 0 0 0 0 14\nmcv 0\nhistogram 0\n");
  ASSERT_EQ(st.columns.size(), 2u);
  EXPECT_EQ(st.columns[0].min_value, 3);
  EXPECT_EQ(st.columns[0].max_value, 9);
  EXPECT_EQ(st.columns[0].mcv_values, std::vector<Datum>{3});
  EXPECT_EQ(st.columns[0].histogram, (std::vector<Datum>{4, 9}));
  EXPECT_EQ(st.columns[0].ref_len, 0);
  EXPECT_EQ(st.columns[1].avg_width, 14);
  EXPECT_FALSE(st.columns[1].valid);
}

// Text values: ordered byte-wise, their MCVs and histogram copies the statistics own,
// written as hex and read back equal.
TEST(Stats, TextValuesRoundTrip) {
  std::vector<std::string> bytes;
  for (int i = 0; i < 300; ++i) {
    const std::string v = i % 3 == 0 ? "common" : "v" + std::to_string(i);
    bytes.push_back(make_varlena(v));
  }
  std::vector<StatsValue> values;
  for (const std::string& b : bytes) values.push_back(pointer_datum(b.data()));
  values.push_back(std::nullopt);
  ColumnStats c = compute_column_stats(values, 301, 100, TypeId::kText);
  size_t stored = 0;
  for (const std::string& b : bytes) stored += b.size();
  bytes.clear();  // the statistics hold their own copies
  ASSERT_TRUE(c.valid);
  EXPECT_EQ(c.ref_len, -1);
  EXPECT_EQ(c.avg_width, int32_t(double(stored) / 300));  // the NULL does not count
  ASSERT_EQ(c.mcv_values.size(), 1u);
  EXPECT_EQ(varlena_payload(datum_pointer(c.mcv_values[0])), "common");
  EXPECT_EQ(varlena_payload(datum_pointer(c.min_value)), "common");
  EXPECT_EQ(varlena_payload(datum_pointer(c.max_value)), "v98");  // byte-wise: "v98" > "v299"
  ASSERT_EQ(c.histogram.size(), 101u);
  EXPECT_EQ(varlena_payload(datum_pointer(c.histogram.front())), "v1");
  TableStats st;
  st.columns = {c};
  const std::string text = st.to_text();
  EXPECT_NE(text.find(" x28000000636f6d6d6f6e 0.332225919"), std::string::npos) << text;
  const TableStats back = TableStats::from_text(text);
  EXPECT_EQ(back, st);
  EXPECT_EQ(back.to_text(), text);
  EXPECT_EQ(error_of([] {
              TableStats::from_text(
                  "tidepool-stats 2\ntable 1 1 1 1\ncolumns 1\n"
                  "column 1 0 1 0 0 1 -1 x09616263 x0961626364 0\n");
            }),
            "invalid statistics text at line 4: value of the wrong size \"x0961626364\"");
}

TEST(Stats, RejectsBadInput) {
  EXPECT_EQ(error_of([] { TableStats::from_text("tidepool-stats 1\ntable 1 2 3\n"); }),
            "invalid statistics text at line 2: missing value");
  EXPECT_EQ(error_of([] { TableStats::from_text("nonsense"); }),
            "invalid statistics text at line 1: expected \"tidepool-stats\", found \"nonsense\"");
  EXPECT_EQ(error_of([] {
              TableStats::from_text("tidepool-stats 1\ntable 1 2 3 4\ncolumns 1\ncolumn 1 x");
            }),
            "invalid statistics text at line 4: bad number \"x\"");
  EXPECT_EQ(
      error_of([] { analyze_table(1, 1, s1_rows, {.statistics_target = 0}); }),
      "0 is outside the valid range for parameter \"default_statistics_target\" (1 .. 10000)");
  EXPECT_EQ(error_of([] { analyze_table(3, 1, s1_rows); }),
            "ANALYZE: block 0 returned a row with 4 columns, expected 3");
}

}  // namespace
}  // namespace tp
