#include "engine/storage/index_maintenance.h"

#include "engine/btree/btree.h"
#include "engine/btree/btree_build.h"
#include "engine/core/error.h"
#include "engine/storage/cancel_points.h"
#include "engine/storage/index_build.h"
#include "engine/storage/pool_page_store.h"

namespace tp {

struct IndexMaintainer::Target {
  RelationEntry* entry;  // in next_
  btree::IndexDef def;
  uint32_t old_relnumber = 0;
  // Bulk path (the index was empty).
  std::unique_ptr<PoolPageStore> store;
  std::unique_ptr<btree::BTreeBuilder> builder;
  // Retail path.
  std::unique_ptr<btree::BTree> tree;
  uint64_t added = 0;
};

IndexMaintainer::IndexMaintainer(Storage& storage, DataDir& dir, Catalog& next,
                                 const RelationEntry& table)
    : storage_(storage), dir_(dir), next_(next) {
  for (auto& r : next_.relations) {
    if (r.kind != RelKind::kIndex || r.table_oid != table.oid) continue;
    auto t = std::make_unique<Target>();
    t->entry = &r;
    t->def = index_def(table, r);
    if (r.rows == 0) {
      // Empty: build a fresh file at the end.
      t->old_relnumber = r.relnumber;
      r.relnumber = next_.allocate_oid();
      aio::IoFile& file = storage_.create_file(r);
      t->store = std::make_unique<PoolPageStore>(storage_.pool(), file, nullptr, 0);
      t->builder = std::make_unique<btree::BTreeBuilder>(*t->store, t->def);
    } else {
      aio::IoFile& file = storage_.file(r);
      t->store =
          std::make_unique<PoolPageStore>(storage_.pool(), file, &dir_, BlockNumber(r.pages));
      t->tree = std::make_unique<btree::BTree>(btree::BTree::open(*t->store, t->def));
    }
    targets_.push_back(std::move(t));
  }
  if (!targets_.empty()) dir_.sync_base_directory();
}

IndexMaintainer::~IndexMaintainer() = default;

void IndexMaintainer::add(const Datum* values, const bool* isnull, Tid tid) {
  for (auto& t : targets_) {
    btree::KeyValues key;
    for (int c : t->entry->key_columns) {
      if (isnull[c])
        key.push_null();
      else
        key.push(values[c]);
    }
    if (t->builder)
      t->builder->add(key, tid);
    else
      t->tree->insert(key, tid);
    ++t->added;
  }
}

std::vector<uint32_t> IndexMaintainer::finish(const std::function<std::string(Tid)>& context_of) {
  std::vector<uint32_t> garbage;
  for (auto& t : targets_) {
    if (t->builder) {
      try {
        t->builder->finish({}, check_build_cancel);
      } catch (const Error& e) {
        // Seen from INSERT, a duplicate is a unique violation, as PostgreSQL reports it.
        std::string detail = e.detail();
        size_t at = detail.rfind(" is duplicated.");
        if (at == std::string::npos) throw;
        Error violation("duplicate key value violates unique constraint \"" + t->def.name + "\"",
                        detail.substr(0, at) + " already exists.");
        violation.with_sqlstate(sqlstate::kUniqueViolation);
        if (context_of) {
          const std::string context = context_of(t->builder->repeated_tid());
          if (!context.empty()) violation.with_context(context);
        }
        throw violation;
      }
      garbage.push_back(t->old_relnumber);
    }
    aio::IoFile& file = storage_.file(*t->entry);
    storage_.pool().flush_relation(file);
    t->entry->pages = file.size_blocks();
    t->entry->rows += t->added;
  }
  return garbage;
}

}  // namespace tp
