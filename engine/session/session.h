// A session: one open data directory, its settings, and the statements run
// against it. The shell (tools/) and the tests drive tidepool through this
// class only.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/plan/plan_context.h"
#include "engine/session/settings.h"
#include "engine/sql/ast.h"
#include "engine/sql/value.h"
#include "engine/storage/datadir.h"
#include "engine/storage/storage.h"

namespace tp {

// What a statement returns: rows (for queries) and/or a command tag.
struct ResultSet {
  std::vector<std::string> columns;
  std::vector<bool> right_aligned;  // numbers are right-aligned by psql
  std::vector<std::vector<std::string>> rows;
  bool returns_rows = false;
  std::string tag;                   // "CREATE TABLE", "INSERT 0 1000", "SET", ...
  std::vector<std::string> notices;  // printed as NOTICE:  ...
};

struct SessionOptions {
  std::string data_dir;
  std::vector<std::string> settings;  // "name=value" from --set
  bool progress = false;              // progress line on stderr during loads
  bool create_data_dir = true;        // false: a missing or empty data_dir is an error
};

class Session {
 public:
  explicit Session(const SessionOptions& options);
  ~Session();

  // Parses and runs one statement. A failed statement throws tp::Error and
  // leaves data and catalog as they were before it.
  ResultSet execute(std::string_view sql);

  Settings& settings() { return settings_; }
  DataDir& data_dir() { return *dir_; }
  Storage& storage() { return *storage_; }
  const Catalog& catalog() const { return dir_->catalog(); }

  // Height of a B-tree index as PostgreSQL counts it: the root's level (0 when
  // the root is a leaf; 2 for 10 M int4 keys).
  int index_height(const RelationEntry& index);
  // What the planner needs, with this session's settings.
  PlanContext plan_context();

 private:
  ResultSet run(sql::Statement& st);
  ResultSet create_table(const sql::CreateTable& ct);
  ResultSet drop_table(const sql::DropTable& dt);
  ResultSet truncate(const sql::Truncate& t);
  ResultSet insert(const sql::Insert& ins);
  ResultSet select(const sql::Select& s);
  ResultSet system_view(const sql::Select& s);
  ResultSet create_index(const sql::CreateIndex& ci);
  ResultSet drop_index(const sql::DropIndex& di);
  // Creates and builds an index of `table` into `next` (not committed).
  RelationEntry& add_index(Catalog& next, RelationEntry table, std::string name,
                           const std::vector<int>& columns, bool unique, bool primary);
  ResultSet set(const sql::SetStmt& s);
  ResultSet show(const sql::ShowStmt& s);
  ResultSet reset(const sql::ResetStmt& s);

  // Runs `body` as one all-or-nothing statement (see DataDir).
  template <typename F>
  ResultSet atomically(F&& body);

  void commit_and_remove(Catalog next, const std::vector<uint32_t>& garbage);
  Value session_function(const sql::Expr& e, const std::vector<Value>& args);

  SessionOptions options_;
  Settings settings_;
  std::unique_ptr<DataDir> dir_;
  std::unique_ptr<Storage> storage_;
  Random random_;
};

}  // namespace tp
