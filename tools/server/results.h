// What a statement's outcome looks like on the wire: a ResultSet as
// RowDescription + DataRow... + CommandComplete, an exception as the fields of
// an ErrorResponse, and a Query string cut into its statements.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/session/session.h"
#include "tools/server/wire.h"

namespace tp::server {

// PostgreSQL's type OID and length (typlen; -1 = variable) of a column.
struct WireType {
  int32_t oid = 25;  // text
  int16_t length = -1;
};
WireType wire_type(ValueType t);

// Appends the statement's rows (if it returns any and they were not streamed)
// and its CommandComplete.
void send_result(Socket& socket, const ResultSet& r);
// RowDescription of `r`'s columns. `formats`: each column's format code (0 text, 1
// binary), as Bind asked; empty: all text.
void send_row_description(Socket& socket, const ResultSet& r,
                          const std::vector<int16_t>& formats = {});
// One DataRow. A cell is NULL when `nulls` says so, or, without it, when it is
// empty in a column of `header` that is not text (numbers never print empty). A
// binary column's cell is its type's send format (engine/core/type_send.h).
void send_data_row(Socket& socket, const ResultSet& header, const std::vector<std::string>& row,
                   const std::vector<bool>* nulls, const std::vector<int16_t>& formats = {});
// Column `col`'s type and typmod as RowDescription gives them.
Column result_column_type(const ResultSet& r, size_t col);

// The ErrorResponse fields of whatever a statement threw: tp::Error with its
// SQLSTATE (XX000 when it has none), std::bad_alloc as out_of_memory (53200).
ErrorFields error_fields(const std::exception_ptr& error);

// One statement of a Query string and where it starts in it (for positions).
struct QueryPart {
  std::string text;
  size_t offset = 0;  // characters before it in the Query string
};
// The statements of `query` (sql::split_statements), leaving out those that
// hold nothing but comments; empty for an empty query (EmptyQueryResponse).
std::vector<QueryPart> split_query(std::string_view query);

// PostgreSQL's error position (1-based, in characters) of the 1-based byte
// position `byte_position` of the UTF-8 text `query`.
int character_position(std::string_view query, size_t byte_position);

// True for psql's catalog queries (\d, \dt, \l ...), which name pg_catalog.
bool names_pg_catalog(std::string_view statement);
// The error a query that names pg_catalog gets in place of `error` when `error` says
// tidepool did not understand it (a syntax error, an unknown function, column or
// pg_ relation, a feature not built): 0A000 with the cause as its DETAIL. Any other
// error (22P02, a user table missing ...) is returned as it is.
std::exception_ptr refuse_catalog_query(std::string_view statement, std::exception_ptr error);

}  // namespace tp::server
