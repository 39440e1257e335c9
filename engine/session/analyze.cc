#include "engine/session/analyze.h"

#include <algorithm>
#include <cstdio>

#include "bufmgr/read_stream.h"
#include "bufmgr/strategy.h"
#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/core/tuple_format.h"
#include "engine/session/layer_settings.h"
#include "engine/session/vacuum.h"
#include "engine/storage/cancel_points.h"

namespace tp {

namespace {

// tidepool's own (PostgreSQL reads only the sampled blocks): runs of at most this many
// unsampled blocks between two sampled ones are read too, so the sampled runs around
// them combine into one read. A big sample of a table (30,000 of 45,455 blocks) then
// reads like a seq scan, in io_combine_limit-sized reads, instead of ~10,000 reads of
// 2-3 blocks; a sparse sample (gaps longer than this) reads exactly its blocks. Only the
// reads change: the rows come from the sampled blocks alone.
constexpr BlockNumber kAnalyzeGapFill = 4;

// The blocks to read for `sample` (ascending): the sample plus its short gaps.
std::vector<BlockNumber> blocks_to_read(const std::vector<BlockNumber>& sample) {
  std::vector<BlockNumber> out;
  out.reserve(sample.size());
  for (size_t i = 0; i < sample.size(); ++i) {
    if (i > 0 && sample[i] - sample[i - 1] - 1 <= kAnalyzeGapFill)
      for (BlockNumber b = sample[i - 1] + 1; b < sample[i]; ++b) out.push_back(b);
    out.push_back(sample[i]);
  }
  return out;
}

// The sampled blocks of a table read through a read stream; a row is decoded only when
// the sample keeps it.
class StreamedBlockRows : public BlockRows {
 public:
  StreamedBlockRows(bufmgr::ReadStream& stream, const std::vector<Column>& columns)
      : stream_(stream), reader_(columns), ncols_(columns.size()) {}

  size_t open(BlockNumber b) override {
    check_cancel_at(CancelPoint::kAnalyzeBlock);
    page_.reset();
    bufmgr::PinGuard pin = stream_.next_buffer();
    // Gap blocks were read only to combine reads. sample_blocks promises
    // acquire_sample_rows' own order, so `b` comes next.
    while (pin && pin.block() != b) pin = stream_.next_buffer();
    TP_ASSERT(pin);
    page_ = std::move(pin).lock_shared();
    const char* p = page_.page();
    items_.clear();
    const OffsetNumber max = page_max_offset(p);
    for (OffsetNumber o = 1; o <= max; ++o)
      if (page_item_id(p, o)->state == uint32_t(ItemState::kNormal)) items_.push_back(o);
    return items_.size();
  }

  void row(size_t i, StatsRow& out) override {
    const ItemId* id = page_item_id(page_.page(), items_.at(i));
    reader_.load(page_.page() + id->off, id->len);
    out.resize(ncols_);
    for (size_t c = 0; c < ncols_; ++c) out[c] = reader_.datum(c);  // nullopt: NULL
  }

 private:
  bufmgr::ReadStream& stream_;
  HeapRowReader reader_;
  size_t ncols_;
  bufmgr::ReadGuard page_;
  std::vector<OffsetNumber> items_;
};

// Samples `rel` as PostgreSQL 17 does: the sorted block sample read through a read
// stream (ahead, and combined where sampled blocks are adjacent), the rows drawn from
// each block exactly as before, so the same seed gives the same statistics.
TableStats analyze_relation(Session& session, const RelationEntry& rel,
                            const AnalyzeOptions& options) {
  Storage& storage = session.storage();
  bufmgr::BufferPool& pool = storage.pool();
  aio::IoFile& file = storage.file(rel);
  std::vector<TypeId> types;
  for (const Column& c : rel.columns) types.push_back(c.type);
  const BlockNumber nblocks = BlockNumber(rel.pages);
  const std::vector<BlockNumber> blocks =
      blocks_to_read(sample_blocks(nblocks, analyze_target_rows(options), options.seed));
  bufmgr::ReadStreamConfig config = stream_config(session.settings());
  // A big table is read through a ring, as a seq scan of it would be, so ANALYZE does
  // not push the pool's working set out (PostgreSQL uses its vacuum ring).
  std::unique_ptr<bufmgr::BufferStrategy> ring = bufmgr::BufferStrategy::for_seq_scan(
      pool, nblocks, config.effective_io_concurrency, config.io_combine_limit);
  config.strategy = ring.get();
  size_t next = 0;
  bufmgr::ReadStream stream(pool, file, config, [&](void*) {
    return next < blocks.size() ? blocks[next++] : kInvalidBlock;
  });
  StreamedBlockRows rows(stream, rel.columns);
  return analyze_table(types, nblocks, rows, options);
}

// The tables a statement names (every table for none), as oids.
std::vector<uint32_t> statement_tables(const Catalog& cat, const sql::Analyze& a) {
  std::vector<uint32_t> oids;
  if (a.tables.empty()) {
    for (const RelationEntry& r : cat.relations)
      if (r.is_table()) oids.push_back(r.oid);
  }
  for (const std::string& name : a.tables) {
    const RelationEntry* r = cat.find(name);
    if (!r)
      throw Error("relation \"" + name + "\" does not exist")
          .with_sqlstate(sqlstate::kUndefinedTable);
    if (!r->is_table())
      throw Error("\"" + name + "\" is an index; " + (a.vacuum ? "VACUUM" : "ANALYZE") +
                  " takes tables")
          .with_sqlstate(sqlstate::kWrongObjectType);
    oids.push_back(r->oid);
  }
  return oids;
}

}  // namespace

ResultSet run_analyze(Session& session, const sql::Analyze& a) {
  const bool analyze = !a.vacuum || vacuum_analyzes(a.options);
  const Catalog& cat = session.catalog();
  const std::vector<uint32_t> oids = statement_tables(cat, a);
  Catalog next = cat;
  AnalyzeOptions options;
  options.statistics_target = int(session.settings().get_int("default_statistics_target"));
  options.seed = uint64_t(session.settings().get_int("random_seed"));
  std::vector<std::pair<RelationEntry, VisibilityMap>> maps;
  for (uint32_t oid : oids) {
    RelationEntry* rel = next.find_oid(oid);
    session.storage().file(*rel);  // a damaged table is refused before anything changes
    TableStats st = rel->stats.empty() ? TableStats{} : stats_from_catalog(rel->stats);
    if (a.vacuum) {
      maps.emplace_back(*rel, vacuum_relation(session, *rel, st));
      rel->all_visible = rel->pages;
    } else {
      rel->all_visible = session.storage().visibility_map(*rel)->count_all_visible();
    }
    if (analyze) {
      st = analyze_relation(session, *rel, options);
      // VACUUM ANALYZE records the exact live row count (tidepool's choice: PostgreSQL
      // keeps ANALYZE's estimate, the same for a table sampled whole).
      if (a.vacuum) {
        st.reltuples = double(rel->rows);
        st.relpages = double(rel->pages);
      }
    }
    rel->stats = stats_to_catalog(st);
  }
  // The maps are written last, after every table's work (a cancel before here
  // leaves them as they were); once written their bits are true whether or
  // not the commit follows.
  check_for_interrupts();
  for (const auto& [rel, map] : maps) session.storage().write_visibility_map(rel, map);
  session.commit_catalog(std::move(next));
  ResultSet r;
  r.tag = a.vacuum ? "VACUUM" : "ANALYZE";
  return r;
}

std::vector<std::string> describe_stats(const RelationEntry& rel) {
  std::vector<std::string> out;
  if (rel.stats.empty()) return out;
  TableStats st = stats_from_catalog(rel.stats);
  char buf[256];
  // pg_class's relallvisible, shown once VACUUM (or a count after it) set it.
  const std::string visible =
      rel.all_visible > 0 ? " relallvisible=" + std::to_string(rel.all_visible) : "";
  // Counts alone come from VACUUM or an index build on a table never analyzed.
  if (st.columns.empty())
    std::snprintf(buf, sizeof buf,
                  "Statistics: reltuples=%.0f relpages=%.0f%s (from VACUUM or CREATE INDEX; not "
                  "analyzed)",
                  st.reltuples, st.relpages, visible.c_str());
  else
    std::snprintf(buf, sizeof buf,
                  "Statistics: reltuples=%.0f relpages=%.0f%s (sampled %.0f rows in %.0f pages)",
                  st.reltuples, st.relpages, visible.c_str(), st.sample_rows, st.sampled_blocks);
  out.push_back(buf);
  for (size_t c = 0; c < st.columns.size() && c < rel.columns.size(); ++c) {
    const ColumnStats& s = st.columns[c];
    if (!s.valid) {
      out.push_back("  " + rel.columns[c].name + ": no statistics (empty sample)");
      continue;
    }
    const TypeId type = rel.columns[c].type;
    const std::string range = s.has_range ? " min=" + datum_out(type, s.min_value) +
                                                " max=" + datum_out(type, s.max_value)
                                          : "";
    std::snprintf(buf, sizeof buf, " n_distinct=%g correlation=%g mcv=%zu histogram=%zu",
                  double(s.n_distinct), double(s.correlation), s.mcv_values.size(),
                  s.histogram.size());
    out.push_back("  " + rel.columns[c].name + ":" + range + buf);
  }
  return out;
}

}  // namespace tp
