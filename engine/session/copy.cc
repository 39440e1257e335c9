// COPY to and from the client (CopyIo): COPY FROM STDIN loads rows as INSERT does
// (session_insert.cc's copy_from); COPY TO STDOUT runs its query (a table's columns, or
// the query written) with a RowSink that writes each row in the format asked for.
#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/type_send.h"
#include "engine/session/copy_format.h"
#include "engine/session/session.h"
#include "engine/session/session_names.h"
#include "engine/sql/identifier.h"
#include "engine/sql/parser.h"

namespace tp {

namespace {

// For each column of `table`, its place in the data (-1: not in it): the column
// list's order, or every column's.
std::vector<int> copy_columns(const sql::CopyStmt& c, const RelationEntry& table) {
  std::vector<int> target(table.columns.size(), -1);
  if (c.columns.empty()) {
    for (size_t i = 0; i < target.size(); ++i) target[i] = int(i);
    return target;
  }
  for (size_t i = 0; i < c.columns.size(); ++i) {
    auto it = std::find_if(table.columns.begin(), table.columns.end(),
                           [&](const Column& col) { return col.name == c.columns[i]; });
    if (it == table.columns.end())
      throw Error("column " + quoted(c.columns[i]) + " of relation " + quoted(table.name) +
                  " does not exist")
          .with_sqlstate(sqlstate::kUndefinedColumn);
    int& slot = target[size_t(it - table.columns.begin())];
    if (slot >= 0)
      throw Error("column " + quoted(c.columns[i]) + " specified more than once")
          .with_sqlstate(sqlstate::kDuplicateColumn);
    slot = int(i);
  }
  return target;
}

// COPY TO's rows, written to the client as they are made.
class CopyOutSink : public RowSink {
 public:
  CopyOutSink(const sql::CopyStmt& copy, CopyIo& io) : copy_(copy), io_(io) {}

  void begin(const ResultSet& header) override {
    for (size_t c = 0; c < header.columns.size(); ++c) {
      Column t;
      if (c < header.column_type_ids.size()) {
        t = header.column_type_ids[c];
      } else {
        const ValueType v =
            c < header.column_types.size() ? header.column_types[c] : ValueType::kText;
        t.type = v == ValueType::kInt4      ? TypeId::kInt4
                 : v == ValueType::kInt8    ? TypeId::kInt8
                 : v == ValueType::kBool    ? TypeId::kBool
                 : v == ValueType::kFloat8  ? TypeId::kFloat8
                 : v == ValueType::kNumeric ? TypeId::kNumeric
                                            : TypeId::kText;
        t.typmod = kNoTypmod;
      }
      types_.push_back(t);
    }
    io_.begin_out(copy_.format, header.columns.size());
    if (binary()) {
      io_.write(copy_binary_header());
    } else if (copy_.header) {
      line_.clear();
      copy_text_row(copy_, header.columns, nullptr, line_);
      io_.write(line_);
    }
  }

  void row(const std::vector<std::string>& cells, const std::vector<bool>* nulls) override {
    line_.clear();
    if (!binary()) {
      copy_text_row(copy_, cells, nulls, line_);
    } else {
      line_.push_back(char(cells.size() >> 8));
      line_.push_back(char(cells.size() & 0xFF));
      for (size_t c = 0; c < cells.size(); ++c) {
        if (nulls != nullptr && (*nulls)[c]) {
          line_.append(4, '\xff');
          continue;
        }
        const std::string b = datum_send(
            types_[c].type, datum_in(types_[c].type, types_[c].typmod, cells[c], 0).datum());
        for (int shift = 24; shift >= 0; shift -= 8)
          line_.push_back(char((b.size() >> shift) & 0xFF));
        line_ += b;
      }
    }
    io_.write(line_);
    ++rows_;
  }

  void end() {
    if (binary()) io_.write(copy_binary_trailer());
    io_.end_out();
  }
  uint64_t rows() const { return rows_; }

 private:
  bool binary() const { return copy_.format == sql::CopyStmt::Format::kBinary; }

  const sql::CopyStmt& copy_;
  CopyIo& io_;
  std::vector<Column> types_;
  std::string line_;
  uint64_t rows_ = 0;
};

}  // namespace

namespace {

// tidepool sql has no client on the other end: COPY is the server's.
void need_client(const CopyIo* io, const sql::CopyStmt& c) {
  if (io == nullptr)
    throw Error(std::string("COPY ") + (c.from ? "FROM STDIN" : "TO STDOUT") +
                    " needs a client on the other end of the protocol",
                "", "Run it through tidepool serve (psql's \\copy, a driver's COPY support).")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
}

}  // namespace

ResultSet Session::copy(const sql::CopyStmt& c) {
  if (!c.from) return copy_to(c);
  const RelationEntry* found = catalog().find(c.table);
  if (!found) throw relation_missing(c.table, c.table_position);
  if (!found->is_table())
    throw Error("cannot copy to non-table relation " + quoted(c.table))
        .with_sqlstate(sqlstate::kWrongObjectType);
  const RelationEntry table = *found;
  const std::vector<int> target = copy_columns(c, table);
  need_client(copy_io_, c);
  return copy_from(c, table, target);
}

ResultSet Session::copy_to(const sql::CopyStmt& c) {
  const sql::Select* query = c.query.get();
  sql::Statement table_query;  // COPY table TO: SELECT its columns FROM it
  if (!query) {
    const RelationEntry* found = catalog().find(c.table);
    if (!found) throw relation_missing(c.table, c.table_position);
    if (!found->is_table())
      throw Error("cannot copy from non-table relation " + quoted(c.table))
          .with_sqlstate(sqlstate::kWrongObjectType);
    const std::vector<int> target = copy_columns(c, *found);
    std::vector<std::string> columns(c.columns.empty() ? target.size() : c.columns.size());
    for (size_t i = 0; i < target.size(); ++i)
      if (target[i] >= 0)
        columns[size_t(target[i])] = sql::quote_identifier(found->columns[i].name);
    std::string text = "SELECT ";
    for (size_t i = 0; i < columns.size(); ++i) text += (i ? ", " : "") + columns[i];
    text += " FROM " + sql::quote_identifier(found->name);
    table_query = sql::parse_statement(text, nullptr);
    query = &std::get<sql::Select>(table_query);
  }
  need_client(copy_io_, c);
  CopyOutSink sink(c, *copy_io_);
  RowSink* const saved = row_sink_;
  row_sink_ = &sink;
  ResultSet r;
  try {
    r = select(*query);
  } catch (...) {
    row_sink_ = saved;
    throw;
  }
  row_sink_ = saved;
  if (!r.streamed) {
    // The system views give their rows in the result.
    sink.begin(r);
    for (size_t i = 0; i < r.rows.size(); ++i)
      sink.row(r.rows[i], i < r.nulls.size() ? &r.nulls[i] : nullptr);
  }
  sink.end();
  ResultSet done;
  done.tag = "COPY " + std::to_string(sink.rows());
  return done;
}

}  // namespace tp
