#include "engine/core/page.h"

#include <gtest/gtest.h>

#include <vector>

namespace tp {
namespace {

TEST(Page, InitLeavesHeaderAndFreeSpace) {
  alignas(8) char page[kBlockSize];
  page_init(page, 0);
  EXPECT_EQ(page_header(page)->lower, 24);
  EXPECT_EQ(page_header(page)->upper, 8192);
  EXPECT_EQ(page_free_space(page), 8192u - 24 - 4);
  EXPECT_EQ(page_max_offset(page), 0);
}

TEST(Page, AddItemsPlacesThemAlignedFromTheEnd) {
  alignas(8) char page[kBlockSize];
  page_init(page, 16);
  char item[20] = {1, 2, 3};
  EXPECT_EQ(page_add_item(page, item, 20), 1);
  EXPECT_EQ(page_item_id(page, 1)->off, 8192 - 16 - 24);
  EXPECT_EQ(page_item_id(page, 1)->len, 20u);
  EXPECT_EQ(page_item(page, 1)[2], 3);
  EXPECT_EQ(page_header(page)->lower, 28);
}

TEST(Page, InsertAtShiftsLinePointers) {
  alignas(8) char page[kBlockSize];
  page_init(page, 0);
  int a = 1, b = 2, c = 3;
  page_add_item(page, &a, 4);
  page_add_item(page, &c, 4);
  ASSERT_TRUE(page_insert_item_at(page, 2, &b, 4));
  for (int i = 1; i <= 3; ++i) {
    int v;
    std::memcpy(&v, page_item(page, OffsetNumber(i)), 4);
    EXPECT_EQ(v, i);
  }
}

TEST(Page, FullPageRefusesItems) {
  alignas(8) char page[kBlockSize];
  page_init(page, 0);
  char item[32] = {};
  int n = 0;
  while (page_add_item(page, item, 32)) ++n;
  EXPECT_EQ(n, (8192 - 24) / 36);
}

TEST(Page, ChecksumCatchesEveryFlippedByteAndWrongBlock) {
  alignas(8) char page[kBlockSize];
  page_init(page, 0);
  char item[32];
  for (int i = 0; i < 32; ++i) item[i] = char(i);
  while (page_add_item(page, item, 32)) {
  }
  page_set_checksum(page, 7);
  EXPECT_TRUE(page_verify(page, 7));
  EXPECT_FALSE(page_verify(page, 8));
  for (uint32_t pos = 0; pos < kBlockSize; pos += 97) {
    if (pos == 8 || pos == 9) continue;
    page[pos] ^= 0x10;
    EXPECT_FALSE(page_verify(page, 7)) << "byte " << pos;
    page[pos] ^= 0x10;
  }
  EXPECT_TRUE(page_verify(page, 7));
}

TEST(Page, AllZeroPageIsNewAndValid) {
  alignas(8) char page[kBlockSize] = {};
  EXPECT_TRUE(page_is_new(page));
  EXPECT_TRUE(page_verify(page, 3));
  page[100] = 1;
  EXPECT_FALSE(page_verify(page, 3));
}

}  // namespace
}  // namespace tp
