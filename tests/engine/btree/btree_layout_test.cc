#include <gtest/gtest.h>

#include "btree_test_util.h"
#include "engine/btree/btree_page.h"

namespace tp::btree {
namespace {

using testing::index_def;

TEST(BtreeLayout, Int4LeafItemIs16BytesPlusLinePointer) {
  TupleLayout layout = TupleLayout::from(index_def("i", {KeyType::kInt4}));
  alignas(8) char buf[kMaxTupleSize];
  uint16_t size = make_leaf_tuple(layout, {42}, Tid{0x12345, 7}, buf);
  EXPECT_EQ(size, 12);
  EXPECT_EQ(maxalign(size), 16u);
  EXPECT_EQ(item_cost(size), 20u);
  // PostgreSQL's byte order: block hi, block lo, offset, info.
  EXPECT_EQ(load_u16(buf), 0x1);
  EXPECT_EQ(load_u16(buf + 2), 0x2345);
  EXPECT_EQ(load_u16(buf + 4), 7);
  EXPECT_EQ(load_u16(buf + 6), 12);
  int32_t v;
  std::memcpy(&v, buf + 8, 4);
  EXPECT_EQ(v, 42);
  TupleView t{buf};
  EXPECT_FALSE(t.is_pivot());
  EXPECT_EQ(t.tid(), (Tid{0x12345, 7}));
  EXPECT_EQ(t.value(layout, 0), 42);
}

TEST(BtreeLayout, ColumnsAreAlignedLikePostgres) {
  TupleLayout a = TupleLayout::from(index_def("i", {KeyType::kInt4, KeyType::kInt8}));
  EXPECT_EQ(a.offsets[0], 8);
  EXPECT_EQ(a.offsets[1], 16);
  EXPECT_EQ(a.leaf_size(), 24);
  TupleLayout b = TupleLayout::from(index_def("i", {KeyType::kInt8, KeyType::kInt4}));
  EXPECT_EQ(b.offsets[1], 16);
  EXPECT_EQ(b.leaf_size(), 20);
  EXPECT_EQ(maxalign(b.leaf_size()), 24u);
  TupleLayout c = TupleLayout::from(index_def("i", {KeyType::kInt4, KeyType::kInt4}));
  EXPECT_EQ(c.leaf_size(), 16);
}

TEST(BtreeLayout, BadDefinitionsAreRefused) {
  try {
    TupleLayout::from(index_def("wide", std::vector<KeyType>(9, KeyType::kInt4)));
    FAIL();
  } catch (const Error&) {
  }
  EXPECT_THROW(TupleLayout::from(IndexDef{"none", {}, false}), Error);
  try {
    check_key_range(index_def("t_a_idx", {KeyType::kInt4}), {int64_t(1) << 40});
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "value 1099511627776 is out of range for int4 column \"a\" of index \"t_a_idx\"");
  }
}

TEST(BtreeLayout, SeparatorKeepsOnlyDistinguishingColumns) {
  TupleLayout layout = TupleLayout::from(index_def("i", {KeyType::kInt4, KeyType::kInt4}));
  alignas(8) char left[kMaxTupleSize], right[kMaxTupleSize], sep[kMaxTupleSize];
  make_leaf_tuple(layout, {5, 1}, Tid{1, 1}, left);
  make_leaf_tuple(layout, {6, 0}, Tid{1, 2}, right);
  uint16_t size = make_separator(layout, TupleView{left}, TupleView{right}, sep);
  TupleView s{sep};
  EXPECT_TRUE(s.is_pivot());
  EXPECT_EQ(s.natts(layout), 1);
  EXPECT_EQ(size, 12);
  EXPECT_FALSE(s.has_heap_tid());
  EXPECT_LT(compare_tuples(layout, TupleView{left}, s), 0);
  EXPECT_GT(compare_tuples(layout, TupleView{right}, s), 0);

  // Equal keys: the heap TID is kept, so the separator still falls between.
  make_leaf_tuple(layout, {6, 0}, Tid{1, 1}, left);
  size = make_separator(layout, TupleView{left}, TupleView{right}, sep);
  EXPECT_EQ(s.natts(layout), 2);
  EXPECT_TRUE(s.has_heap_tid());
  EXPECT_EQ(s.heap_tid(), (Tid{1, 2}));
  EXPECT_EQ(size, 24);
  EXPECT_LT(compare_tuples(layout, TupleView{left}, s), 0);
  EXPECT_EQ(compare_tuples(layout, TupleView{right}, s), 0);
}

TEST(BtreeLayout, ProbesOrderAgainstItemsAndTruncatedPivots) {
  TupleLayout layout = TupleLayout::from(index_def("i", {KeyType::kInt4, KeyType::kInt4}));
  alignas(8) char item[kMaxTupleSize], pivot[kMaxTupleSize];
  make_leaf_tuple(layout, {5, 3}, Tid{2, 2}, item);
  TupleView t{item};
  EXPECT_LT(compare(layout, Probe{{5}}, t), 0);                   // (5, -inf) before
  EXPECT_GT(compare(layout, Probe{{5}, {}, false, true}, t), 0);  // (5, +inf) after
  EXPECT_LT(compare(layout, Probe{{5, 3}}, t), 0);
  EXPECT_EQ(compare(layout, Probe{{5, 3}, Tid{2, 2}, true}, t), 0);
  EXPECT_GT(compare(layout, Probe{{5, 3}, Tid{2, 3}, true}, t), 0);
  EXPECT_GT(compare(layout, Probe{{5, 4}}, t), 0);
  EXPECT_LT(compare(layout, Probe{{4, 9}}, t), 0);

  make_pivot(layout, {5}, 1, nullptr, 9, pivot);  // (5, -inf)
  TupleView p{pivot};
  EXPECT_EQ(p.downlink(), 9u);
  EXPECT_EQ(compare(layout, Probe{{5}}, p), 0);
  EXPECT_GT(compare(layout, Probe{{5, -1000}}, p), 0);
  EXPECT_GT(compare(layout, Probe{{5}, {}, false, true}, p), 0);
  EXPECT_LT(compare(layout, Probe{{4, 1000}}, p), 0);
  copy_pivot(p, 11, true, pivot);  // minus infinity
  EXPECT_EQ(p.natts(layout), 0);
  EXPECT_EQ(p.size(), 8);
  EXPECT_EQ(p.downlink(), 11u);
  EXPECT_GT(compare(layout, Probe{{-2147483648}}, p), 0);
}

TEST(BtreeLayout, DeleteItemClosesBothGaps) {
  TupleLayout layout = TupleLayout::from(index_def("i", {KeyType::kInt4}));
  alignas(8) char page[kBlockSize];
  bt_page_init(page, 0, kBtLeaf);
  EXPECT_EQ(page_header(page)->special, kBlockSize - 16);
  alignas(8) char buf[kMaxTupleSize];
  for (int i = 1; i <= 5; ++i) {
    uint16_t size = make_leaf_tuple(layout, {i * 10}, Tid{1, uint16_t(i)}, buf);
    ASSERT_EQ(page_add_item(page, buf, size), i);
  }
  uint32_t free_before = page_free_space(page);
  page_delete_item(page, 2);
  EXPECT_EQ(page_max_offset(page), 4);
  EXPECT_EQ(page_free_space(page), free_before + 20);
  int64_t expected[] = {10, 30, 40, 50};
  for (OffsetNumber off = 1; off <= 4; ++off) {
    EXPECT_EQ(tuple_at(page, off).value(layout, 0), expected[off - 1]);
    EXPECT_GE(page_item_id(page, off)->off, page_header(page)->upper);
  }
}

TEST(BtreeLayout, MetapageAndSpecialSpace) {
  TupleLayout layout = TupleLayout::from(index_def("i", {KeyType::kInt8, KeyType::kInt4}));
  alignas(8) char page[kBlockSize];
  bt_meta_init(page, layout, /*unique=*/true, /*deduplicate=*/true);
  EXPECT_EQ(bt_meta(page)->deduplicate, 0u);  // a unique index never deduplicates
  EXPECT_EQ(bt_meta(page)->magic, 0x053162u);
  EXPECT_EQ(bt_meta(page)->version, 4u);
  EXPECT_EQ(bt_meta(page)->root, kInvalidBlock);
  EXPECT_EQ(bt_meta(page)->ncols, 2u);
  EXPECT_EQ(bt_meta(page)->types[0], uint8_t(KeyType::kInt8));
  EXPECT_EQ(bt_special(page)->flags, kBtMeta);
  EXPECT_GT(page_header(page)->lower, kPageHeaderSize);
}

}  // namespace
}  // namespace tp::btree
