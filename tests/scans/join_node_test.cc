// The join nodes (Nested Loop, Materialize, Hash / Hash Join, Merge Join) over rows given
// here: every join type's rows against a brute-force nested loop over random rows with
// duplicate and NULL keys (int4 keys, text and numeric payloads, a numeric Join Filter);
// rescans (Materialize replays without its child, a Nested Loop rescans its inner side
// once per outer row, a Hash Join keeps its table unless its parameters changed);
// EXPLAIN names and lines; the memory limits; cancels inside a join's inner loops.
#include <gmock/gmock.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/core/numeric.h"
#include "scans/hash_join.h"
#include "scans/materialize.h"
#include "scans/merge_join.h"
#include "scans/nest_loop.h"
#include "scans/sort_limit_agg.h"
#include "tests/scans/join_test_rows.h"

namespace tp {
namespace {

using scans::JoinType;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

using namespace join_test;  // NOLINT(google-build-using-namespace): the shared helpers

TEST(JoinNodes, NestLoopMatchesBruteForce) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed);
    const auto outer = random_rows(rng, 120, 15), inner = random_rows(rng, 90, 15);
    for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kSemi, JoinType::kAnti}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " type " + std::to_string(int(type)));
      const scans::JoinSpec spec = spec_for(type, key_and_n_filter());
      const auto expected = brute_force(outer, inner, spec, true);
      // Over a Materialize of the inner rows.
      scans::NestLoopNode nl(
          std::make_unique<RowsNode>(outer, 7),
          std::make_unique<scans::MaterializeNode>(std::make_unique<RowsNode>(inner, 5), kBig),
          spec);
      EXPECT_EQ(drain(nl), expected);
      // Parameterized: the inner side returns only the rows whose key is the outer row's.
      scans::ExecParams params({TypeId::kInt4});
      scans::NestLoopNode pnl(std::make_unique<RowsNode>(outer, 7),
                              std::make_unique<ParamRowsNode>(inner, 4, params),
                              spec_for(type, n_le_filter()), &params, {0});
      EXPECT_EQ(drain(pnl), expected);
    }
  }
}

TEST(JoinNodes, HashJoinMatchesBruteForce) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed * 7);
    const auto outer = random_rows(rng, 300, 40), inner = random_rows(rng, 250, 40);
    for (JoinType type : kAllTypes)
      for (bool filtered : {false, true}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " type " + std::to_string(int(type)) +
                     (filtered ? " filtered" : ""));
        const scans::JoinSpec spec = spec_for(type, filtered ? n_le_filter() : nullptr);
        auto hash = std::make_unique<scans::HashNode>(std::make_unique<RowsNode>(inner, 6),
                                                      std::vector<uint32_t>{0}, 1024, 1, kBig);
        scans::HashJoinNode hj(std::make_unique<RowsNode>(outer, 9), std::move(hash), spec, {0},
                               "(o.key = i.key)");
        EXPECT_EQ(drain(hj), brute_force(outer, inner, spec, filtered));
      }
  }
}

TEST(JoinNodes, MergeJoinMatchesBruteForceInBothOrders) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(seed * 13);
    const auto outer = random_rows(rng, 300, 40), inner = random_rows(rng, 250, 40);
    for (bool desc : {false, true})
      for (JoinType type : kAllTypes)
        for (bool filtered : {false, true}) {
          SCOPED_TRACE("seed " + std::to_string(seed) + " type " + std::to_string(int(type)) +
                       (filtered ? " filtered" : "") + (desc ? " desc" : ""));
          const scans::JoinSpec spec = spec_for(type, filtered ? n_le_filter() : nullptr);
          // Sorted inputs as a planner gives them: ASC NULLS LAST or DESC NULLS FIRST.
          auto sorted = [&](const std::vector<TRow>& rows, uint32_t batch) {
            return std::make_unique<scans::SortNode>(std::make_unique<RowsNode>(rows, batch),
                                                     std::vector<scans::SortKey>{{0, desc, desc}},
                                                     "key", 0, kBig);
          };
          scans::MergeJoinNode mj(sorted(outer, 11), sorted(inner, 3), spec, {{0, 0, desc, desc}},
                                  "(o.key = i.key)", kBig);
          EXPECT_EQ(drain(mj), brute_force(outer, inner, spec, filtered));
        }
  }
}

// Numeric and text keys: equal by value (1 = 1.0 = 1.00 in numeric), hashed alike, NULLs
// never equal; a full join on each, by hash and by merge, against pairs counted here.
TEST(JoinNodes, HashAndMergeJoinOnNumericAndTextKeys) {
  const std::vector<std::optional<std::string>> nums = {"1",    "1.0", "1.00",      "2.5",
                                                        "2.50", "-3",  std::nullopt};
  const std::vector<std::optional<std::string>> texts = {"a", "ab", "ab ", "b", std::nullopt};
  std::mt19937 rng(21);
  auto make = [&](size_t n) {
    std::vector<TRow> rows;
    for (size_t i = 0; i < n; ++i)
      rows.push_back({int32_t(i), texts[rng() % texts.size()], nums[rng() % nums.size()]});
    return rows;
  };
  const auto outer = make(120), inner = make(100);
  for (uint32_t key : {1u, 2u}) {
    const TypeId t = kTypes[key];
    auto value = [&](const TRow& r) -> std::optional<std::string> {
      const auto& v = key == 1 ? r.t : r.n;
      if (!v) return std::nullopt;
      return key == 1 ? make_varlena(*v) : numeric_in(*v, kNoTypmod);
    };
    // Pairs with equal keys, outer rows without one, inner rows without one.
    size_t pairs = 0, lone_outer = 0, lone_inner = 0;
    std::vector<bool> inner_hit(inner.size());
    for (const TRow& o : outer) {
      bool hit = false;
      for (size_t j = 0; j < inner.size(); ++j) {
        const auto a = value(o), b = value(inner[j]);
        if (!a || !b || compare_datums(t, pointer_datum(a->data()), pointer_datum(b->data())) != 0)
          continue;
        ++pairs;
        hit = true;
        inner_hit[j] = true;
      }
      lone_outer += !hit;
    }
    for (bool h : inner_hit) lone_inner += !h;
    ASSERT_GT(pairs, 0u);
    scans::JoinSpec spec = spec_for(JoinType::kFull, nullptr);
    spec.output = {0, 3};  // the two ids: NULL on the side without a match
    auto count = [&](const std::vector<Out>& rows) {
      size_t both = 0, only_outer = 0, only_inner = 0;
      for (const Out& r : rows) {
        both += r[0] != "NULL" && r[1] != "NULL";
        only_outer += r[1] == "NULL";
        only_inner += r[0] == "NULL";
      }
      EXPECT_EQ(both, pairs);
      EXPECT_EQ(only_outer, lone_outer);
      EXPECT_EQ(only_inner, lone_inner);
    };
    SCOPED_TRACE(key == 1 ? "text key" : "numeric key");
    auto hash = std::make_unique<scans::HashNode>(std::make_unique<RowsNode>(inner, 7),
                                                  std::vector<uint32_t>{key}, 64, 1, kBig);
    scans::HashJoinNode hj(std::make_unique<RowsNode>(outer, 9), std::move(hash), spec, {key}, "");
    count(drain(hj));
    auto sorted = [&](const std::vector<TRow>& rows) {
      return std::make_unique<scans::SortNode>(std::make_unique<RowsNode>(rows, 5),
                                               std::vector<scans::SortKey>{{key, false, false}},
                                               "k", 0, kBig);
    };
    scans::MergeJoinNode mj(sorted(outer), sorted(inner), spec, {{key, key}}, "", kBig);
    count(drain(mj));
  }
}

TEST(JoinNodes, MergeJoinStopsReadingTheOuterSideOnceTheInnerEnds) {
  std::vector<TRow> outer, inner;
  for (int32_t k = 0; k < 100; ++k) outer.push_back({k, "o", "1"});
  for (int32_t k = 0; k < 10; ++k) inner.push_back({k, "i", "1"});
  for (JoinType type : {JoinType::kInner, JoinType::kLeft}) {
    auto outer_node = std::make_unique<RowsNode>(outer, 4);
    const RowsNode* o = outer_node.get();
    const scans::JoinSpec spec = spec_for(type, nullptr);
    scans::MergeJoinNode mj(std::move(outer_node), std::make_unique<RowsNode>(inner, 4), spec,
                            {{0, 0}}, "", kBig);
    EXPECT_EQ(drain(mj), brute_force(outer, inner, spec, false));
    // An inner join needs the outer rows up to key 10 only (3 batches of 4); a left join all.
    EXPECT_EQ(o->instr.rows, type == JoinType::kInner ? 12u : 100u);
  }
}

TEST(JoinNodes, MaterializeReplaysWithoutRescanningItsChild) {
  std::mt19937 rng(5);
  const auto outer = random_rows(rng, 50, 10), inner = random_rows(rng, 40, 10);
  auto rows = std::make_unique<RowsNode>(inner, 3);
  RowsNode* inner_rows = rows.get();
  auto mat = std::make_unique<scans::MaterializeNode>(std::move(rows), kBig);
  const scans::MaterializeNode* m = mat.get();
  const scans::JoinSpec spec = spec_for(JoinType::kInner, key_and_n_filter());
  scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 7), std::move(mat), spec);
  EXPECT_EQ(drain(nl), brute_force(outer, inner, spec, true));
  EXPECT_EQ(inner_rows->opens, 1);
  EXPECT_EQ(inner_rows->rescans, 0);
  EXPECT_EQ(inner_rows->instr.loops, 1u);
  EXPECT_EQ(m->instr.loops, 50u);  // once per outer row
  EXPECT_EQ(m->instr.rows, 50u * 40u);
}

TEST(JoinNodes, NestLoopRescansItsInnerSideOncePerOuterRow) {
  std::mt19937 rng(6);
  const auto outer = random_rows(rng, 60, 10), inner = random_rows(rng, 30, 10);
  auto rows = std::make_unique<RowsNode>(inner, 4);
  RowsNode* inner_rows = rows.get();
  const scans::JoinSpec spec = spec_for(JoinType::kLeft, key_and_n_filter());
  scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 7), std::move(rows), spec);
  EXPECT_EQ(drain(nl), brute_force(outer, inner, spec, true));
  EXPECT_EQ(inner_rows->opens, 60);
  EXPECT_EQ(inner_rows->rescans, 59);  // the first outer row opens it
  EXPECT_EQ(inner_rows->instr.loops, 60u);
  // A rescan of the Nested Loop itself rescans its outer side and goes on rescanning the inner.
  nl.rescan();
  EXPECT_EQ(drain(nl, false), brute_force(outer, inner, spec, true));
  EXPECT_EQ(inner_rows->instr.loops, 120u);
  EXPECT_EQ(nl.instr.loops, 2u);
}

TEST(JoinNodes, MaterializeRereadsItsChildWhenItsParametersChanged) {
  std::mt19937 rng(8);
  const auto outer = random_rows(rng, 40, 8), inner = random_rows(rng, 60, 8);
  scans::ExecParams params({TypeId::kInt4});
  auto rows = std::make_unique<ParamRowsNode>(inner, 4, params);
  RowsNode* inner_rows = rows.get();
  const scans::JoinSpec spec = spec_for(JoinType::kInner, n_le_filter());
  scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 7),
                         std::make_unique<scans::MaterializeNode>(std::move(rows), kBig, &params),
                         spec, &params, {0});
  EXPECT_EQ(drain(nl), brute_force(outer, inner, spec, true));
  EXPECT_EQ(inner_rows->opens, 40);  // each outer row set $0: the stored rows were stale
}

TEST(JoinNodes, HashJoinKeepsItsTableOnRescanUnlessItsParametersChanged) {
  std::mt19937 rng(9);
  const auto outer = random_rows(rng, 80, 12), inner = random_rows(rng, 70, 12);
  // The outer side is parameterized by $0 of its own parameters, the Hash's child by
  // `params`: a new outer key leaves the table as it is.
  scans::ExecParams outer_params({TypeId::kInt4});
  scans::ExecParams params({TypeId::kInt4});
  auto inner_node = std::make_unique<RowsNode>(inner, 5);
  RowsNode* inner_rows = inner_node.get();
  auto outer_node = std::make_unique<ParamRowsNode>(outer, 5, outer_params);
  RowsNode* outer_rows = outer_node.get();
  auto hash = std::make_unique<scans::HashNode>(std::move(inner_node), std::vector<uint32_t>{0},
                                                128, 1, kBig, &params);
  const scans::HashNode* h = hash.get();
  const scans::JoinSpec spec = spec_for(JoinType::kFull, n_le_filter());
  scans::HashJoinNode hj(std::move(outer_node), std::move(hash), spec, {0}, "(o.key = i.key)");
  auto outer_with_key = [&](int32_t k) {
    std::vector<TRow> out;
    for (const TRow& r : outer)
      if (r.key == k) out.push_back(r);
    return out;
  };
  outer_params.set(0, 3, false);
  EXPECT_EQ(drain(hj), brute_force(outer_with_key(3), inner, spec, true));
  // Other outer rows against the same table: the full join's match flags were cleared
  // (the inner rows key 3 matched before are unmatched now).
  outer_params.set(0, 5, false);
  hj.rescan();
  EXPECT_EQ(drain(hj, false), brute_force(outer_with_key(5), inner, spec, true));
  EXPECT_EQ(inner_rows->opens, 1);
  EXPECT_EQ(h->instr.loops, 1u);
  EXPECT_EQ(outer_rows->instr.loops, 2u);
  // A changed parameter of the Hash's subtree: the table is built again.
  params.set(0, 1, false);
  hj.rescan();
  EXPECT_EQ(drain(hj, false), brute_force(outer_with_key(5), inner, spec, true));
  EXPECT_EQ(inner_rows->rescans, 1);
  EXPECT_EQ(h->instr.loops, 2u);
}

TEST(JoinNodes, HashJoinDoesNotBuildItsTableForAnEmptyOuterSide) {
  std::mt19937 rng(10);
  auto inner_node = std::make_unique<RowsNode>(random_rows(rng, 20, 5), 5);
  RowsNode* inner_rows = inner_node.get();
  auto hash = std::make_unique<scans::HashNode>(std::move(inner_node), std::vector<uint32_t>{0}, 64,
                                                1, kBig);
  const scans::HashNode* h = hash.get();
  scans::HashJoinNode hj(std::make_unique<RowsNode>(std::vector<TRow>{}, 5), std::move(hash),
                         spec_for(JoinType::kLeft, nullptr), {0}, "(o.key = i.key)");
  EXPECT_TRUE(drain(hj).empty());
  EXPECT_EQ(inner_rows->opens, 0);
  EXPECT_EQ(h->instr.loops, 0u);  // EXPLAIN: (never executed)
}

TEST(JoinNodes, ExplainNamesAndLines) {
  auto rows = [] { return std::make_unique<RowsNode>(std::vector<TRow>{}, 4); };
  const std::pair<JoinType, const char*> nl_names[] = {{JoinType::kInner, "Nested Loop"},
                                                       {JoinType::kLeft, "Nested Loop Left Join"},
                                                       {JoinType::kSemi, "Nested Loop Semi Join"},
                                                       {JoinType::kAnti, "Nested Loop Anti Join"}};
  for (auto [type, name] : nl_names)
    EXPECT_EQ(scans::NestLoopNode(rows(), rows(), spec_for(type, nullptr)).explain_name(), name);
  const char* hash_names[] = {"Hash Join",      "Hash Left Join", "Hash Right Join",
                              "Hash Full Join", "Hash Semi Join", "Hash Anti Join"};
  const char* merge_names[] = {"Merge Join",      "Merge Left Join", "Merge Right Join",
                               "Merge Full Join", "Merge Semi Join", "Merge Anti Join"};
  for (int t = 0; t < 6; ++t) {
    auto hash = std::make_unique<scans::HashNode>(rows(), std::vector<uint32_t>{0}, 16, 1, kBig);
    EXPECT_EQ(hash->explain_name(), "Hash");
    scans::HashJoinNode hj(rows(), std::move(hash), spec_for(kAllTypes[t], nullptr), {0},
                           "(a = b)");
    EXPECT_EQ(hj.explain_name(), hash_names[t]);
    ASSERT_EQ(hj.children().size(), 2u);
    EXPECT_EQ(hj.children()[1]->explain_name(), "Hash");  // outer first, as PostgreSQL
    scans::MergeJoinNode mj(rows(), rows(), spec_for(kAllTypes[t], nullptr), {{0, 0}}, "(a = b)",
                            kBig);
    EXPECT_EQ(mj.explain_name(), merge_names[t]);
    std::vector<std::string> lines;
    mj.explain_details(lines, false);
    EXPECT_EQ(lines, std::vector<std::string>{"Merge Cond: (a = b)"});
  }
  EXPECT_EQ(scans::MaterializeNode(rows(), kBig).explain_name(), "Materialize");

  // Join Filter and its Rows Removed line (the per-loop average; none when zero).
  std::mt19937 rng(11);
  const auto outer = random_rows(rng, 40, 6), inner = random_rows(rng, 30, 6);
  const scans::JoinSpec spec = spec_for(JoinType::kInner, key_and_n_filter());
  scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 7), std::make_unique<RowsNode>(inner, 7),
                         spec);
  const size_t matched = brute_force(outer, inner, spec, true).size();
  EXPECT_EQ(drain(nl).size(), matched);
  std::vector<std::string> lines;
  nl.explain_details(lines, true);
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "Join Filter: (o.n <= i.n)",
                       "Rows Removed by Join Filter: " + std::to_string(40 * 30 - matched)}));
  lines.clear();
  nl.explain_details(lines, false);
  EXPECT_EQ(lines, std::vector<std::string>{"Join Filter: (o.n <= i.n)"});
  // Two loops: the average, rounded.
  nl.rescan();
  drain(nl, false);
  lines.clear();
  nl.explain_details(lines, true);
  EXPECT_EQ(lines[1], "Rows Removed by Join Filter: " + std::to_string(40 * 30 - matched));

  // A Hash Join whose filter removes nothing prints no Rows Removed line.
  std::vector<TRow> one = {{1, "a", "1"}};
  auto hash = std::make_unique<scans::HashNode>(std::make_unique<RowsNode>(one, 4),
                                                std::vector<uint32_t>{0}, 16, 1, kBig);
  scans::HashJoinNode hj(std::make_unique<RowsNode>(one, 4), std::move(hash),
                         spec_for(JoinType::kInner, n_le_filter()), {0}, "(o.key = i.key)");
  EXPECT_EQ(drain(hj).size(), 1u);
  lines.clear();
  hj.explain_details(lines, true);
  EXPECT_EQ(lines,
            (std::vector<std::string>{"Hash Cond: (o.key = i.key)", "Join Filter: (o.n <= i.n)"}));
}

TEST(JoinNodes, HashLineShowsBucketsBatchesAndMemory) {
  std::mt19937 rng(12);
  const auto inner = random_rows(rng, 250, 1000);
  size_t keyed = 0;
  for (const TRow& r : inner) keyed += r.key.has_value();
  auto make = [&](uint32_t buckets) {
    auto hash = std::make_unique<scans::HashNode>(std::make_unique<RowsNode>(inner, 8),
                                                  std::vector<uint32_t>{0}, buckets, 1, kBig);
    return hash;
  };
  {
    auto hash = make(1024);
    const scans::HashNode* h = hash.get();
    std::vector<std::string> lines;
    h->explain_details(lines, true);
    EXPECT_TRUE(lines.empty());  // not built: nothing to show
    scans::HashJoinNode hj(std::make_unique<RowsNode>(inner, 8), std::move(hash),
                           spec_for(JoinType::kInner, nullptr), {0}, "(a = b)");
    drain(hj);
    h->explain_details(lines, true);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_THAT(lines[0], MatchesRegex("Buckets: 1024  Batches: 1  Memory Usage: [0-9]+kB"));
    EXPECT_EQ(h->instr.rows, keyed);  // NULL keys are not hashed in an inner join
    lines.clear();
    h->explain_details(lines, false);
    EXPECT_TRUE(lines.empty());
  }
  {
    // More rows than planned buckets: doubled to one per row, as PostgreSQL's single batch.
    auto hash = make(16);
    const scans::HashNode* h = hash.get();
    scans::HashJoinNode hj(std::make_unique<RowsNode>(inner, 8), std::move(hash),
                           spec_for(JoinType::kInner, nullptr), {0}, "(a = b)");
    drain(hj);
    std::vector<std::string> lines;
    h->explain_details(lines, true);
    uint32_t expect = 16;
    while (expect < keyed) expect *= 2;
    EXPECT_THAT(lines[0],
                MatchesRegex(
                    "Buckets: " + std::to_string(expect) +
                    " \\(originally 16\\)  Batches: 1 \\(originally 1\\)  Memory Usage: [0-9]+kB"));
  }
}

TEST(JoinNodes, MemoryLimitsAreErrorsNamingThem) {
  std::mt19937 rng(13);
  const auto rows = random_rows(rng, 400, 3);
  auto hash = std::make_unique<scans::HashNode>(std::make_unique<RowsNode>(rows, 8),
                                                std::vector<uint32_t>{0}, 1024, 1, 8 * 1024);
  scans::HashJoinNode hj(std::make_unique<RowsNode>(rows, 8), std::move(hash),
                         spec_for(JoinType::kInner, nullptr), {0}, "(a = b)");
  try {
    drain(hj);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("multi-batch hash joins"));
    EXPECT_THAT(e.what(), HasSubstr("8 kB"));
  }
  scans::MaterializeNode mat(std::make_unique<RowsNode>(rows, 8), 4 * 1024);
  try {
    drain(mat);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("Materialize"));
    EXPECT_THAT(e.what(), HasSubstr("4 kB"));
    EXPECT_THAT(e.what(), HasSubstr("temporary file"));
  }
  // A Merge Join's group of equal inner keys.
  std::vector<TRow> same(500, TRow{7, "x", "1"});
  scans::MergeJoinNode mj(std::make_unique<RowsNode>(same, 8), std::make_unique<RowsNode>(same, 8),
                          spec_for(JoinType::kInner, nullptr), {{0, 0}}, "(a = b)", 4 * 1024);
  EXPECT_THROW(drain(mj), Error);
  // Under the limits the same nodes run.
  scans::MaterializeNode big(std::make_unique<RowsNode>(rows, 8), kBig);
  EXPECT_EQ(drain(big).size(), rows.size());
}

TEST(JoinNodes, ReplayedAndHashedTextOutlivesTheChildsBatches) {
  // Long texts over many small child batches: the child's arena is reused for each, so a
  // stored row that pointed into it would read another row's bytes.
  std::vector<TRow> rows;
  for (int i = 0; i < 200; ++i)
    rows.push_back(
        {i % 20, "row " + std::to_string(i) + std::string(size_t(i % 50), 'z'), std::to_string(i)});
  scans::MaterializeNode mat(std::make_unique<RowsNode>(rows, 3), kBig);
  const auto first = drain(mat);
  mat.rescan();
  EXPECT_EQ(drain(mat, false), first);
  const scans::JoinSpec spec = spec_for(JoinType::kInner, nullptr);
  auto hash = std::make_unique<scans::HashNode>(std::make_unique<RowsNode>(rows, 3),
                                                std::vector<uint32_t>{0}, 64, 1, kBig);
  scans::HashJoinNode hj(std::make_unique<RowsNode>(rows, 3), std::move(hash), spec, {0}, "");
  EXPECT_EQ(drain(hj), brute_force(rows, rows, spec, false));
}

TEST(JoinNodes, ACancelStopsAJoinInsideItsInnerLoop) {
  // Every pair has equal keys and the filter rejects all: without a check inside the
  // loop the join would test all 1,000 x 1,000 pairs before its next child batch.
  std::vector<TRow> same(1000, TRow{7, "x", "1"});
  auto reject =
      std::make_shared<TypedExpr>(call(always_false, col(0, TypeId::kInt4), col(3, TypeId::kInt4)));
  std::atomic<bool> cancel{false};
  StatementCancelScope scope(cancel);
  {
    auto outer = std::make_unique<RowsNode>(same, 1000);
    outer->cancel_at_end = &cancel;  // set as the only outer batch comes back
    auto hash = std::make_unique<scans::HashNode>(std::make_unique<RowsNode>(same, 1000),
                                                  std::vector<uint32_t>{0}, 1024, 1, kBig);
    scans::HashJoinNode hj(std::move(outer), std::move(hash), spec_for(JoinType::kInner, reject),
                           {0}, "");
    g_filter_calls = 0;
    hj.open();
    EXPECT_THROW(hj.next(), QueryCanceled);
    EXPECT_LT(g_filter_calls, 10000);
  }
  cancel = false;
  {
    // A last row with another key ends the group inside the batch, so the Merge Join
    // reads no further inner batch (whose poll would stop it too).
    std::vector<TRow> inner_rows = same;
    inner_rows.push_back(TRow{8, "y", "1"});
    auto inner = std::make_unique<RowsNode>(inner_rows, 1001);
    inner->cancel_at_end = &cancel;
    scans::MergeJoinNode mj(std::make_unique<RowsNode>(same, 1000), std::move(inner),
                            spec_for(JoinType::kInner, reject), {{0, 0}}, "", kBig);
    g_filter_calls = 0;
    mj.open();
    EXPECT_THROW(mj.next(), QueryCanceled);
    EXPECT_LT(g_filter_calls, 10000);
  }
  cancel = false;
  {
    // A Nested Loop reads an inner batch per outer row, each polling for the cancel.
    auto outer = std::make_unique<RowsNode>(same, 1000);
    outer->cancel_at_end = &cancel;
    scans::NestLoopNode nl(std::move(outer), std::make_unique<RowsNode>(same, 1000),
                           spec_for(JoinType::kInner, reject));
    g_filter_calls = 0;
    nl.open();
    EXPECT_THROW(nl.next(), QueryCanceled);
    EXPECT_LT(g_filter_calls, 10000);
  }
}

}  // namespace
}  // namespace tp
