#include "engine/session/copy_format.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/core/error.h"
#include "engine/sql/lexer.h"

namespace tp {

namespace {

constexpr std::string_view kBinarySignature("PGCOPY\n\377\r\n\0", 11);

Error bad_copy(const std::string& message) {
  return Error(message).with_sqlstate(sqlstate::kBadCopyFileFormat);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The text format's field starting at `p` of `line` up to the next unescaped `delim`,
// its backslash escapes undone into `value` (the letters b f n r t v, octal \123,
// hex \x4f, any other character as itself). Returns the position after that delimiter
// (line.size() + 1: the field was the line's last). `high_escape`: an escape made a
// byte that must be checked as UTF-8.
size_t unescape_text_field(std::string_view line, size_t p, char delim, std::string& value,
                           bool& high_escape) {
  while (p < line.size()) {
    const char c = line[p++];
    if (c == delim) return p;
    if (c != '\\' || p == line.size()) {
      value.push_back(c);
      continue;
    }
    const char e = line[p++];
    if (e >= '0' && e <= '7') {
      int v = e - '0';
      for (int k = 0; k < 2 && p < line.size() && line[p] >= '0' && line[p] <= '7'; ++k)
        v = v * 8 + (line[p++] - '0');
      value.push_back(char(v & 0xFF));
      high_escape = true;
    } else if (e == 'x' && p < line.size() && hex_value(line[p]) >= 0) {
      int v = hex_value(line[p++]);
      if (p < line.size() && hex_value(line[p]) >= 0) v = v * 16 + hex_value(line[p++]);
      value.push_back(char(v));
      high_escape = true;
    } else {
      static constexpr std::string_view kFrom = "bfnrtv", kTo = "\b\f\n\r\t\v";
      const size_t k = kFrom.find(e);
      value.push_back(k == std::string_view::npos ? e : kTo[k]);
    }
  }
  return line.size() + 1;
}

uint32_t read_be(std::string_view b, size_t at, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | uint8_t(b[at + size_t(i)]);
  return v;
}

}  // namespace

CopyInParser::CopyInParser(const sql::CopyStmt& copy, std::vector<std::string> names)
    : copy_(copy), names_(std::move(names)) {
  header_done_ = !copy.header && copy.format != sql::CopyStmt::Format::kBinary;
}

void CopyInParser::feed(std::string_view chunk, const RowFn& row) {
  if (ended_) return;  // data after the end marker is ignored, as PostgreSQL does
  buf_.append(chunk);
  switch (copy_.format) {
    case sql::CopyStmt::Format::kText:
      text_rows(row, false);
      break;
    case sql::CopyStmt::Format::kCsv:
      csv_rows(row, false);
      break;
    case sql::CopyStmt::Format::kBinary:
      binary_rows(row, false);
      break;
  }
  compact();
}

void CopyInParser::finish(const RowFn& row) {
  if (ended_) return;
  switch (copy_.format) {
    case sql::CopyStmt::Format::kText:
      text_rows(row, true);
      break;
    case sql::CopyStmt::Format::kCsv:
      if (in_quote_ && at_ < buf_.size()) {
        const std::string_view record(buf_.data() + at_, buf_.size() - at_);
        line_ += 1 + csv_inner_lines(record);
        line_text_ = record;
        throw bad_copy("unterminated CSV quoted field");
      }
      csv_rows(row, true);
      break;
    case sql::CopyStmt::Format::kBinary:
      binary_rows(row, true);
      if (at_ < buf_.size()) throw bad_copy("unexpected EOF in COPY data");
      break;
  }
}

void CopyInParser::compact() {
  if (at_ < (64u << 10) || at_ < buf_.size() / 2) return;
  buf_.erase(0, at_);
  scanned_ = scanned_ > at_ ? scanned_ - at_ : 0;
  at_ = 0;
}

void CopyInParser::width_error() const {
  if (fields_.size() > names_.size()) throw bad_copy("extra data after last expected column");
  throw bad_copy("missing data for column \"" + names_[fields_.size()] + "\"");
}

std::string& CopyInParser::undone(size_t n) {
  while (undone_.size() <= n) undone_.emplace_back();
  undone_[n].clear();
  return undone_[n];
}

void CopyInParser::header_line(std::string_view line, bool csv) {
  header_done_ = true;
  if (!copy_.header_match) return;
  if (csv)
    csv_fields(line);
  else
    text_fields(line);
  if (fields_.size() != names_.size())
    throw bad_copy("wrong number of fields in header line: got " + std::to_string(fields_.size()) +
                   ", expected " + std::to_string(names_.size()));
  for (size_t i = 0; i < names_.size(); ++i) {
    if (!fields_[i])
      throw bad_copy("column name mismatch in header line field " + std::to_string(i + 1) +
                     ": got null value (\"" + copy_.null_string + "\"), expected \"" + names_[i] +
                     "\"");
    if (*fields_[i] != names_[i])
      throw bad_copy("column name mismatch in header line field " + std::to_string(i + 1) +
                     ": got \"" + std::string(*fields_[i]) + "\", expected \"" + names_[i] + "\"");
  }
}

void CopyInParser::text_rows(const RowFn& row, bool at_end) {
  while (!ended_ && at_ < buf_.size()) {
    // scanned_ > at_: the line is longer than what has come of it so far, and the
    // buffer up to scanned_ is known to hold no newline (so it is not read again).
    if (header_done_ && scanned_ <= at_) {
      size_t nl = 0;
      const PlainLine plain = split_plain_line(nl);
      if (plain == PlainLine::kNoNewline && !at_end) {
        scanned_ = buf_.size();
        return;
      }
      if (plain == PlainLine::kSplit) {
        line_text_ = std::string_view(buf_.data() + at_, nl - at_);
        at_ = nl + 1;
        ++line_;
        check_width();
        emit(row);
        continue;
      }
    }
    size_t nl = buf_.find('\n', std::max(at_, scanned_));
    if (nl == std::string::npos && !at_end) {
      scanned_ = buf_.size();
      return;
    }
    const size_t end = nl == std::string::npos ? buf_.size() : nl;
    std::string_view line(buf_.data() + at_, end - at_);
    at_ = nl == std::string::npos ? buf_.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_;
    sql::verify_utf8(line);
    line_text_ = line;
    if (!header_done_) {
      header_line(line, false);
      line_text_.reset();
      continue;
    }
    if (!text_fields(line)) {
      ended_ = true;
      return;
    }
    check_width();
    emit(row);
  }
}

void CopyInParser::emit(const RowFn& row) {
  const uint64_t offset = line_ - rows_ - 1;
  if (offset != (line_steps_.empty() ? 0 : line_steps_.back().second))
    line_steps_.emplace_back(rows_, offset);
  ++rows_;
  row(fields_);
  line_text_.reset();
}

uint64_t CopyInParser::line_of_row(uint64_t row) const {
  auto after = std::upper_bound(line_steps_.begin(), line_steps_.end(), row,
                                [](uint64_t r, const auto& step) { return r < step.first; });
  return row + 1 + (after == line_steps_.begin() ? 0 : std::prev(after)->second);
}

std::string copy_context_text(std::string_view text) {
  constexpr size_t kMax = 100;
  if (text.size() <= kMax) return std::string(text);
  size_t cut = kMax;
  while (cut > 0 && (uint8_t(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return std::string(text.substr(0, cut)) + "...";
}

namespace {

// Where, among 16 bytes, the text format's line splitter must stop: a bit per byte.
struct ByteMarks {
  uint32_t newline = 0;
  uint32_t delimiter = 0;
  uint32_t other = 0;  // a backslash, a NUL or a byte beyond ASCII
};

// The marks of the `n` (at most 16) bytes at `p`: SSE2 compares 16 at once (every
// x86-64 has it); elsewhere a byte at a time.
ByteMarks mark_bytes(const char* p, size_t n, char delimiter) {
  ByteMarks m;
#if defined(__SSE2__)
  alignas(16) char tail[16] = {};
  if (n < 16) p = static_cast<const char*>(std::memcpy(tail, p, n));
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const auto is = [&](char c) {
    return uint32_t(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c))));
  };
  const uint32_t valid = n < 16 ? (1u << n) - 1 : 0xFFFFu;
  m.newline = is('\n') & valid;
  m.delimiter = is(delimiter) & valid;
  m.other = (is('\\') | is('\0') | uint32_t(_mm_movemask_epi8(v))) & valid;
#else
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i];
    m.newline |= uint32_t(c == '\n') << i;
    m.delimiter |= uint32_t(c == delimiter) << i;
    m.other |= uint32_t(c == '\\' || c == '\0' || (uint8_t(c) & 0x80)) << i;
  }
#endif
  return m;
}

}  // namespace

CopyInParser::PlainLine CopyInParser::split_plain_line(size_t& newline) {
  const char* const data = buf_.data();
  const size_t size = buf_.size();
  size_t n = 0, start = at_;
  for (size_t p = at_; p < size; p += 16) {
    const ByteMarks m = mark_bytes(data + p, std::min<size_t>(16, size - p), copy_.delimiter[0]);
    // The bytes before the line's newline (all of them when it is further on).
    const uint32_t before = m.newline ? (m.newline & (~m.newline + 1)) - 1 : ~0u;
    if ((m.other & before) != 0) return PlainLine::kOther;
    for (uint32_t d = m.delimiter & before; d != 0; d &= d - 1) {
      const size_t at = p + size_t(std::countr_zero(d));
      plain_field(n++, std::string_view(data + start, at - start));
      start = at + 1;
    }
    if (m.newline) {
      newline = p + size_t(std::countr_zero(m.newline));
      if (newline > at_ && data[newline - 1] == '\r') return PlainLine::kOther;
      plain_field(n++, std::string_view(data + start, newline - start));
      fields_.resize(n);
      return PlainLine::kSplit;
    }
  }
  return PlainLine::kNoNewline;
}

bool CopyInParser::text_fields(std::string_view line) {
  if (line == "\\.") return false;
  const char delim = copy_.delimiter[0];
  size_t n = 0, p = 0;
  for (;;) {
    const size_t start = p;
    while (p < line.size() && line[p] != delim && line[p] != '\\') ++p;
    if (p < line.size() && line[p] == '\\') {
      // Escapes, an escaped delimiter among them (data): the field is read again with
      // its escapes undone.
      bool high_escape = false;
      std::string& value = undone(n);
      p = unescape_text_field(line, start, delim, value, high_escape);
      // The NULL string is matched before escapes are undone, as PostgreSQL does.
      if (line.substr(start, std::min(p - 1, line.size()) - start) == copy_.null_string) {
        set_field(n++, std::nullopt);
      } else {
        if (high_escape) sql::verify_utf8(value);
        set_field(n++, value);
      }
    } else {
      plain_field(n++, line.substr(start, p - start));
      ++p;  // past the delimiter, or past the line's end
    }
    if (p > line.size()) {
      fields_.resize(n);
      return true;
    }
  }
}

void CopyInParser::csv_rows(const RowFn& row, bool at_end) {
  const char quote = copy_.quote[0], escape = copy_.escape[0];
  while (!ended_ && at_ < buf_.size()) {
    if (scanned_ < at_) scanned_ = at_;
    // The record ends at a newline outside quotes.
    size_t end = std::string::npos;
    for (size_t i = scanned_; i < buf_.size(); ++i) {
      const char c = buf_[i];
      if (in_quote_) {
        if (c == escape && escape != quote && i + 1 < buf_.size() &&
            (buf_[i + 1] == quote || buf_[i + 1] == escape)) {
          ++i;
        } else if (c == quote) {
          in_quote_ = false;
        }
      } else if (c == quote) {
        in_quote_ = true;
      } else if (c == '\n') {
        end = i;
        break;
      }
    }
    if (end == std::string::npos) {
      if (!at_end) {
        scanned_ = buf_.size();
        // An escape at the very end may pair with the next chunk's first byte.
        if (in_quote_ && escape != quote && scanned_ > at_ && buf_.back() == escape) --scanned_;
        return;
      }
      end = buf_.size();
    }
    std::string_view record(buf_.data() + at_, end - at_);
    at_ = end == buf_.size() ? end : end + 1;
    scanned_ = at_;
    in_quote_ = false;
    const bool crlf = !record.empty() && record.back() == '\r';
    if (crlf) record.remove_suffix(1);
    line_ += 1 + csv_inner_lines(record);
    if (csv_newline_ == 0 && end < buf_.size()) csv_newline_ = crlf ? '\r' : '\n';
    sql::verify_utf8(record);
    line_text_ = record;
    if (!header_done_) {
      header_line(record, true);
      line_text_.reset();
    } else if (record == "\\.") {
      ended_ = true;
      return;
    } else {
      csv_fields(record);
      check_width();
      emit(row);
    }
  }
}

uint64_t CopyInParser::csv_inner_lines(std::string_view record) const {
  // PostgreSQL counts a quoted line end only once the data's line ends are known, from
  // the first record that ends.
  if (csv_newline_ == 0) return 0;
  return uint64_t(std::count(record.begin(), record.end(), csv_newline_));
}

void CopyInParser::csv_fields(std::string_view r) {
  const char delim = copy_.delimiter[0], quote = copy_.quote[0], escape = copy_.escape[0];
  size_t n = 0;
  size_t p = 0;
  for (;;) {
    const size_t raw_start = p;
    // The usual field, without quotes, views the record.
    while (p < r.size() && r[p] != delim && r[p] != quote) ++p;
    if (p == r.size() || r[p] == delim) {
      plain_field(n++, r.substr(raw_start, p - raw_start));
      if (p++ == r.size()) break;
      continue;
    }
    // Quotes: the field is read again into a copy without them.
    std::string& value = undone(n);
    p = raw_start;
    bool in_quote = false, last = true;
    while (p < r.size()) {
      const char c = r[p++];
      if (!in_quote) {
        if (c == delim) {
          last = false;
          break;
        }
        if (c == quote) {
          in_quote = true;
          continue;
        }
        value.push_back(c);
        continue;
      }
      if (c == escape && p < r.size() && (r[p] == quote || r[p] == escape) &&
          (escape != quote || r[p] == quote)) {
        value.push_back(r[p++]);
        continue;
      }
      if (c == quote) {
        in_quote = false;
        continue;
      }
      value.push_back(c);
    }
    if (in_quote) throw bad_copy("unterminated CSV quoted field");
    set_field(n++, value);  // a quoted field is never NULL
    if (last) break;
  }
  fields_.resize(n);
}

void CopyInParser::binary_rows(const RowFn& row, bool at_end) {
  (void)at_end;
  auto left = [&] { return buf_.size() - at_; };
  if (!header_done_) {
    if (left() < kBinarySignature.size() + 8) return;
    if (std::string_view(buf_).substr(at_, kBinarySignature.size()) != kBinarySignature)
      throw bad_copy("COPY file signature not recognized");
    const uint32_t flags = read_be(buf_, at_ + 11, 4);
    if ((flags & (1u << 16)) != 0) throw bad_copy("invalid COPY file header (WITH OIDS)");
    if ((flags & 0xFFFF0000u) != 0)
      throw bad_copy("unrecognized critical flags in COPY file header");
    const auto ext = int32_t(read_be(buf_, at_ + 15, 4));
    if (ext < 0) throw bad_copy("invalid COPY file header (missing length)");
    if (left() < 19 + size_t(ext)) return;
    at_ += 19 + size_t(ext);
    header_done_ = true;
  }
  while (!ended_ && left() >= 2) {
    // A whole row must be here before any of it is used.
    const auto count = int16_t(read_be(buf_, at_, 2));
    if (count == -1) {
      at_ += 2;
      ended_ = true;
      return;
    }
    if (count != int16_t(names_.size()))
      throw bad_copy("row field count is " + std::to_string(count) + ", expected " +
                     std::to_string(names_.size()));
    size_t p = at_ + 2;
    fields_.clear();
    bool whole = true;
    for (int16_t i = 0; i < count; ++i) {
      if (buf_.size() - p < 4) {
        whole = false;
        break;
      }
      const auto len = int32_t(read_be(buf_, p, 4));
      p += 4;
      if (len < -1) throw bad_copy("invalid field size");
      if (len == -1) {
        fields_.emplace_back(std::nullopt);
        continue;
      }
      if (buf_.size() - p < size_t(len)) {
        whole = false;
        break;
      }
      fields_.emplace_back(std::string_view(buf_).substr(p, size_t(len)));
      p += size_t(len);
    }
    if (!whole) return;
    at_ = p;
    ++line_;
    emit(row);
  }
}

void copy_text_row(const sql::CopyStmt& copy, const std::vector<std::string>& cells,
                   const std::vector<bool>* nulls, std::string& out) {
  const bool csv = copy.format == sql::CopyStmt::Format::kCsv;
  const char delim = copy.delimiter[0];
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out.push_back(delim);
    if (nulls != nullptr && (*nulls)[i]) {
      out += copy.null_string;
      continue;
    }
    const std::string& v = cells[i];
    if (!csv) {
      for (char c : v) {
        switch (c) {
          case '\b':
            out += "\\b";
            break;
          case '\f':
            out += "\\f";
            break;
          case '\n':
            out += "\\n";
            break;
          case '\r':
            out += "\\r";
            break;
          case '\t':
            out += "\\t";
            break;
          case '\v':
            out += "\\v";
            break;
          case '\\':
            out += "\\\\";
            break;
          default:
            if (c == delim) out.push_back('\\');
            out.push_back(c);
        }
      }
      continue;
    }
    const char quote = copy.quote[0], escape = copy.escape[0];
    // Quoted where it would not read back as itself: a delimiter, quote or newline in
    // it, the NULL string's spelling, or a lone `\.` (the end marker).
    const bool quoted =
        v.find_first_of(std::string{delim, quote, '\n', '\r'}) != std::string::npos ||
        v == copy.null_string || (cells.size() == 1 && v == "\\.");
    if (!quoted) {
      out += v;
      continue;
    }
    out.push_back(quote);
    for (char c : v) {
      if (c == quote || c == escape) out.push_back(escape);
      out.push_back(c);
    }
    out.push_back(quote);
  }
  out.push_back('\n');
}

std::string copy_binary_header() {
  std::string h(kBinarySignature);
  h.append(8, '\0');  // flags, header extension length
  return h;
}

std::string copy_binary_trailer() {
  return std::string("\xff\xff", 2);
}

}  // namespace tp
