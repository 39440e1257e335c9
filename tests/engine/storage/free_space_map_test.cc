// The free space map as heap inserts use it (engine/storage/free_space_map.h), and rows
// placed by it: tables of variable-width rows take PostgreSQL 15's page counts.
#include "engine/storage/free_space_map.h"

#include <gtest/gtest.h>

#include "engine/session/session.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

TEST(FreeSpaceMap, CategoriesRoundDownWhatIsThereAndUpWhatIsNeeded) {
  EXPECT_EQ(FreeSpaceMap::avail_to_category(31), 0);
  EXPECT_EQ(FreeSpaceMap::avail_to_category(32), 1);
  EXPECT_EQ(FreeSpaceMap::avail_to_category(8159), 254);
  EXPECT_EQ(FreeSpaceMap::avail_to_category(8160), 255);  // an empty page
  EXPECT_EQ(FreeSpaceMap::needed_to_category(1), 1);
  EXPECT_EQ(FreeSpaceMap::needed_to_category(32), 1);
  EXPECT_EQ(FreeSpaceMap::needed_to_category(33), 2);
  EXPECT_EQ(FreeSpaceMap::needed_to_category(9000), 255);
}

TEST(FreeSpaceMap, FindsRecordedRoomOnlyWhereItIsCertain) {
  FreeSpaceMap fsm;
  // Block 0 left with 100 bytes (category 3: 96 bytes certain).
  EXPECT_EQ(fsm.record_and_get(0, 100, 200), kInvalidBlock);
  // Leaving block 1 with 10 bytes: a 96-byte row fits block 0, a 97-byte one does not.
  EXPECT_EQ(fsm.record_and_get(1, 10, 97), kInvalidBlock);
  EXPECT_EQ(fsm.record_and_get(1, 10, 96), 0u);
}

TEST(FreeSpaceMap, SearchesRightOfTheLastPageItGaveThenWraps) {
  FreeSpaceMap fsm;
  for (BlockNumber b = 0; b < 6; ++b) EXPECT_EQ(fsm.record_and_get(b, 500, 1000), kInvalidBlock);
  // Each search starts one past the last page handed out: 0, then 1, 2, ...
  EXPECT_EQ(fsm.record_and_get(6, 0, 400), 0u);
  EXPECT_EQ(fsm.record_and_get(0, 500, 400), 1u);
  EXPECT_EQ(fsm.record_and_get(1, 500, 400), 2u);
  // Pages 2..5 full now, only 0 and 1 have room: the search wraps around to 0.
  for (BlockNumber b = 2; b < 6; ++b) fsm.record_and_get(b, 0, 8000);
  EXPECT_EQ(fsm.record_and_get(5, 0, 400), 0u);
  EXPECT_EQ(fsm.record_and_get(0, 0, 400), 1u);
}

TEST(FreeSpaceMap, EachFsmPageCoversItsOwnBlocks) {
  FreeSpaceMap fsm;
  const BlockNumber second = FreeSpaceMap::kLeavesPerPage;  // the first block of FSM page 1
  EXPECT_EQ(fsm.record_and_get(3, 4000, 8000), kInvalidBlock);
  // Leaving a block of FSM page 1 searches that page only: block 3 is not offered.
  EXPECT_EQ(fsm.record_and_get(second + 5, 0, 100), kInvalidBlock);
  EXPECT_EQ(fsm.record_and_get(7, 0, 100), 3u);
}

// Loads whose rows vary in width take the pages PostgreSQL 15.18 gives the same
// statements (pg_relation_size / 8192 after each script, in one session): rows that did
// not fit where the table ended go back to earlier pages with room.
TEST(HeapPlacement, VariableWidthLoadsTakePostgresPageCounts) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("create table f1 (id int, c text)");
  s.execute(
      "insert into f1 select i, repeat('x', 10 + (i*7919) % 90) from generate_series(1, 20000) i");
  s.execute("create table f2 (id int, c varchar(300), d numeric) with (fillfactor = 70)");
  s.execute(
      "insert into f2 select i, repeat('y', 20 + (i*31) % 180), i * 1.5 from generate_series(1, "
      "20000) i");
  s.execute("create table f3 (a int, c text)");
  s.execute(
      "insert into f3 select i, case when i % 40 = 0 then repeat('z', 1500) else 'w' || (i % 7) "
      "end from generate_series(1, 20000) i");
  s.execute("create table f4 (a int, c text)");
  s.execute("insert into f4 select i, repeat('a', (i * 37) % 300) from generate_series(1, 3000) i");
  s.execute("insert into f4 select i, repeat('b', (i * 53) % 200) from generate_series(1, 3000) i");
  const auto pages = [&](const char* t) {
    return s.execute(std::string("select pg_relation_size('") + t + "') / 8192").rows.at(0).at(0);
  };
  EXPECT_EQ(pages("f1"), "224");
  EXPECT_EQ(pages("f2"), "546");
  EXPECT_EQ(pages("f3"), "181");
  EXPECT_EQ(pages("f4"), "120");
  // Every row is there once, whichever page it went to.
  EXPECT_EQ(s.execute("select count(*), sum(id), max(length(c)) from f2").rows.at(0),
            (std::vector<std::string>{"20000", "200010000", "199"}));
  EXPECT_EQ(s.execute("select count(*), sum(a) from f4").rows.at(0),
            (std::vector<std::string>{"6000", "9003000"}));
}

// An INSERT that fails after rows went to a page read back (the committed last page)
// leaves the table as it was.
TEST(HeapPlacement, AFailedInsertLeavesPagesItReadBackAsTheyWere) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("create table g (a int, c text)");
  s.execute("insert into g select i, repeat('a', (i * 37) % 300) from generate_series(1, 3000) i");
  const auto state = [&] {
    std::vector<std::string> r =
        s.execute("select count(*), sum(a), sum(length(c)) from g").rows.at(0);
    r.push_back(s.execute("select pg_relation_size('g')").rows.at(0).at(0));
    return r;
  };
  const std::vector<std::string> before = state();
  EXPECT_THROW(s.execute("insert into g select i, repeat('b', (i * 53) % 200) || (10 / (2500 - i)) "
                         "from generate_series(1, 3000) i"),
               Error);
  EXPECT_EQ(state(), before);
  s.execute("insert into g values (1, 'x')");
  EXPECT_EQ(s.execute("select count(*) from g").rows.at(0).at(0), "3001");
}

}  // namespace
}  // namespace tp
