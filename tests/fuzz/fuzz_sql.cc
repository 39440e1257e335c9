// libFuzzer target `sql`: the lexer, the parser and the planner. Every input is
// parsed; a SELECT (or an EXPLAIN without ANALYZE) over a table is planned and
// its EXPLAIN text produced, against a small catalog built once in a temporary
// data directory. Nothing is executed, so no input changes the data.
// tp::Error is the expected refusal; any other exception, a sanitizer report or
// a stack overflow is a crash.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "engine/core/error.h"
#include "engine/session/query.h"
#include "engine/session/session.h"
#include "engine/sql/parser.h"

namespace {

tp::Session* make_session() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "tidepool-fuzz-sql-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) std::abort();
  static std::string root = tmpl;
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  });
  tp::SessionOptions o;
  o.data_dir = root + "/data";
  // Table t plans in parallel (its parallel_workers option, no setup cost), so
  // inputs reach the Gather, Gather Merge and partial aggregate paths too.
  o.settings = {"shared_buffers=1MB", "io_method=sync", "parallel_setup_cost=0"};
  static auto session = std::make_unique<tp::Session>(o);
  for (const char* sql : {
           "CREATE TABLE t (a int, b int, c bigint) WITH (fillfactor=50)",
           "INSERT INTO t SELECT i, i % 100, i * 3 FROM generate_series(1, 3000) s(i)",
           "CREATE INDEX t_a ON t (a)",
           "CREATE INDEX t_b_c ON t (b, c)",
           "ALTER TABLE t SET (parallel_workers = 2)",
           "CREATE TABLE u (id bigint PRIMARY KEY, v int)",
           "INSERT INTO u SELECT i, i FROM generate_series(1, 500) s(i) ORDER BY random()",
           "CREATE TABLE empty (x int)",
           "ANALYZE",
       })
    session->execute(sql);
  return session.get();
}

void plan(tp::Session& session, tp::sql::Explain& explain) {
  explain.options.analyze = false;  // plan only: never run the query
  tp::query_explain(session, explain);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tp::Session* session = make_session();
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    tp::sql::Statement st = tp::sql::parse_statement(text);
    if (auto* select = std::get_if<tp::sql::Select>(&st)) {
      tp::sql::Explain explain;
      explain.statement = std::move(*select);
      plan(*session, explain);
    } else if (auto* explain = std::get_if<std::unique_ptr<tp::sql::Explain>>(&st)) {
      plan(*session, **explain);
    }
    tp::sql::split_statements(text);
  } catch (const tp::Error&) {
  }
  return 0;
}
