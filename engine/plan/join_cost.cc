// Joins, Materialize and Memoize as PostgreSQL 15 costs them (costsize.c, nodeHash.c,
// nodeMemoize.c). Every sum is written in costsize.c's order: EXPLAIN rounds to the
// cent and a reordered sum can move it.
#include "engine/plan/join_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tp {
namespace {

constexpr double kBlockBytes = 8192;
constexpr double kHeapTupleHeaderAligned = 24;  // MAXALIGN(SizeofHeapTupleHeader)
// ExecChooseHashTableSize's tuple: a HashJoinTupleData (next pointer and hash value,
// HJTUPLE_OVERHEAD) and a MinimalTuple header, both MAXALIGNed, then the data.
constexpr int64_t kHashTupleOverhead = 16 + 16;
constexpr int64_t kPointerBytes = 8;         // sizeof(HashJoinTuple), sizeof(HashSkewBucket *)
constexpr int64_t kSkewBucketOverhead = 16;  // MAXALIGN(sizeof(HashSkewBucket))
constexpr int64_t kSkewHashMemPercent = 2;
constexpr int64_t kMaxAllocSize = 0x3fffffff;
constexpr int64_t kIntMax = 2147483647;
// nodeMemoize.c's per-entry bookkeeping (64-bit): a MemoizeEntry and a MemoizeKey of
// 24 bytes each, and a MemoizeTuple (two pointers) per cached tuple.
constexpr double kMemoizeEntryBytes = 24 + 24;
constexpr double kMemoizeTupleBytes = 16;

double aligned_width(double width) {
  return std::ceil(width / 8.0) * 8.0;
}

// costsize.c's relation_byte_size: each tuple as a heap tuple, header and data aligned.
double relation_byte_size(double tuples, int width) {
  return tuples * (aligned_width(width) + kHeapTupleHeaderAligned);
}

// costsize.c's page_size: the pages those tuples fill.
double page_size(double tuples, int width) {
  return std::ceil(relation_byte_size(tuples, width) / kBlockBytes);
}

double work_mem_bytes(const CostSettings& cs) {
  return double(cs.work_mem_kb) * 1024.0;
}

// pg_nextpower2 / pg_prevpower2 over positive sizes.
int64_t next_power2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}
int64_t prev_power2(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p <<= 1;
  return p;
}

}  // namespace

bool stops_at_first_match(JoinKind kind, bool inner_unique) {
  return kind == JoinKind::kSemi || kind == JoinKind::kAnti || inner_unique;
}

PathCost cost_material(const CostSettings& cs, const PathCost& input, int width) {
  const double startup = input.startup;
  double run = input.total - input.startup;
  const double nbytes = relation_byte_size(input.rows, width);
  run += 2 * cs.cpu_operator_cost * input.rows;
  // Past work_mem the tuplestore writes its rows out once, spread over the run.
  if (nbytes > work_mem_bytes(cs)) run += cs.seq_page_cost * std::ceil(nbytes / kBlockBytes);
  return {startup, startup + run, input.rows};
}

RescanCost cost_rescan_materialized(const CostSettings& cs, double rows, int width) {
  double run = cs.cpu_operator_cost * rows;
  const double nbytes = relation_byte_size(rows, width);
  if (nbytes > work_mem_bytes(cs)) run += cs.seq_page_cost * std::ceil(nbytes / kBlockBytes);
  return {0, run};
}

// ---------------------------------------------------------------------------
// Nested loop

// No setting enters the first pass: it only adds up the inputs' costs.
NestLoopWorkspace initial_cost_nestloop(const CostSettings& /*cs*/, const NestLoopInput& in) {
  NestLoopWorkspace ws;
  const double outer_rows = in.outer.rows;
  double startup = 0, run = 0;
  // Both inputs start before the first row; every later outer row restarts the inner.
  startup += in.outer.startup + in.inner.startup;
  run += in.outer.total - in.outer.startup;
  if (outer_rows > 1) run += (outer_rows - 1) * in.inner_rescan.startup;
  const double inner_run = in.inner.total - in.inner.startup;
  const double inner_rescan_run = in.inner_rescan.total - in.inner_rescan.startup;
  if (stops_at_first_match(in.kind, in.inner_unique)) {
    // How much of each inner scan runs depends on the matches: the second pass.
    ws.inner_run = inner_run;
    ws.inner_rescan_run = inner_rescan_run;
  } else {
    run += inner_run;
    if (outer_rows > 1) run += (outer_rows - 1) * inner_rescan_run;
  }
  ws.startup = startup;
  ws.total = startup + run;
  ws.run = run;
  return ws;
}

PathCost final_cost_nestloop(const CostSettings& cs, const NestLoopInput& in,
                             const NestLoopWorkspace& ws) {
  double outer_rows = in.outer.rows > 0 ? in.outer.rows : 1;
  const double inner_rows = in.inner.rows > 0 ? in.inner.rows : 1;
  double startup = ws.startup, run = ws.run;
  double ntuples;
  if (stops_at_first_match(in.kind, in.inner_unique)) {
    double matched = std::rint(outer_rows * in.semi.outer_match_frac);
    double unmatched = outer_rows - matched;
    // A matched row's scan stops after 1 / (match_count + 1) of the inner rows if the
    // matches were spread evenly; doubled because they are not.
    const double scan_frac = 2.0 / (in.semi.match_count + 1.0);
    ntuples = matched * inner_rows * scan_frac;
    if (in.indexed_join_quals) {
      // Every scan is an index probe: matched rows read scan_frac of theirs, unmatched
      // ones come back empty at about the cost of one row.
      run += ws.inner_run * scan_frac;
      if (matched > 1) run += (matched - 1) * ws.inner_rescan_run * scan_frac;
      run += unmatched * ws.inner_rescan_run / inner_rows;
    } else {
      // An unmatched row scans the whole inner side. One whole first scan is charged in
      // any case (to an unmatched row when there is one).
      ntuples += unmatched * inner_rows;
      run += ws.inner_run;
      if (unmatched >= 1)
        unmatched -= 1;
      else
        matched -= 1;
      if (matched > 0) run += matched * ws.inner_rescan_run * scan_frac;
      if (unmatched > 0) run += unmatched * ws.inner_rescan_run;
    }
  } else {
    ntuples = outer_rows * inner_rows;
  }
  startup += in.join_quals.startup;
  const double cpu_per_tuple = cs.cpu_tuple_cost + in.join_quals.per_tuple;
  run += cpu_per_tuple * ntuples;
  startup += in.target.startup;
  run += in.target.per_tuple * in.rows;
  return {startup, startup + run, in.rows};
}

PathCost cost_nestloop(const CostSettings& cs, const NestLoopInput& in) {
  return final_cost_nestloop(cs, in, initial_cost_nestloop(cs, in));
}

// ---------------------------------------------------------------------------
// Merge join

MergeJoinWorkspace initial_cost_mergejoin(const CostSettings& cs, const MergeJoinInput& in) {
  MergeJoinWorkspace ws;
  const double outer_path_rows = in.outer.cost.rows > 0 ? in.outer.cost.rows : 1;
  const double inner_path_rows = in.inner.cost.rows > 0 ? in.inner.cost.rows : 1;
  MergeScanFractions f = in.scan;
  if (in.kind == JoinKind::kFull) {
    f = MergeScanFractions{};
  } else if (in.kind == JoinKind::kLeft || in.kind == JoinKind::kAnti) {
    f.outer_start = 0.0;  // every outer row is emitted, matched or not
    f.outer_end = 1.0;
  } else if (in.kind == JoinKind::kRight) {
    f.inner_start = 0.0;
    f.inner_end = 1.0;
  }
  // Whole rows, the skips possibly none; then the fractions those rows really are.
  const double outer_skip_rows = std::rint(outer_path_rows * f.outer_start);
  const double inner_skip_rows = std::rint(inner_path_rows * f.inner_start);
  const double outer_rows = clamp_row_est(outer_path_rows * f.outer_end);
  const double inner_rows = clamp_row_est(inner_path_rows * f.inner_end);
  const double outer_start = outer_skip_rows / outer_path_rows;
  const double inner_start = inner_skip_rows / inner_path_rows;
  const double outer_end = outer_rows / outer_path_rows;
  const double inner_end = inner_rows / inner_path_rows;

  double startup = 0, run = 0, inner_run = 0;
  PathCost outer_src = in.outer.cost;
  if (in.sort_outer) {
    ws.outer_sort = cost_sort(cs, in.outer.cost, outer_path_rows, in.outer.width);
    ws.outer_sort.rows = in.outer.cost.rows;  // a dummy input's 0 (costed as 1)
    outer_src = ws.outer_sort;
  }
  startup += outer_src.startup;
  startup += (outer_src.total - outer_src.startup) * outer_start;
  run += (outer_src.total - outer_src.startup) * (outer_end - outer_start);

  PathCost inner_src = in.inner.cost;
  if (in.sort_inner) {
    ws.inner_sort = cost_sort(cs, in.inner.cost, inner_path_rows, in.inner.width);
    ws.inner_sort.rows = in.inner.cost.rows;
    inner_src = ws.inner_sort;
  }
  startup += inner_src.startup;
  startup += (inner_src.total - inner_src.startup) * inner_start;
  inner_run = (inner_src.total - inner_src.startup) * (inner_end - inner_start);

  // Rescans and materialization are decided in the second pass; the inner run cost is
  // the least the inner side can cost, so the bound includes it.
  ws.startup = startup;
  ws.total = startup + run + inner_run;
  ws.run = run;
  ws.inner_run = inner_run;
  ws.outer_rows = outer_rows;
  ws.inner_rows = inner_rows;
  ws.outer_skip_rows = outer_skip_rows;
  ws.inner_skip_rows = inner_skip_rows;
  return ws;
}

MergeJoinCost final_cost_mergejoin(const CostSettings& cs, const MergeJoinInput& in,
                                   const MergeJoinWorkspace& ws) {
  MergeJoinCost out;
  const double inner_path_rows = in.inner.cost.rows > 0 ? in.inner.cost.rows : 1;
  double startup = ws.startup, run = ws.run;
  QualCost qp = in.join_quals;
  qp.startup -= in.merge_quals.startup;
  qp.per_tuple -= in.merge_quals.per_tuple;

  // Stopping at the first match with nothing but merge clauses never backs the merge up.
  out.skip_mark_restore = stops_at_first_match(in.kind, in.inner_unique) && in.only_merge_quals;

  // Equal outer keys make the merge reread the inner rows of that key: about the inner
  // join's size minus the inner rows (it miscounts inner rows without an outer match).
  double rescanned = 0;
  if (!in.outer_is_unique_path && !out.skip_mark_restore) {
    rescanned = in.mergejoin_tuples - inner_path_rows;
    if (rescanned < 0) rescanned = 0;
  }
  const double rescan_ratio = 1.0 + (rescanned / ws.inner_rows);
  out.rescanned_tuples = rescanned;
  out.rescan_ratio = rescan_ratio;

  // A reread costs as much as the first read; behind a Materialize it costs one
  // cpu_operator_cost per row, plus one per row stored.
  const double bare_inner_cost = ws.inner_run * rescan_ratio;
  const double mat_inner_cost = ws.inner_run + cs.cpu_operator_cost * ws.inner_rows * rescan_ratio;
  if (out.skip_mark_restore)
    out.materialize_inner = false;
  else if (in.enable_material && mat_inner_cost < bare_inner_cost)
    out.materialize_inner = true;
  else if (!in.sort_inner && !in.inner_supports_mark_restore)
    out.materialize_inner = true;  // needed for correctness, whatever enable_material says
  else if (in.enable_material && in.sort_inner &&
           relation_byte_size(inner_path_rows, in.inner.width) > work_mem_bytes(cs))
    out.materialize_inner = true;  // a spilling sort merges on the fly only without marks
  else
    out.materialize_inner = false;
  run += out.materialize_inner ? mat_inner_cost : bare_inner_cost;

  // The merge clauses are compared once per row read on either side, rereads included.
  startup += in.merge_quals.startup;
  startup += in.merge_quals.per_tuple * (ws.outer_skip_rows + ws.inner_skip_rows * rescan_ratio);
  run += in.merge_quals.per_tuple * ((ws.outer_rows - ws.outer_skip_rows) +
                                     (ws.inner_rows - ws.inner_skip_rows) * rescan_ratio);
  startup += qp.startup;
  const double cpu_per_tuple = cs.cpu_tuple_cost + qp.per_tuple;
  run += cpu_per_tuple * in.mergejoin_tuples;
  startup += in.target.startup;
  run += in.target.per_tuple * in.rows;
  out.path = {startup, startup + run, in.rows};
  return out;
}

PathCost mergejoin_inner_material(const CostSettings& cs, const PathCost& inner_plan) {
  PathCost m = inner_plan;
  m.total += cs.cpu_operator_cost * m.rows;
  return m;
}

// ---------------------------------------------------------------------------
// Hash join

double hash_memory_limit(const CostSettings& cs) {
  return std::floor(double(cs.work_mem_kb) * cs.hash_mem_multiplier * 1024.0);
}

HashTableSize choose_hash_table_size(const CostSettings& cs, double inner_rows, int width,
                                     bool use_skew) {
  HashTableSize out;
  const double ntuples = inner_rows <= 0.0 ? 1000.0 : inner_rows;
  const int64_t tupsize = kHashTupleOverhead + int64_t(aligned_width(width));
  const double inner_rel_bytes = ntuples * double(tupsize);
  int64_t hash_table_bytes = int64_t(hash_memory_limit(cs));
  out.space_allowed = double(hash_table_bytes);

  // The skew table of the inner side's most common values takes 2% of hash_mem,
  // counted as if each MCV had one tuple.
  if (use_skew) {
    const int64_t bytes_per_mcv = tupsize + 8 * kPointerBytes + 4 + kSkewBucketOverhead;
    int64_t skew_mcvs = hash_table_bytes / bytes_per_mcv;
    skew_mcvs = skew_mcvs * kSkewHashMemPercent / 100;
    skew_mcvs = std::min(skew_mcvs, kIntMax);
    out.skew_mcvs = int(skew_mcvs);
    if (skew_mcvs > 0) hash_table_bytes -= skew_mcvs * bytes_per_mcv;
  }

  // The bucket array may not exceed the table's memory nor MaxAllocSize; buckets and
  // batches are powers of two so a hash value splits into both with masks.
  int64_t max_pointers = hash_table_bytes / kPointerBytes;
  max_pointers = std::min(max_pointers, kMaxAllocSize / kPointerBytes);
  max_pointers = prev_power2(max_pointers);
  max_pointers = std::min(max_pointers, kIntMax / 2 + 1);

  double dbuckets = std::ceil(ntuples);  // one tuple per bucket (NTUP_PER_BUCKET)
  dbuckets = std::min(dbuckets, double(max_pointers));
  int64_t nbuckets = std::max<int64_t>(int64_t(dbuckets), 1024);
  nbuckets = next_power2(nbuckets);
  int64_t nbatch = 1;

  int64_t bucket_bytes = kPointerBytes * nbuckets;
  if (inner_rel_bytes + double(bucket_bytes) > double(hash_table_bytes)) {
    // Size the buckets for a full table, then split the rows into that many tables.
    const int64_t bucket_size = tupsize + kPointerBytes;
    int64_t sbuckets =
        hash_table_bytes <= bucket_size ? 1 : next_power2(hash_table_bytes / bucket_size);
    sbuckets = std::min(sbuckets, max_pointers);
    nbuckets = next_power2(sbuckets);
    bucket_bytes = nbuckets * kPointerBytes;
    double dbatch = std::ceil(inner_rel_bytes / double(hash_table_bytes - bucket_bytes));
    dbatch = std::min(dbatch, double(max_pointers));
    nbatch = next_power2(std::max<int64_t>(2, int64_t(dbatch)));
  }
  out.buckets = int(nbuckets);
  out.batches = int(nbatch);
  return out;
}

double hash_bucket_fraction(double ndistinct, double virtual_buckets, double mcv_freq,
                            double avgfreq) {
  double estfract = ndistinct > virtual_buckets ? 1.0 / virtual_buckets : 1.0 / ndistinct;
  // A skewed key puts the common value's rows in one bucket.
  if (avgfreq > 0.0 && mcv_freq > avgfreq) estfract *= mcv_freq / avgfreq;
  return std::clamp(estfract, 1.0e-6, 1.0);
}

HashJoinWorkspace initial_cost_hashjoin(const CostSettings& cs, const HashJoinInput& in) {
  HashJoinWorkspace ws;
  const double outer_rows = in.outer.cost.rows;
  const double inner_rows = in.inner.cost.rows;
  double startup = 0, run = 0;
  startup += in.outer.cost.startup;
  run += in.outer.cost.total - in.outer.cost.startup;
  startup += in.inner.cost.total;  // the table is built before the first outer row
  // A hash function per clause per row on both sides, and an insert per inner row.
  startup += (cs.cpu_operator_cost * in.hash_clauses + cs.cpu_tuple_cost) * inner_rows;
  run += cs.cpu_operator_cost * in.hash_clauses * outer_rows;
  ws.table = choose_hash_table_size(cs, inner_rows, in.inner.width);
  if (ws.table.batches > 1) {
    // Batches write both sides to temporary files and read them back, sequentially.
    const double outerpages = page_size(outer_rows, in.outer.width);
    const double innerpages = page_size(inner_rows, in.inner.width);
    startup += cs.seq_page_cost * innerpages;
    run += cs.seq_page_cost * (innerpages + 2 * outerpages);
  }
  ws.startup = startup;
  ws.total = startup + run;
  ws.run = run;
  return ws;
}

PathCost final_cost_hashjoin(const CostSettings& cs, const HashJoinInput& in,
                             const HashJoinWorkspace& ws, const HashBucketStats& bucket) {
  const double outer_rows = in.outer.cost.rows;
  const double inner_rows = in.inner.cost.rows;
  double startup = ws.startup, run = ws.run;
  const double virtualbuckets = ws.virtual_buckets();
  // Batching separates values, never equal ones: a most common value bigger than
  // hash_mem would overflow it whatever the planner does.
  if (relation_byte_size(clamp_row_est(inner_rows * bucket.mcv_freq), in.inner.width) >
      hash_memory_limit(cs))
    startup += kDisableCost;
  QualCost qp = in.join_quals;
  qp.startup -= in.hash_quals.startup;
  qp.per_tuple -= in.hash_quals.per_tuple;

  double hashjoin_tuples;
  if (stops_at_first_match(in.kind, in.inner_unique)) {
    const double matched = std::rint(outer_rows * in.semi.outer_match_frac);
    const double scan_frac = 2.0 / (in.semi.match_count + 1.0);
    startup += in.hash_quals.startup;
    run += in.hash_quals.per_tuple * matched *
           clamp_row_est(inner_rows * bucket.bucket_size * scan_frac) * 0.5;
    // Unmatched rows probe an average bucket, and few of its rows share their hash
    // code: a tenth of a matched row's cost per row, halved as above.
    run += in.hash_quals.per_tuple * (outer_rows - matched) *
           clamp_row_est(inner_rows / virtualbuckets) * 0.05;
    hashjoin_tuples = in.kind == JoinKind::kAnti ? outer_rows - matched : matched;
  } else {
    // Each outer row compares its bucket's rows, the quals evaluated only on equal hash
    // codes: charged as half the bucket.
    startup += in.hash_quals.startup;
    run +=
        in.hash_quals.per_tuple * outer_rows * clamp_row_est(inner_rows * bucket.bucket_size) * 0.5;
    hashjoin_tuples = in.hashjoin_tuples;
  }
  startup += qp.startup;
  const double cpu_per_tuple = cs.cpu_tuple_cost + qp.per_tuple;
  run += cpu_per_tuple * hashjoin_tuples;
  startup += in.target.startup;
  run += in.target.per_tuple * in.rows;
  return {startup, startup + run, in.rows};
}

// ---------------------------------------------------------------------------
// Memoize

MemoizeCost cost_memoize(const CostSettings& cs, const MemoizeInput& in) {
  MemoizeCost out;
  const double tuples = in.subpath.rows;
  const double calls = in.calls;
  // Caching the first entry is create_memoize_path's only charge on the path itself.
  out.path = {in.subpath.startup + cs.cpu_tuple_cost, in.subpath.total + cs.cpu_tuple_cost,
              in.subpath.rows};

  const double hash_mem_bytes = hash_memory_limit(cs);
  out.entry_bytes =
      relation_byte_size(tuples, in.width) + (kMemoizeEntryBytes + kMemoizeTupleBytes * tuples);
  out.cache_entries = std::floor(hash_mem_bytes / out.entry_bytes);
  const double ndistinct = in.ndistinct;
  out.est_entries = std::floor(std::min({ndistinct, out.cache_entries, 4294967295.0}));
  // Keys beyond what fits push entries out. A call hits when its key is held (the share
  // of keys that fit) and is not the key's first call (ndistinct of the calls are).
  out.evict_ratio = 1.0 - std::min(out.cache_entries, ndistinct) / ndistinct;
  out.hit_ratio = 1.0 / ndistinct * std::min(out.cache_entries, ndistinct) - (ndistinct / calls);
  out.hit_ratio = std::max(out.hit_ratio, 0.0);

  // A lookup per call, the subpath on a miss, an eviction now and then (a tuple and a
  // pfree per cached row), and storing the rows of the entry.
  double total = in.subpath.total * (1.0 - out.hit_ratio) + cs.cpu_operator_cost;
  total += cs.cpu_tuple_cost * out.evict_ratio;
  total += cs.cpu_operator_cost / 10.0 * out.evict_ratio * tuples;
  total += cs.cpu_tuple_cost + cs.cpu_operator_cost * tuples;
  double startup = in.subpath.startup * (1.0 - out.hit_ratio);
  startup += cs.cpu_tuple_cost;
  out.rescan = {startup, total};
  return out;
}

}  // namespace tp
