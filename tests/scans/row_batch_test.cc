// The executor's row format with values of other types than integers: rows of text,
// numeric and NULLs made in a batch whose arena is reused after every batch, then
// carried through Sort, Unique and HashAggregate, which must keep their own copies of
// the bytes (a Sort reads all input before it returns anything, so a row that pointed
// into the input batch would read bytes overwritten since), order them by the type's
// order (C collation, numeric value, NULLs last ascending and first descending) and
// group them by equality of value ('ab' = 'ab  ' in char(n), 1.0 = 1.00 in numeric).
// A bounded Sort (top-N) returns the full sort's first rows, ties in input order.
// TupleReader: a heap tuple with a varlena and a NULL deformed into a row.
#include <gmock/gmock.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/core/datum_ops.h"
#include "engine/core/numeric.h"
#include "engine/core/tuple_format.h"
#include "scans/distinct.h"
#include "scans/sort_limit_agg.h"
#include "scans/tuple_reader.h"

namespace tp {
namespace {

using Cell = std::optional<std::string>;  // a value's input text; nullopt: NULL
using Row = std::vector<Cell>;

// Rows of the given types from their input texts, `per_batch` rows per batch; every
// batch reuses (and so overwrites) the same arena.
class TypedRows final : public scans::ExecNode {
 public:
  TypedRows(std::vector<TypeId> types, std::vector<Row> rows, uint32_t per_batch)
      : shape_(std::make_shared<const scans::RowShape>(types)),
        rows_(std::move(rows)),
        per_batch_(per_batch) {}
  std::string explain_name() const override { return "Rows"; }
  void explain_details(std::vector<std::string>&, bool) const override {}

 protected:
  void do_open() override { at_ = 0; }
  const scans::RowBatch* do_next() override {
    if (at_ >= rows_.size()) return nullptr;
    const uint32_t width = uint32_t(shape_->types.size());
    batch_.shape = shape_;
    batch_.reset(width, per_batch_);
    // Scribble over the arena's old bytes first, as a page's next tuples would.
    std::memset(batch_.arena.allocate(4096), 'x', 4096);
    batch_.arena.clear();
    for (; batch_.count < per_batch_ && at_ < rows_.size(); ++at_) {
      const uint32_t r = batch_.count;
      for (uint32_t c = 0; c < width; ++c) {
        const Cell& cell = rows_[at_][c];
        if (!cell) {
          batch_.set_null(r, c);
          continue;
        }
        OwnedDatum v = datum_in(shape_->types[c], kNoTypmod, *cell, 0);
        batch_.row(r)[c] =
            v.is_by_ref() ? batch_.arena.copy(v.bytes().data(), v.bytes().size()) : v.datum();
        if (batch_.has_nulls) batch_.null_flags(r)[c] = 0;
      }
      ++batch_.count;
    }
    return &batch_;
  }

 private:
  std::shared_ptr<const scans::RowShape> shape_;
  std::vector<Row> rows_;
  uint32_t per_batch_;
  size_t at_ = 0;
  scans::RowBatch batch_;
};

std::vector<Row> drain(scans::ExecNode& node) {
  std::vector<Row> out;
  node.open();
  while (const scans::RowBatch* b = node.next()) {
    for (uint32_t i = 0; i < b->count; ++i) {
      Row row;
      for (uint32_t c = 0; c < b->width; ++c)
        row.push_back(b->is_null(i, c) ? Cell{}
                                       : Cell{datum_out(b->shape->types[c], b->row(i)[c])});
      out.push_back(row);
    }
  }
  return out;
}

const std::vector<TypeId> kTextNumeric = {TypeId::kText, TypeId::kNumeric};

std::vector<Row> sample_rows() {
  return {{"pear", "2.50"},  {"apple", "10"},      {std::nullopt, "1"}, {"Zebra", std::nullopt},
          {"apple", "9.5"},  {"banana", "-3"},     {"pear", "2.5"},     {"", "0"},
          {"apples", "1e3"}, {std::nullopt, "NaN"}};
}

TEST(TypedRows, SortOrdersTextInTheCCollationWithNullsLastAndKeepsItsOwnBytes) {
  auto src = std::make_unique<TypedRows>(kTextNumeric, sample_rows(), 3);
  scans::SortNode sort(std::move(src), {{0, false, false}, {1, false, false}}, "t, n", 0,
                       uint64_t(1) << 30);
  std::vector<Row> want = {
      {"", "0"},           {"Zebra", std::nullopt}, {"apple", "9.5"}, {"apple", "10"},
      {"apples", "1000"},  {"banana", "-3"},        {"pear", "2.50"}, {"pear", "2.5"},
      {std::nullopt, "1"}, {std::nullopt, "NaN"}};
  EXPECT_EQ(drain(sort), want);
}

TEST(TypedRows, DescendingSortPutsNullsFirstAndComparesNumericByValue) {
  auto src = std::make_unique<TypedRows>(kTextNumeric, sample_rows(), 4);
  scans::SortNode sort(std::move(src), {{1, true, true}}, "n DESC", 0, uint64_t(1) << 30);
  std::vector<Row> got = drain(sort);
  std::vector<Cell> numbers;
  for (const Row& r : got) numbers.push_back(r[1]);
  // NaN sorts above every number; 2.50 and 2.5 are equal and keep their input order.
  std::vector<Cell> want = {std::nullopt, "NaN", "1000", "10", "9.5",
                            "2.50",       "2.5", "1",    "0",  "-3"};
  EXPECT_EQ(numbers, want);
}

TEST(TypedRows, BoundedSortReturnsTheFullSortsFirstRowsWithTiesInInputOrder) {
  // 5,000 rows of 37 key values (NULLs among them) in batches of 7: once a bounded Sort
  // holds its best rows it drops each row not sorting before the last of them, and a
  // row equal to that one must be dropped too (the earlier row wins a tie). The texts
  // name the input order, so a tie broken the other way shows.
  std::vector<Row> rows;
  for (int i = 0; i < 5000; ++i) {
    const int key = (i * 7919) % 37;
    rows.push_back({key == 5 ? Cell{} : Cell{std::to_string(key)}, "row " + std::to_string(i)});
  }
  const std::vector<TypeId> types = {TypeId::kInt4, TypeId::kText};
  for (bool descending : {false, true}) {
    const std::vector<scans::SortKey> keys = {{0, descending, descending}};
    scans::SortNode full(std::make_unique<TypedRows>(types, rows, 7), keys, "k", 0,
                         uint64_t(1) << 30);
    const std::vector<Row> all = drain(full);
    for (int64_t bound : {1, 10, 135, 600, 2600}) {
      SCOPED_TRACE("bound " + std::to_string(bound) + (descending ? " DESC" : ""));
      scans::SortNode top(std::make_unique<TypedRows>(types, rows, 7), keys, "k", bound,
                          uint64_t(1) << 30);
      EXPECT_EQ(drain(top), std::vector<Row>(all.begin(), all.begin() + bound));
    }
  }
}

TEST(TypedRows, HashAggregateGroupsEqualValuesWhateverTheirBytes) {
  std::vector<Row> rows = {{"ab", "1.0"}, {"ab  ", "1.00"},        {"ab", "1"}, {std::nullopt, "1"},
                           {"ab ", "2"},  {std::nullopt, "1.000"}, {"b", "1"}};
  auto src =
      std::make_unique<TypedRows>(std::vector<TypeId>{TypeId::kBpchar, TypeId::kNumeric}, rows, 2);
  scans::HashAggregateNode agg(std::move(src), {0, 1}, "c, n", 0, uint64_t(1) << 30);
  std::vector<Row> got = drain(agg);
  // Groups: (ab, 1), (NULL, 1), (ab, 2), (b, 1); each keeps its first row's text.
  ASSERT_EQ(got.size(), 4u);
  EXPECT_THAT(got, ::testing::UnorderedElementsAre(Row{"ab", "1.0"}, Row{std::nullopt, "1"},
                                                   Row{"ab ", "2"}, Row{"b", "1"}));
}

TEST(TypedRows, UniqueComparesTheKeysByValueAcrossBatches) {
  std::vector<Row> rows = {{"a", "1.0"}, {"a", "1.00"},       {"a", "2"},         {"b", "2"},
                           {"b", "2.0"}, {std::nullopt, "2"}, {std::nullopt, "2"}};
  auto src = std::make_unique<TypedRows>(kTextNumeric, rows, 2);
  scans::UniqueNode unique(std::move(src), {0, 1});
  std::vector<Row> want = {{"a", "1.0"}, {"a", "2"}, {"b", "2"}, {std::nullopt, "2"}};
  EXPECT_EQ(drain(unique), want);
}

TEST(TupleReader, DeformsATupleWithAVarlenaAndANull) {
  const std::vector<Column> table = {{"id", TypeId::kInt4},
                                     {"name", TypeId::kText},
                                     {"price", TypeId::kNumeric},
                                     {"qty", TypeId::kInt8}};
  TupleFormat format =
      TupleFormat::of_types({TypeId::kInt4, TypeId::kText, TypeId::kNumeric, TypeId::kInt8});
  const std::string name = make_varlena("widget");
  Datum values[4] = {42, pointer_datum(name.data()), 0, -7};
  bool isnull[4] = {false, false, true, false};
  const uint32_t len = format.tuple_size(values, isnull);
  std::vector<char> tuple(len);
  format.form(values, isnull, Tid{0, 1}, tuple.data(), len);

  // Slots in another order than the table's; qty follows a varlena, so no fixed offset.
  scans::TupleReader reader(table, {3, 1, 2, 0});
  ASSERT_TRUE(reader.shape());
  scans::RowBatch batch;
  batch.shape = reader.shape();
  batch.reset(reader.width(), 2);
  scans::DeformScratch scratch;
  reader.read(tuple.data(), len, batch, scratch);
  ASSERT_EQ(batch.count, 1u);
  EXPECT_EQ(batch.row(0)[0], -7);
  EXPECT_EQ(varlena_payload(datum_pointer(batch.row(0)[1])), "widget");
  EXPECT_NE(datum_pointer(batch.row(0)[1]), tuple.data() + 28);  // copied out of the tuple
  EXPECT_TRUE(batch.is_null(0, 2));
  EXPECT_FALSE(batch.is_null(0, 3));
  EXPECT_EQ(batch.row(0)[3], 42);

  // An integer-only reader of the leading column takes the fixed-offset path.
  scans::TupleReader ints(table, {0});
  EXPECT_FALSE(ints.shape());
  scans::RowBatch b2;
  b2.reset(1, 1);
  ints.read(tuple.data(), len, b2, scratch);
  EXPECT_EQ(b2.row(0)[0], 42);
}

TEST(HeapTupleLayout, OffsetsAreFixedOnlyBeforeTheFirstVarlena) {
  HeapTupleLayout layout(
      {{"a", TypeId::kInt2}, {"b", TypeId::kInt8}, {"c", TypeId::kBpchar}, {"d", TypeId::kInt4}});
  EXPECT_TRUE(layout.fixed(0));
  EXPECT_EQ(layout.offset(0), 24u);
  EXPECT_TRUE(layout.fixed(1));
  EXPECT_EQ(layout.offset(1), 32u);
  EXPECT_FALSE(layout.fixed(2));
  EXPECT_FALSE(layout.fixed(3));
  EXPECT_FALSE(layout.all_integers());
  EXPECT_EQ(layout.tuple_size(), 0u);
}

}  // namespace
}  // namespace tp
