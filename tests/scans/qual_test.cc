// compile_qual: the planner's bound clauses (tp::Clause) evaluated on real heap tuples,
// int4 and int8 columns, with SQL's NULL rules for constants (columns hold no NULLs).
#include "scans/qual.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/core/clause.h"
#include "engine/core/datum_ops.h"
#include "engine/core/heap_tuple.h"

namespace tp::scans {
namespace {

class QualTest : public ::testing::Test {
 protected:
  // A tuple of (a int4, b int8).
  std::vector<char> tuple(int64_t a, int64_t b) {
    std::vector<char> t(layout_.tuple_size());
    const int64_t values[] = {a, b};
    layout_.form(values, Tid{0, 1}, t.data());
    return t;
  }
  bool passes(const std::vector<Clause>& clauses, int64_t a, int64_t b) {
    return compile_qual(clauses, layout_).evaluate(tuple(a, b).data());
  }

  HeapTupleLayout layout_{{{"a", ColumnType::kInt4}, {"b", ColumnType::kInt8}}};
};

TEST_F(QualTest, ComparisonsOnBothWidths) {
  const int64_t big = int64_t(1) << 40;
  EXPECT_TRUE(passes({Clause::cmp(0, CmpOp::kLt, 5)}, -3, 0));
  EXPECT_FALSE(passes({Clause::cmp(0, CmpOp::kLt, 5)}, 5, 0));
  EXPECT_TRUE(passes({Clause::cmp(1, CmpOp::kGe, big)}, 0, big));
  EXPECT_FALSE(passes({Clause::cmp(1, CmpOp::kGt, big)}, 0, big));
  EXPECT_TRUE(passes({Clause::cmp(1, CmpOp::kNe, 7)}, 7, 8));
}

TEST_F(QualTest, ListIsAnd) {
  std::vector<Clause> both = {Clause::cmp(0, CmpOp::kGe, 1), Clause::cmp(1, CmpOp::kLe, 10)};
  EXPECT_TRUE(passes(both, 1, 10));
  EXPECT_FALSE(passes(both, 0, 10));
  EXPECT_FALSE(passes(both, 1, 11));
  EXPECT_TRUE(passes({}, 0, 0));  // no clauses: every row
}

TEST_F(QualTest, BetweenInOrNotAndConstants) {
  EXPECT_TRUE(passes({Clause::between(0, 3, 5)}, 5, 0));
  EXPECT_FALSE(passes({Clause::between(0, 3, 5, /*negated=*/true)}, 4, 0));
  EXPECT_TRUE(passes({Clause::in(1, {9, 2, 2, 7})}, 0, 7));
  EXPECT_FALSE(passes({Clause::in(1, {9, 2, 7}, /*negated=*/true)}, 0, 2));
  EXPECT_TRUE(passes(
      {Clause::or_of({Clause::cmp(0, CmpOp::kEq, 1), Clause::cmp(0, CmpOp::kEq, 2)})}, 2, 0));
  EXPECT_TRUE(passes({Clause::not_of(Clause::cmp(0, CmpOp::kEq, 1))}, 2, 0));
  EXPECT_FALSE(passes({Clause::boolean(false)}, 0, 0));
  EXPECT_TRUE(passes({Clause::boolean(true)}, 0, 0));
}

TEST_F(QualTest, NullConstantsFollowSql) {
  EXPECT_FALSE(passes({Clause::cmp(0, CmpOp::kEq, std::nullopt)}, 0, 0));  // a = NULL
  EXPECT_FALSE(passes({Clause::cmp(0, CmpOp::kNe, std::nullopt)}, 0, 0));  // a <> NULL
  EXPECT_TRUE(passes({Clause::in(0, {std::nullopt, 4})}, 4, 0));           // a IN (NULL, 4)
  EXPECT_FALSE(passes({Clause::in(0, {std::nullopt, 4}, true)}, 5, 0));    // NOT IN (NULL, 4)
  EXPECT_FALSE(passes({Clause::is_null(0)}, 0, 0));
  EXPECT_TRUE(passes({Clause::is_null(0, /*negated=*/true)}, 0, 0));
}

}  // namespace
}  // namespace tp::scans

namespace tp::scans {
namespace {

// A parameterized Bitmap Heap Scan's recheck over a numeric key: the row's value against
// the parameter's by the type's order (1.50 = 1.5), never true for a NULL on either side.
TEST(ParamEqualTest, ComparesByTheKeyTypesOrder) {
  CompiledClause c;
  c.kind = CompiledClause::Kind::kParamCompare;
  c.column = 0;
  c.type = TypeId::kNumeric;
  const OwnedDatum row = datum_in(TypeId::kNumeric, -1, "1.50", 0);
  const OwnedDatum same = datum_in(TypeId::kNumeric, -1, "1.5", 0);
  const OwnedDatum other = datum_in(TypeId::kNumeric, -1, "2", 0);
  const Datum values[] = {row.datum()};
  bool isnull[] = {false};
  EvalState st{nullptr, 0};
  c.value = int64_t(same.datum());
  EXPECT_EQ(c.evaluate_values(values, isnull, st), Truth::kTrue);
  c.value = int64_t(other.datum());
  EXPECT_EQ(c.evaluate_values(values, isnull, st), Truth::kFalse);
  c.negated = true;  // the parameter is NULL
  EXPECT_NE(c.evaluate_values(values, isnull, st), Truth::kTrue);
  c.negated = false;
  isnull[0] = true;
  EXPECT_NE(c.evaluate_values(values, isnull, st), Truth::kTrue);
}

// An inequality's recheck (`key < $n`): the row's value against the parameter's by the
// clause's operator, in the type's order (1.50 < 2, not 1.50 < 1.5).
TEST(ParamEqualTest, InequalitiesCompareByTheirOperator) {
  CompiledClause c;
  c.kind = CompiledClause::Kind::kParamCompare;
  c.op = CmpOp::kLt;
  c.type = TypeId::kNumeric;
  const OwnedDatum row = datum_in(TypeId::kNumeric, -1, "1.50", 0);
  const OwnedDatum same = datum_in(TypeId::kNumeric, -1, "1.5", 0);
  const OwnedDatum above = datum_in(TypeId::kNumeric, -1, "2", 0);
  const Datum values[] = {row.datum()};
  bool isnull[] = {false};
  EvalState st{nullptr, 0};
  c.value = int64_t(same.datum());
  EXPECT_EQ(c.evaluate_values(values, isnull, st), Truth::kFalse);
  c.op = CmpOp::kLe;
  EXPECT_EQ(c.evaluate_values(values, isnull, st), Truth::kTrue);
  c.op = CmpOp::kLt;
  c.value = int64_t(above.datum());
  EXPECT_EQ(c.evaluate_values(values, isnull, st), Truth::kTrue);
  c.op = CmpOp::kGe;
  EXPECT_EQ(c.evaluate_values(values, isnull, st), Truth::kFalse);
}

}  // namespace
}  // namespace tp::scans
