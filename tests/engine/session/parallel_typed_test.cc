// Parallel plans over rows with text, numeric and NULLs: each worker's rows cross to the
// leader through its queue with their by-reference bytes (a batch's arena is reused as
// soon as the worker reads its next page), and Gather Merge merges them by the types'
// order. The parallel answers equal the serial ones, row for row. Run under
// ThreadSanitizer too.
#include <gtest/gtest.h>

#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::TempDir;

TEST(ParallelTypedRows, GatherAndGatherMergeCarryTextNumericAndNulls) {
  TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  s.execute("CREATE TABLE t (k int, price numeric(15,2), label varchar(40), note text)");
  for (int i = 0; i < 50; ++i) {  // 50 runs of 600 rows, each with its own texts
    const std::string note = i % 5 == 0 ? "NULL" : "'note " + std::to_string(i) + "'";
    s.execute("INSERT INTO t SELECT g, (g % 997) * 1.37, 'label number " + std::to_string(i % 7) +
              "', " + note + " FROM generate_series(" + std::to_string(i * 600 + 1) + ", " +
              std::to_string(i * 600 + 600) + ") g");
  }
  const std::string ordered =
      "SELECT price, label, k, note FROM t ORDER BY price DESC, label, k LIMIT 2000";
  const std::string all = "SELECT k, price, label, note FROM t";
  s.execute("SET max_parallel_workers_per_gather = 0");
  const ResultSet serial_sorted = s.execute(ordered);
  ResultSet serial_all = s.execute(all);
  ASSERT_EQ(serial_sorted.rows.size(), 2000u);
  ASSERT_EQ(serial_all.rows.size(), 30000u);

  for (const char* set : {"SET max_parallel_workers_per_gather = 2", "SET parallel_setup_cost = 0",
                          "SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0"})
    s.execute(set);
  bool gather_merge = false;
  for (const auto& row : s.execute("EXPLAIN " + ordered).rows)
    gather_merge = gather_merge || row[0].find("Gather Merge") != std::string::npos;
  ASSERT_TRUE(gather_merge);
  const ResultSet parallel_sorted = s.execute(ordered);
  EXPECT_EQ(parallel_sorted.rows, serial_sorted.rows);
  EXPECT_EQ(parallel_sorted.nulls, serial_sorted.nulls);

  // Gather returns the participants' rows in any order: compare them sorted.
  ResultSet parallel_all = s.execute(all);
  auto sorted = [](ResultSet& r) {
    std::vector<std::pair<std::vector<std::string>, std::vector<bool>>> rows;
    for (size_t i = 0; i < r.rows.size(); ++i)
      rows.emplace_back(r.rows[i], i < r.nulls.size() ? r.nulls[i] : std::vector<bool>(4, false));
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  EXPECT_EQ(sorted(parallel_all), sorted(serial_all));

  // Partial Aggregates hand their typed states (a numeric sum, a text min, a participant
  // with no rows) across the Gather, their expression arguments computed in each worker:
  // the Finalize gives the serial answers.
  const std::string aggregates =
      "SELECT sum(price), avg(price), min(label), max(note), count(note), min(price), "
      "sum(price * 2), max(label || k), sum(k % 7) FROM t";
  const std::string none = "SELECT sum(price), min(label) FROM t WHERE k < 0";
  bool finalize = false;
  for (const auto& row : s.execute("EXPLAIN " + aggregates).rows)
    finalize = finalize || row[0].find("Finalize Aggregate") != std::string::npos;
  ASSERT_TRUE(finalize);
  const ResultSet parallel_aggs = s.execute(aggregates), parallel_none = s.execute(none);
  s.execute("SET max_parallel_workers_per_gather = 0");
  EXPECT_EQ(parallel_aggs.rows, s.execute(aggregates).rows);
  EXPECT_EQ(parallel_aggs.rows.at(0).at(0), "20412006.75");
  EXPECT_EQ(parallel_none.rows, s.execute(none).rows);
}

}  // namespace
}  // namespace tp
