// SELECT DISTINCT's executor nodes over rows given here: Unique keeps the first row of
// each run of equal keys (and only the first row when it has no keys; a Limit's hint
// caps its batches without losing rows), HashAggregate
// returns each distinct group once whatever the input order, and refuses with an error
// naming its limit once the hash set would outgrow it.
#include <gmock/gmock.h>

#include <algorithm>
#include <memory>
#include <set>
#include <vector>

#include "engine/core/error.h"
#include "scans/distinct.h"
#include "tests/scans/int_rows_node.h"

namespace tp {
namespace {

using ::testing::HasSubstr;

std::vector<std::vector<int64_t>> drain(scans::ExecNode& node) {
  std::vector<std::vector<int64_t>> out;
  node.open();
  while (const scans::RowBatch* b = node.next())
    for (uint32_t i = 0; i < b->count; ++i) out.emplace_back(b->row(i), b->row(i) + b->width);
  return out;
}

TEST(DistinctNodes, UniqueKeepsTheFirstRowOfEachRunAcrossBatches) {
  // Sorted on slot 0; slot 1 differs inside a run and must not split it.
  std::vector<std::vector<int64_t>> in;
  for (int64_t k = 0; k < 50; ++k)
    for (int64_t j = 0; j < 7; ++j) in.push_back({k, j});
  scans::UniqueNode unique(std::make_unique<test_rows::IntRowsNode>(in, 3), {0});
  std::vector<std::vector<int64_t>> out = drain(unique);
  ASSERT_EQ(out.size(), 50u);
  for (int64_t k = 0; k < 50; ++k) EXPECT_EQ(out[size_t(k)], (std::vector<int64_t>{k, 0}));
  // Reopened, it starts over.
  EXPECT_EQ(drain(unique).size(), 50u);
  // A Limit's hint caps each batch; the rest of the child's batch is kept for the next.
  unique.row_limit_hint = 2;
  unique.open();
  size_t total = 0;
  while (const scans::RowBatch* b = unique.next()) {
    EXPECT_LE(b->count, 2u);
    for (uint32_t i = 0; i < b->count; ++i) EXPECT_EQ(b->row(i)[0], int64_t(total++));
  }
  EXPECT_EQ(total, 50u);
}

TEST(DistinctNodes, UniqueWithoutKeysReturnsOneRow) {
  scans::UniqueNode unique(
      std::make_unique<test_rows::IntRowsNode>(std::vector<std::vector<int64_t>>{{4}, {4}, {4}}, 2),
      {});
  EXPECT_EQ(drain(unique), (std::vector<std::vector<int64_t>>{{4}}));
}

TEST(DistinctNodes, HashAggregateReturnsEachGroupOnce) {
  std::vector<std::vector<int64_t>> in;
  std::set<std::vector<int64_t>> want;
  for (int64_t i = 0; i < 5000; ++i) {
    in.push_back({(i * 7919) % 101, i % 3});
    want.insert(in.back());
  }
  scans::HashAggregateNode hash(std::make_unique<test_rows::IntRowsNode>(in, 100), {0, 1}, "a, b",
                                0, uint64_t(1) << 30);
  std::vector<std::vector<int64_t>> out = drain(hash);
  EXPECT_EQ(out.size(), want.size());
  EXPECT_EQ(std::set<std::vector<int64_t>>(out.begin(), out.end()), want);
  std::vector<std::string> lines;
  hash.explain_details(lines, true);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "Group Key: a, b");
  EXPECT_THAT(lines[1], HasSubstr("Batches: 1  Memory Usage: "));
}

TEST(DistinctNodes, HashAggregateRefusesToOutgrowItsLimit) {
  std::vector<std::vector<int64_t>> in;
  for (int64_t i = 0; i < 100000; ++i) in.push_back({i});
  scans::HashAggregateNode hash(std::make_unique<test_rows::IntRowsNode>(in, 1000), {0}, "a", 0,
                                uint64_t(1) << 20);
  try {
    drain(hash);
    FAIL() << "1 MB limit not enforced";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("needs more than 1 MB, its in-memory limit"));
  }
}

}  // namespace
}  // namespace tp
