// Multi-batch hash joins (scans/hash.h, scans/hash_join.h) with a temporary file space and
// a table bound of a few dozen kB: every join type, with and without a Join Filter, on
// int4 and text keys with duplicates and NULLs, against the brute-force join; batches
// planned from the start and grown while batch 0 is built or while a later batch is
// loaded (outer rows then move on to later batches); a batch of one key that no doubling
// splits stays in memory beyond the bound; the batch count capped; the files gone after
// the join, after an error or cancel thrown through it, after a full disk, after rescans
// (which rebuild a multi-batch table and keep a single-batch one) and at shutdown; the
// Hash's EXPLAIN ANALYZE line.
#include <gmock/gmock.h>

#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aio/temp_file.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "scans/hash_join.h"
#include "tests/scans/join_test_rows.h"

namespace tp {
namespace {

using namespace join_test;  // NOLINT(google-build-using-namespace): the shared helpers
using ::testing::MatchesRegex;
namespace stdfs = std::filesystem;

constexpr uint64_t kSmall = 48 * 1024;  // a third or less of the inner rows' table
// A row's overshoot before the batches double: its slots and a new 32 kB arena chunk.
constexpr uint64_t kOvershoot = 40 * 1024;

// A child that throws `error` (a cancel or a read error) at its `throw_at`th batch, as a
// node below would.
class ThrowingRowsNode final : public RowsNode {
 public:
  ThrowingRowsNode(std::vector<TRow> rows, uint32_t batch, int throw_at, bool cancel)
      : RowsNode(std::move(rows), batch), throw_at_(throw_at), cancel_(cancel) {}

 protected:
  const scans::RowBatch* do_next() override {
    if (++calls_ == throw_at_) {
      if (cancel_) throw QueryCanceled();
      throw Error("could not read block 7 of relation \"t\"");
    }
    return RowsNode::do_next();
  }

 private:
  int throw_at_;
  bool cancel_;
  int calls_ = 0;
};

// The batch of an int4 key at `nbatch` batches, as HashNode assigns it.
uint32_t batch_of_key(int32_t key, uint32_t nbatch) {
  const Datum d = Datum(key);
  return uint32_t(scans::hash_slots({0}, nullptr, {&d, nullptr}) >> 32) & (nbatch - 1);
}

class HashJoinBatches : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tp_hash_join_batch.XXXXXX";
    root_ = ::mkdtemp(tmpl);
    space_ = std::make_unique<aio::TempFileSpace>(root_ + "/pgsql_tmp");
  }
  void TearDown() override {
    space_.reset();
    stdfs::remove_all(root_);
  }
  size_t files() const {
    const std::string dir = space_->directory();
    if (!stdfs::exists(dir)) return 0;
    return size_t(std::distance(stdfs::directory_iterator(dir), stdfs::directory_iterator()));
  }

  struct Join {
    std::unique_ptr<scans::HashJoinNode> node;
    scans::HashNode* hash;
    RowsNode* inner;
  };
  Join join(std::unique_ptr<RowsNode> outer, std::unique_ptr<RowsNode> inner,
            const scans::JoinSpec& spec, uint64_t max_bytes, uint32_t planned_batches = 1,
            uint32_t key = 0, bool with_space = true, uint32_t planned_buckets = 256) {
    Join j;
    j.inner = inner.get();
    auto hash = std::make_unique<scans::HashNode>(std::move(inner), std::vector<uint32_t>{key},
                                                  planned_buckets, planned_batches, max_bytes,
                                                  nullptr, with_space ? space_.get() : nullptr);
    j.hash = hash.get();
    j.node = std::make_unique<scans::HashJoinNode>(std::move(outer), std::move(hash), spec,
                                                   std::vector<uint32_t>{key}, "(o.key = i.key)");
    return j;
  }
  Join join(const std::vector<TRow>& outer, const std::vector<TRow>& inner,
            const scans::JoinSpec& spec, uint64_t max_bytes, uint32_t planned_batches = 1,
            uint32_t key = 0) {
    return join(std::make_unique<RowsNode>(outer, 9), std::make_unique<RowsNode>(inner, 7), spec,
                max_bytes, planned_batches, key);
  }

  std::string root_;
  std::unique_ptr<aio::TempFileSpace> space_;
};

// Random rows (duplicate and NULL keys, texts, numerics) with one heavy key: every
// `heavy`th row key 1 (a fifth of the inner rows makes one batch bigger than the others).
std::vector<TRow> batch_rows(std::mt19937& rng, size_t n, int keys, size_t heavy) {
  auto rows = random_rows(rng, n, keys);
  for (size_t i = 0; i < rows.size(); i += heavy)
    if (rows[i].key) rows[i].key = 1;
  return rows;
}

TEST_F(HashJoinBatches, EveryJoinTypeMatchesBruteForce) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed * 31);
    const auto outer = batch_rows(rng, 1500, 300, 40), inner = batch_rows(rng, 1200, 300, 5);
    for (uint32_t planned : {1u, 4u})
      for (JoinType type : kAllTypes)
        for (bool filtered : {false, true}) {
          SCOPED_TRACE("seed " + std::to_string(seed) + " planned " + std::to_string(planned) +
                       " type " + std::to_string(int(type)) + (filtered ? " filtered" : ""));
          const scans::JoinSpec spec = spec_for(type, filtered ? n_le_filter() : nullptr);
          Join j = join(outer, inner, spec, kSmall, planned);
          EXPECT_EQ(drain(*j.node), brute_force(outer, inner, spec, filtered));
          // The table was split and grew beyond the planned batches.
          EXPECT_GT(j.hash->nbatch(), planned);
          EXPECT_LE(j.hash->peak_bytes(), kSmall + kOvershoot);
          EXPECT_GT(space_->files_created(), 0u);
          EXPECT_EQ(files(), 0u);  // every batch's files went as it was read
          EXPECT_EQ(j.hash->batch_files(), 0u);
          EXPECT_EQ(j.node->outer_batch_files(), 0u);
        }
  }
}

TEST_F(HashJoinBatches, TextKeysMatchBruteForce) {
  std::mt19937 rng(77);
  auto make = [&](size_t n) {
    std::vector<TRow> rows = random_rows(rng, n, 50);
    // Texts repeated among rows (and some NULL): the key.
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].t)
        rows[i].t = "key " + std::to_string(rng() % 400) + std::string(rng() % 60, 'x');
    return rows;
  };
  const auto outer = make(1400), inner = make(1300);
  for (JoinType type : kAllTypes) {
    SCOPED_TRACE("type " + std::to_string(int(type)));
    const scans::JoinSpec spec = spec_for(type, n_le_filter());
    Join j = join(outer, inner, spec, kSmall, 2, 1);
    EXPECT_EQ(drain(*j.node), brute_force(outer, inner, spec, true, 1));
    EXPECT_GT(j.hash->nbatch(), 2u);
    EXPECT_EQ(files(), 0u);
  }
}

// Batch 0 fits; batch 1 (of 2 planned) does not, so the batches double while it is
// loaded, and its outer rows, written when there were 2 batches, move on to the later
// batches their hash gives now.
TEST_F(HashJoinBatches, ABatchLoadedLaterGrowsTheBatches) {
  std::mt19937 rng(5);
  std::vector<int32_t> small_keys, big_keys;
  for (int32_t k = 0; small_keys.size() < 20 || big_keys.size() < 200; ++k)
    (batch_of_key(k, 2) == 0 ? small_keys : big_keys).push_back(k);
  auto rows = [&](size_t n, size_t small_share) {
    std::vector<TRow> out = random_rows(rng, n, 10);
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].key)
        out[i].key = i % small_share == 0 ? small_keys[rng() % 20] : big_keys[rng() % 200];
    return out;
  };
  const auto inner = rows(1500, 10), outer = rows(1200, 3);
  for (JoinType type : kAllTypes) {
    SCOPED_TRACE("type " + std::to_string(int(type)));
    const scans::JoinSpec spec = spec_for(type, nullptr);
    Join j = join(outer, inner, spec, 64 * 1024, 2);
    j.node->open();
    j.node->row_limit_hint = 1;
    const scans::RowBatch* first = j.node->next();
    ASSERT_NE(first, nullptr);
    ASSERT_EQ(first->count, 1u);
    Out row;
    for (uint32_t s = 0; s < first->width; ++s)
      row.push_back(first->is_null(0, s) ? "NULL"
                                         : datum_out(first->shape->type(s), first->row(0)[s]));
    std::vector<Out> got{row};
    // Batch 0 built and being probed, batch 1 in its file: no doubling yet.
    EXPECT_EQ(j.hash->nbatch(), 2u);
    EXPECT_EQ(j.hash->current_batch(), 0u);
    j.node->row_limit_hint = UINT64_MAX;
    const auto rest = drain(*j.node, false);
    got.insert(got.end(), rest.begin(), rest.end());
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, brute_force(outer, inner, spec, false));
    EXPECT_GT(j.hash->nbatch(), 2u);
    EXPECT_EQ(files(), 0u);
  }
}

// Every inner row has one key: a doubling moves all of them or none, so the growth stops
// after one, and the batch is joined in memory beyond the bound.
TEST_F(HashJoinBatches, ABatchOfOneKeyStaysInMemoryBeyondTheBound) {
  std::vector<TRow> inner, outer;
  for (int i = 0; i < 1000; ++i)
    inner.push_back({7, "inner " + std::to_string(i) + std::string(40, 'i'), std::to_string(i)});
  for (int i = 0; i < 60; ++i)
    outer.push_back({i % 3 == 0 ? std::optional<int32_t>(7) : std::optional<int32_t>(i),
                     "outer " + std::to_string(i), std::to_string(i * 10)});
  for (JoinType type : kAllTypes) {
    SCOPED_TRACE("type " + std::to_string(int(type)));
    const scans::JoinSpec spec = spec_for(type, n_le_filter());
    Join j = join(outer, inner, spec, kSmall);
    EXPECT_EQ(drain(*j.node), brute_force(outer, inner, spec, true));
    EXPECT_EQ(j.hash->nbatch(), 2u);
    EXPECT_GT(j.hash->peak_bytes(), 2 * kSmall);
    EXPECT_EQ(files(), 0u);
  }
}

// Rows without by-reference values (no arena chunk) under a bound of a few dozen rows:
// many batches, most of them read back from files; and a planned count past the cap
// starts at the cap, where the batches stop doubling.
TEST_F(HashJoinBatches, ManySmallBatchesAndTheCap) {
  std::mt19937 rng(9);
  auto int_rows = [&](size_t n) {
    std::vector<TRow> out;
    for (size_t i = 0; i < n; ++i)
      out.push_back({rng() % 10 ? std::optional<int32_t>(int32_t(rng() % 3000)) : std::nullopt,
                     std::nullopt, std::nullopt});
    return out;
  };
  const auto outer = int_rows(2000), inner = int_rows(3000);
  for (JoinType type : kAllTypes) {
    SCOPED_TRACE("type " + std::to_string(int(type)));
    const scans::JoinSpec spec = spec_for(type, nullptr);
    Join j = join(std::make_unique<RowsNode>(outer, 9), std::make_unique<RowsNode>(inner, 7), spec,
                  2048, 1, 0, true, 16);
    EXPECT_EQ(drain(*j.node), brute_force(outer, inner, spec, false));
    EXPECT_GE(j.hash->nbatch(), 32u);
    EXPECT_LE(j.hash->peak_bytes(), 2048u + 64);
    EXPECT_EQ(files(), 0u);
  }
  const std::vector<TRow> few_outer(outer.begin(), outer.begin() + 300),
      few_inner(inner.begin(), inner.begin() + 300);
  for (JoinType type : {JoinType::kInner, JoinType::kFull}) {
    const scans::JoinSpec spec = spec_for(type, nullptr);
    Join j = join(std::make_unique<RowsNode>(few_outer, 9),
                  std::make_unique<RowsNode>(few_inner, 7), spec, 200, 1u << 12, 0, true, 16);
    EXPECT_EQ(drain(*j.node), brute_force(few_outer, few_inner, spec, false));
    EXPECT_EQ(j.hash->nbatch(), scans::HashNode::kMaxBatches);
    EXPECT_EQ(files(), 0u);
  }
}

TEST_F(HashJoinBatches, NullKeysAreNeverLostOrDuplicated) {
  std::mt19937 rng(3);
  auto outer = random_rows(rng, 900, 100), inner = random_rows(rng, 900, 100);
  // A third of the keys NULL on both sides.
  for (size_t i = 0; i < outer.size(); i += 3) outer[i].key.reset();
  for (size_t i = 1; i < inner.size(); i += 3) inner[i].key.reset();
  for (uint32_t planned : {1u, 8u})
    for (JoinType type : kAllTypes) {
      SCOPED_TRACE("type " + std::to_string(int(type)) + " planned " + std::to_string(planned));
      const scans::JoinSpec spec = spec_for(type, nullptr);
      Join j = join(outer, inner, spec, kSmall, planned);
      EXPECT_EQ(drain(*j.node), brute_force(outer, inner, spec, false));
      EXPECT_GT(j.hash->nbatch(), 1u);
    }
}

TEST_F(HashJoinBatches, NoSpillWhenTheTableFits) {
  std::mt19937 rng(4);
  const auto outer = random_rows(rng, 300, 50), inner = random_rows(rng, 250, 50);
  const scans::JoinSpec spec = spec_for(JoinType::kFull, nullptr);
  Join j = join(outer, inner, spec, kBig);
  EXPECT_EQ(drain(*j.node), brute_force(outer, inner, spec, false));
  EXPECT_EQ(j.hash->nbatch(), 1u);
  EXPECT_EQ(space_->files_created(), 0u);
  // One batch: a rescan keeps the table.
  j.node->rescan();
  EXPECT_EQ(drain(*j.node, false), brute_force(outer, inner, spec, false));
  EXPECT_EQ(j.inner->opens, 1);
}

TEST_F(HashJoinBatches, ARescanRebuildsAMultiBatchTable) {
  std::mt19937 rng(6);
  const auto outer = batch_rows(rng, 1000, 200, 40), inner = batch_rows(rng, 1000, 200, 5);
  const scans::JoinSpec spec = spec_for(JoinType::kRight, n_le_filter());
  const auto expected = brute_force(outer, inner, spec, true);
  Join j = join(outer, inner, spec, kSmall);
  EXPECT_EQ(drain(*j.node), expected);
  ASSERT_GT(j.hash->nbatch(), 1u);
  j.node->rescan();
  EXPECT_EQ(drain(*j.node, false), expected);
  EXPECT_EQ(j.inner->opens, 2);  // the inner side read again
  EXPECT_EQ(j.hash->instr.loops, 2u);
  EXPECT_EQ(files(), 0u);
  // A rescan mid-join: the files of the first pass go at once.
  j.node->rescan();
  ASSERT_NE(j.node->next(), nullptr);
  EXPECT_GT(files(), 0u);
  j.node->rescan();
  EXPECT_EQ(files(), 0u);
  EXPECT_EQ(drain(*j.node, false), expected);
  EXPECT_EQ(files(), 0u);
  EXPECT_EQ(j.inner->opens, 4);
}

TEST_F(HashJoinBatches, AnErrorOrCancelThroughTheJoinRemovesItsFiles) {
  std::mt19937 rng(8);
  const auto outer = batch_rows(rng, 1500, 300, 40), inner = batch_rows(rng, 1200, 300, 5);
  const scans::JoinSpec spec = spec_for(JoinType::kLeft, nullptr);
  for (bool cancel : {false, true}) {
    SCOPED_TRACE(cancel ? "cancel" : "error");
    // From the outer side, batch 0 half probed: inner and outer files exist.
    {
      Join j = join(std::make_unique<ThrowingRowsNode>(outer, 9, 80, cancel),
                    std::make_unique<RowsNode>(inner, 7), spec, kSmall);
      j.node->open();
      j.node->row_limit_hint = 16;  // small output batches: some come before the error
      bool spilled = false;
      auto run = [&] {
        while (j.node->next()) spilled = spilled || files() > 0;
      };
      if (cancel)
        EXPECT_THROW(run(), QueryCanceled);
      else
        EXPECT_THROW(run(), Error);
      EXPECT_TRUE(spilled);
      EXPECT_EQ(files(), 0u);  // at once, the node still alive
      // A rescan starts over (the throwing child throws no more).
      j.node->rescan();
      EXPECT_EQ(drain(*j.node, false), brute_force(outer, inner, spec, false));
    }
    EXPECT_EQ(files(), 0u);
    // From the inner side, while the Hash spills.
    {
      Join j = join(std::make_unique<RowsNode>(outer, 9),
                    std::make_unique<ThrowingRowsNode>(inner, 7, 150, cancel), spec, kSmall);
      j.node->open();
      EXPECT_ANY_THROW(j.node->next());
      EXPECT_GT(space_->files_created(), 0u);
      EXPECT_EQ(files(), 0u);
    }
  }
  // Ctrl-C seen by a poll: at once when it is the join's own or its child's, else when
  // the plan goes at the statement's end.
  std::atomic<bool> cancel{false};
  StatementCancelScope scope(cancel);
  {
    auto outer_node = std::make_unique<RowsNode>(outer, 9);
    outer_node->cancel_at_end = &cancel;
    Join j = join(std::move(outer_node), std::make_unique<RowsNode>(inner, 7), spec, kSmall);
    EXPECT_THROW(drain(*j.node), QueryCanceled);
  }
  EXPECT_EQ(files(), 0u);
}

TEST_F(HashJoinBatches, ShutdownRemovesTheFiles) {
  std::mt19937 rng(10);
  const auto outer = batch_rows(rng, 1000, 200, 40), inner = batch_rows(rng, 1000, 200, 5);
  Join j = join(outer, inner, spec_for(JoinType::kInner, nullptr), kSmall);
  j.node->open();
  ASSERT_NE(j.node->next(), nullptr);
  EXPECT_GT(files(), 0u);
  j.node->shutdown();
  EXPECT_EQ(files(), 0u);
  EXPECT_EQ(j.node->next(), nullptr);
}

TEST_F(HashJoinBatches, AFullDiskIsDiskFullAndLeavesNoFile) {
  space_->fail_writes_for_testing(ENOSPC, 20 * 1024);
  std::mt19937 rng(11);
  const auto outer = batch_rows(rng, 1500, 300, 40), inner = batch_rows(rng, 1500, 300, 5);
  Join j = join(outer, inner, spec_for(JoinType::kInner, nullptr), kSmall);
  try {
    drain(*j.node);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), sqlstate::kDiskFull);
  }
  EXPECT_EQ(files(), 0u);
  EXPECT_EQ(space_->bytes_held(), 0u);
}

TEST_F(HashJoinBatches, ExplainLine) {
  std::mt19937 rng(12);
  const auto outer = random_rows(rng, 400, 100), inner = batch_rows(rng, 1200, 300, 5);
  const scans::JoinSpec spec = spec_for(JoinType::kInner, nullptr);
  auto line = [](const scans::HashNode& h) {
    std::vector<std::string> lines;
    h.explain_details(lines, true);
    EXPECT_EQ(lines.size(), 1u);
    return lines.empty() ? "" : lines[0];
  };
  auto kb = [](const scans::HashNode& h) { return std::to_string((h.peak_bytes() + 1023) / 1024); };
  {
    // Nothing changed: the short form.
    Join j = join(outer, inner, spec, kBig, 1, 0);
    Join planned = join(std::make_unique<RowsNode>(outer, 9), std::make_unique<RowsNode>(inner, 7),
                        spec, kBig, 4, 0, true, 2048);
    drain(*j.node);
    drain(*planned.node);
    EXPECT_THAT(line(*j.hash), MatchesRegex("Buckets: 2048 \\(originally 256\\)  Batches: 1 "
                                            "\\(originally 1\\)  Memory Usage: [0-9]+kB"));
    EXPECT_EQ(line(*planned.hash),
              "Buckets: 2048  Batches: 4  Memory Usage: " + kb(*planned.hash) + "kB");
  }
  {
    // Grown: both with their original figures.
    Join j = join(std::make_unique<RowsNode>(outer, 9), std::make_unique<RowsNode>(inner, 7), spec,
                  kSmall, 2, 0, true, 1024);
    drain(*j.node);
    const uint32_t nbatch = j.hash->nbatch();
    ASSERT_GT(nbatch, 2u);
    EXPECT_EQ(line(*j.hash), "Buckets: 1024 (originally 1024)  Batches: " + std::to_string(nbatch) +
                                 " (originally 2)  Memory Usage: " + kb(*j.hash) + "kB");
  }
  {
    // Without a space: one batch, whatever the planner expected.
    Join j = join(std::make_unique<RowsNode>(outer, 9), std::make_unique<RowsNode>(inner, 7), spec,
                  kBig, 2, 0, false, 2048);
    drain(*j.node);
    EXPECT_EQ(line(*j.hash),
              "Buckets: 2048 (originally 2048)  Batches: 1 (originally 2)  Memory "
              "Usage: " +
                  kb(*j.hash) + "kB");
  }
}

}  // namespace
}  // namespace tp
