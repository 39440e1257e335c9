// Rows that do not come from a table (VALUES lists, SELECT without FROM, FROM
// generate_series(...)), their expressions bound and evaluated as typed expressions
// (engine/core/typed_expr.h) as PostgreSQL 15 types them: `'abc' || g`, `date
// '2020-01-01' + g % 365`, `(random() * 1000)::numeric(10,2)`. For INSERT each value is
// assigned to its column's type (rounded into numeric(p,s), "value too long" for
// varchar(n)); for SELECT a VALUES column takes the rows' common type. generate_series
// in a select list expands as PostgreSQL 10+ does: as many rows as the longest series,
// NULL in the shorter ones past their end.
//
//   TypedRowSource src(select, ctx, nullptr);
//   src.run([&](const Datum* values, const bool* nulls) { ... });   // src.columns() types
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/core/heap_tuple.h"
#include "engine/session/row_source.h"

namespace tp {

// Whether `s` is read here: every row source but those whose expressions call the
// session's functions (pg_backend_pid, setseed, pg_relation_size, ...), `::regclass`
// or aggregates, which row_source.h's evaluator reads.
bool is_typed_row_source(const sql::Select& s);

class TypedRowSource {
 public:
  // `assign`: INSERT's target column for each source position, or null for a SELECT.
  // Binds every expression and evaluates generate_series' arguments; throws PostgreSQL's
  // errors for what does not type.
  TypedRowSource(const sql::Select& s, RowSourceContext& ctx, const std::vector<Column>* assign);
  ~TypedRowSource();
  TypedRowSource(const TypedRowSource&) = delete;
  TypedRowSource& operator=(const TypedRowSource&) = delete;

  // Each output column's name, type and typmod.
  const std::vector<Column>& columns() const { return columns_; }
  // The rows it will produce when known before running (0 = unknown).
  uint64_t size() const;

  // Each row's values (by-reference ones live until the next call) and NULL flags.
  using Emit = std::function<void(const Datum* values, const bool* nulls)>;
  void run(const Emit& emit);

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
  std::vector<Column> columns_;
};

}  // namespace tp
