// Table statistics as the catalog stores them: PostgreSQL's pg_class row
// estimates and one pg_statistic row per column, with the exact text form the
// catalog file holds. ANALYZE computes them (engine/plan/statistics.h); the
// estimator reads them (engine/plan/selectivity.h).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/datum.h"

namespace tp {

// A sampled value: a Datum of the column's type, nullopt for SQL NULL. A by-reference
// value points at bytes its holder keeps alive.
using StatsValue = std::optional<Datum>;

// One column's pg_statistic row. Fractions are float4 as in PostgreSQL's
// catalog, so estimates computed from them round the same way. Values are Datums of
// the column's type (an integer column's are its integers); a by-reference value
// (text, numeric, interval, ...) points into `value_bytes`, which copies share and
// nothing changes.
struct ColumnStats {
  bool valid = false;             // false: no non-empty sample (planner uses defaults)
  float null_frac = 0;            // fraction of rows that are NULL
  float n_distinct = 0;           // > 0 count; < 0 -fraction of rows (-1 = unique); 0 unknown
  std::vector<Datum> mcv_values;  // most common values, most common first
  std::vector<float> mcv_freqs;   // their frequencies among all rows
  std::vector<Datum> histogram;   // equi-depth bounds of the non-MCV values, ascending
  bool has_correlation = false;
  float correlation = 0;  // physical order vs value order, -1 .. 1
  bool has_range = false;
  Datum min_value = 0;  // smallest / largest non-null value in the sample
  Datum max_value = 0;
  // The values' typlen when they are by reference (-1: varlena; 16: interval), 0 when
  // they are by value; value_bytes holds them then.
  int16_t ref_len = 0;
  std::shared_ptr<const std::string> value_bytes;
  // pg_statistic's stawidth for a variable-length column: the sampled values' average
  // stored size (a short varlena's 1-byte header counted as stored); 0: the type's
  // default width (get_typavgwidth), as for fixed-width columns.
  int32_t avg_width = 0;
  // Equal fields and values (by-reference values by their bytes).
  friend bool operator==(const ColumnStats& a, const ColumnStats& b);
};

// Copies by-reference values into one byte store and points the Datums at it: what
// ANALYZE and the text form use to give a ColumnStats its own copies. `values` holds
// pointers to each value's bytes (`ref_len` < 0: a varlena, else that many bytes).
class StatsValueStore {
 public:
  explicit StatsValueStore(int16_t ref_len) : ref_len_(ref_len) {}
  // Queues a copy of the value at `d`; returns its index for datum().
  size_t add(Datum d);
  // Queues a copy of `bytes` (a whole value).
  size_t add_bytes(std::string_view bytes);
  // Moves the queued bytes into `st` (its value_bytes and ref_len); datum(i) is
  // valid after this.
  void finish(ColumnStats& st);
  Datum datum(size_t index) const;

 private:
  int16_t ref_len_;
  std::string bytes_;
  std::vector<size_t> offsets_;
  std::shared_ptr<const std::string> store_;
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
