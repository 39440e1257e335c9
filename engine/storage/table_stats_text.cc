// The text form of ANALYZE's results (TableStats::to_text / from_text), as the
// catalog stores it: one record per line, every field checked on the way back.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "engine/core/error.h"
#include "engine/storage/table_stats.h"

namespace tp {

namespace {

std::string fmt_float(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}
std::string fmt_double(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class TextReader {
 public:
  explicit TextReader(std::string_view text) : in_(std::string(text)) {}

  // Reads the next line and checks its first word.
  std::istringstream& line(const char* keyword) {
    std::string l;
    if (!std::getline(in_, l)) fail(std::string("missing line \"") + keyword + "\"");
    ++line_no_;
    cur_.clear();
    cur_.str(l);
    std::string word;
    cur_ >> word;
    if (word != keyword) fail(std::string("expected \"") + keyword + "\", found \"" + word + "\"");
    return cur_;
  }
  template <typename T>
  T get() {
    std::string tok;
    if (!(cur_ >> tok)) fail("missing value");
    return convert<T>(tok);
  }
  // Whether the line has another value (an optional trailing field).
  bool has_more() {
    cur_ >> std::ws;
    return !cur_.eof();
  }
  void end_of_line() {
    std::string extra;
    if (cur_ >> extra) fail("unexpected \"" + extra + "\"");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error("invalid statistics text at line " + std::to_string(line_no_) + ": " + why)
        .with_sqlstate(sqlstate::kDataCorrupted);
  }

 private:
  template <typename T>
  T convert(const std::string& tok) {
    const char* s = tok.c_str();
    char* end = nullptr;
    errno = 0;
    T v{};
    if constexpr (std::is_same_v<T, float>) {
      v = std::strtof(s, &end);
    } else if constexpr (std::is_same_v<T, double>) {
      v = std::strtod(s, &end);
    } else {
      v = static_cast<T>(std::strtoll(s, &end, 10));
    }
    if (end == s || *end != '\0' || errno == ERANGE) fail("bad number \"" + tok + "\"");
    return v;
  }
  std::istringstream in_;
  std::istringstream cur_;
  int line_no_ = 0;
};

}  // namespace

std::string TableStats::to_text() const {
  std::string out = "tidepool-stats 1\n";
  out += "table " + fmt_double(reltuples) + " " + fmt_double(relpages) + " " +
         fmt_double(sampled_blocks) + " " + fmt_double(sample_rows) + "\n";
  out += "columns " + std::to_string(columns.size()) + "\n";
  for (const ColumnStats& c : columns) {
    out += "column " + std::to_string(c.valid ? 1 : 0) + " " + fmt_float(c.null_frac) + " " +
           fmt_float(c.n_distinct) + " " + std::to_string(c.has_correlation ? 1 : 0) + " " +
           fmt_float(c.correlation) + " " + std::to_string(c.has_range ? 1 : 0) + " " +
           std::to_string(c.min_value) + " " + std::to_string(c.max_value) +
           (c.avg_width > 0 ? " " + std::to_string(c.avg_width) : std::string()) + "\n";
    out += "mcv " + std::to_string(c.mcv_values.size());
    for (size_t i = 0; i < c.mcv_values.size(); ++i) {
      out += " " + std::to_string(c.mcv_values[i]) + " " + fmt_float(c.mcv_freqs[i]);
    }
    out += "\nhistogram " + std::to_string(c.histogram.size());
    for (int64_t b : c.histogram) out += " " + std::to_string(b);
    out += "\n";
  }
  return out;
}

TableStats TableStats::from_text(std::string_view text) {
  TextReader r(text);
  TableStats st;
  r.line("tidepool-stats");
  if (r.get<int>() != 1) r.fail("unsupported version");
  r.end_of_line();
  r.line("table");
  st.reltuples = r.get<double>();
  st.relpages = r.get<double>();
  st.sampled_blocks = r.get<double>();
  st.sample_rows = r.get<double>();
  r.end_of_line();
  r.line("columns");
  const int64_t ncols = r.get<int64_t>();
  if (ncols < 0 || ncols > 1600) r.fail("bad column count");
  r.end_of_line();
  st.columns.resize(static_cast<size_t>(ncols));
  for (ColumnStats& c : st.columns) {
    r.line("column");
    c.valid = r.get<int>() != 0;
    c.null_frac = r.get<float>();
    c.n_distinct = r.get<float>();
    c.has_correlation = r.get<int>() != 0;
    c.correlation = r.get<float>();
    c.has_range = r.get<int>() != 0;
    c.min_value = r.get<int64_t>();
    c.max_value = r.get<int64_t>();
    if (r.has_more()) {
      c.avg_width = r.get<int32_t>();
      if (c.avg_width <= 0) r.fail("bad average width");
    }
    r.end_of_line();
    r.line("mcv");
    const int64_t nmcv = r.get<int64_t>();
    if (nmcv < 0 || nmcv > 10000) r.fail("bad MCV count");
    for (int64_t i = 0; i < nmcv; ++i) {
      c.mcv_values.push_back(r.get<int64_t>());
      c.mcv_freqs.push_back(r.get<float>());
    }
    r.end_of_line();
    r.line("histogram");
    const int64_t nhist = r.get<int64_t>();
    if (nhist < 0 || nhist > 10001) r.fail("bad histogram size");
    for (int64_t i = 0; i < nhist; ++i) c.histogram.push_back(r.get<int64_t>());
    r.end_of_line();
  }
  return st;
}

std::string stats_to_catalog(const TableStats& stats) {
  std::string text = stats.to_text();
  std::replace(text.begin(), text.end(), '\n', '|');
  return text;
}

TableStats stats_from_catalog(const std::string& text) {
  std::string lines = text;
  std::replace(lines.begin(), lines.end(), '|', '\n');
  return TableStats::from_text(lines);
}

}  // namespace tp
