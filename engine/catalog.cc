#include "engine/catalog.h"

#include <algorithm>
#include <sstream>

#include "engine/error.h"

namespace tp {

RelationEntry* Catalog::find(std::string_view name) {
  for (auto& r : relations)
    if (r.name == name) return &r;
  return nullptr;
}
const RelationEntry* Catalog::find(std::string_view name) const {
  return const_cast<Catalog*>(this)->find(name);
}
RelationEntry* Catalog::find_oid(uint32_t oid) {
  for (auto& r : relations)
    if (r.oid == oid) return &r;
  return nullptr;
}
const RelationEntry* Catalog::find_oid(uint32_t oid) const {
  return const_cast<Catalog*>(this)->find_oid(oid);
}

std::vector<const RelationEntry*> Catalog::indexes_of(uint32_t table_oid) const {
  std::vector<const RelationEntry*> out;
  for (auto& r : relations)
    if (r.kind == RelKind::Index && r.table_oid == table_oid) out.push_back(&r);
  return out;
}

void Catalog::remove(uint32_t oid) {
  relations.erase(std::remove_if(relations.begin(), relations.end(),
                                 [&](const RelationEntry& r) { return r.oid == oid; }),
                  relations.end());
}

// Format (one relation per "relation" line, its columns on "column" lines):
//   tidepool-catalog 1
//   version 12
//   next_oid 16390
//   relation oid=16384 kind=r name=t relnumber=16384 fillfactor=10 pages=45455 rows=1000000
//   column a int4
//   stats <ANALYZE text on one line: a newline written as \n, a backslash as \\>
//   end
std::string Catalog::serialize() const {
  std::ostringstream out;
  out << "tidepool-catalog 1\n";
  out << "version " << version << "\n";
  out << "next_oid " << next_oid << "\n";
  for (const auto& r : relations) {
    out << "relation oid=" << r.oid << " kind=" << char(r.kind) << " name=" << r.name
        << " relnumber=" << r.relnumber << " fillfactor=" << r.fillfactor << " pages=" << r.pages
        << " rows=" << r.rows;
    if (r.kind == RelKind::Index) {
      out << " table=" << r.table_oid << " unique=" << r.unique << " primary=" << r.primary
          << " keys=";
      for (size_t i = 0; i < r.key_columns.size(); ++i) out << (i ? "," : "") << r.key_columns[i];
    }
    out << "\n";
    for (const auto& c : r.columns)
      out << "column " << c.name << " " << (c.type == ColumnType::Int4 ? "int4" : "int8") << "\n";
    // The statistics text spans lines; the catalog is one record per line, so
    // newlines (and the escape character) are escaped.
    if (!r.stats.empty()) {
      out << "stats ";
      for (char ch : r.stats) {
        if (ch == '\n')
          out << "\\n";
        else if (ch == '\\')
          out << "\\\\";
        else
          out << ch;
      }
      out << "\n";
    }
    out << "end\n";
  }
  out << "eof\n";
  return out.str();
}

Catalog Catalog::parse(const std::string& text, const std::string& origin) {
  Catalog cat;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  auto bad = [&](const std::string& why) {
    return Error("catalog file \"" + origin + "\" is damaged at line " + std::to_string(lineno) +
                 ": " + why);
  };
  bool seen_header = false, seen_eof = false;
  RelationEntry* cur = nullptr;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::string word;
    ls >> word;
    if (!seen_header) {
      int fmt = 0;
      ls >> fmt;
      if (word != "tidepool-catalog" || fmt != 1) throw bad("not a tidepool catalog");
      seen_header = true;
      continue;
    }
    if (word == "version") {
      ls >> cat.version;
    } else if (word == "next_oid") {
      ls >> cat.next_oid;
    } else if (word == "relation") {
      cat.relations.emplace_back();
      cur = &cat.relations.back();
      std::string kv;
      while (ls >> kv) {
        size_t eq = kv.find('=');
        if (eq == std::string::npos) throw bad("expected key=value, got \"" + kv + "\"");
        std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
        try {
          if (k == "oid")
            cur->oid = uint32_t(std::stoul(v));
          else if (k == "kind")
            cur->kind = v == "i" ? RelKind::Index : RelKind::Table;
          else if (k == "name")
            cur->name = v;
          else if (k == "relnumber")
            cur->relnumber = uint32_t(std::stoul(v));
          else if (k == "fillfactor")
            cur->fillfactor = std::stoi(v);
          else if (k == "pages")
            cur->pages = std::stoull(v);
          else if (k == "rows")
            cur->rows = std::stoull(v);
          else if (k == "table")
            cur->table_oid = uint32_t(std::stoul(v));
          else if (k == "unique")
            cur->unique = v == "1";
          else if (k == "primary")
            cur->primary = v == "1";
          else if (k == "keys") {
            std::istringstream ks(v);
            std::string part;
            while (std::getline(ks, part, ','))
              if (!part.empty()) cur->key_columns.push_back(std::stoi(part));
          } else
            throw bad("unknown field \"" + k + "\"");
        } catch (const std::logic_error&) {
          throw bad("bad value in \"" + kv + "\"");
        }
      }
    } else if (word == "column") {
      if (!cur) throw bad("column outside a relation");
      Column c;
      std::string type;
      ls >> c.name >> type;
      if (type != "int4" && type != "int8") throw bad("unknown column type \"" + type + "\"");
      c.type = type == "int4" ? ColumnType::Int4 : ColumnType::Int8;
      cur->columns.push_back(c);
    } else if (word == "stats") {
      if (!cur) throw bad("stats outside a relation");
      const std::string text = line.size() > 6 ? line.substr(6) : "";
      cur->stats.clear();
      for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
          cur->stats += text[i + 1] == 'n' ? '\n' : text[i + 1];
          ++i;
        } else {
          cur->stats += text[i];
        }
      }
    } else if (word == "end") {
      cur = nullptr;
    } else if (word == "eof") {
      seen_eof = true;
    } else if (!word.empty()) {
      throw bad("unexpected \"" + word + "\"");
    }
  }
  if (!seen_header || !seen_eof) throw bad("file is truncated");
  return cat;
}

}  // namespace tp
