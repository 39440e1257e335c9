#include "tools/shell/psql_format.h"

#include <algorithm>

namespace tp {
namespace {

// Display width: count UTF-8 code points, not bytes.
size_t width_of(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& s, size_t width, bool right) {
  size_t w = width_of(s);
  if (w >= width) return s;
  return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

}  // namespace

std::string format_result(const ResultSet& r, const PrintOptions& opt) {
  std::string out;
  if (!r.returns_rows) {
    out += r.tag + "\n";
    return out;
  }
  size_t ncol = r.columns.size();
  std::string footer =
      "(" + std::to_string(r.rows.size()) + (r.rows.size() == 1 ? " row)" : " rows)") + "\n";
  if (opt.unaligned) {
    if (!opt.tuples_only) {
      for (size_t c = 0; c < ncol; ++c) {
        if (c) out += '|';
        out += r.columns[c];
      }
      out += "\n";
    }
    for (const auto& row : r.rows) {
      for (size_t c = 0; c < ncol; ++c) {
        if (c) out += '|';
        out += row[c];
      }
      out += "\n";
    }
    if (!opt.tuples_only) out += footer;
    return out;
  }
  std::vector<size_t> width(ncol, 0);
  for (size_t c = 0; c < ncol; ++c) {
    if (!opt.tuples_only) width[c] = width_of(r.columns[c]);
    for (const auto& row : r.rows) width[c] = std::max(width[c], width_of(row[c]));
  }
  if (!opt.tuples_only) {
    if (!opt.title.empty()) {
      size_t total = 0;
      for (size_t w : width) total += w + 3;
      total = total > 0 ? total - 1 : 0;
      size_t tw = width_of(opt.title);
      out += std::string(tw < total ? (total - tw) / 2 : 0, ' ') + opt.title + "\n";
    }
    for (size_t c = 0; c < ncol; ++c) {
      size_t w = width_of(r.columns[c]);
      size_t left = (width[c] - w) / 2;
      if (c) out += '|';
      out.append(left + 1, ' ');
      out += r.columns[c];
      out.append(width[c] - w - left + 1, ' ');
    }
    out += "\n";
    for (size_t c = 0; c < ncol; ++c) {
      if (c) out += '+';
      out.append(width[c] + 2, '-');
    }
    out += "\n";
  }
  for (const auto& row : r.rows) {
    std::string line;
    for (size_t c = 0; c < ncol; ++c) {
      bool right = c < r.right_aligned.size() && r.right_aligned[c];
      bool last = c + 1 == ncol;
      line += (c ? "| " : " ");
      if (last && !right)
        line += row[c];
      else
        line += pad(row[c], width[c], right) + (last ? "" : " ");
    }
    out += line + "\n";
  }
  if (!opt.tuples_only) out += footer + "\n";
  return out;
}

std::string psql_object_name(std::string_view arg) {
  std::string name;
  bool in_quotes = false;
  for (size_t i = 0; i < arg.size(); ++i) {
    char c = arg[i];
    if (c == '"') {
      if (in_quotes && i + 1 < arg.size() && arg[i + 1] == '"') {
        name += '"';
        ++i;
      } else {
        in_quotes = !in_quotes;
      }
    } else if (!in_quotes && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      if (!name.empty()) break;  // the name ends at the first blank outside quotes
    } else {
      name += in_quotes || c < 'A' || c > 'Z' ? c : char(c - 'A' + 'a');
    }
  }
  return name;
}

std::string format_error(const Error& e, std::string_view statement) {
  std::string out = "ERROR:  " + std::string(e.what()) + "\n";
  int pos = e.position();
  if (pos > 0 && size_t(pos) <= statement.size() + 1) {
    // Find the line holding the position and the column within it.
    size_t at = size_t(pos - 1);
    size_t line_start = 0;
    int line_no = 1;
    for (size_t i = 0; i < at && i < statement.size(); ++i)
      if (statement[i] == '\n') {
        ++line_no;
        line_start = i + 1;
      }
    size_t line_end = statement.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = statement.size();
    std::string prefix = "LINE " + std::to_string(line_no) + ": ";
    std::string line(statement.substr(line_start, line_end - line_start));
    out += prefix + line + "\n";
    size_t col = 0;
    for (size_t i = line_start; i < at && i < statement.size(); ++i)
      if ((static_cast<unsigned char>(statement[i]) & 0xC0) != 0x80) ++col;
    out += std::string(prefix.size() + col, ' ') + "^\n";
  }
  if (!e.detail().empty()) out += "DETAIL:  " + e.detail() + "\n";
  if (!e.hint().empty()) out += "HINT:  " + e.hint() + "\n";
  if (!e.context().empty()) out += "CONTEXT:  " + e.context() + "\n";
  return out;
}

}  // namespace tp
