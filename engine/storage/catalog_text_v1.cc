// The catalog's version-1 text format, read so that data directories written
// by earlier releases still open (the next commit rewrites them as JSON):
//   tidepool-catalog 1
//   version 12
//   next_oid 16390
//   relation oid=16384 kind=r name=t relnumber=16384 fillfactor=10 pages=45455 rows=1000000
//   column a int4
//   stats <ANALYZE text on one line: a newline written as \n, a backslash as \\>
//   end
//   eof
// Every number must be all digits and fit its field; anything else is damage.
#include <charconv>
#include <limits>
#include <sstream>

#include "engine/storage/catalog_format.h"

namespace tp::catalog_format {
namespace {

const char* kHeader = "tidepool-catalog 1";

template <typename T>
bool parse_number(std::string_view text, T* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string unescape_stats(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[i + 1] == 'n' ? '\n' : text[i + 1];
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

bool is_text_v1(const std::string& text) {
  std::string_view first(text);
  first = first.substr(0, first.find('\n'));
  return first == kHeader;
}

namespace {

// Reads the text line by line; `lineno` is the line errors name.
struct V1Reader {
  const std::string& origin;
  int lineno = 0;

  Error bad(const std::string& why) const {
    return damaged(origin, "line " + std::to_string(lineno) + ": " + why);
  }
  template <typename T>
  void number(std::string_view field, std::string_view v, T* out) const {
    if (!parse_number(v, out))
      throw bad("\"" + printable(v) + "\" is not a valid " + std::string(field));
  }
  // A `relation` line: its key=value fields.
  void relation(std::string_view rest, RelationEntry& rel) const {
    std::istringstream ls{std::string(rest)};
    std::string kv;
    while (ls >> kv) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos) throw bad("expected key=value, got \"" + printable(kv) + "\"");
      relation_field(kv.substr(0, eq), std::string_view(kv).substr(eq + 1), rel);
    }
  }
  void relation_field(const std::string& k, std::string_view v, RelationEntry& rel) const;
  // A `column` line: name and type.
  Column column(std::string_view rest) const {
    std::istringstream ls{std::string(rest)};
    Column c;
    std::string type, extra;
    ls >> c.name >> type;
    if (ls >> extra) throw bad("unexpected \"" + printable(extra) + "\" after the column type");
    if (type != "int4" && type != "int8")
      throw bad("unknown column type \"" + printable(type) + "\"");
    c.type = type == "int4" ? ColumnType::kInt4 : ColumnType::kInt8;
    return c;
  }
};

void V1Reader::relation_field(const std::string& k, std::string_view v, RelationEntry& rel) const {
  if (k == "oid") {
    number(k, v, &rel.oid);
  } else if (k == "kind") {
    if (v != "r" && v != "i") throw bad("unknown relation kind \"" + printable(v) + "\"");
    rel.kind = v == "i" ? RelKind::kIndex : RelKind::kTable;
  } else if (k == "name") {
    rel.name = v;
  } else if (k == "relnumber") {
    number(k, v, &rel.relnumber);
  } else if (k == "fillfactor") {
    number(k, v, &rel.fillfactor);
  } else if (k == "pages") {
    number(k, v, &rel.pages);
  } else if (k == "rows") {
    number(k, v, &rel.rows);
  } else if (k == "table") {
    number(k, v, &rel.table_oid);
  } else if (k == "unique" || k == "primary") {
    if (v != "0" && v != "1")
      throw bad("\"" + printable(k + "=" + std::string(v)) + "\" is not 0 or 1");
    (k == "unique" ? rel.unique : rel.primary) = v == "1";
  } else if (k == "keys") {
    std::istringstream ks{std::string(v)};
    std::string part;
    while (std::getline(ks, part, ',')) {
      int key = 0;
      number("key column", part, &key);
      rel.key_columns.push_back(key);
    }
  } else {
    throw bad("unknown field \"" + printable(k) + "\"");
  }
}

}  // namespace

Catalog from_text_v1(const std::string& text, const std::string& origin) {
  Catalog cat;
  V1Reader reader{origin};
  std::istringstream in(text);
  std::string line;
  bool seen_eof = false;
  RelationEntry* cur = nullptr;
  std::getline(in, line);  // the header, checked by is_text_v1
  reader.lineno = 1;
  while (std::getline(in, line)) {
    ++reader.lineno;
    if (seen_eof) throw reader.bad("text after \"eof\"");
    std::string_view rest(line);
    std::string_view word = rest.substr(0, rest.find(' '));
    rest = word.size() < rest.size() ? rest.substr(word.size() + 1) : std::string_view();
    if (word == "version") {
      reader.number("version", rest, &cat.version);
    } else if (word == "next_oid") {
      reader.number("next_oid", rest, &cat.next_oid);
    } else if (word == "relation") {
      cur = &cat.relations.emplace_back();
      reader.relation(rest, *cur);
    } else if (word == "column") {
      if (!cur) throw reader.bad("column outside a relation");
      cur->columns.push_back(reader.column(rest));
    } else if (word == "stats") {
      if (!cur) throw reader.bad("stats outside a relation");
      cur->stats = unescape_stats(rest);
    } else if (word == "end") {
      cur = nullptr;
    } else if (word == "eof") {
      seen_eof = true;
    } else if (!word.empty()) {
      throw reader.bad("unexpected \"" + printable(word) + "\"");
    }
  }
  if (!seen_eof) throw damaged(origin, "file is truncated (no \"eof\" line)");
  return cat;
}

}  // namespace tp::catalog_format
