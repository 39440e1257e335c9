// Session's INSERT: rows from VALUES or generate_series(...) appended to a
// table through the bulk loader, its indexes maintained alongside, committed in
// one step.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include "engine/core/datetime.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/core/type_send.h"
#include "engine/session/copy_format.h"
#include "engine/session/session.h"
#include "engine/session/session_names.h"
#include "engine/session/typed_row_source.h"
#include "engine/sql/column_value.h"
#include "engine/storage/heap_loader.h"
#include "engine/storage/index_maintenance.h"

namespace tp {
namespace {

using Clock = std::chrono::steady_clock;

// A progress line on stderr ("\r...") while a long load runs.
class LoadProgress {
 public:
  LoadProgress(bool enabled, std::string what)
      : enabled_(enabled), what_(std::move(what)), start_(Clock::now()), last_(start_) {}
  ~LoadProgress() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
  }
  // `bytes`: what has been written to the table's file so far.
  void update(uint64_t rows, uint64_t total, uint64_t bytes) {
    if (!enabled_) return;
    auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    double secs = std::chrono::duration<double>(now - start_).count();
    double mbps = secs > 0 ? double(bytes) / secs / 1e6 : 0;
    double eta = rows > 0 && total > rows ? secs * double(total - rows) / double(rows) : 0;
    std::fprintf(stderr, "\r\033[K%s: %llu / %llu rows, %.0f MB/s, ETA %.0f s", what_.c_str(),
                 (unsigned long long)rows, (unsigned long long)total, mbps, eta);
    shown_ = true;
  }

 private:
  bool enabled_;
  std::string what_;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

// For each column of `table`, the position in the source row that fills it.
// Throws PostgreSQL's errors for a column list that does not match.
std::vector<int> source_positions(const sql::Insert& ins, const RelationEntry& table) {
  std::vector<int> target(table.columns.size(), -1);
  size_t source_width =
      ins.source.values.empty() ? ins.source.targets.size() : ins.source.values.front().size();
  if (ins.columns.empty()) {
    if (source_width > table.columns.size())
      throw Error("INSERT has more expressions than target columns")
          .with_sqlstate(sqlstate::kSyntaxError);
    for (size_t i = 0; i < source_width; ++i) target[i] = int(i);
  } else {
    if (source_width > ins.columns.size())
      throw Error("INSERT has more expressions than target columns")
          .with_sqlstate(sqlstate::kSyntaxError);
    if (source_width < ins.columns.size())
      throw Error("INSERT has more target columns than expressions")
          .with_sqlstate(sqlstate::kSyntaxError);
    for (size_t i = 0; i < ins.columns.size(); ++i) {
      int pos = -1;
      for (size_t c = 0; c < table.columns.size(); ++c)
        if (table.columns[c].name == ins.columns[i]) pos = int(c);
      if (pos < 0)
        throw Error("column " + quoted(ins.columns[i]) + " of relation " + quoted(table.name) +
                    " does not exist")
            .with_sqlstate(sqlstate::kUndefinedColumn);
      if (target[size_t(pos)] >= 0)
        throw Error("column " + quoted(ins.columns[i]) + " specified more than once")
            .with_sqlstate(sqlstate::kDuplicateColumn);
      target[size_t(pos)] = int(i);
    }
  }
  return target;  // a column the INSERT does not name is NULL
}

// The columns that may not hold NULL: a primary key's.
std::vector<bool> not_null_columns(const Catalog& catalog, const RelationEntry& table) {
  std::vector<bool> not_null(table.columns.size(), false);
  for (size_t c = 0; c < table.columns.size(); ++c) not_null[c] = table.columns[c].not_null;
  for (const RelationEntry* idx : catalog.indexes_of(table.oid))
    if (idx->primary)
      for (int c : idx->key_columns) not_null[size_t(c)] = true;
  return not_null;
}

// PostgreSQL's 23502, with the failing row as its detail prints it.
[[noreturn]] void refuse_null(const RelationEntry& table, size_t column, const Datum* datums,
                              const bool* isnull) {
  std::string detail = "Failing row contains (";
  for (size_t c = 0; c < table.columns.size(); ++c)
    detail += (c ? ", " : "") +
              (isnull[c] ? std::string("null") : datum_out(table.columns[c].type, datums[c]));
  throw Error("null value in column " + quoted(table.columns[column].name) + " of relation " +
                  quoted(table.name) + " violates not-null constraint",
              detail + ").")
      .with_sqlstate(sqlstate::kNotNullViolation);
}

}  // namespace

// Stores rows in the table's column order: into its heap (rows of integers without
// NULLs by the loader's fast path) and its indexes, refusing the NULLs a column may
// not hold.
class RowStore {
 public:
  RowStore(const Catalog& catalog, const RelationEntry& table, HeapLoader& loader,
           IndexMaintainer& indexes)
      : table_(table),
        loader_(loader),
        indexes_(indexes),
        integers_(HeapTupleLayout(table.columns).all_integers()),
        not_null_(not_null_columns(catalog, table)) {}

  void add(const Datum* datums, const bool* isnull) {
    bool any_null = false;
    for (size_t c = 0; c < not_null_.size(); ++c) {
      if (isnull[c]) {
        if (not_null_[c]) refuse_null(table_, c, datums, isnull);
        any_null = true;
      }
    }
    // Rows of integers without NULLs take the loader's fast path (their Datums are the
    // integers themselves).
    const Tid tid = integers_ && !any_null ? loader_.add(datums) : loader_.add_row(datums, isnull);
    first_block_ = std::min(first_block_, tid.block);
    if (row_context &&
        (runs_.empty() || tid.block != last_.block || tid.offset != last_.offset + 1))
      runs_.push_back({tid, rows_});
    last_ = tid;
    ++rows_;
    indexes_.add(datums, isnull, tid);
  }
  BlockNumber first_block() const { return first_block_; }  // the lowest page a row went to

  // The error context of the row stored at `tid`, for a unique violation found once
  // every row is in (an index built in bulk): row_context of its place among the
  // rows, from 0. Empty without row_context.
  std::string context_of(Tid tid) const {
    if (!row_context) return {};
    std::vector<Run> runs = runs_;
    std::sort(runs.begin(), runs.end(),
              [](const Run& a, const Run& b) { return a.first < b.first; });
    auto after = std::upper_bound(runs.begin(), runs.end(), tid,
                                  [](const Tid& t, const Run& r) { return t < r.first; });
    if (after == runs.begin() || std::prev(after)->first.block != tid.block) return {};
    const Run& run = *std::prev(after);
    return row_context(run.row + uint64_t(tid.offset - run.first.offset));
  }
  std::function<std::string(uint64_t row)> row_context;  // set by a load that has one

 private:
  const RelationEntry& table_;
  HeapLoader& loader_;
  IndexMaintainer& indexes_;
  const bool integers_;
  const std::vector<bool> not_null_;
  BlockNumber first_block_ = kInvalidBlock;
  // Rows stored one after another on a page (a new run starts where the loader moves
  // to another page), kept only with row_context: where each row went.
  struct Run {
    Tid first;
    uint64_t row;  // the first row's place among the rows, from 0
  };
  std::vector<Run> runs_;
  Tid last_;
  uint64_t rows_ = 0;
};

namespace {

// The rows of a source whose expressions call the session's functions (row_source.h's
// Value evaluator), each value assigned to its column by column_datum.
void store_value_rows(const sql::Select& source, RowSourceContext& ctx, const RelationEntry& table,
                      const std::vector<int>& target, RowStore& store) {
  const size_t ncols = table.columns.size();
  std::vector<OwnedDatum> typed(ncols);
  std::vector<Datum> datums(ncols);
  const std::unique_ptr<bool[]> isnull = std::make_unique<bool[]>(ncols);
  const int64_t now = timestamp_now();  // 'now' and 'today' are the statement's
  produce_rows(source, ctx, [&](const std::vector<Value>& row) {
    for (size_t c = 0; c < ncols; ++c) {
      isnull[c] = target[c] < 0 || row[size_t(target[c])].type == ValueType::kNull;
      typed[c] =
          isnull[c] ? OwnedDatum() : column_datum(row[size_t(target[c])], table.columns[c], now);
      datums[c] = isnull[c] ? 0 : typed[c].datum();
    }
    store.add(datums.data(), isnull.get());
  });
}

}  // namespace

// PostgreSQL's heap_insert clears the all-visible bit of the page it puts a tuple on
// (a new page starts clear). Here only the table's committed last page can have one,
// and the bit is cleared just before the commit: the INSERT holds the table
// exclusively, so no scan sees its tuples before then, and an INSERT that fails
// earlier leaves the map as it was. Once written, a clear bit is never wrong.
void Session::clear_visibility(const RelationEntry& table, BlockNumber first_block) {
  if (first_block >= table.pages) return;
  std::shared_ptr<const VisibilityMap> map = storage().visibility_map(table);
  VisibilityMap next = *map;
  if (!next.clear(first_block, BlockNumber(table.pages))) return;
  check_for_interrupts();
  storage().write_visibility_map(table, next);
}

namespace {

// The table INSERT writes, with PostgreSQL's errors for what it cannot write.
const RelationEntry& insert_table(const Catalog& catalog, const sql::Insert& ins) {
  const RelationEntry* found = catalog.find(ins.table);
  if (!found) throw relation_missing(ins.table, ins.table_position);
  if (!found->is_table())
    throw Error("cannot insert into " + quoted(ins.table) + ": it is an index")
        .with_sqlstate(sqlstate::kWrongObjectType);
  if (ins.source.from && !ins.source.from->is_function)
    throw Error(
        "INSERT ... SELECT reads generate_series(...) or VALUES; reading another table "
        "is not supported")
        .at_position(ins.source.from->position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  return *found;
}

// Each source position's column, from source_positions' `target`.
std::vector<Column> assignment(const std::vector<int>& target, const RelationEntry& table) {
  std::vector<Column> assign(target.size());
  size_t width = 0;
  for (size_t c = 0; c < target.size(); ++c)
    if (target[c] >= 0) {
      assign[size_t(target[c])] = table.columns[c];
      width = std::max(width, size_t(target[c]) + 1);
    }
  assign.resize(width);
  return assign;
}

}  // namespace

void Session::describe_insert(const sql::Insert& ins) {
  const RelationEntry& table = insert_table(catalog(), ins);
  const std::vector<Column> assign = assignment(source_positions(ins, table), table);
  // A parameter standing alone as a value takes its column's type (an untyped
  // literal's assignment); binding a typed source finds the others'.
  sql::StatementParams* params = sql::current_params();
  auto bare = [&](const sql::Expr& e, size_t position) {
    if (params && e.param != 0 && position < assign.size() &&
        (e.kind == sql::ExprKind::kStrConst || e.kind == sql::ExprKind::kNullConst))
      params->infer(e.param, assign[position].type);
  };
  for (const auto& row : ins.source.values)
    for (size_t i = 0; i < row.size(); ++i) bare(*row[i], i);
  if (ins.source.values.empty())
    for (size_t i = 0; i < ins.source.targets.size(); ++i) bare(*ins.source.targets[i].expr, i);
  RowSourceContext ctx = row_source_context();
  if (is_typed_row_source(ins.source)) TypedRowSource typed(ins.source, ctx, &assign);
}

ResultSet Session::insert(const sql::Insert& ins) {
  const RelationEntry table = insert_table(catalog(), ins);
  const std::vector<int> target = source_positions(ins, table);
  const std::vector<Column> assign = assignment(target, table);
  RowSourceContext ctx = row_source_context();
  std::optional<TypedRowSource> typed;
  if (is_typed_row_source(ins.source)) typed.emplace(ins.source, ctx, &assign);
  auto total = [&] { return typed ? typed->size() : row_source_size(ins.source, ctx); };
  const uint64_t rows = load_rows(
      table, "INSERT INTO " + table.name, total, [&](RowStore& store, const LoadTick& tick) {
        ctx.tick = [&](uint64_t rows, uint64_t) { tick(rows); };
        if (!typed) {
          store_value_rows(ins.source, ctx, table, target, store);
          return;
        }
        const size_t ncols = table.columns.size();
        std::vector<Datum> datums(ncols);
        const std::unique_ptr<bool[]> isnull = std::make_unique<bool[]>(ncols);
        typed->run([&](const Datum* values, const bool* nulls) {
          for (size_t c = 0; c < ncols; ++c) {
            const int p = target[c];
            isnull[c] = p < 0 || nulls[p];
            datums[c] = isnull[c] ? 0 : values[p];
          }
          store.add(datums.data(), isnull.get());
        });
      });
  ResultSet r;
  r.tag = "INSERT 0 " + std::to_string(rows);
  return r;
}

uint64_t Session::load_rows(const RelationEntry& table, const std::string& what,
                            const std::function<uint64_t()>& total_rows,
                            const std::function<void(RowStore&, const LoadTick&)>& produce) {
  uint64_t rows = 0;
  atomically([&] {
    Catalog next = catalog();
    HeapLoader loader(data_dir(), storage(), table);
    IndexMaintainer indexes(storage(), data_dir(), next, table);
    RowStore store(catalog(), table, loader, indexes);
    const bool show_progress = db_->options().progress;
    const uint64_t total = show_progress ? total_rows() : 0;
    LoadProgress progress(show_progress && total >= 1000000, what);
    produce(store, [&](uint64_t done) {
      check_for_interrupts();
      if (show_progress) progress.update(done, total, loader.bytes_written());
    });
    check_for_interrupts();
    uint64_t pages = loader.finish();
    std::vector<uint32_t> garbage = indexes.finish([&](Tid tid) { return store.context_of(tid); });
    clear_visibility(table, store.first_block());
    RelationEntry* rel = next.find_oid(table.oid);
    rel->pages = pages;
    rel->rows += loader.rows_added();
    rows = loader.rows_added();
    commit_catalog(std::move(next), garbage);
    return ResultSet{};
  });
  return rows;
}

// COPY FROM STDIN: the client's rows (copy_format.h), each field read by its column's
// input function (binary: receive function), loaded as INSERT loads its rows. An
// error names the line and column it is on, as PostgreSQL's CONTEXT does.
ResultSet Session::copy_from(const sql::CopyStmt& c, const RelationEntry& table,
                             const std::vector<int>& target) {
  std::vector<std::string> names;  // the columns in the data's order
  std::vector<size_t> column_of;   // each data field's table column
  for (size_t pos = 0;; ++pos) {
    auto it = std::find(target.begin(), target.end(), int(pos));
    if (it == target.end()) break;
    column_of.push_back(size_t(it - target.begin()));
    names.push_back(table.columns[column_of.back()].name);
  }
  const bool binary = c.format == sql::CopyStmt::Format::kBinary;
  const size_t ncols = table.columns.size();
  CopyInParser parser(c, names);
  // PostgreSQL's context: the line, and its text while the line is being read and its
  // row checked (a unique violation is found later, when PostgreSQL flushes a batch of
  // rows, and names the line alone).
  auto where = [&](uint64_t line, bool with_text) {
    std::string context = "COPY " + table.name + ", line " + std::to_string(line);
    if (const auto text = parser.line_text(); with_text && text)
      context += ": \"" + copy_context_text(*text) + "\"";
    return context;
  };
  const uint64_t rows = load_rows(
      table, "COPY " + table.name, [] { return uint64_t(0); },
      [&](RowStore& store, const LoadTick& tick) {
        store.row_context = [&](uint64_t row) { return where(parser.line_of_row(row), false); };
        std::vector<OwnedDatum> values(ncols);
        std::vector<Datum> datums(ncols);
        const std::unique_ptr<bool[]> isnull = std::make_unique<bool[]>(ncols);
        const int64_t now = timestamp_now();
        uint64_t done = 0;
        const CopyInParser::RowFn row = [&](const CopyInParser::Fields& fields) {
          for (size_t col = 0; col < ncols; ++col) isnull[col] = true;
          for (size_t f = 0; f < fields.size(); ++f) {
            const size_t col = column_of[f];
            if (!fields[f]) continue;
            const Column& column = table.columns[col];
            isnull[col] = false;
            try {
              if (binary)
                values[col] = datum_recv(column.type, column.typmod, *fields[f]);
              else if (column.type == TypeId::kText)
                values[col].set_varlena(*fields[f]);  // the parser checked its encoding
              else
                datum_in_to(values[col], column.type, column.typmod, *fields[f], now);
            } catch (Error& e) {
              throw e.with_context(
                  where(parser.line(), false) + ", column " + column.name +
                  (binary ? std::string() : ": \"" + copy_context_text(*fields[f]) + "\""));
            }
            datums[col] = values[col].datum();
          }
          try {
            store.add(datums.data(), isnull.get());
          } catch (Error& e) {
            throw e.with_context(where(parser.line(), e.sqlstate() == sqlstate::kNotNullViolation));
          }
          if (++done % 4096 == 0) tick(done);
        };
        copy_io_->begin_in(c.format, names.size());
        std::string chunk;
        try {
          while (copy_io_->read(chunk)) parser.feed(chunk, row);
          parser.finish(row);
        } catch (Error& e) {
          if (e.context().empty()) e.with_context(where(parser.line(), true));
          throw;
        }
      });
  ResultSet r;
  r.tag = "COPY " + std::to_string(rows);
  return r;
}

}  // namespace tp
