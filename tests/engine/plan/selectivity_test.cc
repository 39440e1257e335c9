// Hand-worked selectivities. The fixture column has the histogram 0, 10, ..,
// 100 (10 bins), no MCVs, null_frac 0.1 and n_distinct -0.5 over 1,000 rows,
// so get_variable_numdistinct = 500 and a non-MCV value's share is
// eq_selec = 1/500 = 0.002. The histogram covers 1 - 0.1 = 0.9 of the rows.
#include "engine/plan/selectivity.h"

#include <gtest/gtest.h>

#include "engine/plan/btree_qual_summary.h"

namespace tp {
namespace {

constexpr double kNonNull = 1.0 - static_cast<double>(0.1f);  // float4 null_frac

enum { kH = 0, kM = 1, kNostats = 2, kUnique = 3 };

class Sel : public ::testing::Test {
 protected:
  void SetUp() override {
    hist_.valid = true;
    hist_.null_frac = 0.1f;
    hist_.n_distinct = -0.5f;
    for (int i = 0; i <= 100; i += 10) hist_.histogram.push_back(i);
    mcv_ = hist_;
    mcv_.mcv_values = {7, 8};
    mcv_.mcv_freqs = {0.2f, 0.1f};
    rel_.tuples = 1000;
    rel_.columns.resize(4);
    rel_.columns[kH].stats = &hist_;
    rel_.columns[kM].stats = &mcv_;
    rel_.columns[kUnique].stats = &hist_;
    rel_.columns[kUnique].unique = true;
  }
  double sel(const Clause& e) { return clause_selectivity(rel_, e); }
  double sel(std::vector<Clause> list) { return clauselist_selectivity(rel_, list); }

  ColumnStats hist_, mcv_;
  RelationStatsView rel_;
};

TEST_F(Sel, DefaultsWithoutStatistics) {
  EXPECT_DOUBLE_EQ(sel(Clause::cmp(kNostats, CmpOp::kEq, 5)), 0.005);  // 1 / 200
  EXPECT_DOUBLE_EQ(sel(Clause::cmp(kNostats, CmpOp::kNe, 5)), 0.995);
  EXPECT_EQ(sel(Clause::cmp(kNostats, CmpOp::kLt, 5)), kDefaultIneqSel);
  EXPECT_EQ(sel(Clause::cmp(kNostats, CmpOp::kGe, 5)), kDefaultIneqSel);
  // Both sides of the range punted (exactly 1/3): DEFAULT_RANGE_INEQ_SEL.
  EXPECT_EQ(sel(Clause::between(kNostats, 1, 5)), kDefaultRangeIneqSel);
  EXPECT_EQ(sel({Clause::cmp(kNostats, CmpOp::kGt, 1), Clause::cmp(kNostats, CmpOp::kLt, 5)}),
            0.005);
  EXPECT_DOUBLE_EQ(sel(Clause::is_null(kNostats)), 0.005);
  EXPECT_DOUBLE_EQ(sel(Clause::is_null(kNostats, true)), 0.995);
  // A table of 50 rows without statistics: about as many values as rows.
  RelationStatsView small;
  small.tuples = 50;
  small.columns.resize(1);
  EXPECT_DOUBLE_EQ(clause_selectivity(small, Clause::cmp(0, CmpOp::kEq, 1)), 1.0 / 50);
}

TEST_F(Sel, EqualityMcvAndNonMcv) {
  EXPECT_DOUBLE_EQ(sel(Clause::cmp(kM, CmpOp::kEq, 7)), 0.2f);
  // (1 - 0.3 - 0.1) / (500 - 2 MCVs) = 0.6 / 498
  const double non_mcv =
      (1.0 - (static_cast<double>(0.2f) + static_cast<double>(0.1f)) - static_cast<double>(0.1f)) /
      498;
  EXPECT_NEAR(sel(Clause::cmp(kM, CmpOp::kEq, 9)), non_mcv, 1e-12);
  // <> 7 = 1 - 0.2 - null_frac 0.1 = 0.7
  EXPECT_NEAR(sel(Clause::cmp(kM, CmpOp::kNe, 7)), 0.7, 1e-7);
  // No MCVs: 0.9 / 500
  EXPECT_NEAR(sel(Clause::cmp(kH, CmpOp::kEq, 33)), kNonNull / 500, 1e-12);
  // A unique index: one row of 1,000.
  EXPECT_DOUBLE_EQ(sel(Clause::cmp(kUnique, CmpOp::kEq, 33)), 0.001);
  // NULL constants match nothing, even with <>.
  EXPECT_EQ(sel(Clause::cmp(kH, CmpOp::kEq, std::nullopt)), 0.0);
  EXPECT_EQ(sel(Clause::cmp(kH, CmpOp::kNe, std::nullopt)), 0.0);
  EXPECT_EQ(sel(Clause::cmp(kH, CmpOp::kLt, std::nullopt)), 0.0);
}

// a < 55: bound 60 is the first the operator fails on (i = 6, bin 50..60),
// binfrac 0.5, histfrac (5 + 0.5)/10 = 0.55; "<" excludes the value itself:
// 0.55 - 0.002 = 0.548; times the 0.9 non-null share.
TEST_F(Sel, HistogramInterpolation) {
  EXPECT_NEAR(sel(Clause::cmp(kH, CmpOp::kLt, 55)), kNonNull * 0.548, 1e-12);
  EXPECT_NEAR(sel(Clause::cmp(kH, CmpOp::kLe, 55)), kNonNull * 0.55, 1e-12);
  EXPECT_NEAR(sel(Clause::cmp(kH, CmpOp::kGt, 55)), kNonNull * 0.45, 1e-12);
  EXPECT_NEAR(sel(Clause::cmp(kH, CmpOp::kGe, 55)), kNonNull * 0.452, 1e-12);
  // First bin (i = 1): histfrac 0.05 + 0.002 * (1 - 0.5) - 0.002 = 0.049.
  EXPECT_NEAR(sel(Clause::cmp(kH, CmpOp::kLt, 5)), kNonNull * 0.049, 1e-12);
  // Below the histogram: histfrac 0, clamped to a hundredth of a bin (0.001).
  EXPECT_NEAR(sel(Clause::cmp(kH, CmpOp::kLt, -100)), kNonNull * 0.001, 1e-12);
  EXPECT_NEAR(sel(Clause::cmp(kH, CmpOp::kGt, 1000)), kNonNull * 0.001, 1e-12);
  // With the index's actual min/max the clamp is only [0, 1].
  // It is read once, and only when a histogram search reaches an end bound: an
  // equality or a bound inside the histogram never descends the index.
  int reads = 0;
  rel_.columns[kH].read_actual_with([&reads] {
    ++reads;
    return ActualRange{.min = Datum(0), .max = Datum(100), .bytes = nullptr};
  });
  sel(Clause::cmp(kH, CmpOp::kEq, 55));
  sel(Clause::cmp(kH, CmpOp::kLt, 55));
  EXPECT_EQ(reads, 0);
  EXPECT_EQ(sel(Clause::cmp(kH, CmpOp::kLt, -100)), 0.0);
  EXPECT_EQ(sel(Clause::cmp(kH, CmpOp::kGt, 1000)), 0.0);
  EXPECT_EQ(reads, 1);
}

TEST_F(Sel, HistogramWithMcvs) {
  // MCVs 7 (0.2) and 8 (0.1) satisfy "< 55": 0.3 directly, plus the histogram
  // share of the remaining 1 - 0.1 - 0.3 = 0.6; non-MCV distinct = 500 - 2.
  const double eq = 1.0 / 498;
  const double rest = 1.0 - static_cast<double>(0.1f) - (static_cast<double>(0.2f) + 0.1f);
  EXPECT_NEAR(sel(Clause::cmp(kM, CmpOp::kLt, 55)),
              rest * (0.55 - eq) + (static_cast<double>(0.2f) + 0.1f), 1e-12);
  // a > 7 lands in the first bin (binfrac 0.7), which is narrower by one
  // value: histfrac = 0.07 + (1/498) * 0.3; MCV 8 (0.1) satisfies "> 7".
  EXPECT_NEAR(sel(Clause::cmp(kM, CmpOp::kGt, 7)), rest * (1.0 - (0.07 + 0.3 / 498)) + 0.1f, 1e-12);
}

// a >= 20 AND a <= 40 estimated as a pair:
//  a >= 20: bin 10..20 with val = high -> binfrac 1, histfrac 0.2 - 0.002 =
//           0.198, flipped: 0.802 -> 0.7218
//  a <= 40: bin 40..50 with val = low -> binfrac 0, histfrac 0.4 -> 0.36
//  0.36 + 0.7218 - 1 + null_frac 0.1 = 0.1818
TEST_F(Sel, RangePairs) {
  const double lo = kNonNull * 0.802, hi = kNonNull * 0.4;
  const double want = hi + lo - 1.0 + static_cast<double>(0.1f);
  EXPECT_NEAR(sel(Clause::between(kH, 20, 40)), want, 1e-12);
  EXPECT_NEAR(sel({Clause::cmp(kH, CmpOp::kLe, 40), Clause::cmp(kH, CmpOp::kGe, 20)}), want, 1e-12);
  // A third bound keeps the tighter one on its side (a <= 90 is looser).
  EXPECT_NEAR(sel({Clause::cmp(kH, CmpOp::kLe, 40), Clause::cmp(kH, CmpOp::kGe, 20),
                   Clause::cmp(kH, CmpOp::kLe, 90)}),
              want, 1e-12);
  // Other clauses multiply: * 0.2 for the MCV 7 on the other column.
  EXPECT_NEAR(sel({Clause::between(kH, 20, 40), Clause::cmp(kM, CmpOp::kEq, 7)}), want * 0.2f,
              1e-12);
  // An impossible range (a > 60 AND a < 40) is very negative: 0.36 + 0.3582
  // - 1 + 0.1 = -0.1818 < -0.01 -> DEFAULT_RANGE_INEQ_SEL.
  EXPECT_EQ(sel({Clause::cmp(kH, CmpOp::kGt, 60), Clause::cmp(kH, CmpOp::kLt, 40)}), 0.005);
  // An empty but tight range (a > 50 AND a < 50) is roundoff: 1e-10.
  EXPECT_EQ(sel({Clause::cmp(kH, CmpOp::kGt, 50), Clause::cmp(kH, CmpOp::kLt, 50)}) <= 1e-3, true);
}

TEST_F(Sel, OrNotAndInLists) {
  // OR: s1 + s2 - s1*s2.
  EXPECT_DOUBLE_EQ(sel(Clause::or_of({Clause::cmp(kNostats, CmpOp::kEq, 1),
                                      Clause::cmp(kNostats, CmpOp::kEq, 2)})),
                   0.005 + 0.005 - 0.005 * 0.005);
  // IN: disjoint elements add up.
  EXPECT_DOUBLE_EQ(sel(Clause::in(kNostats, {1, 2})), 0.01);
  EXPECT_DOUBLE_EQ(sel(Clause::in(kM, {7, 8})), static_cast<double>(0.2f) + 0.1f);
  // NOT IN multiplies per element and uses 1 + sum(s - 1) when in range:
  // 1 + (0.995 - 1) + (0.995 - 1) = 0.99.
  EXPECT_NEAR(sel(Clause::in(kNostats, {1, 2}, true)), 0.99, 1e-12);
  // NOT is pushed into the operators: NOT (a < 5) is a >= 5.
  EXPECT_EQ(sel(Clause::not_of(Clause::cmp(kNostats, CmpOp::kLt, 5))), kDefaultIneqSel);
  EXPECT_NEAR(sel(Clause::not_of(Clause::cmp(kH, CmpOp::kLt, 55))), kNonNull * 0.452, 1e-12);
  // NOT (a = 1 AND b = 2) is a <> 1 OR b <> 2.
  EXPECT_NEAR(sel(Clause::not_of(Clause::and_of(
                  {Clause::cmp(kNostats, CmpOp::kEq, 1), Clause::cmp(kNostats, CmpOp::kEq, 2)}))),
              0.995 + 0.995 - 0.995 * 0.995, 1e-12);
  // IS NULL with statistics is the null fraction.
  EXPECT_DOUBLE_EQ(sel(Clause::is_null(kH)), 0.1f);
  EXPECT_DOUBLE_EQ(sel(Clause::not_of(Clause::is_null(kH))), 1.0 - static_cast<double>(0.1f));
}

TEST(Normalize, BetweenNotAndFlattening) {
  Clause nb = normalize(Clause::between(0, 1, 5, true));
  ASSERT_EQ(nb.kind, Clause::Kind::kOr);
  EXPECT_EQ(nb.args[0].op, CmpOp::kLt);
  EXPECT_EQ(nb.args[1].op, CmpOp::kGt);
  Clause n = normalize(Clause::not_of(Clause::or_of(
      {Clause::cmp(0, CmpOp::kLt, 5), Clause::not_of(Clause::cmp(1, CmpOp::kEq, 3))})));
  ASSERT_EQ(n.kind, Clause::Kind::kAnd);
  EXPECT_EQ(n.args[0].op, CmpOp::kGe);
  EXPECT_EQ(n.args[1].op, CmpOp::kEq);  // NOT NOT
  std::vector<Clause> list = restriction_clauses(
      Clause::and_of({Clause::between(0, 1, 5),
                      Clause::and_of({Clause::cmp(1, CmpOp::kEq, 2), Clause::boolean(true)})}));
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].op, CmpOp::kGe);
  EXPECT_EQ(list[1].op, CmpOp::kLe);
  EXPECT_EQ(list[2].op, CmpOp::kEq);
  EXPECT_EQ(commute(CmpOp::kLt), CmpOp::kGt);
  EXPECT_STREQ(cmp_op_name(CmpOp::kNe), "<>");
}

TEST(QualCostTest, OperatorsInListsAndBetween) {
  CostSettings cs;
  auto per_tuple = [&](std::vector<Clause> l) { return qual_cost(cs, l).per_tuple; };
  EXPECT_DOUBLE_EQ(per_tuple({Clause::cmp(0, CmpOp::kEq, 1), Clause::cmp(1, CmpOp::kLt, 2),
                              Clause::cmp(1, CmpOp::kGt, 0)}),
                   0.0075);
  EXPECT_DOUBLE_EQ(per_tuple({Clause::between(0, 1, 2)}), 0.005);          // two operators
  EXPECT_DOUBLE_EQ(per_tuple({Clause::in(0, {1, 2, 3, 4, 5})}), 0.00625);  // 5 * 0.5 * 0.0025
  std::vector<Clause> big = {Clause::in(0, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})};
  EXPECT_DOUBLE_EQ(qual_cost(cs, big).per_tuple, 0.005);  // hashed: hash + compare
  EXPECT_DOUBLE_EQ(qual_cost(cs, big).startup, 0.025);    // hash 10 elements
  EXPECT_EQ(per_tuple({Clause::is_null(0)}), 0.0);
}

TEST_F(Sel, BtreeBoundaryQuals) {
  // Index on (H, M): H = 50 AND M > 7 -> both are boundary quals.
  std::vector<Clause> eq_then_range = {Clause::cmp(kM, CmpOp::kGt, 7),
                                       Clause::cmp(kH, CmpOp::kEq, 50)};
  BtreeQuals q = summarize_btree_quals(rel_, {kH, kM}, false, eq_then_range);
  EXPECT_EQ(q.operator_count, 2);
  EXPECT_DOUBLE_EQ(q.boundary_selectivity, q.index_selectivity);
  // H > 50 AND M = 7 -> only H > 50 bounds the scan.
  std::vector<Clause> range_then_eq = {Clause::cmp(kH, CmpOp::kGt, 50),
                                       Clause::cmp(kM, CmpOp::kEq, 7)};
  BtreeQuals r = summarize_btree_quals(rel_, {kH, kM}, false, range_then_eq);
  EXPECT_DOUBLE_EQ(r.boundary_selectivity, sel(Clause::cmp(kH, CmpOp::kGt, 50)));
  EXPECT_LT(r.index_selectivity, r.boundary_selectivity);
  EXPECT_FALSE(r.unique_match);
  // Unique index on one column with '=': one index tuple.
  std::vector<Clause> eq = {Clause::cmp(kUnique, CmpOp::kEq, 5)};
  EXPECT_TRUE(summarize_btree_quals(rel_, {kUnique}, true, eq).unique_match);
  std::vector<Clause> in = {Clause::in(kUnique, {1, 2, 3})};
  BtreeQuals qi = summarize_btree_quals(rel_, {kUnique}, true, in);
  EXPECT_FALSE(qi.unique_match);  // an IN list is several scans
  EXPECT_EQ(qi.sa_scans, 3);
  EXPECT_EQ(qi.all_sa_scans, 3);
  EXPECT_FALSE(is_btree_indexable(Clause::cmp(kH, CmpOp::kNe, 1), kH));
  EXPECT_FALSE(is_btree_indexable(Clause::cmp(kH, CmpOp::kEq, 1), kM));
}

}  // namespace
}  // namespace tp
