#include "tools/experiments/explain.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"

namespace tp::experiments {

uint64_t explain_field(const std::string& line, const char* key) {
  size_t k = line.find(key);
  return k == std::string::npos ? 0
                                : std::strtoull(line.c_str() + k + std::strlen(key), nullptr, 10);
}

namespace {

std::string first_column_text(const ResultSet& r) {
  std::string text;
  for (const auto& row : r.rows)
    if (!row.empty()) text += row[0] + "\n";
  return text;
}

// "a Seq Scan", "an Index Scan".
std::string with_article(const std::string& node) {
  bool vowel = !node.empty() && std::strchr("AEIOU", node[0]) != nullptr;
  return (vowel ? "an " : "a ") + node;
}

// "Prefetch: distance avg=.. max=.., ..., in flight max=M of L ...": M and L.
void parse_prefetch_limit(const std::string& line, NodeActuals* out) {
  if (line.find("Prefetch:") == std::string::npos) return;
  size_t p = line.find("in flight max=");
  if (p == std::string::npos) return;
  char* end = nullptr;
  const char* start = line.c_str() + p + std::strlen("in flight max=");
  long long in_flight = std::strtoll(start, &end, 10);
  if (end == start || std::strncmp(end, " of ", 4) != 0) return;
  out->prefetch_in_flight_max = in_flight;
  out->prefetch_limit = std::strtoll(end + 4, nullptr, 10);
}

}  // namespace

Timed explain_analyze(Lab& lab, const std::string& query, const PlanCheck& check,
                      const std::string& what) {
  Timed t = lab.timed("EXPLAIN (ANALYZE, BUFFERS) " + query);
  std::string node;
  double cost = 0;
  if (!parse_top_plan(t.result, &node, &cost) || node != check.node)
    throw Error(what + ": expected " + with_article(check.node) + ", the planner chose \"" + node +
                "\"");
  uint64_t rows = 0;
  if (check.rows && !parse_top_actual_rows(t.result, &rows))
    throw Error(what + ": EXPLAIN ANALYZE printed no row count for the " + node);
  if (check.rows && rows != *check.rows)
    throw Error(what + " returned " + std::to_string(rows) + " rows, expected " +
                std::to_string(*check.rows));
  return t;
}

PlanChoice explain_plan(Lab& lab, const std::string& query, const std::string& what) {
  ResultSet plan = lab.sql("EXPLAIN " + query);
  PlanChoice choice;
  if (!parse_top_plan(plan, &choice.node, &choice.total_cost))
    throw Error(what + ": could not read the plan from EXPLAIN " + query);
  return choice;
}

bool parse_execution_time_ms(const ResultSet& explain, double* ms) {
  std::string text = first_column_text(explain);
  size_t p = text.find("Execution Time: ");
  if (p == std::string::npos) return false;
  return std::sscanf(text.c_str() + p, "Execution Time: %lf", ms) == 1;
}

bool parse_top_buffers(const ResultSet& explain, uint64_t* hit, uint64_t* read) {
  std::string text = first_column_text(explain);
  size_t p = text.find("Buffers: shared");
  if (p == std::string::npos) return false;
  size_t eol = text.find('\n', p);
  std::string line = text.substr(p, eol == std::string::npos ? std::string::npos : eol - p);
  *hit = explain_field(line, "hit=");
  *read = explain_field(line, "read=");
  return true;
}

bool parse_gather_workers(const ResultSet& explain, int* planned, int* launched) {
  std::string text = first_column_text(explain);
  if (text.find("Gather") == std::string::npos) return false;
  auto field = [&](const char* key) {
    size_t p = text.find(key);
    return p == std::string::npos ? -1 : std::atoi(text.c_str() + p + std::strlen(key));
  };
  *planned = field("Workers Planned: ");
  *launched = field("Workers Launched: ");
  return true;
}

bool parse_top_actual_rows(const ResultSet& explain, uint64_t* rows) {
  if (explain.rows.empty() || explain.rows[0].empty()) return false;
  const std::string& line = explain.rows[0][0];
  size_t a = line.find("(actual ");
  if (a == std::string::npos) return false;
  size_t r = line.find("rows=", a);
  if (r == std::string::npos) return false;
  *rows = std::strtoull(line.c_str() + r + 5, nullptr, 10);
  return true;
}

bool parse_top_plan(const ResultSet& explain, std::string* node, double* total_cost) {
  if (explain.rows.empty() || explain.rows[0].empty()) return false;
  const std::string& line = explain.rows[0][0];
  size_t cost = line.find("(cost=");
  if (cost == std::string::npos) return false;
  size_t dots = line.find("..", cost);
  if (dots == std::string::npos) return false;
  *total_cost = std::strtod(line.c_str() + dots + 2, nullptr);
  std::string name = line.substr(0, cost);
  for (const char* cut : {" using ", " on ", "  "}) {
    size_t c = name.find(cut);
    if (c != std::string::npos) name = name.substr(0, c);
  }
  while (!name.empty() && name.back() == ' ') name.pop_back();
  *node = name;
  return true;
}

bool parse_node_actuals(const ResultSet& explain, size_t node, NodeActuals* out) {
  size_t seen = 0;
  for (size_t i = 0; i < explain.rows.size(); ++i) {
    if (explain.rows[i].empty()) continue;
    const std::string& line = explain.rows[i][0];
    bool header = i == 0 || line.find("->  ") != std::string::npos;
    if (!header || seen++ != node) continue;
    size_t a = line.find("actual time=");
    if (a == std::string::npos) return false;
    size_t dots = line.find("..", a);
    if (dots == std::string::npos) return false;
    *out = NodeActuals{};
    out->total_ms = std::strtod(line.c_str() + dots + 2, nullptr);
    // The node's own lines run until the next node header.
    for (size_t j = i + 1; j < explain.rows.size(); ++j) {
      if (explain.rows[j].empty()) continue;
      const std::string& detail = explain.rows[j][0];
      // The next node, or the lines after the tree ("Planning:", "Execution Time:").
      if (detail.find("->  ") != std::string::npos || detail.rfind(' ', 0) != 0) break;
      if (detail.find("Buffers: shared") != std::string::npos) {
        out->shared_hit = explain_field(detail, "hit=");
        out->shared_read = explain_field(detail, "read=");
      }
      parse_prefetch_limit(detail, out);
    }
    return true;
  }
  return false;
}

}  // namespace tp::experiments
