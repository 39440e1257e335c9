// Table statistics as the catalog stores them: PostgreSQL's pg_class row
// estimates and one pg_statistic row per column, with the exact text form the
// catalog file holds. ANALYZE computes them (engine/plan/statistics.h); the
// estimator reads them (engine/plan/selectivity.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

using StatsValue = std::optional<int64_t>;  // nullopt = SQL NULL

// One column's pg_statistic row. Fractions are float4 as in PostgreSQL's
// catalog, so estimates computed from them round the same way.
struct ColumnStats {
  bool valid = false;               // false: no non-empty sample (planner uses defaults)
  float null_frac = 0;              // fraction of rows that are NULL
  float n_distinct = 0;             // > 0 count; < 0 -fraction of rows (-1 = unique); 0 unknown
  std::vector<int64_t> mcv_values;  // most common values, most common first
  std::vector<float> mcv_freqs;     // their frequencies among all rows
  std::vector<int64_t> histogram;   // equi-depth bounds of the non-MCV values, ascending
  bool has_correlation = false;
  float correlation = 0;  // physical order vs value order, -1 .. 1
  bool has_range = false;
  int64_t min_value = 0;  // smallest / largest non-null value in the sample
  int64_t max_value = 0;
  // pg_statistic's stawidth for a variable-length column: the sampled values' average
  // stored size (a short varlena's 1-byte header counted as stored); 0: the type's
  // default width (get_typavgwidth), as for fixed-width columns.
  int32_t avg_width = 0;
  friend bool operator==(const ColumnStats&, const ColumnStats&) = default;
};

struct TableStats {
  double reltuples = 0;       // estimated live rows in the table
  double relpages = 0;        // heap blocks when analyzed
  double sampled_blocks = 0;  // blocks read
  double sample_rows = 0;     // rows in the sample
  std::vector<ColumnStats> columns;
  friend bool operator==(const TableStats&, const TableStats&) = default;

  // A line-oriented text form that round-trips exactly (floats with 9
  // significant digits, doubles with 17).
  std::string to_text() const;
  // Contract: parses to_text()'s output; throws tp::Error naming the line on
  // anything else.
  static TableStats from_text(std::string_view text);
};

// The catalog keeps the text form in one field, its line breaks written as
// '|'; and back (throws as from_text does).
std::string stats_to_catalog(const TableStats& stats);
TableStats stats_from_catalog(const std::string& text);

}  // namespace tp
