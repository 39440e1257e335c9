// heap_tuple_at: the bounds-checked tuple lookup tp_verify's heap cross-check
// (and the `page` fuzz target) use. A damaged page whose checksum passed (a
// writer's bug) must give "no such row", never a pointer outside the page.
#include <gtest/gtest.h>

#include <vector>

#include "engine/core/heap_tuple.h"
#include "engine/core/page.h"
#include "engine/storage/index_verify.h"

namespace tp {
namespace {

class HeapTupleAt : public ::testing::Test {
 protected:
  void SetUp() override {
    page_init(page_.data(), 0);
    alignas(8) char tuple[64];
    for (int64_t i = 1; i <= 3; ++i) {
      int64_t values[2] = {i, i * 10};
      layout_.form(values, Tid{0, OffsetNumber(i)}, tuple);
      ASSERT_EQ(page_add_item(page_.data(), tuple, layout_.tuple_size()), OffsetNumber(i));
    }
  }
  ItemId* item(OffsetNumber off) { return page_item_id(page_.data(), off); }
  const char* at(OffsetNumber off) {
    return heap_tuple_at(page_.data(), off, layout_.tuple_size());
  }

  std::vector<char> page_ = std::vector<char>(kBlockSize);
  HeapTupleLayout layout_{{{"a", ColumnType::kInt4}, {"b", ColumnType::kInt8}}};
};

TEST_F(HeapTupleAt, ReadsTheLiveTuplesOfASoundPage) {
  for (OffsetNumber off = 1; off <= 3; ++off) {
    ASSERT_NE(at(off), nullptr);
    EXPECT_EQ(layout_.get(at(off), 0), off);
    EXPECT_EQ(layout_.get(at(off), 1), off * 10);
  }
  EXPECT_EQ(at(0), nullptr);
  EXPECT_EQ(at(4), nullptr);  // past the line pointer array
}

TEST_F(HeapTupleAt, RefusesLinePointersThatLeaveThePageOrAreTooShort) {
  item(1)->off = kBlockSize - 8;  // the tuple would run past the page's end
  EXPECT_EQ(at(1), nullptr);
  item(2)->off = 8;  // inside the page header
  EXPECT_EQ(at(2), nullptr);
  item(3)->len = layout_.tuple_size() - 1;  // too short for the row type
  EXPECT_EQ(at(3), nullptr);
}

TEST_F(HeapTupleAt, RefusesDeadSlotsAndAWildLinePointerArray) {
  item(2)->state = uint32_t(ItemState::kDead);
  EXPECT_EQ(at(2), nullptr);
  page_header(page_.data())->lower = 60000;  // the array would reach far past the page
  EXPECT_EQ(at(1), nullptr);
  EXPECT_EQ(at(3000), nullptr);
}

}  // namespace
}  // namespace tp
