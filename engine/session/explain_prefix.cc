#include "engine/session/explain_prefix.h"

#include <algorithm>
#include <cctype>

#include "engine/sql/identifier.h"

namespace tp {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// The previous and next characters outside spaces.
char before(const std::string& s, size_t i) {
  while (i > 0 && s[i - 1] == ' ') --i;
  return i > 0 ? s[i - 1] : '\0';
}
char after(const std::string& s, size_t i) {
  while (i < s.size() && s[i] == ' ') ++i;
  return i < s.size() ? s[i] : '\0';
}

// A deparsed expression with each column reference qualified: a name of the table's
// columns (bare or double-quoted) that is no function's name, no cast's type and not
// already qualified; string constants are skipped whole.
std::string qualify(const std::string& text, const ExplainPrefix& p) {
  const std::string prefix = sql::quote_identifier(p.table) + ".";
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\'') {
      size_t j = i + 1;
      while (j < text.size() && !(text[j] == '\'' && (j + 1 >= text.size() || text[j + 1] != '\'')))
        j += text[j] == '\'' ? 2 : 1;
      out += text.substr(i, j + 1 - i);
      i = j + 1;
      continue;
    }
    size_t j = i;
    std::string name;
    if (c == '"') {
      j = i + 1;
      while (j < text.size() && !(text[j] == '"' && (j + 1 >= text.size() || text[j + 1] != '"'))) {
        name += text[j];
        j += text[j] == '"' ? 2 : 1;
      }
      ++j;
    } else if (ident_start(c) && (i == 0 || !ident_char(text[i - 1]))) {
      while (j < text.size() && ident_char(text[j])) ++j;
      name = text.substr(i, j - i);
    } else {
      out += c;
      ++i;
      continue;
    }
    const char prev = before(text, i), next = after(text, j);
    const bool cast = i >= 2 && text.compare(i - 2, 2, "::") == 0;
    const bool column = std::find(p.columns.begin(), p.columns.end(), name) != p.columns.end();
    if (column && prev != '.' && !cast && next != '(' && next != '.') out += prefix;
    out += text.substr(i, j - i);
    i = j;
  }
  return out;
}

}  // namespace

void qualify_upper_details(const std::string& node_name, const ExplainPrefix& prefix,
                           std::vector<std::string>& details) {
  if (prefix.table.empty() || node_name.find("Scan") != std::string::npos) return;
  static const char* const kLines[] = {
      "Sort Key: ", "Group Key: ", "Presorted Key: ", "Filter: ", "One-Time Filter: "};
  for (std::string& d : details)
    for (const char* l : kLines) {
      const std::string head = l;
      if (d.compare(0, head.size(), head) == 0) {
        d = head + qualify(d.substr(head.size()), prefix);
        break;
      }
    }
}

}  // namespace tp
