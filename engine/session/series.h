// generate_series as tidepool's row sources read it: an integer series (int4, or int8
// when an argument is), its length in 128-bit arithmetic, and what a query may do with
// it: name its column, order it (by random(), a seeded shuffle, or by itself, maybe
// reversed) and refuse what cannot be numbered in 32 bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/random.h"
#include "engine/core/session_memory.h"
#include "engine/sql/ast.h"

namespace tp {

struct Series {
  int64_t start = 0, stop = 0, step = 1;
  bool int8 = false;  // else int4
  // In 128 bits: the span of a full-range series does not fit in 64 (saturates).
  uint64_t count() const {
    __int128 span = step > 0 ? __int128(stop) - start : __int128(start) - stop;
    if (span < 0) return 0;
    __int128 n = span / (step > 0 ? __int128(step) : -__int128(step)) + 1;
    return n > __int128(UINT64_MAX) ? UINT64_MAX : uint64_t(n);
  }
  int64_t at(uint64_t k) const {
    return int64_t(start + __int128(k) * step);  // between start and stop: in range
  }
};

// From its integer arguments (start, stop [, step]); `int8` when one of them is bigint.
// Throws PostgreSQL's errors for the count of arguments and a zero step.
Series make_series(const std::vector<int64_t>& args, bool int8, int position);
// 42883 for arguments of another type (`types` as PostgreSQL prints them).
[[noreturn]] void refuse_series_types(const std::string& types, int position);

// Rows are numbered (and shuffled) with 32-bit indexes.
void refuse_too_many(uint64_t rows);

// The generate_series calls in an expression, outermost first.
void find_series_calls(const sql::Expr& e, std::vector<const sql::Expr*>& out);
bool is_random_call(const sql::Expr& e);

// The one column FROM generate_series(...) yields, and the name it goes by.
std::string series_column(const sql::FromItem& f);

struct SeriesOrder {
  bool shuffle = false;  // ORDER BY random()
  bool reverse = false;  // ORDER BY the column against the series' direction
};
SeriesOrder series_order(const sql::Select& s, const Series& series, const std::string& col);

// Row positions in output order: a seeded Fisher-Yates shuffle (the same seed gives
// the same table); the memory is counted in `memory`.
std::vector<uint32_t> shuffled_positions(uint64_t n, Random& random, TrackedMemory& memory);

}  // namespace tp
