#include <gtest/gtest.h>

#include "engine/core/heap_tuple.h"

namespace tp {
namespace {

const std::vector<Column> kIntInt = {{"a", ColumnType::kInt4}, {"b", ColumnType::kInt4}};

TEST(HeapTuple, IntIntRowIs32BytesWithValuesAfterHeader) {
  HeapTupleLayout layout(kIntInt);
  EXPECT_EQ(layout.tuple_size(), 32u);
  EXPECT_EQ(layout.offset(0), 24u);
  EXPECT_EQ(layout.offset(1), 28u);
  char buf[32];
  int64_t values[2] = {-5, 2147483647};
  layout.form(values, Tid{3, 7}, buf);
  EXPECT_EQ(buf[22], 24);  // t_hoff
  EXPECT_EQ(layout.get(buf, 0), -5);
  EXPECT_EQ(layout.get(buf, 1), 2147483647);
}

TEST(HeapTuple, Int8ColumnsAreEightByteAligned) {
  HeapTupleLayout layout({{"a", ColumnType::kInt4}, {"b", ColumnType::kInt8}});
  EXPECT_EQ(layout.offset(1), 32u);
  EXPECT_EQ(layout.tuple_size(), 40u);
}

// Fills real pages the way the loader does and compares with the closed form.
uint32_t rows_on_a_page(int fillfactor, uint32_t tuple_size) {
  alignas(8) char page[kBlockSize];
  page_init(page, 0);
  std::vector<char> tuple(tuple_size, 0);
  uint32_t n = 0;
  while (heap_page_accepts(page, maxalign(tuple_size), fillfactor)) {
    EXPECT_NE(page_add_item(page, tuple.data(), tuple_size), 0);
    ++n;
  }
  return n;
}

TEST(HeapTuple, RowsPerPageMatchClosedFormAtEveryFillfactor) {
  for (int ff = 10; ff <= 100; ++ff) {
    EXPECT_EQ(rows_on_a_page(ff, 32), heap_rows_per_page(32, ff)) << "fillfactor " << ff;
    EXPECT_EQ(rows_on_a_page(ff, 40), heap_rows_per_page(40, ff)) << "fillfactor " << ff;
  }
  // As PostgreSQL: 22 rows at fillfactor 10, 226 at 100, at most 291 tiny tuples.
  EXPECT_EQ(heap_rows_per_page(32, 10), 22u);
  EXPECT_EQ(heap_rows_per_page(32, 100), 226u);
  EXPECT_EQ(heap_rows_per_page(24, 100), 291u);
  // fillfactor 50 reserves 4096: 8164 - 36k >= 4128 holds for k <= 112.
  EXPECT_EQ(heap_rows_per_page(32, 50), 113u);
}

}  // namespace
}  // namespace tp
