// Rows that do not come from a table: SELECT lists without FROM, FROM
// generate_series(...), and VALUES lists, including PostgreSQL's
// set-returning form VALUES (generate_series(1, 10), random()*1000). INSERT
// and SELECT both read them through produce_rows().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/sql/ast.h"
#include "engine/sql/value.h"

namespace tp {

struct RowSourceContext {
  Random* random = nullptr;
  // Functions with session effects (setseed, pg_relation_size); may be empty.
  std::function<Value(const sql::Expr&, const std::vector<Value>&)> session_function;
  // Throw from it to stop (cancel). Called every kTickRows rows produced (or looked at): INSERT
  // checks for a cancel there, so a cancel waits for at most that many rows and their index
  // entries.
  std::function<void(uint64_t rows_so_far, uint64_t rows_total)> tick;
  static constexpr uint64_t kTickRows = 1024;
};

// Output column names of the row source (as PostgreSQL names them).
std::vector<std::string> row_source_columns(const sql::Select& s);

// Number of rows the source will produce if known in advance (0 = unknown).
uint64_t row_source_size(const sql::Select& s, RowSourceContext& ctx);

// Calls `emit` with each row's values (one per target, or per VALUES column).
// Throws tp::Error for what it cannot evaluate.
void produce_rows(const sql::Select& s, RowSourceContext& ctx,
                  const std::function<void(const std::vector<Value>&)>& emit);

}  // namespace tp
