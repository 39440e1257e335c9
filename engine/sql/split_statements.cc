// split_statements: a script cut at its semicolons, outside strings and comments (the
// shell's -f and the server's multi-statement Query messages).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "engine/sql/lexer.h"
#include "engine/sql/parser.h"

namespace tp::sql {
namespace {

bool has_code(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s.substr(i, 2) == "--") {
      size_t e = s.find('\n', i);
      i = e == std::string_view::npos ? s.size() : e;
    } else if (s.substr(i, 2) == "/*") {
      size_t e = block_comment_end(s, i);
      i = e == std::string_view::npos ? s.size() : e;
    } else {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::string> split_statements(std::string_view s, bool* complete) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  auto flush = [&] {
    bool blank = true;
    for (char c : cur)
      if (!std::isspace(static_cast<unsigned char>(c))) blank = false;
    if (!blank) out.push_back(cur);
    cur.clear();
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == '\'' || c == '"') {
      size_t j = i + 1;
      while (j < s.size()) {
        if (s[j] == c) {
          if (j + 1 < s.size() && s[j + 1] == c) {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      size_t end = std::min(j + 1, s.size());
      cur.append(s.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      size_t end = s.find('\n', i);
      if (end == std::string_view::npos) end = s.size();
      cur.append(s.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = block_comment_end(s, i);
      if (end == std::string_view::npos) end = s.size();
      cur.append(s.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == ';') {
      flush();
      ++i;
      continue;
    }
    cur += c;
    ++i;
  }
  // What follows the last ';' counts only if it holds more than blanks and comments.
  bool pending = has_code(cur);
  if (complete) *complete = !pending;
  if (pending) out.push_back(cur);
  return out;
}

}  // namespace tp::sql
