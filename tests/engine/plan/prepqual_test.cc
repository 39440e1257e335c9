// find_duplicate_ors (PostgreSQL's prepqual.c): the sub-clauses every arm of an OR shares
// come out in front of it, in the order the shortest arm holds them.
#include <gtest/gtest.h>

#include "engine/plan/prepqual.h"

namespace tp {
namespace {

Clause ge(int col, int64_t v) {
  return Clause::cmp(col, CmpOp::kGe, v);
}
Clause le(int col, int64_t v) {
  return Clause::cmp(col, CmpOp::kLe, v);
}
Clause eq(int col, int64_t v) {
  return Clause::cmp(col, CmpOp::kEq, v);
}

TEST(FindDuplicateOrs, ACommonClauseMovesInFrontOfTheOr) {
  // (v >= 1 AND v <= 3) OR (v >= 1 AND v <= 5)  ->  v >= 1 AND (v <= 3 OR v <= 5)
  Clause w =
      Clause::or_of({Clause::and_of({ge(0, 1), le(0, 3)}), Clause::and_of({ge(0, 1), le(0, 5)})});
  Clause got = find_duplicate_ors(w);
  Clause want = Clause::and_of({ge(0, 1), Clause::or_of({le(0, 3), le(0, 5)})});
  EXPECT_TRUE(same_clause(got, want));
}

TEST(FindDuplicateOrs, EqualArmsBecomeOne) {
  // BETWEEN SYMMETRIC 2 AND 2 as the parser writes it.
  Clause arm = Clause::and_of({ge(0, 2), le(0, 2)});
  EXPECT_TRUE(same_clause(find_duplicate_ors(Clause::or_of({arm, arm})), arm));
}

TEST(FindDuplicateOrs, AnArmThatIsAllWinnersLeavesTheWinners) {
  // (a = 1 AND b = 2) OR a = 1  ->  a = 1
  Clause w = Clause::or_of({Clause::and_of({eq(0, 1), eq(1, 2)}), eq(0, 1)});
  EXPECT_TRUE(same_clause(find_duplicate_ors(w), eq(0, 1)));
}

TEST(FindDuplicateOrs, NothingSharedLeavesTheOr) {
  Clause w = Clause::or_of({Clause::and_of({eq(0, 1), eq(1, 2)}), eq(0, 3)});
  EXPECT_TRUE(same_clause(find_duplicate_ors(w), w));
}

TEST(FindDuplicateOrs, WorksInsideTopLevelAndsAndFlattensThem) {
  // c = 9 AND ((a = 1 AND b = 2) OR (a = 1 AND b = 3))  ->  c = 9 AND a = 1 AND (b = 2 OR b = 3)
  Clause w = Clause::and_of({eq(2, 9), Clause::or_of({Clause::and_of({eq(0, 1), eq(1, 2)}),
                                                      Clause::and_of({eq(0, 1), eq(1, 3)})})});
  Clause want = Clause::and_of({eq(2, 9), eq(0, 1), Clause::or_of({eq(1, 2), eq(1, 3)})});
  EXPECT_TRUE(same_clause(find_duplicate_ors(w), want));
}

TEST(FindDuplicateOrs, SameClauseComparesEveryField) {
  EXPECT_FALSE(same_clause(eq(0, 1), eq(0, 2)));
  EXPECT_FALSE(same_clause(eq(0, 1), eq(1, 1)));
  EXPECT_FALSE(same_clause(eq(0, 1), Clause::cmp(0, CmpOp::kNe, 1)));
  EXPECT_FALSE(same_clause(Clause::in(0, {1, 2}), Clause::in(0, {1, 2}, /*negated=*/true)));
  EXPECT_TRUE(same_clause(Clause::in(0, {1, 2}), Clause::in(0, {1, 2})));
}

}  // namespace
}  // namespace tp
