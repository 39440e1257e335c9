// PostgreSQL 15's costs of joins, Materialize, Memoize and grouping, as pure functions
// (costsize.c: cost_material, cost_rescan, cost_memoize_rescan, initial_ and
// final_cost_nestloop / _mergejoin / _hashjoin, cost_agg, cost_group; nodeHash.c's
// ExecChooseHashTableSize; nodeAgg.c's hash_agg_entry_size and hash_agg_set_limits).
//
// Nothing here looks at a query: every number the planner derives from statistics
// (selectivities, the semi-join factors, a hash key's bucket fraction, the number of
// groups) is an input, named after the PostgreSQL function that computes it, so the
// planner that grows joins (issue 31) can feed them in and print the same
// `cost=S..T` as EXPLAIN. The arithmetic keeps costsize.c's order of floating-point
// operations: EXPLAIN rounds to the cent, and a reordered sum can move it.
//
//   CostSettings cs;                                   // PostgreSQL defaults
//   HashJoinInput in{.outer = {{0, 1541, 100000}, 16}, // Seq Scan on a
//                    .inner = {{0, 289, 20000}, 4},    // Seq Scan on o, hashed
//                    .hash_quals = {0, 0.0025},        // a.y = o.k
//                    .join_quals = {0, 0.0025},
//                    .hashjoin_tuples = 100000,        // approx_tuple_count
//                    .rows = 100000};
//   HashJoinWorkspace ws = initial_cost_hashjoin(cs, in);  // 32768 buckets, 1 batch
//   double bucket = hash_bucket_fraction(20000, ws.virtual_buckets(), 0, 1.0 / 20000);
//   PathCost hj = final_cost_hashjoin(cs, in, ws, {bucket, 0});  // 539.00..3455.00
//
// Disabling a join method (enable_hashjoin = off and the like) is the caller's business,
// as for scans (`disabled_if`); the only disable cost here is the one PostgreSQL adds on
// its own, to a hash join whose most common inner value outgrows hash_mem.
#pragma once

#include <optional>

#include "engine/plan/agg_cost.h"
#include "engine/plan/cost_model.h"

namespace tp {

// One input of a join: its path's estimate (rows per scan for a parameterized inner
// path) and its width in bytes, which sizes hash tables, sorts and spill files.
struct JoinInput {
  PathCost cost{};
  int width = 0;
};

// What a second and later scan of a path costs (cost_rescan). For most paths it is
// the first scan's cost again; a Materialize or Sort replays what it stored, a
// single-batch Hash Join keeps its table, a Memoize answers repeated keys from its
// cache. The nested loop pays it for every outer row but the first.
struct RescanCost {
  double startup = 0;
  double total = 0;
};

// cost_rescan's default: a path that does all of its work again.
inline RescanCost rescan_as_first_scan(const PathCost& p) {
  return {p.startup, p.total};
}

// A join path's type. Only semi and anti joins (and inner-unique joins, a flag beside
// this) change how the inputs are costed; LEFT, RIGHT and FULL matter to a merge join,
// which must read the preserved side whole.
enum class JoinKind { kInner, kLeft, kRight, kFull, kSemi, kAnti };

// IS_OUTER_JOIN: the join types whose own clauses decide matches apart from the WHERE
// clauses done there (a semi join's are all alike, as an inner join's).
inline bool is_outer_join(JoinKind k) {
  return k == JoinKind::kLeft || k == JoinKind::kRight || k == JoinKind::kFull ||
         k == JoinKind::kAnti;
}

// compute_semi_anti_join_factors, for semi and anti joins and for joins whose inner
// side is unique (extra->inner_unique): the executor stops at an outer row's first
// match, so the joins cost only part of the inner scans.
//   outer_match_frac: the fraction of outer rows with a match, the join clauses'
//     selectivity as a semi join. eqjoinsel decides by the SpecialJoinInfo's type, not
//     the one asked for: a semi join (also one whose side was made unique) gets
//     eqjoinsel_semi's, but a plain inner or left join with a unique inner side gets
//     the inner-join selectivity, so few outer rows count as matched.
//   match_count: matches per matched outer row, max(1, inner-join selectivity *
//     inner relation rows / outer_match_frac).
struct SemiAntiFactors {
  double outer_match_frac = 1;
  double match_count = 1;
};

// ---------------------------------------------------------------------------
// Materialize

// cost_material: the input's costs plus two cpu_operator_cost per row of bookkeeping
// (more than a rescan's one, so that of two nested loops the smaller side gets
// materialized), plus seq_page_cost per page written when the rows outgrow work_mem.
// What EXPLAIN prints on a Materialize node.
PathCost cost_material(const CostSettings& cs, const PathCost& input, int width);

// cost_rescan for a Materialize or Sort: only cpu_operator_cost per stored row (they
// neither filter nor project), plus rereading the spilled pages beyond work_mem.
RescanCost cost_rescan_materialized(const CostSettings& cs, double rows, int width);

// ---------------------------------------------------------------------------
// Nested loop

// A semi, anti or inner-unique join: each inner scan may stop at its first match.
bool stops_at_first_match(JoinKind kind, bool inner_unique);

struct NestLoopInput {
  JoinKind kind = JoinKind::kInner;
  bool inner_unique = false;  // analyzejoins.c proved at most one inner match per outer row
  PathCost outer{};
  PathCost inner{};           // one scan; a parameterized path's rows and costs are per loop
  RescanCost inner_rescan{};  // cost_rescan of the inner path
  SemiAntiFactors semi{};     // read for kSemi, kAnti and inner_unique
  // has_indexed_join_quals: the inner path is a parameterized index (or bitmap) scan
  // that applies every join clause, so an unmatched outer row costs an empty index probe
  // rather than a whole inner scan.
  bool indexed_join_quals = false;
  QualCost join_quals{};  // every clause the join checks (its joinrestrictinfo)
  QualCost target{};      // the join's target list, paid per output row (usually none)
  double rows = 0;        // the join relation's output estimate
};

// The first pass (initial_cost_nestloop): the inputs' costs, the inner rescans'
// startups, and for inner and left joins every inner rescan in full. It is a lower
// bound the planner compares with add_path before it costs the quals.
struct NestLoopWorkspace {
  double startup = 0;
  double total = 0;
  double run = 0;
  double inner_run = 0;         // first inner scan's run cost (semi/anti/unique)
  double inner_rescan_run = 0;  // a rescan's run cost (semi/anti/unique)
};
NestLoopWorkspace initial_cost_nestloop(const CostSettings& cs, const NestLoopInput& in);

// The second pass (final_cost_nestloop): for semi, anti and inner-unique joins the
// inner scans that stop at the first match (a fraction 2 / (match_count + 1) of the
// inner rows, fuzzed by two), then cpu_tuple_cost plus the join quals for every pair
// of rows compared.
PathCost final_cost_nestloop(const CostSettings& cs, const NestLoopInput& in,
                             const NestLoopWorkspace& ws);

// Both passes.
PathCost cost_nestloop(const CostSettings& cs, const NestLoopInput& in);

// ---------------------------------------------------------------------------
// Merge join

// mergejoinscansel's fractions for the first merge clause, oriented to the join's
// outer and inner sides: how much of each sorted input is skipped before the first
// possible match (start) and read before either side runs out (end). The planner
// computes them from the two columns' histogram ranges. Whatever they say, a left or
// anti join reads its outer side whole, a right join its inner side, a full join both.
struct MergeScanFractions {
  double outer_start = 0;
  double outer_end = 1;
  double inner_start = 0;
  double inner_end = 1;
};

struct MergeJoinInput {
  JoinKind kind = JoinKind::kInner;
  bool inner_unique = false;
  JoinInput outer{};
  JoinInput inner{};
  bool sort_outer = false;       // an explicit Sort goes under the outer side (cost_sort)
  bool sort_inner = false;       // and under the inner side
  MergeScanFractions scan{};     // as mergejoinscansel gives them (no merge clause: the default)
  QualCost merge_quals{};        // the merge clauses
  QualCost join_quals{};         // every join clause, the merge clauses among them
  bool only_merge_quals = true;  // every join clause is a merge clause
  // approx_tuple_count over the merge clauses: the rows an inner join would produce,
  // whatever the join type. Beyond the inner rows it counts the inner tuples the merge
  // rereads for outer duplicates.
  double mergejoin_tuples = 0;
  bool outer_is_unique_path = false;        // outer made unique (no rereads)
  bool inner_supports_mark_restore = true;  // ExecSupportsMarkRestore of an unsorted inner
  bool enable_material = true;              // the planner's enable_material
  QualCost target{};
  double rows = 0;
};

// initial_cost_mergejoin: the scan fractions rounded to whole rows (and the fractions
// recomputed from them, which makes the costs exact whatever the histogram gave), each
// side's Sort or path charged for the part read before the first match (startup) and
// up to the end (run).
struct MergeJoinWorkspace {
  double startup = 0;
  double total = 0;
  double run = 0;
  double inner_run = 0;
  double outer_rows = 0;
  double inner_rows = 0;
  double outer_skip_rows = 0;
  double inner_skip_rows = 0;
  PathCost outer_sort{};  // the Sorts EXPLAIN shows under the join, when asked for
  PathCost inner_sort{};
};
MergeJoinWorkspace initial_cost_mergejoin(const CostSettings& cs, const MergeJoinInput& in);

// final_cost_mergejoin, which also decides two things the plan shows: whether the
// executor may skip mark/restore (semi, anti or inner-unique with only merge clauses)
// and whether a Materialize goes over the inner side (cheaper than rereading it; an
// unsorted inner that cannot mark and restore; an inner Sort that would spill).
struct MergeJoinCost {
  PathCost path{};
  bool skip_mark_restore = false;
  bool materialize_inner = false;
  double rescanned_tuples = 0;
  double rescan_ratio = 1;
};
MergeJoinCost final_cost_mergejoin(const CostSettings& cs, const MergeJoinInput& in,
                                   const MergeJoinWorkspace& ws);

// The Materialize create_mergejoin_plan puts over the inner plan: its costs plus
// cpu_operator_cost per row (it is assumed never to spill).
PathCost mergejoin_inner_material(const CostSettings& cs, const PathCost& inner_plan);

// ---------------------------------------------------------------------------
// Hash join

// get_hash_memory_limit: work_mem * hash_mem_multiplier, in whole bytes.
double hash_memory_limit(const CostSettings& cs);

// ExecChooseHashTableSize without parallel hash: a bucket per inner row (a power of
// two, at least 1,024) when the rows and the bucket array fit in hash_mem (less the
// 2% kept for the skew table of the most common values); otherwise as many buckets
// as hash_mem holds full, and enough batches (a power of two) for the rest. What
// EXPLAIN ANALYZE prints as `Buckets: N  Batches: N` when the estimate holds.
struct HashTableSize {
  int buckets = 0;
  int batches = 0;
  int skew_mcvs = 0;         // most common values the skew table can hold
  double space_allowed = 0;  // bytes the table may use (hash_mem)
};
HashTableSize choose_hash_table_size(const CostSettings& cs, double inner_rows, int width,
                                     bool use_skew = true);

struct HashJoinInput {
  JoinKind kind = JoinKind::kInner;
  bool inner_unique = false;
  JoinInput outer{};
  JoinInput inner{};  // the side the Hash node reads
  int hash_clauses = 1;
  QualCost hash_quals{};   // the hash clauses
  QualCost join_quals{};   // every join clause, the hash clauses among them
  SemiAntiFactors semi{};  // read for kSemi, kAnti and inner_unique
  // approx_tuple_count over the hash clauses (inner and left joins): the rows that
  // pass them and pay cpu_tuple_cost.
  double hashjoin_tuples = 0;
  QualCost target{};
  double rows = 0;
};

// estimate_hash_bucket_stats for the hash clauses (the smallest over them), computed
// by the planner once the workspace gives the virtual buckets (buckets * batches):
// the fraction of the inner rows in the bucket an outer row probes, and the most
// common inner value's frequency. An inner side made unique has 1 / virtual buckets
// and no MCV.
struct HashBucketStats {
  double bucket_size = 1;
  double mcv_freq = 0;
};

// The tail of estimate_hash_bucket_stats, for a key with statistics: 1 / buckets when
// the key has more distinct values (`ndistinct`, already scaled by the relation's
// restriction selectivity and clamped) than buckets, else 1 / ndistinct, raised by
// mcv_freq / avgfreq for a skewed key (avgfreq = (1 - nullfrac) / raw ndistinct),
// kept within [1e-6, 1].
double hash_bucket_fraction(double ndistinct, double virtual_buckets, double mcv_freq,
                            double avgfreq);

// initial_cost_hashjoin: the outer input, the whole inner input and a hash and an
// insert per inner row before the first row comes out; a hash per outer row; when the
// table needs batches, writing the inner side at startup and then reading it and
// writing and reading the outer side, seq_page_cost per page.
struct HashJoinWorkspace {
  double startup = 0;
  double total = 0;
  double run = 0;
  HashTableSize table{};
  double virtual_buckets() const { return double(table.buckets) * double(table.batches); }
};
HashJoinWorkspace initial_cost_hashjoin(const CostSettings& cs, const HashJoinInput& in);

// final_cost_hashjoin: each outer row compares half of its bucket (semi, anti and
// inner-unique joins: half of the part before the first match for matched rows, a
// twentieth of an average bucket for unmatched ones), then cpu_tuple_cost plus the
// other quals for every row that passes the hash clauses. The disable cost when the
// most common inner value alone outgrows hash_mem (batching cannot split it).
PathCost final_cost_hashjoin(const CostSettings& cs, const HashJoinInput& in,
                             const HashJoinWorkspace& ws, const HashBucketStats& bucket);

// ---------------------------------------------------------------------------
// Memoize

struct MemoizeInput {
  PathCost subpath{};  // the parameterized inner path it caches (per call)
  int width = 0;       // that path's width
  double calls = 0;    // expected lookups: clamp_row_est(outer rows)
  // estimate_num_groups of the cache keys over `calls` rows; `calls` itself when
  // that estimate fell back on a default (the planner then gives up on caching).
  double ndistinct = 0;
};

struct MemoizeCost {
  PathCost path{};           // what EXPLAIN prints: the subpath's plus cpu_tuple_cost
  RescanCost rescan{};       // cost_memoize_rescan: what the nested loop pays per outer row
  double entry_bytes = 0;    // one cache entry: its tuples and their bookkeeping
  double cache_entries = 0;  // entries hash_mem holds at once
  double est_entries = 0;    // the path's est_entries: the executor's table size
  double hit_ratio = 0;
  double evict_ratio = 0;
};

// cost_memoize_rescan plus create_memoize_path's own estimate. PostgreSQL 15's hit
// ratio is the share of the keys the cache holds less the share of calls that are
// first sightings (ndistinct / calls), never below 0; a hit costs only cpu_tuple_cost,
// a miss the subpath's whole cost, every call pays for storing an entry, and evictions
// cost a little per entry and per tuple. (Later releases count the cache key's width in
// an entry and take the hit ratio as ((calls - ndistinct) / calls) times the share
// held; 15's EXPLAIN shows it does neither.)
MemoizeCost cost_memoize(const CostSettings& cs, const MemoizeInput& in);

// ---------------------------------------------------------------------------
// Grouping (GROUP BY; a plain aggregate without groups is agg_cost.h's cost_plain_agg)

// kPlain: no grouping keys, one group (HAVING without GROUP BY; the planner's plain
// Aggregate is agg_cost.h's).
enum class AggStrategy { kSorted, kHashed, kPlain };

// The aggregates' parts the hash table's entry size needs beside their costs
// (get_agg_clause_costs' transitionSpace and root->aggtransinfos).
struct AggStates {
  int transitions = 0;          // transition states (shared states count once)
  double transition_space = 0;  // bytes per group of by-reference transition values,
                                // MAXALIGNed (avg(int4)'s int8[] counts 32)
};

// HAVING's quals: their cost, once per group, and clauselist_selectivity, which scales
// the groups out (then clamp_row_est).
struct HavingQual {
  QualCost cost{};
  double selectivity = 1;
};

struct GroupAggInput {
  AggStrategy strategy = AggStrategy::kHashed;
  AggClauseCosts aggs{};  // agg_clause_costs (zero for grouping alone)
  AggStates states{};
  int group_columns = 1;
  double groups = 1;  // estimate_num_groups over the input rows
  PathCost input{};   // sorted on the group keys for kSorted
  int input_width = 0;
  std::optional<HavingQual> having{};
};

// hash_agg_entry_size: a TupleHashEntryData (24 bytes), then the group's first tuple (a
// MinimalTuple header of 16 plus the width), its per-group states (16 bytes each) and
// its by-reference transition values, each present part in a memory chunk of its own
// with PostgreSQL 15's 16-byte chunk header.
double hash_agg_entry_size(int transitions, double tuple_width, double transition_space);

// hash_agg_set_limits (with no hash bits used yet): all of hash_mem when the groups
// fit; else a power-of-two number of partitions (1.5 times the groups' memory over
// hash_mem, at least 4, at most 1,024 and what a quarter of hash_mem can buffer), and
// hash_mem less their buffers (at least three quarters of it) for the groups.
struct HashAggLimits {
  double mem_limit = 0;      // bytes for groups
  double ngroups_limit = 0;  // groups that fit
  // Partitions of the first spill (0: not expected to spill). EXPLAIN's `Planned
  // Partitions` is the executor's own call, which in 15 sizes entries without the
  // per-group states and so can print none where the planner costs a spill.
  int partitions = 0;
};
HashAggLimits hash_agg_set_limits(const CostSettings& cs, double entry_size, double groups);

// EXPLAIN's `Planned Partitions` of a HashAggregate: the executor's own call at its start,
// whose entries count no per-group states (ExecInitAgg sizes them before it has counted
// the transitions), over the planner's groups.
int executor_planned_partitions(const CostSettings& cs, double input_width, double transition_space,
                                double groups);

// The spill estimate of a HashAggregate that outgrows hash_mem: the batches the groups
// need, the recursion depth with the partitions the first pass picks (at least 2), and
// the input written and read back at every level at twice the page costs (hash
// aggregation's I/O is worse than a sort's), plus cpu_tuple_cost twice per tuple.
struct HashAggSpill {
  double entry_size = 0;
  HashAggLimits limits{};
  double batches = 1;
  int depth = 0;  // 0: fits in memory
  double pages_written = 0;
  double pages_read = 0;
};

struct GroupAggCost {
  PathCost path{};
  HashAggSpill spill{};  // kHashed only
};

// cost_agg for AGG_SORTED (a GroupAggregate: rows out as groups end, so its startup is
// its input's) and AGG_HASHED (a HashAggregate: everything read before the first
// group). Both charge the transitions per input row, a comparison or hash per group
// column per input row, the final functions and cpu_tuple_cost per group, in the same
// order so that over a sorted input the two totals tie exactly.
GroupAggCost cost_agg(const CostSettings& cs, const GroupAggInput& in);

// cost_group: a Group node (GROUP BY without aggregates over sorted input): one
// comparison per group column per input row, nothing per group.
PathCost cost_group(const CostSettings& cs, const PathCost& input, int group_columns, double groups,
                    const std::optional<HavingQual>& having = std::nullopt);

}  // namespace tp
