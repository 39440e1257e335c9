// GROUP BY's node over integer rows given here: GroupAggregate over input sorted on the
// keys (groups spanning batches), HashAggregate over the same rows in any order with the
// same groups, NULL keys forming one group and NULL inputs skipped, count(DISTINCT)
// per group, a reopened node starting over, and the hash table's memory bound refused
// with an error that names it.
#include <gmock/gmock.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "engine/core/error.h"
#include "scans/group_agg.h"

namespace tp {
namespace {

using ::testing::HasSubstr;
constexpr int64_t kNull = std::numeric_limits<int64_t>::min();  // a NULL slot in the rows below

// Returns `rows` (kNull: NULL) in batches of `batch` rows.
class RowsNode final : public scans::ExecNode {
 public:
  RowsNode(std::vector<std::vector<int64_t>> rows, uint32_t batch)
      : rows_(std::move(rows)), batch_rows_(batch) {}
  std::string explain_name() const override { return "Rows"; }
  void explain_details(std::vector<std::string>&, bool) const override {}

 protected:
  void do_open() override { at_ = 0; }
  const scans::RowBatch* do_next() override {
    if (at_ >= rows_.size()) return nullptr;
    const auto width = uint32_t(rows_[0].size());
    const auto n = uint32_t(std::min<size_t>(batch_rows_, rows_.size() - at_));
    batch_.reset(width, n);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t s = 0; s < width; ++s) {
        const int64_t v = rows_[at_ + i][s];
        batch_.row(i)[s] = Datum(v == kNull ? 0 : v);
        if (v == kNull) batch_.set_null(i, s);
      }
    batch_.count = n;
    at_ += n;
    return &batch_;
  }

 private:
  std::vector<std::vector<int64_t>> rows_;
  uint32_t batch_rows_;
  size_t at_ = 0;
  scans::RowBatch batch_;
};

// count(*), count(slot 1), sum(slot 1), min(slot 1) per key in slot 0; results as int8.
scans::GroupAggSpec spec_of(scans::GroupStrategy strategy) {
  scans::GroupAggSpec spec;
  spec.strategy = strategy;
  spec.keys = {0};
  spec.aggs = {{scans::AggKind::kCountStar, 0, false, TypeId::kInt8, false},
               {scans::AggKind::kCount, 1, false, TypeId::kInt8, false},
               {scans::AggKind::kSum, 1, false, TypeId::kInt8, false},
               {scans::AggKind::kMin, 1, false, TypeId::kInt8, false}};
  spec.finalize = [](size_t a, const scans::AggState& st, ValueArena&, bool& isnull) {
    isnull = a >= 2 && st.count == 0;
    if (a == 2) return Datum(int64_t(st.sum));
    if (a == 3) return Datum(st.min);
    return Datum(st.count);
  };
  spec.row_types = std::vector<TypeId>(5, TypeId::kInt8);
  spec.group_text = "k";
  spec.max_bytes = uint64_t(1) << 30;
  return spec;
}

// Group key -> its row (kNull for NULL), from every batch of `node`.
std::map<int64_t, std::vector<int64_t>> drain(scans::ExecNode& node) {
  std::map<int64_t, std::vector<int64_t>> out;
  node.open();
  while (const scans::RowBatch* b = node.next())
    for (uint32_t i = 0; i < b->count; ++i) {
      std::vector<int64_t> row;
      for (uint32_t s = 0; s < b->width; ++s)
        row.push_back(b->is_null(i, s) ? kNull : int64_t(b->row(i)[s]));
      EXPECT_EQ(out.count(row[0]), 0u) << "group " << row[0] << " twice";
      out[row[0]] = row;
    }
  return out;
}

// 40 keys (and NULL), key k having k + 1 rows valued 0..k, the odd ones NULL for k = 7.
std::vector<std::vector<int64_t>> grouped_rows() {
  std::vector<std::vector<int64_t>> rows;
  for (int64_t k = 0; k < 40; ++k)
    for (int64_t v = 0; v <= k; ++v) rows.push_back({k, k == 7 && v % 2 ? kNull : v});
  rows.push_back({kNull, 5});
  rows.push_back({kNull, 9});
  return rows;
}

void expect_groups(const std::map<int64_t, std::vector<int64_t>>& got) {
  ASSERT_EQ(got.size(), 41u);
  for (int64_t k = 0; k < 40; ++k) {
    const std::vector<int64_t>& r = got.at(k);
    const int64_t counted = k == 7 ? 4 : k + 1;  // 0, 2, 4, 6 of key 7
    const int64_t sum = k == 7 ? 12 : k * (k + 1) / 2;
    EXPECT_EQ(r, (std::vector<int64_t>{k, k + 1, counted, sum, 0})) << "key " << k;
  }
  EXPECT_EQ(got.at(kNull), (std::vector<int64_t>{kNull, 2, 2, 14, 5}));
}

TEST(GroupAggNode, SortedGroupsEndWhereTheKeysChange) {
  scans::GroupAggNode node(std::make_unique<RowsNode>(grouped_rows(), 7),
                           spec_of(scans::GroupStrategy::kSorted));
  expect_groups(drain(node));
  expect_groups(drain(node));  // reopened, it starts over
  EXPECT_EQ(node.explain_name(), "GroupAggregate");
}

TEST(GroupAggNode, HashedGroupsAnyOrder) {
  std::vector<std::vector<int64_t>> rows = grouped_rows();
  std::shuffle(rows.begin(), rows.end(), std::mt19937(7));
  scans::GroupAggNode node(std::make_unique<RowsNode>(rows, 5),
                           spec_of(scans::GroupStrategy::kHashed));
  expect_groups(drain(node));
  expect_groups(drain(node));
  EXPECT_EQ(node.explain_name(), "HashAggregate");
  std::vector<std::string> lines;
  node.explain_details(lines, true);
  EXPECT_EQ(lines.at(0), "Group Key: k");
  EXPECT_THAT(lines.at(1), HasSubstr("Batches: 1  Memory Usage: "));
}

TEST(GroupAggNode, CountDistinctPerGroup) {
  scans::GroupAggSpec spec;
  spec.strategy = scans::GroupStrategy::kSorted;
  spec.keys = {0};
  spec.aggs = {{scans::AggKind::kCount, 1, true, TypeId::kInt8, false}};
  spec.finalize = [](size_t, const scans::AggState& st, ValueArena&, bool& isnull) {
    isnull = false;
    return Datum(st.count);
  };
  spec.row_types = {TypeId::kInt8, TypeId::kInt8};
  std::vector<std::vector<int64_t>> rows;
  for (int64_t k = 0; k < 5; ++k)
    for (int64_t v = 0; v < 30; ++v) rows.push_back({k, v % (k + 2)});
  scans::GroupAggNode node(std::make_unique<RowsNode>(rows, 4), spec);
  const auto got = drain(node);
  ASSERT_EQ(got.size(), 5u);
  for (int64_t k = 0; k < 5; ++k) EXPECT_EQ(got.at(k)[1], k + 2) << "key " << k;
}

TEST(GroupAggNode, HashTableBeyondItsBoundIsRefused) {
  std::vector<std::vector<int64_t>> rows;
  for (int64_t k = 0; k < 50000; ++k) rows.push_back({k, k});
  scans::GroupAggSpec spec = spec_of(scans::GroupStrategy::kHashed);
  spec.max_bytes = 1 << 20;
  scans::GroupAggNode node(std::make_unique<RowsNode>(rows, 1000), spec);
  try {
    drain(node);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("its in-memory limit"));
  }
}

}  // namespace
}  // namespace tp
