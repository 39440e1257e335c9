// GROUP BY's node over integer rows given here: GroupAggregate over input sorted on the
// keys (groups spanning batches), HashAggregate over the same rows in any order with the
// same groups, NULL keys forming one group and NULL inputs skipped, count(DISTINCT)
// per group, a reopened node starting over, the hash table's memory bound refused with
// an error that names it, and a HashAggregate spilling beyond hash_mem into partition
// files: the same groups, and no file left after the end or an error.
#include <gmock/gmock.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include <filesystem>

#include "aio/temp_file.h"
#include "engine/core/error.h"
#include "scans/group_agg.h"
#include "tests/scans/int_rows_node.h"

namespace tp {
namespace {

using ::testing::HasSubstr;
constexpr int64_t kNull = test_rows::kNullSlot;  // a NULL slot in the rows below

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

// A child that fails on its `fail_at`th batch, as a cancel below would.
class FailingNode final : public scans::ExecNode {
 public:
  FailingNode(std::unique_ptr<scans::ExecNode> child, int fail_at)
      : child_(std::move(child)), fail_at_(fail_at) {}
  std::string explain_name() const override { return "Failing"; }
  void explain_details(std::vector<std::string>&, bool) const override {}

 protected:
  void do_open() override {
    child_->open();
    seen_ = 0;
  }
  const scans::RowBatch* do_next() override {
    if (++seen_ == fail_at_) throw Error("canceling statement due to user request");
    return child_->next();
  }

 private:
  std::unique_ptr<scans::ExecNode> child_;
  int fail_at_;
  int seen_ = 0;
};

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
  scans::GroupAggNode node(std::make_unique<test_rows::IntRowsNode>(grouped_rows(), 7),
                           spec_of(scans::GroupStrategy::kSorted));
  expect_groups(drain(node));
  expect_groups(drain(node));  // reopened, it starts over
  EXPECT_EQ(node.explain_name(), "GroupAggregate");
}

TEST(GroupAggNode, HashedGroupsAnyOrder) {
  std::vector<std::vector<int64_t>> rows = grouped_rows();
  std::shuffle(rows.begin(), rows.end(), std::mt19937(7));
  scans::GroupAggNode node(std::make_unique<test_rows::IntRowsNode>(rows, 5),
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
  scans::GroupAggNode node(std::make_unique<test_rows::IntRowsNode>(rows, 4), spec);
  const auto got = drain(node);
  ASSERT_EQ(got.size(), 5u);
  for (int64_t k = 0; k < 5; ++k) EXPECT_EQ(got.at(k)[1], k + 2) << "key " << k;
}

TEST(GroupAggNode, HashTableBeyondItsBoundIsRefused) {
  std::vector<std::vector<int64_t>> rows;
  for (int64_t k = 0; k < 50000; ++k) rows.push_back({k, k});
  scans::GroupAggSpec spec = spec_of(scans::GroupStrategy::kHashed);
  spec.max_bytes = 1 << 20;
  scans::GroupAggNode node(std::make_unique<test_rows::IntRowsNode>(rows, 1000), spec);
  try {
    drain(node);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("its in-memory limit"));
  }
}

class GroupAggSpill : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tp_group_agg_spill.XXXXXX";
    root_ = ::mkdtemp(tmpl);
    space_ = std::make_unique<aio::TempFileSpace>(root_ + "/pgsql_tmp");
  }
  void TearDown() override {
    space_.reset();
    std::filesystem::remove_all(root_);
  }
  size_t files() const {
    const std::string dir = space_->directory();
    if (!std::filesystem::exists(dir)) return 0;
    return size_t(std::distance(std::filesystem::directory_iterator(dir),
                                std::filesystem::directory_iterator()));
  }
  // 20,000 keys, three rows each, shuffled: far more groups than 16 kB holds.
  static std::vector<std::vector<int64_t>> many_groups() {
    std::vector<std::vector<int64_t>> rows;
    for (int64_t k = 0; k < 20000; ++k)
      for (int64_t v = 0; v < 3; ++v) rows.push_back({k, v == 1 && k % 5 == 0 ? kNull : k + v});
    std::shuffle(rows.begin(), rows.end(), std::mt19937(3));
    return rows;
  }
  scans::GroupAggSpec spilling_spec() {
    scans::GroupAggSpec spec = spec_of(scans::GroupStrategy::kHashed);
    spec.temp_space = space_.get();
    spec.hash_mem = 16 * 1024;
    return spec;
  }

  std::string root_;
  std::unique_ptr<aio::TempFileSpace> space_;
};

// Beyond hash_mem the groups not in the table go to partition files and come back as
// later batches: every group once, with the same results as in memory, and no file left.
TEST_F(GroupAggSpill, SpilledGroupsComeBackWhole) {
  scans::GroupAggNode node(std::make_unique<test_rows::IntRowsNode>(many_groups(), 512),
                           spilling_spec());
  const auto got = drain(node);
  ASSERT_EQ(got.size(), 20000u);
  for (int64_t k = 0; k < 20000; k += 997) {
    const bool nulled = k % 5 == 0;
    const int64_t sum = nulled ? 2 * k + 2 : 3 * k + 3;
    EXPECT_EQ(got.at(k), (std::vector<int64_t>{k, 3, nulled ? 2 : 3, sum, k})) << "key " << k;
  }
  std::vector<std::string> lines;
  node.explain_details(lines, true);
  EXPECT_THAT(lines.at(1), ::testing::MatchesRegex(
                               "Batches: [0-9]+  Memory Usage: [0-9]+kB  Disk Usage: [0-9]+kB"));
  EXPECT_THAT(lines.at(1), ::testing::Not(HasSubstr("Batches: 1 ")));
  EXPECT_EQ(files(), 0u);
  // Reopened, it spills again and gives the same groups.
  EXPECT_EQ(drain(node).size(), 20000u);
  EXPECT_EQ(files(), 0u);
}

// An error while a spilled aggregate runs (a cancel from below) leaves no file behind.
TEST_F(GroupAggSpill, AnErrorLeavesNoFile) {
  for (int fail_at : {30, 117}) {
    const uint64_t created = space_->files_created();
    {
      auto child = std::make_unique<FailingNode>(
          std::make_unique<test_rows::IntRowsNode>(many_groups(), 512), fail_at);
      scans::GroupAggNode node(std::move(child), spilling_spec());
      EXPECT_THROW(drain(node), Error);
    }  // the statement's plan goes as the error unwinds, and its files with it
    EXPECT_GT(space_->files_created(), created) << "it failed before spilling";
    EXPECT_EQ(space_->files_open(), 0u);
  }
  EXPECT_EQ(files(), 0u);
}

}  // namespace
}  // namespace tp
