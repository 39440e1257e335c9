// Keeping every index of a table up to date during one INSERT statement.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/block.h"
#include "engine/storage/catalog.h"
#include "engine/storage/datadir.h"
#include "engine/storage/storage.h"

namespace tp {

// Index maintenance for one INSERT statement. An index that was empty when the
// statement began is rebuilt at the end by a sorted build into a new file (the
// fast path a bulk load into a fresh table takes; the result is the shape a
// sorted build gives, as PostgreSQL's CREATE INDEX after a load would); every
// other index gets each new row inserted as it comes.
class IndexMaintainer {
 public:
  IndexMaintainer(Storage& storage, DataDir& dir, Catalog& next, const RelationEntry& table);
  ~IndexMaintainer();

  // Adds the row stored at `tid` to every index. Throws on a unique violation.
  void add(const Datum* values, const bool* isnull, Tid tid);
  // Finishes the bulk builds and records the indexes' new relnumbers, sizes
  // and entry counts in `next`. Returns the files to unlink after commit. A bulk
  // build's unique violation is the error an insert of the repeating row would
  // have raised, with `context_of` its row's context (none when it says "").
  std::vector<uint32_t> finish(const std::function<std::string(Tid)>& context_of = {});

 private:
  struct Target;
  Storage& storage_;
  DataDir& dir_;
  Catalog& next_;
  std::vector<std::unique_ptr<Target>> targets_;
};

}  // namespace tp
