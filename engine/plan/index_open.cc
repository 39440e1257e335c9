#include "engine/plan/index_open.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "engine/sql/identifier.h"
#include "engine/storage/index_build.h"
#include "engine/storage/pool_page_store.h"

namespace tp {
namespace {

// An index opened for one query: its page store over the pool and the tree.
struct OpenIndex {
  std::unique_ptr<PoolPageStore> store;
  std::optional<btree::BTree> tree;
};

// get_actual_variable_range over one index whose first key is the column: its extreme
// non-NULL values (NULLs sort last), nothing when the index holds none.
ActualRange read_actual_range(PlanContext& ctx, const RelationEntry& table,
                              const RelationEntry& idx, int c) {
  Storage& st = ctx.storage;
  PoolPageStore store(st.pool(), st.file(idx), nullptr, 0);
  btree::BTree tree = btree::BTree::open(store, index_def(table, idx));
  btree::IndexBatch batch;
  const std::vector<btree::ColumnCondition> not_null{btree::ColumnCondition::not_null(0)};
  btree::IndexScan lowest(tree, not_null, btree::ScanDirection::kForward);
  if (!lowest.next_batch(batch) || batch.empty()) return {};
  const AttrFormat format = AttrFormat::of(table.columns[size_t(c)].type);
  // By-reference values are copied: the batch's bytes go with the next batch.
  auto bytes = std::make_shared<std::string>();
  std::vector<size_t> at;
  auto keep = [&](Datum d) {
    if (format.byval) return d;
    at.push_back(bytes->size());
    const char* p = datum_pointer(d);
    bytes->append(p, datum_ref_size(format.len, d));
    bytes->resize(maxalign(uint32_t(bytes->size())));
    return Datum(0);
  };
  const Datum low = keep(batch.datum(0, 0));
  btree::IndexScan highest(tree, not_null, btree::ScanDirection::kBackward);
  if (!highest.next_batch(batch) || batch.empty()) return {};
  const Datum high = keep(batch.datum(0, 0));
  if (format.byval) return ActualRange{.min = low, .max = high, .bytes = nullptr};
  return ActualRange{.min = pointer_datum(bytes->data() + at[0]),
                     .max = pointer_datum(bytes->data() + at[1]),
                     .bytes = bytes};
}

}  // namespace

void describe_from_indexes(PlanContext& ctx, const RelationEntry& table, int c,
                           ColumnStatsView& v) {
  std::vector<const RelationEntry*> leading;  // the readable indexes whose first key is c
  for (const RelationEntry* idx : ctx.catalog.indexes_of(table.oid)) {
    if (ctx.data_dir.damage(idx->relnumber)) continue;  // unreadable: plan without it
    if (idx->key_columns.empty() || idx->key_columns[0] != c) continue;
    if (idx->unique && idx->key_columns.size() == 1) v.unique = true;
    leading.push_back(idx);
  }
  if (leading.empty()) return;
  // The plan context and the catalog outlive the planning that reads the view.
  v.read_actual_with([&ctx, &table, leading, c] {
    for (const RelationEntry* idx : leading) {
      ActualRange r = read_actual_range(ctx, table, *idx, c);
      if (r.min) return r;
    }
    return ActualRange{};
  });
}

namespace {

scans::IndexHandle open_over(bufmgr::BufferPool& pool, aio::IoFile& file,
                             const bufmgr::ReadStreamConfig& stream, btree::IndexDef def,
                             const std::string& name) {
  auto h = std::make_shared<OpenIndex>();
  h->store = std::make_unique<PoolPageStore>(pool, file, nullptr, 0);
  h->store->set_stream_config(stream);  // leaf read-ahead's streams
  h->tree.emplace(btree::BTree::open(*h->store, std::move(def)));
  scans::IndexHandle handle;
  handle.name = name;
  handle.tree = &*h->tree;
  handle.owner = h;
  // Pool and file outlive the statement's plan, which is all a handle lives for; the
  // definition is the open tree's (sharing it spares every plan a copy).
  handle.reopen = [&pool, &file, stream, h, name = handle.name] {
    return open_over(pool, file, stream, h->tree->def(), name);
  };
  return handle;
}

}  // namespace

scans::IndexHandle open_index(PlanContext& ctx, const RelationEntry& table,
                              const RelationEntry& index) {
  Storage& st = ctx.storage;
  return open_over(st.pool(), st.file(index), ctx.settings.stream, index_def(table, index),
                   sql::quote_identifier(index.name));  // as EXPLAIN prints it
}

std::function<bool(BlockNumber)> all_visible_pages(Storage& storage, const RelationEntry& table) {
  std::shared_ptr<const VisibilityMap> map = storage.visibility_map(table);
  const BlockNumber pages = BlockNumber(table.pages);
  if (map->end_of_set_bits() == 0) return {};
  // A page past the committed ones (none should be set) is never taken on trust.
  return [map, pages](BlockNumber b) { return b < pages && map->all_visible(b); };
}

void answer_from_index(scans::IndexScanParams& params, Storage& storage, const RelationEntry& table,
                       const RelationEntry& index) {
  params.all_visible = all_visible_pages(storage, table);
  HeapTupleLayout layout(table.columns);
  for (int c : index.key_columns)
    params.tuple_natts = std::max<uint16_t>(params.tuple_natts, uint16_t(c + 1));
  std::vector<TypeId> types;
  for (size_t c = 0; c < params.tuple_natts; ++c) types.push_back(table.columns[c].type);
  params.null_format = std::make_shared<const TupleFormat>(TupleFormat::of_types(types));
  params.key_columns = index.key_columns;
  bool integers = true;
  for (int c : index.key_columns) {
    const ColumnType t = layout.type(size_t(c));
    integers =
        integers && (t == ColumnType::kInt4 || t == ColumnType::kInt8) && layout.fixed(size_t(c));
  }
  if (!integers) return;  // every entry's row is formed (null_format)
  // Integer keys at fixed offsets: a tuple-shaped buffer long enough for them, written
  // in place.
  params.tuple_size = kHeapTupleDataOffset;
  for (int c : index.key_columns) {
    params.tuple_size =
        std::max(params.tuple_size, layout.offset(size_t(c)) + uint32_t(sizeof(int64_t)));
    params.key_slots.push_back(
        {layout.offset(size_t(c)), uint8_t(layout.type(size_t(c)) == ColumnType::kInt8 ? 8 : 4)});
  }
}

}  // namespace tp
