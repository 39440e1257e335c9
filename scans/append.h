// The nodes of UNION [ALL] (PostgreSQL's nodeAppend.c and the Subquery Scan its set
// operations put over each branch).
//
//   Append          returns every row of its first child, then of the next, ...: each
//                   child's output columns (`columns[i]`, slots of child i's rows) copied
//                   into one layout, slot c the union's column c, by-reference values
//                   into the Append's own batch.
//   SubqueryScan    a branch of a set operation as its own query: returns its child's
//                   rows. PostgreSQL shows it (`Subquery Scan on "*SELECT* 2"`) where it
//                   computes something (a cast of a column to the union's type, done by a
//                   ProjectNode below it) and removes it otherwise, leaving its cost to
//                   the parent: `shown` tells which. It also carries the table name
//                   EXPLAIN qualifies the branch's upper key names with.
//
//   AppendNode a(std::move(children), {{0, 2}, {1, 0}}, casts, shape);  // child 0: slots 0, 2
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/typed_expr.h"
#include "scans/exec_node.h"
#include "scans/pass_through.h"

namespace tp::scans {

class AppendNode final : public ExecNode {
 public:
  // `casts[i][c]`, when set, computes column c from child i's row (a cast to the
  // union's type, reading slot columns[i][c], which is not NULL then).
  AppendNode(std::vector<std::unique_ptr<ExecNode>> children,
             std::vector<std::vector<uint32_t>> columns,
             std::vector<std::vector<std::shared_ptr<const TypedExpr>>> casts,
             std::shared_ptr<const RowShape> shape);

  std::string explain_name() const override { return "Append"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override;

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  std::vector<std::unique_ptr<ExecNode>> children_;
  std::vector<std::vector<uint32_t>> columns_;
  std::vector<std::vector<std::shared_ptr<const TypedExpr>>> casts_;
  std::shared_ptr<const RowShape> shape_;
  size_t current_ = 0;  // the child being read
  bool opened_current_ = false;
  RowBatch batch_;
};

// Merge Append: its children each return rows in the order of `keys` (slots of the
// union's layout, read in child i through columns[i]); it returns them merged in that
// order, taking the least current row of all children each time (PostgreSQL keeps a
// binary heap; with a handful of children a scan of them is as good).
class MergeAppendNode final : public ExecNode {
 public:
  MergeAppendNode(std::vector<std::unique_ptr<ExecNode>> children,
                  std::vector<std::vector<uint32_t>> columns, std::vector<SortKey> keys,
                  std::string key_text, std::shared_ptr<const RowShape> shape);

  std::string explain_name() const override { return "Merge Append"; }
  void explain_details(std::vector<std::string>& lines, bool) const override {
    lines.push_back("Sort Key: " + key_text_);
  }
  std::vector<const ExecNode*> children() const override;

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  struct Input {
    const RowBatch* batch = nullptr;  // null: the child has ended
    uint32_t at = 0;
  };
  // Reads the child's next batch (of at most `needed` rows) once its rows are used up.
  void refill(size_t child, uint64_t needed);
  int compare(size_t a, size_t b) const;

  std::vector<std::unique_ptr<ExecNode>> children_;
  std::vector<std::vector<uint32_t>> columns_;
  std::vector<SortKey> keys_;
  std::string key_text_;
  std::shared_ptr<const RowShape> shape_;
  std::vector<Input> inputs_;
  bool started_ = false;
  RowBatch batch_;
};

// The names a branch's EXPLAIN lines above its scan qualify (its table and columns), as
// engine/session/explain_prefix.h takes them; empty table: none.
struct BranchPrefix {
  std::string table;
  std::vector<std::string> columns;
};

class SubqueryScanNode final : public PassThroughNode {
 public:
  SubqueryScanNode(std::unique_ptr<ExecNode> child, std::string name, bool shown,
                   BranchPrefix prefix)
      : PassThroughNode(std::move(child)),
        name_(std::move(name)),
        shown_(shown),
        prefix_(std::move(prefix)) {}

  std::string explain_name() const override { return "Subquery Scan"; }
  std::string explain_target() const override { return " on " + name_; }
  bool explain_transparent() const override { return !shown_; }
  const BranchPrefix& prefix() const { return prefix_; }

 private:
  std::string name_;
  bool shown_;
  BranchPrefix prefix_;
};

}  // namespace tp::scans
