// ANALYZE reads its block sample through a read stream (engine/session/analyze.cc). The
// sample is PostgreSQL's and must not move: the blocks sample_blocks lists are exactly
// the ones acquire_sample_rows visits, and the statistics ANALYZE stores are byte for
// byte those of the old path (each sampled block read with read_buffer, one at a time)
// for several tables, statistics targets and seeds.
#include <gtest/gtest.h>

#include "engine/core/heap_tuple.h"
#include "engine/plan/statistics.h"
#include "engine/session/analyze.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

TEST(AnalyzeSample, SampleBlocksAreTheBlocksTheSamplerVisits) {
  for (BlockNumber total : {0u, 1u, 299u, 300u, 301u, 1000u, 45455u})
    for (int target : {300, 3000, 30000})
      for (uint64_t seed : {0ull, 1ull, 42ull, 0xdeadbeefull}) {
        std::vector<BlockNumber> visited;
        acquire_sample_rows(total, target, seed, [&](BlockNumber b, std::vector<StatsRow>& rows) {
          visited.push_back(b);
          rows.push_back(StatsRow{int64_t(b)});  // one row per block: the reservoir draws too
        });
        EXPECT_EQ(sample_blocks(total, target, seed), visited)
            << total << " blocks, " << target << " rows, seed " << seed;
      }
}

// The statistics ANALYZE computed before it used a read stream: every sampled block
// read with read_buffer, in the sampler's order.
std::string block_at_a_time_stats(Session& s, const std::string& table, int target, uint64_t seed) {
  const RelationEntry& rel = *s.catalog().find(table);
  HeapTupleLayout layout(rel.columns);
  aio::IoFile& file = s.storage().file(rel);
  const size_t ncols = rel.columns.size();
  TableStats st = analyze_table(int(ncols), BlockNumber(rel.pages),
                                [&](BlockNumber b, std::vector<StatsRow>& rows) {
                                  bufmgr::ReadGuard page =
                                      s.storage().pool().read_buffer(file, b).lock_shared();
                                  const char* p = page.page();
                                  for (OffsetNumber o = 1; o <= page_max_offset(p); ++o) {
                                    const ItemId* id = page_item_id(p, o);
                                    if (id->state != uint32_t(ItemState::kNormal)) continue;
                                    StatsRow row(ncols);
                                    for (size_t c = 0; c < ncols; ++c)
                                      row[c] = layout.get(p + id->off, c);
                                    rows.push_back(std::move(row));
                                  }
                                },
                                {.statistics_target = target, .seed = seed});
  return stats_to_catalog(st);
}

TEST(AnalyzeSample, StatisticsAreThoseOfTheBlockAtATimePath) {
  testing::TempDir tmp;
  Session s(testing::options_for(tmp.data()));
  // Sparse pages (fillfactor 10, ~22 rows each) so a small statistics target samples a
  // fraction of the blocks and rows: the reservoir replaces rows, the sampler skips blocks.
  s.execute("CREATE TABLE sparse (a int, b int) WITH (fillfactor=10)");
  s.execute("INSERT INTO sparse SELECT i, (i * 7919) % 1009 FROM generate_series(1, 20000) s(i)");
  s.execute("CREATE TABLE dense (a int, b bigint, c int)");
  s.execute(
      "INSERT INTO dense SELECT i % 97, i * 3, (i * 31) % 50 FROM generate_series(1, 30000) s(i)");
  s.execute("CREATE TABLE tiny (a int)");
  s.execute("INSERT INTO tiny SELECT i FROM generate_series(1, 10) s(i)");
  ASSERT_GT(s.catalog().find("sparse")->pages, 600u);
  for (int target : {1, 3, 100})
    for (uint64_t seed : {0ull, 7ull, 12345ull}) {
      s.execute("SET default_statistics_target = " + std::to_string(target));
      s.execute("SET random_seed = " + std::to_string(seed));
      s.storage().evict_all();  // the stream reads, not only hits
      s.execute("ANALYZE");
      for (const char* table : {"sparse", "dense", "tiny"}) {
        SCOPED_TRACE(std::string(table) + " target " + std::to_string(target) + " seed " +
                     std::to_string(seed));
        EXPECT_EQ(s.catalog().find(table)->stats, block_at_a_time_stats(s, table, target, seed));
      }
    }
}

}  // namespace
}  // namespace tp
