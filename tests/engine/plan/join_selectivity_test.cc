// Join selectivities and join sizes (join_selectivity.h) against what PostgreSQL 15.20
// printed. The statistics are ANALYZE's over the same generated rows, computed here by
// compute_column_stats: every table is small enough that ANALYZE reads every row, so
// they equal pg_statistic's (checked for a few below). The database was made with
// `createdb --locale=C -T template0 js` (byte-wise text, as tidepool orders it) and:
//
//   CREATE TABLE t1 AS SELECT i::int4 AS i,
//     (CASE WHEN i % 2 = 0 THEN i % 10 ELSE i % 1000 END)::int4 AS a,     -- skewed
//     (CASE WHEN i % 5 = 0 THEN NULL ELSE i % 300 END)::int8 AS n,        -- NULLs
//     (CASE WHEN i % 3 = 0 THEN 'v' || (i % 40) ELSE 'v' || (i % 400) END)::text AS s,
//     (date '2020-01-01' + (i % 365)) AS d,
//     ((i % 77)::numeric / 10) AS num
//   FROM generate_series(1, 10000) i;
//   CREATE UNIQUE INDEX ON t1(i);
//   CREATE TABLE t2 AS SELECT i::int8 AS j, (i % 50)::int2 AS b,
//     (CASE WHEN i % 3 = 0 THEN 0 ELSE i % 700 END)::int4 AS c,
//     (CASE WHEN i % 4 = 0 THEN NULL ELSE i % 200 END)::int8 AS m,
//     ('v' || (i % 60))::varchar AS s2, (date '2020-03-01' + (i % 100)) AS d2,
//     ((i % 30)::numeric / 5) AS num2
//   FROM generate_series(1, 3000) i;
//   CREATE TABLE t3 AS SELECT i::int4 AS k, (i % 20)::int4 AS e
//   FROM generate_series(1, 500) i;                       -- never analyzed: rows=2260
//   CREATE TABLE t4 AS SELECT (i % 2900)::int4 AS x, (i % 7)::int4 AS y
//   FROM generate_series(1, 3000) i;
//   ANALYZE t1; ANALYZE t2; ANALYZE t4;
//
// Each case gives the query and the join node's rows= from its EXPLAIN. The inputs'
// rows are what EXPLAIN printed for the restricted scans (SELECT * FROM t2 WHERE b = 3:
// rows=60), as the planner's restriction estimates give them.
#include "engine/plan/join_selectivity.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/numeric.h"
#include "engine/plan/statistics.h"

namespace tp {
namespace {

using IntFn = std::function<std::optional<int64_t>(int)>;
using TextFn = std::function<std::string(int)>;

ColumnStats analyze_ints(int rows, TypeId type, const IntFn& f) {
  std::vector<StatsValue> values;
  for (int i = 1; i <= rows; ++i) {
    const std::optional<int64_t> v = f(i);
    values.push_back(v ? StatsValue(Datum(*v)) : std::nullopt);
  }
  return compute_column_stats(values, rows, 100, type);
}

// Varlena values (text, varchar, numeric) made by `make` from each row's text.
ColumnStats analyze_varlena(int rows, TypeId type, const TextFn& f,
                            const std::function<std::string(const std::string&)>& make) {
  std::vector<std::string> bytes;
  bytes.reserve(size_t(rows));
  for (int i = 1; i <= rows; ++i) bytes.push_back(make(f(i)));
  std::vector<StatsValue> values;
  for (const std::string& b : bytes) values.push_back(pointer_datum(b.data()));
  return compute_column_stats(values, rows, 100, type);  // copies the values it keeps
}

ColumnStats analyze_text(int rows, TypeId type, const TextFn& f) {
  return analyze_varlena(rows, type, f, [](const std::string& s) { return make_varlena(s); });
}

ColumnStats analyze_numeric(int rows, const TextFn& f) {
  return analyze_varlena(rows, TypeId::kNumeric, f,
                         [](const std::string& s) { return numeric_in(s, kNoTypmod); });
}

// "k/10" or "k/5" as a decimal literal.
std::string decimal(int k, int div) {
  return std::to_string(k / div) + "." + std::to_string((k % div) * (10 / div));
}

constexpr int64_t kJan1st2020 = 7305;  // days since 2000-01-01
constexpr int64_t kMar1st2020 = 7365;
constexpr double kT1 = 10000, kT2 = 3000, kT3 = 2260, kT4 = 3000;

class JoinSel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto* s = new Stats;
    s->t1_a =
        analyze_ints(10000, TypeId::kInt4, [](int i) { return i % 2 == 0 ? i % 10 : i % 1000; });
    s->t1_i = analyze_ints(10000, TypeId::kInt4, [](int i) { return i; });
    s->t1_n = analyze_ints(10000, TypeId::kInt8, [](int i) -> std::optional<int64_t> {
      if (i % 5 == 0) return std::nullopt;
      return i % 300;
    });
    s->t1_s = analyze_text(10000, TypeId::kText, [](int i) {
      return "v" + std::to_string(i % 3 == 0 ? i % 40 : i % 400);
    });
    s->t1_d = analyze_ints(10000, TypeId::kDate, [](int i) { return kJan1st2020 + i % 365; });
    s->t1_num = analyze_numeric(10000, [](int i) { return decimal(i % 77, 10); });
    s->t2_j = analyze_ints(3000, TypeId::kInt8, [](int i) { return i; });
    s->t2_b = analyze_ints(3000, TypeId::kInt2, [](int i) { return i % 50; });
    s->t2_c = analyze_ints(3000, TypeId::kInt4, [](int i) { return i % 3 == 0 ? 0 : i % 700; });
    s->t2_m = analyze_ints(3000, TypeId::kInt8, [](int i) -> std::optional<int64_t> {
      if (i % 4 == 0) return std::nullopt;
      return i % 200;
    });
    s->t2_s2 =
        analyze_text(3000, TypeId::kVarchar, [](int i) { return "v" + std::to_string(i % 60); });
    s->t2_d2 = analyze_ints(3000, TypeId::kDate, [](int i) { return kMar1st2020 + i % 100; });
    s->t2_num2 = analyze_numeric(3000, [](int i) { return decimal(i % 30, 5); });
    s->t4_x = analyze_ints(3000, TypeId::kInt4, [](int i) { return i % 2900; });
    s->t4_y = analyze_ints(3000, TypeId::kInt4, [](int i) { return i % 7; });
    stats_ = s;
  }
  static void TearDownTestSuite() {
    delete stats_;
    stats_ = nullptr;
  }

  struct Stats {
    ColumnStats t1_a, t1_i, t1_n, t1_s, t1_d, t1_num;
    ColumnStats t2_j, t2_b, t2_c, t2_m, t2_s2, t2_d2, t2_num2;
    ColumnStats t4_x, t4_y;
  };
  static Stats* stats_;

  // A column of a relation of `tuples` rows, `rows` of which its restrictions keep.
  static JoinVar var(const ColumnStats* st, TypeId type, double tuples, double rows = -1,
                     bool unique = false) {
    return JoinVar{.stats = st,
                   .type = type,
                   .unique = unique,
                   .tuples = tuples,
                   .rows = rows < 0 ? tuples : rows};
  }
  static JoinVar t1_a(double rows = kT1) { return var(&stats_->t1_a, TypeId::kInt4, kT1, rows); }
  static JoinVar t1_i(double rows = kT1) {
    return var(&stats_->t1_i, TypeId::kInt4, kT1, rows, /*unique=*/true);
  }
  static JoinVar t1_n(double rows = kT1) { return var(&stats_->t1_n, TypeId::kInt8, kT1, rows); }
  static JoinVar t1_s() { return var(&stats_->t1_s, TypeId::kText, kT1); }
  static JoinVar t2_j(double rows = kT2) { return var(&stats_->t2_j, TypeId::kInt8, kT2, rows); }
  static JoinVar t2_b(double rows = kT2) { return var(&stats_->t2_b, TypeId::kInt2, kT2, rows); }
  static JoinVar t2_c(double rows = kT2) { return var(&stats_->t2_c, TypeId::kInt4, kT2, rows); }
  static JoinVar t2_m(double rows = kT2) { return var(&stats_->t2_m, TypeId::kInt8, kT2, rows); }
  static JoinVar t2_s2(double rows = kT2) {
    return var(&stats_->t2_s2, TypeId::kVarchar, kT2, rows);
  }
  static JoinVar t3_k() { return var(nullptr, TypeId::kInt4, kT3); }
  static JoinVar t3_e() { return var(nullptr, TypeId::kInt4, kT3); }
  static JoinVar t4_x() { return var(&stats_->t4_x, TypeId::kInt4, kT4); }
  static JoinVar t4_y() { return var(&stats_->t4_y, TypeId::kInt4, kT4); }

  // The join's rows for `outer = inner` as calc_joinrel_size_estimate gives them.
  static double rows(JoinKind kind, const JoinVar& outer, const JoinVar& inner,
                     TypeId cmp = TypeId::kInt8) {
    return join_rows(kind, outer.rows, inner.rows, eqjoinsel(outer, inner, kind, cmp));
  }
};

JoinSel::Stats* JoinSel::stats_ = nullptr;

// The generated statistics are pg_stats': n_distinct and MCV counts as PostgreSQL has them.
TEST_F(JoinSel, StatisticsMatchPostgres) {
  EXPECT_EQ(stats_->t1_a.n_distinct, 505);
  EXPECT_EQ(stats_->t1_a.mcv_values.size(), 100u);
  EXPECT_EQ(stats_->t1_i.n_distinct, -1);
  EXPECT_TRUE(stats_->t1_i.mcv_values.empty());
  EXPECT_EQ(stats_->t1_n.n_distinct, 240);
  EXPECT_EQ(stats_->t1_n.null_frac, 0.2f);
  EXPECT_EQ(stats_->t1_num.mcv_values.size(), 77u);
  EXPECT_EQ(stats_->t2_c.n_distinct, -0.23333333f);
  EXPECT_EQ(stats_->t2_m.null_frac, 0.25f);
  EXPECT_EQ(stats_->t2_m.n_distinct, 150);
  EXPECT_EQ(stats_->t2_s2.mcv_values.size(), 60u);
  EXPECT_EQ(stats_->t4_x.n_distinct, -0.96666664f);
  EXPECT_EQ(stats_->t4_x.mcv_values.size(), 100u);
  bool isdefault = true;
  EXPECT_EQ(join_var_numdistinct(t2_c(), &isdefault), 700);  // -0.2333 x 3000
  EXPECT_FALSE(isdefault);
  EXPECT_EQ(join_var_numdistinct(t3_k(), &isdefault), 200);  // 2260 rows, no statistics
  EXPECT_TRUE(isdefault);
  EXPECT_EQ(join_var_numdistinct(var(nullptr, TypeId::kInt4, 150), &isdefault), 150);
  EXPECT_FALSE(isdefault);
  EXPECT_EQ(join_var_numdistinct(var(nullptr, TypeId::kBool, 5000), &isdefault), 2);
  EXPECT_FALSE(isdefault);
}

// --- Inner joins --------------------------------------------------------------------

// SELECT * FROM t1 JOIN t2 ON t1.a = t2.c;   Hash Join rows=1030357
// Both MCV lists matched pairwise (int4 = int4).
TEST_F(JoinSel, InnerMcvBothSides) {
  EXPECT_EQ(rows(JoinKind::kInner, t1_a(), t2_c(), TypeId::kInt4), 1030357);
}

// SELECT * FROM t1 JOIN t2 ON t1.a = t2.b;   Hash Join rows=327000   (int4 = int2)
// t2.b's 50 values are all MCVs; the match is exact for the ones t1.a's list holds.
TEST_F(JoinSel, InnerCrossWidthIntegers) {
  EXPECT_EQ(rows(JoinKind::kInner, t1_a(), t2_b()), 327000);
}

// SELECT * FROM t1 JOIN t2 ON t1.n = t2.m;   Hash Join rows=75241
// Both sides hold NULLs (0.2 and 0.25), which never join.
TEST_F(JoinSel, InnerWithNulls) {
  EXPECT_EQ(rows(JoinKind::kInner, t1_n(), t2_m()), 75241);
}

// SELECT * FROM t1 JOIN t2 ON t1.s = t2.s2;   Hash Join rows=216600   (text = varchar)
TEST_F(JoinSel, InnerTextWithVarchar) {
  EXPECT_EQ(rows(JoinKind::kInner, t1_s(), t2_s2(), TypeId::kText), 216600);
}

// SELECT * FROM t1 JOIN t2 ON t1.d = t2.d2;       Hash Join rows=82531
// SELECT * FROM t1 JOIN t2 ON t1.num = t2.num2;   Hash Join rows=389900
TEST_F(JoinSel, InnerDateAndNumeric) {
  EXPECT_EQ(rows(JoinKind::kInner, var(&stats_->t1_d, TypeId::kDate, kT1),
                 var(&stats_->t2_d2, TypeId::kDate, kT2), TypeId::kDate),
            82531);
  // Numeric MCVs match by value: t2's 0.2 (1/5) and t1's 0.2 (2/10) are one value.
  EXPECT_EQ(rows(JoinKind::kInner, var(&stats_->t1_num, TypeId::kNumeric, kT1),
                 var(&stats_->t2_num2, TypeId::kNumeric, kT2), TypeId::kNumeric),
            389900);
}

// SELECT * FROM t1 JOIN t2 ON t1.i = t2.j;   Hash Join rows=3000
// SELECT * FROM t1 JOIN t2 ON t1.i = t2.c;   Merge Join rows=3000
// Unique keys have no MCVs: (1 - nullfrac1)(1 - nullfrac2) / max(nd1, nd2) = 1/10000.
TEST_F(JoinSel, InnerUniqueKeysWithoutMcvs) {
  EXPECT_EQ(rows(JoinKind::kInner, t1_i(), t2_j()), 3000);
  EXPECT_EQ(rows(JoinKind::kInner, t1_i(), t2_c(), TypeId::kInt4), 3000);
  EXPECT_NEAR(eqjoinsel_inner(t1_i(), t2_c(), TypeId::kInt4), 1.0 / 10000, 1e-9 / 10000);
}

// SELECT * FROM t1 JOIN t4 ON t1.a = t4.x;   Hash Join rows=14565
// t4.x is nearly unique (n_distinct -0.9667) yet keeps 100 MCVs of frequency 2/3000.
TEST_F(JoinSel, InnerNearlyUniqueMcvs) {
  EXPECT_EQ(rows(JoinKind::kInner, t1_a(), t4_x(), TypeId::kInt4), 14565);
}

// SELECT * FROM t1 JOIN t3 ON t1.a = t3.k;   Merge Join rows=44752
// SELECT * FROM t3 JOIN t4 ON t3.e = t4.y;   Merge Join rows=33900
// t3 was never analyzed: 2260 rows by its pages, 200 distinct values by default.
TEST_F(JoinSel, InnerWithoutStatistics) {
  EXPECT_EQ(rows(JoinKind::kInner, t1_a(), t3_k(), TypeId::kInt4), 44752);
  EXPECT_NEAR(eqjoinsel_inner(t1_a(), t3_k(), TypeId::kInt4), 1.0 / 505, 1e-9 / 505);
  EXPECT_EQ(rows(JoinKind::kInner, t3_e(), t4_y(), TypeId::kInt4), 33900);
  EXPECT_NEAR(eqjoinsel_inner(t3_e(), t4_y(), TypeId::kInt4), 1.0 / 200, 1e-9 / 200);
}

// SELECT * FROM t1 JOIN t2 ON t1.a = t2.c WHERE t1.i < 2000 AND t2.b = 3;
//   Hash Join rows=4119   (inputs: rows=1999 and rows=60)
// Restrictions scale the inputs, not the selectivity.
TEST_F(JoinSel, InnerRestrictedSides) {
  EXPECT_EQ(rows(JoinKind::kInner, t1_a(1999), t2_c(60), TypeId::kInt4), 4119);
}

// The MCV arithmetic worked by hand on two small lists. Side 1: MCVs 1 (0.3), 2 (0.2),
// NULL 0.1, nd 10; side 2: MCVs 2 (0.5), 3 (0.1), nd 5. One match (2): matchprod 0.1;
// other1 = 0.4, other2 = 0.4; unmatched 0.3 and 0.1.
// totalsel1 = 0.1 + 0.3*0.4/3 + 0.4*(0.4+0.1)/4 = 0.19;
// totalsel2 = 0.1 + 0.1*0.4/8 + 0.4*(0.4+0.3)/9 = 0.13611..
TEST_F(JoinSel, McvArithmeticByHand) {
  ColumnStats s1, s2;
  s1.valid = s2.valid = true;
  s1.null_frac = 0.1f;
  s1.n_distinct = 10;
  s1.mcv_values = {1, 2};
  s1.mcv_freqs = {0.3f, 0.2f};
  s2.n_distinct = 5;
  s2.mcv_values = {2, 3};
  s2.mcv_freqs = {0.5f, 0.1f};
  const JoinVar v1 = var(&s1, TypeId::kInt4, 100), v2 = var(&s2, TypeId::kInt4, 100);
  const double f1 = 0.3f, f2 = 0.2f, g1 = 0.5f, g2 = 0.1f, nf = 0.1f;
  const double prod = double(0.2f * 0.5f);
  const double other1 = 1.0 - nf - f2 - f1, other2 = 1.0 - 0.0 - g1 - g2;
  const double t1 = prod + f1 * other2 / 3 + other1 * (other2 + g2) / 4;
  const double t2 = prod + g2 * other1 / 8 + other2 * (other1 + f1) / 9;
  EXPECT_NEAR(eqjoinsel_inner(v1, v2, TypeId::kInt4), std::min(t1, t2), 1e-9 * t2);
  // Semi (nd clamps do not bite: 100 rows): the matched MCV 2 plus, since nd1 - 1 = 9
  // exceeds nd2 - 1 = 4, 4/9 of the other non-NULL rows.
  const double semi = f2 + 4.0 / 9.0 * (1.0 - f2 - nf);
  EXPECT_NEAR(eqjoinsel_semi(v1, v2, TypeId::kInt4, 100), semi, 1e-9);
}

// --- Outer joins --------------------------------------------------------------------

// SELECT * FROM t1 LEFT JOIN t2 ON t1.a = t2.c;   Hash Right Join rows=1030357
// SELECT * FROM t2 LEFT JOIN t1 ON t2.m = t1.n;   Hash Left Join rows=75241
// SELECT * FROM t2 LEFT JOIN t1 ON t2.j = t1.i;   Hash Right Join rows=3000
TEST_F(JoinSel, LeftJoins) {
  EXPECT_EQ(rows(JoinKind::kLeft, t1_a(), t2_c(), TypeId::kInt4), 1030357);
  EXPECT_EQ(rows(JoinKind::kLeft, t2_m(), t1_n()), 75241);
  EXPECT_EQ(rows(JoinKind::kLeft, t2_j(), t1_i()), 3000);  // at least every t2 row
}

// SELECT * FROM t1 LEFT JOIN t2 ON t1.n = t2.m WHERE t1.a < 100;
//   Hash Left Join rows=41383   (t1 restricted to rows=5500)
TEST_F(JoinSel, LeftJoinRestrictedOuter) {
  EXPECT_EQ(rows(JoinKind::kLeft, t1_n(5500), t2_m()), 41383);
}

// SELECT * FROM t1 FULL JOIN t2 ON t1.a = t2.b;   Hash Full Join rows=327000
// SELECT * FROM t1 FULL JOIN t2 ON t1.i = t2.j;   Hash Full Join rows=10000
TEST_F(JoinSel, FullJoins) {
  EXPECT_EQ(rows(JoinKind::kFull, t1_a(), t2_b()), 327000);
  // 3000 matches, raised to the larger side's 10000.
  EXPECT_EQ(rows(JoinKind::kFull, t1_i(), t2_j()), 10000);
  EXPECT_EQ(rows(JoinKind::kFull, t2_j(), t1_i()), 10000);
}

// --- Semi and anti joins ------------------------------------------------------------

// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.c = t1.a);   rows=10000
// SELECT * FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.c = t1.a);
//   Hash Anti Join rows=1
// t1.a's 505 values against t2.c's 700: every t1 row is taken to have a partner.
TEST_F(JoinSel, SemiAndAntiMcv) {
  EXPECT_EQ(rows(JoinKind::kSemi, t1_a(), t2_c(), TypeId::kInt4), 10000);
  EXPECT_DOUBLE_EQ(eqjoinsel(t1_a(), t2_c(), JoinKind::kSemi, TypeId::kInt4), 1.0);
  EXPECT_EQ(rows(JoinKind::kAnti, t1_a(), t2_c(), TypeId::kInt4), 1);
}

// SELECT * FROM t1 WHERE t1.a IN (SELECT b FROM t2);   Hash Join rows=5450
// The outer side has more values (505) than the inner (50): besides the matched MCVs,
// 0/455 of the rest.
TEST_F(JoinSel, SemiInListCrossWidth) {
  EXPECT_EQ(rows(JoinKind::kSemi, t1_a(), t2_b()), 5450);
}

// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.m = t1.n);       rows=5019
// SELECT * FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.m = t1.n);   rows=4981
// NULL outer rows never match: they count for the anti join.
TEST_F(JoinSel, SemiAndAntiWithNulls) {
  EXPECT_EQ(rows(JoinKind::kSemi, t1_n(), t2_m()), 5019);
  EXPECT_EQ(rows(JoinKind::kAnti, t1_n(), t2_m()), 4981);
}

// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.c = t1.a AND t2.b < 5);
//   rows=7950   (the inner side restricted to rows=300)
// SELECT * FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.c = t1.a AND t2.b = 7);
//   Hash Anti Join rows=7244   (inner rows=60)
// nd2 clamped to the inner rows; below the MCV count only the first nd2 MCVs match.
TEST_F(JoinSel, SemiAndAntiRestrictedInner) {
  EXPECT_EQ(rows(JoinKind::kSemi, t1_a(), t2_c(300), TypeId::kInt4), 7950);
  EXPECT_EQ(rows(JoinKind::kAnti, t1_a(), t2_c(60), TypeId::kInt4), 7244);
}

// SELECT * FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t2 WHERE t2.s2 = t1.s AND t2.j < 10);
//   Hash Anti Join rows=9350   (inner rows=9)
// SELECT * FROM t1 WHERE t1.s IN (SELECT s2 FROM t2);   Hash Join rows=4333
TEST_F(JoinSel, SemiAndAntiText) {
  EXPECT_EQ(rows(JoinKind::kAnti, t1_s(), t2_s2(9), TypeId::kText), 9350);
  EXPECT_EQ(rows(JoinKind::kSemi, t1_s(), t2_s2(), TypeId::kText), 4333);
}

// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.j = t1.i);   Hash Semi Join rows=3000
// SELECT * FROM t2 WHERE EXISTS (SELECT 1 FROM t1 WHERE t1.i = t2.j);   Hash Join rows=3000
// Unique keys, no MCVs: nd2/nd1 of the outer rows, or all of them.
TEST_F(JoinSel, SemiUniqueKeys) {
  EXPECT_EQ(rows(JoinKind::kSemi, t1_i(), t2_j()), 3000);
  EXPECT_NEAR(eqjoinsel(t1_i(), t2_j(), JoinKind::kSemi, TypeId::kInt8), 0.3, 1e-9 * 0.3);
  EXPECT_EQ(rows(JoinKind::kSemi, t2_j(), t1_i()), 3000);
}

// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t3 WHERE t3.k = t1.a);       rows=5000
// SELECT * FROM t1 WHERE NOT EXISTS (SELECT 1 FROM t3 WHERE t3.k = t1.a);   rows=5000
// t3's distinct count is the default 200: half of the outer rows.
TEST_F(JoinSel, SemiAndAntiDefaultDistinct) {
  EXPECT_EQ(rows(JoinKind::kSemi, t1_a(), t3_k(), TypeId::kInt4), 5000);
  EXPECT_EQ(rows(JoinKind::kAnti, t1_a(), t3_k(), TypeId::kInt4), 5000);
  EXPECT_DOUBLE_EQ(eqjoinsel(t1_a(), t3_k(), JoinKind::kSemi, TypeId::kInt4), 0.5);
}

// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t4 WHERE t4.x = t1.a);   Hash Semi Join rows=10000
// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.c = t1.a) AND t1.i < 3000;
//   rows=2999   (outer restricted to rows=2999)
TEST_F(JoinSel, SemiNearlyUniqueAndRestrictedOuter) {
  EXPECT_EQ(rows(JoinKind::kSemi, t1_a(), t4_x(), TypeId::kInt4), 10000);
  EXPECT_EQ(rows(JoinKind::kSemi, t1_a(2999), t2_c(), TypeId::kInt4), 2999);
}

// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 JOIN t4 ON t2.b = t4.y
//                               WHERE t2.j = t1.i AND t2.b < 5);   Merge Join rows=300
// The inner relation is the join t2 x t4 (rows=18000), but t2.j's own relation keeps
// 300 rows (b < 5): nd2 is clamped by the latter, 300 of t1.i's 10000 values.
TEST_F(JoinSel, SemiInnerJoinRelation) {
  const double sel = eqjoinsel(t1_i(), t2_j(300), JoinKind::kSemi, TypeId::kInt8, 18000);
  EXPECT_NEAR(sel, 0.03, 1e-9 * 0.03);
  EXPECT_EQ(join_rows(JoinKind::kSemi, kT1, 18000, sel), 300);
}

// A semi join never exceeds the inner join of the same inputs: an inner relation of
// 2 rows with 1 distinct value over 100 caps the heuristic's 0.5 at 2 x 1/100.
TEST_F(JoinSel, SemiCappedByInnerJoin) {
  const JoinVar outer = var(nullptr, TypeId::kInt4, 100);
  const JoinVar inner = var(nullptr, TypeId::kInt4, 1000, 2);  // 200 values, 2 rows kept
  // eqjoinsel_semi: nd2 clamped to 2 (no longer a default), nd1 = 100 > 2: 2/100.
  EXPECT_NEAR(eqjoinsel_semi(outer, inner, TypeId::kInt4, 2), 0.02, 1e-12);
  // Inner selectivity 1/200, times 2 inner rows: 0.01 wins.
  EXPECT_NEAR(eqjoinsel(outer, inner, JoinKind::kSemi, TypeId::kInt4), 0.01, 1e-12);
}

// --- <> and inequalities ------------------------------------------------------------

// SELECT * FROM t1 JOIN t2 ON t1.a <> t2.b;   Nested Loop rows=29673000
// SELECT * FROM t1 JOIN t2 ON t1.a < t2.c;    Nested Loop rows=10000000
// SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.b <> t1.a);
//   Nested Loop Semi Join rows=10000
TEST_F(JoinSel, NotEqualAndInequalities) {
  const double ne = neqjoinsel(t1_a(), t2_b(), JoinKind::kInner, TypeId::kInt8);
  EXPECT_EQ(join_rows(JoinKind::kInner, kT1, kT2, ne), 29673000);
  EXPECT_EQ(join_rows(JoinKind::kInner, kT1, kT2, ineqjoinsel()), 10000000);
  const double semi = neqjoinsel(t1_a(), t2_b(), JoinKind::kSemi, TypeId::kInt8);
  EXPECT_EQ(join_rows(JoinKind::kSemi, kT1, kT2, semi), 10000);
  // With NULLs: every non-NULL outer row differs from some inner value.
  EXPECT_NEAR(neqjoinsel(t1_n(), t2_m(), JoinKind::kAnti, TypeId::kInt8), 0.8, 1e-7);
}

// --- Semi/anti factors and calc_joinrel_size_estimate's clamps ----------------------

// EXISTS (SELECT 1 FROM t2 WHERE t2.j = t1.i): 30% of t1 matches, once each.
// EXISTS (SELECT 1 FROM t2 WHERE t2.c = t1.a): every t1 row matches, the 3000 x inner
// selectivity rows on average.
TEST_F(JoinSel, SemiAntiFactors) {
  const double jsel = eqjoinsel(t1_i(), t2_j(), JoinKind::kSemi, TypeId::kInt8);
  const double nsel = eqjoinsel(t1_i(), t2_j(), JoinKind::kInner, TypeId::kInt8);
  const SemiAntiFactors f = semi_anti_join_factors(jsel, nsel, kT2);
  EXPECT_NEAR(f.outer_match_frac, 0.3, 1e-12);
  EXPECT_EQ(f.match_count, 1.0);  // 1e-4 x 3000 / 0.3 = 1
  const double nsel2 = eqjoinsel_inner(t1_a(), t2_c(), TypeId::kInt4);
  const SemiAntiFactors g = semi_anti_join_factors(1.0, nsel2, kT2);
  EXPECT_DOUBLE_EQ(g.match_count, nsel2 * kT2);
  EXPECT_NEAR(g.match_count, 1030357.0 / kT1, 0.5 / kT1);
  EXPECT_EQ(semi_anti_join_factors(0, nsel2, kT2).match_count, 1.0);  // no division by 0
}

// The factors priced by join_cost.h give PostgreSQL's cost:
// EXPLAIN SELECT * FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.j = t1.i);
//   Hash Semi Join  (cost=92.50..329.12 rows=3000 width=30)
//     ->  Seq Scan on t1  (cost=0.00..177.00 rows=10000 width=30)
//     ->  Hash  (cost=55.00..55.00 rows=3000 width=8)   (Seq Scan on t2, 4096 buckets)
TEST_F(JoinSel, SemiFactorsPriceTheHashSemiJoin) {
  const double jsel = eqjoinsel(t1_i(), t2_j(), JoinKind::kSemi, TypeId::kInt8);
  const double nsel = eqjoinsel(t1_i(), t2_j(), JoinKind::kInner, TypeId::kInt8);
  const double rows = join_rows(JoinKind::kSemi, kT1, kT2, jsel);
  HashJoinInput in{.kind = JoinKind::kSemi,
                   .outer = {{0, 177, kT1}, 30},
                   .inner = {{0, 55, kT2}, 8},
                   .hash_quals = {0, 0.0025},
                   .join_quals = {0, 0.0025},
                   .semi = semi_anti_join_factors(jsel, nsel, kT2),
                   .rows = rows};
  const CostSettings cs;
  const HashJoinWorkspace ws = initial_cost_hashjoin(cs, in);
  const double bucket = hash_bucket_fraction(kT2, ws.virtual_buckets(), 0, 1.0 / kT2);
  const PathCost c = final_cost_hashjoin(cs, in, ws, {.bucket_size = bucket});
  EXPECT_NEAR(c.startup, 92.50, 0.005);
  EXPECT_NEAR(c.total, 329.12, 0.005);
  EXPECT_EQ(rows, 3000);
}

TEST_F(JoinSel, JoinRowsClamps) {
  EXPECT_EQ(join_rows(JoinKind::kInner, 10, 10, 0.001), 1);  // 0.1 rows: at least one
  EXPECT_EQ(join_rows(JoinKind::kLeft, 10, 10, 0.001), 10);
  EXPECT_EQ(join_rows(JoinKind::kRight, 10, 50, 0.001), 10);  // preserved side first
  EXPECT_EQ(join_rows(JoinKind::kFull, 10, 50, 0.001), 50);
  EXPECT_EQ(join_rows(JoinKind::kLeft, 1000, 10, 0.001, 0.25), 250);  // pushed-down quals
  EXPECT_EQ(join_rows(JoinKind::kAnti, 1000, 10, 0.3, 0.5), 350);
  EXPECT_EQ(join_rows(JoinKind::kSemi, 1000, 10, 0.3), 300);
  EXPECT_EQ(join_rows(JoinKind::kInner, 1001, 1, 0.5), 500);  // rint: 500.5 to even
}

}  // namespace
}  // namespace tp
