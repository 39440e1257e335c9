// ANALYZE: per-column statistics computed the way PostgreSQL 15 computes them
// (analyze.c, sampling.c), for int4/int8 columns held as int64.
//
//   TableStats st = analyze_table(/*columns=*/2, heap_blocks,
//       [&](BlockNumber b, std::vector<StatsRow>& out) { /* append live rows of b */ },
//       {.statistics_target = 100, .seed = 42});
//   std::string text = st.to_text();            // what the catalog stores
//   TableStats back = TableStats::from_text(text);
//
// Sampling is two-stage: up to 300 * target blocks chosen with Knuth's
// Algorithm S, then a reservoir of 300 * target rows over the rows of those
// blocks (Vitter's Algorithm Z). The random numbers are PostgreSQL's
// (xoroshiro128** seeded by splitmix64) seeded from `seed`, so a given seed
// always yields the same sample. engine/plan/README.md describes the estimators.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/page.h"
#include "engine/storage/table_stats.h"

namespace tp {

using StatsRow = std::vector<StatsValue>;

// Contract: appends every live row of heap block `block` to `rows`, in
// line-pointer order, each with exactly the table's column count.
using BlockRowsFn = std::function<void(BlockNumber block, std::vector<StatsRow>& rows)>;

struct AnalyzeOptions {
  int statistics_target = 100;  // default_statistics_target (1 .. 10000)
  uint64_t seed = 0;
};

// The first stage's result: sampled rows in physical order.
struct RowSample {
  std::vector<StatsRow> rows;
  double sampled_blocks = 0;
  double live_rows_seen = 0;  // rows in all sampled blocks
  double total_rows = 0;      // floor(live / sampled_blocks * total_blocks + 0.5)
};

// acquire_sample_rows: block sample, then reservoir; rows come back sorted by
// physical position when the reservoir filled up (otherwise they already are).
RowSample acquire_sample_rows(BlockNumber total_blocks, int target_rows, uint64_t seed,
                              const BlockRowsFn& rows_of_block);

// The blocks acquire_sample_rows hands to rows_of_block for the same arguments, in the
// same (ascending) order: its first stage alone, so a caller can read them through a read
// stream before the rows are drawn. The block sampler has its own random generator, so
// computing the list first changes no draw of the row reservoir.
std::vector<BlockNumber> sample_blocks(BlockNumber total_blocks, int target_rows, uint64_t seed);

// Rows ANALYZE samples: 300 * statistics_target. Throws tp::Error if the target is
// outside 1 .. 10000.
int analyze_target_rows(const AnalyzeOptions& options);

// compute_scalar_stats for one column. `values` are the sample's values of the
// column in physical order; `total_rows` the table's estimated row count.
ColumnStats compute_column_stats(std::span<const StatsValue> values, double total_rows,
                                 int statistics_target = 100);

// ANALYZE of a whole table. Throws tp::Error if statistics_target is outside
// 1 .. 10000 or a block yields a row with the wrong column count.
// `skip_columns`: columns whose statistics are not computed (true), those of types
// other than integer and bigint so far; their ColumnStats stay invalid (the planner's
// defaults) but for avg_width, the mean of what their sampled rows hold: each
// variable-length value's stored size (0 for a NULL or a fixed-width type).
TableStats analyze_table(int column_count, BlockNumber total_blocks,
                         const BlockRowsFn& rows_of_block, const AnalyzeOptions& options = {},
                         const std::vector<bool>& skip_columns = {});

}  // namespace tp
