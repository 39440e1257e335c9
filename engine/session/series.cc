#include "engine/session/series.h"

#include <numeric>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"

namespace tp {

using sql::Expr;
using sql::ExprKind;

Series make_series(const std::vector<int64_t>& args, bool int8, int position) {
  if (args.size() < 2 || args.size() > 3)
    throw Error("function generate_series takes two or three integer arguments")
        .at_position(position)
        .with_sqlstate(sqlstate::kUndefinedFunction);
  Series s;
  s.int8 = int8;
  s.start = args[0];
  s.stop = args[1];
  if (args.size() == 3) {
    s.step = args[2];
    if (s.step == 0)
      throw Error("step size cannot equal zero")
          .at_position(position)
          .with_sqlstate(sqlstate::kInvalidParameterValue);
  }
  return s;
}

void refuse_series_types(const std::string& types, int position) {
  throw Error("function generate_series(" + types + ") does not exist", "",
              "generate_series takes integer arguments.")
      .at_position(position)
      .with_sqlstate(sqlstate::kUndefinedFunction);
}

void refuse_too_many(uint64_t rows) {
  if (rows > UINT32_MAX)
    throw Error("generate_series of " + std::to_string(rows) + " rows is too large to load at once")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
}

void find_series_calls(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == ExprKind::kFuncCall && e.name == "generate_series") {
    out.push_back(&e);
    return;
  }
  for (const auto& a : e.args) find_series_calls(*a, out);
}

bool is_random_call(const Expr& e) {
  return e.kind == ExprKind::kFuncCall && e.name == "random" && e.args.empty();
}

std::string series_column(const sql::FromItem& f) {
  if (f.name != "generate_series")
    throw Error("function " + f.name + "() is not a row source", "",
                "FROM takes a table or generate_series(start, stop [, step]).")
        .at_position(f.position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (f.column_aliases.size() > 1)
    throw Error("too many column aliases specified for function generate_series")
        .at_position(f.position)
        .with_sqlstate(sqlstate::kSyntaxError);
  return !f.column_aliases.empty() ? f.column_aliases[0]
         : !f.alias.empty()        ? f.alias
                                   : "generate_series";
}

SeriesOrder series_order(const sql::Select& s, const Series& series, const std::string& col) {
  SeriesOrder o;
  if (s.order_by.size() > 1)
    throw Error("ORDER BY over generate_series takes one key: random() or the series column")
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (s.order_by.empty()) return o;
  const Expr& key = *s.order_by[0].expr;
  if (is_random_call(key)) {
    o.shuffle = true;
  } else if (key.kind == ExprKind::kColumnRef && (key.name == col || key.name == s.from->alias)) {
    o.reverse = s.order_by[0].descending ? series.step > 0 : series.step < 0;
  } else {
    throw Error("ORDER BY over generate_series takes random() or the series column \"" + col + "\"")
        .at_position(key.position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  }
  return o;
}

namespace {

// The in-memory limit of a Sort (scans/README.md), which ORDER BY random() over a
// series stands in for.
constexpr uint64_t kShuffleMemoryLimitBytes = uint64_t(2) << 30;

}  // namespace

std::vector<uint32_t> shuffled_positions(uint64_t n, Random& random, TrackedMemory& memory) {
  if (n * sizeof(uint32_t) > kShuffleMemoryLimitBytes)
    throw Error("sort of " + std::to_string(n) + " rows needs more than " +
                    std::to_string(kShuffleMemoryLimitBytes >> 20) +
                    " MB, the in-memory sort limit",
                "", "Add a LIMIT or a WHERE clause that keeps fewer rows.")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
  std::vector<uint32_t> order(n);
  memory.set(order.capacity() * sizeof(uint32_t));
  std::iota(order.begin(), order.end(), 0u);
  for (uint64_t i = n; i > 1; --i) {
    if (i % 65536 == 0) check_for_interrupts();
    std::swap(order[i - 1], order[random.below(i)]);
  }
  return order;
}

}  // namespace tp
