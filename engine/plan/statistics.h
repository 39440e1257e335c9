// ANALYZE: per-column statistics computed the way PostgreSQL 15 computes them
// (analyze.c, sampling.c), for columns of every stored type.
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
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/page.h"
#include "engine/core/types.h"
#include "engine/storage/table_stats.h"

namespace tp {

using StatsRow = std::vector<StatsValue>;

// Where ANALYZE's rows come from: one block at a time, each row made into a StatsRow
// only when the sample keeps it (most rows of a sampled block are not kept).
class BlockRows {
 public:
  virtual ~BlockRows() = default;
  // Reads block `block`; returns how many live rows it holds.
  virtual size_t open(BlockNumber block) = 0;
  // Row `i` (in line-pointer order) of the open block, with exactly the table's column
  // count. By-reference values may point into the block: valid until the next open().
  virtual void row(size_t i, StatsRow& out) = 0;
};

// Contract: appends every live row of heap block `block` to `rows`, in
// line-pointer order, each with exactly the table's column count.
using BlockRowsFn = std::function<void(BlockNumber block, std::vector<StatsRow>& rows)>;

// A BlockRows over a function that lists a block's rows (tables made in memory).
class ListedBlockRows : public BlockRows {
 public:
  explicit ListedBlockRows(BlockRowsFn rows_of_block) : fn_(std::move(rows_of_block)) {}
  size_t open(BlockNumber block) override {
    rows_.clear();
    fn_(block, rows_);
    return rows_.size();
  }
  void row(size_t i, StatsRow& out) override { out = rows_.at(i); }

 private:
  BlockRowsFn fn_;
  std::vector<StatsRow> rows_;
};

struct AnalyzeOptions {
  int statistics_target = 100;  // default_statistics_target (1 .. 10000)
  uint64_t seed = 0;
};

// The first stage's result: sampled rows in physical order. By-reference values point
// into `bytes`, copies the sample owns.
struct RowSample {
  std::vector<StatsRow> rows;
  std::vector<std::unique_ptr<char[]>> bytes;
  double sampled_blocks = 0;
  double live_rows_seen = 0;  // rows in all sampled blocks
  double total_rows = 0;      // floor(live / sampled_blocks * total_blocks + 0.5)
};

// acquire_sample_rows: block sample, then reservoir; rows come back sorted by
// physical position when the reservoir filled up (otherwise they already are).
// `ref_lens`: per column, its values' typlen when they are by reference (-1 varlena, or
// the fixed length), 0 when by value; a kept row's by-reference values are copied.
RowSample acquire_sample_rows(BlockNumber total_blocks, int target_rows, uint64_t seed,
                              BlockRows& source, std::span<const int16_t> ref_lens = {});
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

// compute_scalar_stats for one column of type `type`. `values` are the sample's values
// of the column in physical order; `total_rows` the table's estimated row count. Values
// are ordered by the type's btree order (strings byte-wise, the "C" collation); a
// variable-length value over 1 kB is left out of the ordering as PostgreSQL's "too
// wide" values are (counted as distinct), and avg_width is the stored values' mean size.
ColumnStats compute_column_stats(std::span<const StatsValue> values, double total_rows,
                                 int statistics_target = 100, TypeId type = TypeId::kInt8);

// ANALYZE of a whole table whose columns have the types `types`. Throws tp::Error if
// statistics_target is outside 1 .. 10000 or a block yields a row with the wrong
// column count.
TableStats analyze_table(const std::vector<TypeId>& types, BlockNumber total_blocks,
                         BlockRows& source, const AnalyzeOptions& options = {});
// The same over `column_count` bigint columns listed by a function.
TableStats analyze_table(int column_count, BlockNumber total_blocks,
                         const BlockRowsFn& rows_of_block, const AnalyzeOptions& options = {});

}  // namespace tp
