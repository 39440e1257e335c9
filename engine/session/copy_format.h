// COPY's three data formats as PostgreSQL 15 reads and writes them (copyfromparse.c,
// copyto.c), apart from where the bytes come from or go:
//
//   text    a line per row, fields split at the delimiter (tab), `\N` for NULL,
//           backslash escapes (\t \n \\ \b \f \r \v, octal \123, hex \x4f), `\.` ends it
//   csv     fields split at the delimiter (comma) outside quotes; a quoted field may
//           hold the delimiter, newlines and doubled quotes; an unquoted empty field
//           is NULL, a quoted one ""; HEADER's first line skipped or (MATCH) checked
//   binary  "PGCOPY\n\377\r\n\0", flags, header extension; per row an int16 field
//           count and int32-length-prefixed values in the types' send format; -1 ends
//
// CopyInParser takes the client's data in chunks that may split a row anywhere and
// hands out each complete row; a malformed row is PostgreSQL's 22P04 error with the
// line it is on (line()).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/sql/ast.h"

namespace tp {

class CopyInParser {
 public:
  // A row's fields: text (text, CSV: before the type's input function, its encoding
  // checked) or the binary value's bytes; nullopt for NULL. Each views the parser's
  // buffer (or, for a field whose escapes or quotes were undone, the parser's copy of
  // it) and lasts until the row function returns.
  using Fields = std::vector<std::optional<std::string_view>>;
  using RowFn = std::function<void(const Fields&)>;

  // `names`: the columns being read, in order (their count is the row's width; HEADER
  // MATCH compares the header with them).
  CopyInParser(const sql::CopyStmt& copy, std::vector<std::string> names);

  void feed(std::string_view chunk, const RowFn& row);
  // The end of the data (CopyDone): a last line without its newline is a row.
  void finish(const RowFn& row);
  // The line (binary: the row) being read, from 1: for the error's context. A CSV
  // record over several lines counts them as PostgreSQL does (from the first record
  // that ends, so the first record's own are not counted).
  uint64_t line() const { return line_; }
  // The text of that line (CSV: record) while it is being split and stored, once its
  // encoding has been checked: the error's context shows it. Never for binary.
  std::optional<std::string_view> line_text() const { return line_text_; }
  // The line that row `row` (from 0, in the order rows were handed out) was read from.
  uint64_t line_of_row(uint64_t row) const;

 private:
  void text_rows(const RowFn& row, bool at_end);
  void csv_rows(const RowFn& row, bool at_end);
  void binary_rows(const RowFn& row, bool at_end);
  // The usual text line, plain ASCII without a backslash: split into fields_ in one pass,
  // sixteen bytes at a time. kSplit: `newline` is where it ends; kOther: the line needs
  // text_fields; kNoNewline: the line's end is not in the buffer yet.
  enum class PlainLine { kSplit, kOther, kNoNewline };
  PlainLine split_plain_line(size_t& newline);
  // One text line's fields, or false for the end marker `\.`.
  bool text_fields(std::string_view line);
  void csv_fields(std::string_view record);
  // The line ends inside a CSV record that its line number counts.
  uint64_t csv_inner_lines(std::string_view record) const;
  void check_width() const {
    if (fields_.size() != names_.size()) width_error();
  }
  [[noreturn]] void width_error() const;
  // Field `n` of this row: `field`, or made from `raw` (NULL when it spells the NULL
  // string).
  void set_field(size_t n, std::optional<std::string_view> field) {
    if (n == fields_.size())
      fields_.push_back(field);
    else
      fields_[n] = field;
  }
  void plain_field(size_t n, std::string_view raw) {
    set_field(n, raw == copy_.null_string ? std::nullopt : std::optional(raw));
  }
  // Hands fields_ to `row`, noting the line it came from.
  void emit(const RowFn& row);
  // Room for field `n`'s text after its escapes or quotes are undone.
  std::string& undone(size_t n);
  void header_line(std::string_view line, bool csv);
  void compact();

  const sql::CopyStmt& copy_;
  std::vector<std::string> names_;
  std::string buf_;
  size_t at_ = 0;             // the first byte not consumed
  size_t scanned_ = 0;        // how far the current record (line) has been scanned
  bool in_quote_ = false;     // CSV: the scan is inside quotes
  bool header_done_ = false;  // the header line (or binary's header) is behind
  bool ended_ = false;        // the end marker (or binary's trailer) was read
  uint64_t line_ = 0;
  std::optional<std::string_view> line_text_;
  char csv_newline_ = 0;  // what a CSV record's inner line ends count ('\n' or '\r'), once known
  uint64_t rows_ = 0;     // rows handed out
  // (row, line - row - 1) from each row where that difference changes (a header line,
  // a CSV record over several lines): line_of_row's map.
  std::vector<std::pair<uint64_t, uint64_t>> line_steps_;
  Fields fields_;
  std::deque<std::string> undone_;  // fields whose escapes were undone (a deque: stable)
};

// A line or value as COPY's error context shows it: at most 100 bytes, cut at a
// character's start and followed by "..." when longer (PostgreSQL's
// limit_printout_length).
std::string copy_context_text(std::string_view text);

// One row in COPY TO's text or CSV format, its newline included, appended to `out`.
// `nulls`: null, or a flag per cell.
void copy_text_row(const sql::CopyStmt& copy, const std::vector<std::string>& cells,
                   const std::vector<bool>* nulls, std::string& out);
// The binary format's file header and trailer.
std::string copy_binary_header();
std::string copy_binary_trailer();

}  // namespace tp
