// The text form of ANALYZE's results (TableStats::to_text / from_text), as the
// catalog stores it: one record per line, every field checked on the way back.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>
#include <sstream>
#include <tuple>

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
    return convert<T>(token());
  }
  std::string token() {
    std::string tok;
    if (!(cur_ >> tok)) fail("missing value");
    return tok;
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

// A value as the text holds it: a by-value Datum in decimal, a by-reference value's
// bytes in hex after an 'x'.
std::string fmt_value(const ColumnStats& c, Datum d) {
  if (c.ref_len == 0) return std::to_string(d);
  const char* p = datum_pointer(d);
  const size_t n = c.ref_len < 0 ? varlena_size(p) : size_t(c.ref_len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "x";
  for (size_t i = 0; i < n; ++i) {
    out += kHex[uint8_t(p[i]) >> 4];
    out += kHex[uint8_t(p[i]) & 15];
  }
  return out;
}

// Reads the values of one column: each by-value Datum at once, each by-reference one
// queued in `store` (its index kept in place of the Datum until resolve()).
class ValueReader {
 public:
  ValueReader(TextReader& r, int16_t ref_len)
      : r_(r), store_(ref_len), by_ref_(ref_len != 0), ref_len_(ref_len) {}
  Datum get() {
    const std::string tok = r_.token();
    if (!by_ref_) return convert_int(tok);
    if (tok.size() < 3 || tok[0] != 'x' || tok.size() % 2 == 0)
      r_.fail("bad value \"" + tok + "\"");
    std::string bytes((tok.size() - 1) / 2, '\0');
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = char(nibble(tok[1 + 2 * i]) << 4 | nibble(tok[2 + 2 * i]));
    const int16_t len = ref_len_;
    const char* p = bytes.data();
    const bool plain_varlena = (varlena_is_short(p) && !varlena_is_external(p)) ||
                               (bytes.size() >= 4 && !varlena_is_compressed(p));
    if ((len < 0 && (!plain_varlena || varlena_size(p) != bytes.size())) ||
        (len > 0 && bytes.size() != size_t(len)))
      r_.fail("value of the wrong size \"" + tok + "\"");
    return Datum(store_.add_bytes(bytes));
  }
  // Points every queued value of `c` (its min / max, MCVs and histogram) at its copy.
  void resolve(ColumnStats& c) {
    if (!by_ref_) return;
    store_.finish(c);
    for (Datum* d : {&c.min_value, &c.max_value}) *d = store_.datum(size_t(*d));
    for (Datum& d : c.mcv_values) d = store_.datum(size_t(d));
    for (Datum& d : c.histogram) d = store_.datum(size_t(d));
  }

 private:
  Datum convert_int(const std::string& tok) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(tok.c_str(), &end, 10);
    if (end == tok.c_str() || *end != '\0' || errno == ERANGE)
      r_.fail("bad number \"" + tok + "\"");
    return Datum(v);
  }
  int nibble(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    r_.fail(std::string("bad hex digit '") + ch + "'");
  }
  TextReader& r_;
  StatsValueStore store_;
  bool by_ref_;
  int16_t ref_len_;
};

}  // namespace

size_t StatsValueStore::add(Datum d) {
  const char* p = datum_pointer(d);
  return add_bytes({p, ref_len_ < 0 ? varlena_size(p) : size_t(ref_len_)});
}

size_t StatsValueStore::add_bytes(std::string_view bytes) {
  // 8-aligned, as values the executor reads in place.
  bytes_.resize((bytes_.size() + 7) & ~size_t(7));
  offsets_.push_back(bytes_.size());
  bytes_.append(bytes);
  return offsets_.size() - 1;
}

void StatsValueStore::finish(ColumnStats& st) {
  store_ = std::make_shared<const std::string>(std::move(bytes_));
  st.ref_len = ref_len_;
  st.value_bytes = store_;
}

Datum StatsValueStore::datum(size_t index) const {
  return pointer_datum(store_->data() + offsets_.at(index));
}

bool operator==(const ColumnStats& a, const ColumnStats& b) {
  const auto same_scalars = [](const ColumnStats& x) {
    return std::tie(x.valid, x.null_frac, x.n_distinct, x.mcv_freqs, x.has_correlation,
                    x.correlation, x.has_range, x.ref_len, x.avg_width);
  };
  if (same_scalars(a) != same_scalars(b) || a.mcv_values.size() != b.mcv_values.size() ||
      a.histogram.size() != b.histogram.size())
    return false;
  // By-reference values compare by their bytes.
  const auto same = [&](Datum x, Datum y) {
    if (a.ref_len == 0) return x == y;
    const char* p = datum_pointer(x);
    const char* q = datum_pointer(y);
    const size_t n = a.ref_len < 0 ? varlena_size(p) : size_t(a.ref_len);
    const size_t m = a.ref_len < 0 ? varlena_size(q) : size_t(a.ref_len);
    return n == m && std::memcmp(p, q, n) == 0;
  };
  if (a.has_range && (!same(a.min_value, b.min_value) || !same(a.max_value, b.max_value)))
    return false;
  for (size_t i = 0; i < a.mcv_values.size(); ++i)
    if (!same(a.mcv_values[i], b.mcv_values[i])) return false;
  for (size_t i = 0; i < a.histogram.size(); ++i)
    if (!same(a.histogram[i], b.histogram[i])) return false;
  return true;
}

std::string TableStats::to_text() const {
  std::string out = "tidepool-stats 2\n";
  out += "table " + fmt_double(reltuples) + " " + fmt_double(relpages) + " " +
         fmt_double(sampled_blocks) + " " + fmt_double(sample_rows) + "\n";
  out += "columns " + std::to_string(columns.size()) + "\n";
  for (const ColumnStats& c : columns) {
    out += "column " + std::to_string(c.valid ? 1 : 0) + " " + fmt_float(c.null_frac) + " " +
           fmt_float(c.n_distinct) + " " + std::to_string(c.has_correlation ? 1 : 0) + " " +
           fmt_float(c.correlation) + " " + std::to_string(c.has_range ? 1 : 0) + " " +
           std::to_string(c.ref_len) + " " +
           (c.has_range ? fmt_value(c, c.min_value) + " " + fmt_value(c, c.max_value)
                        : std::string("0 0")) +
           " " + std::to_string(c.avg_width) + "\n";
    out += "mcv " + std::to_string(c.mcv_values.size());
    for (size_t i = 0; i < c.mcv_values.size(); ++i) {
      out += " " + fmt_value(c, c.mcv_values[i]) + " " + fmt_float(c.mcv_freqs[i]);
    }
    out += "\nhistogram " + std::to_string(c.histogram.size());
    for (Datum b : c.histogram) out += " " + fmt_value(c, b);
    out += "\n";
  }
  return out;
}

TableStats TableStats::from_text(std::string_view text) {
  TextReader r(text);
  TableStats st;
  r.line("tidepool-stats");
  // Version 1 (integer columns only) is read as written before typed statistics.
  const int version = r.get<int>();
  if (version != 1 && version != 2) r.fail("unsupported version");
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
    const int16_t ref_len = version == 1 ? 0 : r.get<int16_t>();
    if (ref_len != 0 && ref_len != -1 && ref_len != 16) r.fail("bad value length");
    ValueReader values(r, ref_len);
    if (c.has_range || version == 1) {
      c.min_value = values.get();
      c.max_value = values.get();
    } else {
      (void)r.get<int>(), (void)r.get<int>();
    }
    if (version == 2 || r.has_more()) {
      c.avg_width = r.get<int32_t>();
      if (c.avg_width < 0 || (version == 1 && c.avg_width == 0)) r.fail("bad average width");
    }
    r.end_of_line();
    r.line("mcv");
    const int64_t nmcv = r.get<int64_t>();
    if (nmcv < 0 || nmcv > 10000) r.fail("bad MCV count");
    for (int64_t i = 0; i < nmcv; ++i) {
      c.mcv_values.push_back(values.get());
      c.mcv_freqs.push_back(r.get<float>());
    }
    r.end_of_line();
    r.line("histogram");
    const int64_t nhist = r.get<int64_t>();
    if (nhist < 0 || nhist > 10001) r.fail("bad histogram size");
    for (int64_t i = 0; i < nhist; ++i) c.histogram.push_back(values.get());
    r.end_of_line();
    values.resolve(c);
  }
  return st;
}

std::string stats_to_catalog(const TableStats& stats) {
  std::string text = stats.to_text();
  std::replace(text.begin(), text.end(), '\n', '|');
  return text;
}

TableStats stats_from_catalog(const std::string& text) {
  // Every plan of a table reads its statistics, and parsing their text costs more than a
  // short query's whole execution: the last few parsed are kept, keyed by the text itself
  // (a table's statistics change only when ANALYZE writes new text). Copies share the
  // values' bytes (ColumnStats::value_bytes), so a copy is cheap. Never destroyed: a
  // session thread may plan while the process exits.
  struct Recent {
    std::mutex mutex;
    std::list<std::pair<std::string, TableStats>> parsed;  // most recently used first
  };
  static Recent* const recent = new Recent;
  constexpr size_t kKept = 16;
  {
    std::lock_guard<std::mutex> lock(recent->mutex);
    auto& list = recent->parsed;
    for (auto it = list.begin(); it != list.end(); ++it)
      if (it->first == text) {
        list.splice(list.begin(), list, it);
        return it->second;
      }
  }
  std::string lines = text;
  std::replace(lines.begin(), lines.end(), '|', '\n');
  TableStats parsed = TableStats::from_text(lines);
  std::lock_guard<std::mutex> lock(recent->mutex);
  recent->parsed.emplace_front(text, parsed);
  if (recent->parsed.size() > kKept) recent->parsed.pop_back();
  return parsed;
}

}  // namespace tp
