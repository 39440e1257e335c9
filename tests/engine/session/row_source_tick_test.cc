// Issue 29: INSERT checks for a cancel in the row source's tick, so the tick's spacing
// bounds how long a cancel waits (it used to come every 65,536 rows: many seconds for
// an indexed table with a small pool and direct I/O). Counted, not timed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/session/row_source.h"
#include "engine/sql/parser.h"

namespace tp {
namespace {

std::vector<uint64_t> ticks_of(const std::string& sql, uint64_t* rows) {
  sql::Statement st = sql::parse_statement(sql);
  const auto& select = std::get<sql::Select>(st);
  std::vector<uint64_t> ticks;
  RowSourceContext ctx;
  ctx.tick = [&](uint64_t so_far, uint64_t) { ticks.push_back(so_far); };
  *rows = 0;
  produce_rows(select, ctx, [&](const std::vector<Value>&) { ++*rows; });
  return ticks;
}

TEST(RowSourceTick, EveryThousandAndTwentyFourRowsWhateverTheSource) {
  const std::vector<uint64_t> expected = {1024, 2048, 3072, 4096};
  uint64_t rows = 0;
  EXPECT_EQ(ticks_of("SELECT g FROM generate_series(1, 5000) g", &rows), expected);
  EXPECT_EQ(rows, 5000u);
  EXPECT_EQ(ticks_of("SELECT generate_series(1, 5000)", &rows), expected);
  EXPECT_EQ(rows, 5000u);
  // Rows that WHERE filters away count too: a cancel is not starved by a filter.
  EXPECT_EQ(ticks_of("SELECT g FROM generate_series(1, 5000) g WHERE g < 0", &rows), expected);
  EXPECT_EQ(rows, 0u);
  EXPECT_EQ(RowSourceContext::kTickRows, 1024u);
}

}  // namespace
}  // namespace tp
