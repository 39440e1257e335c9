#include "tools/server/results.h"

#include <algorithm>
#include <cctype>
#include <new>

#include "engine/core/error.h"
#include "engine/core/type_send.h"
#include "engine/sql/parser.h"

namespace tp::server {

WireType wire_type(ValueType t) {
  switch (t) {
    case ValueType::kBool:
      return {16, 1};
    case ValueType::kInt4:
      return {23, 4};
    case ValueType::kInt8:
      return {20, 8};
    case ValueType::kNumeric:
      return {1700, -1};
    case ValueType::kFloat8:
      return {701, 8};
    case ValueType::kNull:
    case ValueType::kText:
      break;
  }
  return {25, -1};
}

namespace {

ValueType column_type(const ResultSet& r, size_t col) {
  return col < r.column_types.size() ? r.column_types[col] : ValueType::kText;
}

}  // namespace

Column result_column_type(const ResultSet& r, size_t col) {
  if (col < r.column_type_ids.size()) return r.column_type_ids[col];
  Column c;
  c.type = TypeId(wire_type(column_type(r, col)).oid);
  c.typmod = -1;
  return c;
}

void send_row_description(Socket& socket, const ResultSet& r, const std::vector<int16_t>& formats) {
  Message desc('T');
  desc.int16(int16_t(r.columns.size()));
  for (size_t c = 0; c < r.columns.size(); ++c) {
    const Column t = result_column_type(r, c);
    const TypeInfo& info = type_info(t.type);
    const int16_t format = c < formats.size() ? formats[c] : 0;
    desc.str(r.columns[c]).int32(0).int16(0).int32(int32_t(info.id)).int16(info.len);
    desc.int32(t.typmod).int16(format);
  }
  socket.send(desc.finish());
}

void send_data_row(Socket& socket, const ResultSet& header, const std::vector<std::string>& row,
                   const std::vector<bool>* nulls, const std::vector<int16_t>& formats) {
  Message data('D');
  data.int16(int16_t(row.size()));
  for (size_t c = 0; c < row.size(); ++c) {
    bool null = nulls != nullptr && c < nulls->size()
                    ? (*nulls)[c]
                    : row[c].empty() && column_type(header, c) != ValueType::kText;
    if (null) {
      data.int32(-1);
    } else if (c < formats.size() && formats[c] == 1) {
      const Column t = result_column_type(header, c);
      const std::string b = datum_send(t.type, datum_in(t.type, t.typmod, row[c], 0).datum());
      data.int32(int32_t(b.size())).bytes(b);
    } else {
      data.int32(int32_t(row[c].size())).bytes(row[c]);
    }
  }
  socket.send(data.finish());
}

void send_result(Socket& socket, const ResultSet& r) {
  if (r.returns_rows && !r.streamed) {
    send_row_description(socket, r);
    for (size_t i = 0; i < r.rows.size(); ++i)
      send_data_row(socket, r, r.rows[i], i < r.nulls.size() ? &r.nulls[i] : nullptr);
  }
  socket.send(Message('C').str(r.tag).finish());
}

ErrorFields error_fields(const std::exception_ptr& error) {
  ErrorFields f;
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    f.message = e.what();
    f.detail = e.detail();
    f.hint = e.hint();
    f.position = e.position();
    f.context = e.context();
    if (!e.sqlstate().empty()) f.code = e.sqlstate();
  } catch (const std::bad_alloc&) {
    f.code = "53200";
    f.message = "out of memory";
  } catch (const std::exception& e) {
    f.message = e.what();
  } catch (...) {
    f.message = "unknown error";
  }
  return f;
}

namespace {

// True when `s` holds only white space and comments.
bool only_comments(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s.substr(i, 2) == "--") {
      size_t end = s.find('\n', i);
      i = end == std::string_view::npos ? s.size() : end + 1;
    } else if (s.substr(i, 2) == "/*") {
      size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) return false;  // the parser reports it
      i = end + 2;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<QueryPart> split_query(std::string_view query) {
  std::vector<QueryPart> parts;
  // The usual Query, one statement without quotes, comments or dollar signs and at most
  // a final semicolon, is its own single part: no statement scanner.
  const size_t special = query.find_first_of("'\"-/$;");
  const bool plain = special == std::string_view::npos ||
                     (query[special] == ';' && only_comments(query.substr(special + 1)));
  if (plain) {
    std::string_view text = query.substr(0, special);
    if (!only_comments(text)) parts.push_back({std::string(text), 0});
    return parts;
  }
  size_t cursor = 0;
  for (std::string& s : sql::split_statements(query)) {
    size_t at = query.find(s, cursor);
    if (at == std::string_view::npos) at = cursor;  // split_statements keeps the text as is
    cursor = at + s.size();
    if (only_comments(s)) continue;
    parts.push_back({std::move(s), at});
  }
  return parts;
}

int character_position(std::string_view query, size_t byte_position) {
  int chars = 0;
  for (size_t i = 0; i + 1 < byte_position && i < query.size(); ++i)
    chars += (static_cast<unsigned char>(query[i]) & 0xC0) != 0x80;  // not a continuation byte
  return chars + 1;
}

bool names_pg_catalog(std::string_view statement) {
  static constexpr std::string_view kName = "pg_catalog";
  // At each dot, the ten letters before it, in any case.
  for (size_t dot = statement.find('.', kName.size()); dot != std::string_view::npos;
       dot = statement.find('.', dot + 1)) {
    const std::string_view before = statement.substr(dot - kName.size(), kName.size());
    const bool same = std::equal(before.begin(), before.end(), kName.begin(), [](char a, char b) {
      return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b;
    });
    if (same) return true;
  }
  return false;
}

std::exception_ptr refuse_catalog_query(std::string_view statement, std::exception_ptr error) {
  if (!names_pg_catalog(statement)) return error;
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    const std::string& code = e.sqlstate();
    const std::string_view message = e.what();
    const bool not_understood =
        code == sqlstate::kSyntaxError || code == sqlstate::kUndefinedFunction ||
        code == sqlstate::kUndefinedColumn || code == sqlstate::kFeatureNotSupported ||
        (code == sqlstate::kUndefinedTable &&
         (message.find("\"pg_") != std::string_view::npos ||
          message.starts_with("missing FROM-clause entry")));  // a catalog view joined
    if (!not_understood) return error;
    return std::make_exception_ptr(
        Error("psql's catalog queries (\\d, \\dt, \\l ...) are not supported by tidepool's "
              "server: tidepool has only some of pg_catalog",
              std::string(message), "Use \\d in `tidepool sql -D DIR` to describe tables.")
            .with_sqlstate(sqlstate::kFeatureNotSupported));
  } catch (...) {
    return error;
  }
}

}  // namespace tp::server
