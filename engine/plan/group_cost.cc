// GROUP BY as PostgreSQL 15 costs it: costsize.c's cost_agg (AGG_SORTED, AGG_HASHED
// with its spill estimate) and cost_group, with nodeAgg.c's sizing of a hash
// aggregate's groups and partitions. Declared in join_cost.h.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/plan/join_cost.h"

namespace tp {
namespace {

constexpr double kBlockBytes = 8192;
constexpr double kHeapTupleHeaderAligned = 24;  // MAXALIGN(SizeofHeapTupleHeader)
// nodeAgg.c's entry: a TupleHashEntryData; every allocation in a memory chunk whose
// header (PostgreSQL 15's AllocChunkData) is 16 bytes; a MinimalTuple header
// MAXALIGNed to 16; an AggStatePerGroupData per transition state.
constexpr double kTupleHashEntryBytes = 24;
constexpr double kChunkHeaderBytes = 16;
constexpr double kMinimalTupleHeaderBytes = 16;
constexpr double kPerGroupStateBytes = 16;
// Spill files: a read buffer and a write buffer per partition, a block each.
constexpr double kReadBufferBytes = kBlockBytes;
constexpr double kWriteBufferBytes = kBlockBytes;
constexpr double kPartitionFactor = 1.5;  // HASHAGG_PARTITION_FACTOR
constexpr double kMinPartitions = 4, kMaxPartitions = 1024;

double relation_byte_size(double tuples, int width) {
  return tuples * (std::ceil(width / 8.0) * 8.0 + kHeapTupleHeaderAligned);
}

// my_log2: ceil(log2(n)).
int ceil_log2(int n) {
  int bits = 0;
  while ((int64_t{1} << bits) < n) ++bits;
  return bits;
}

// hash_choose_num_partitions with no hash bits used yet: enough partitions that each
// is likely to fit (with a 1.5 margin), as many as a quarter of hash_mem can buffer.
int choose_num_partitions(double groups, double entry_size, double hash_mem) {
  const double partition_limit = (hash_mem * 0.25 - kReadBufferBytes) / kWriteBufferBytes;
  const double mem_wanted = kPartitionFactor * groups * entry_size;
  double partitions = 1 + (mem_wanted / hash_mem);
  if (partitions > partition_limit) partitions = partition_limit;
  if (partitions < kMinPartitions) partitions = kMinPartitions;
  if (partitions > kMaxPartitions) partitions = kMaxPartitions;
  return 1 << ceil_log2(int(partitions));
}

}  // namespace

double hash_agg_entry_size(int transitions, double tuple_width, double transition_space) {
  const double tuple_chunk =
      kChunkHeaderBytes + (kMinimalTupleHeaderBytes + std::floor(tuple_width));
  const double pergroup = transitions * kPerGroupStateBytes;
  const double pergroup_chunk = pergroup > 0 ? kChunkHeaderBytes + pergroup : 0;
  const double transition_chunk = transition_space > 0 ? kChunkHeaderBytes + transition_space : 0;
  return kTupleHashEntryBytes + tuple_chunk + pergroup_chunk + transition_chunk;
}

HashAggLimits hash_agg_set_limits(const CostSettings& cs, double entry_size, double groups) {
  HashAggLimits out;
  const double hash_mem = hash_memory_limit(cs);
  if (groups * entry_size <= hash_mem) {
    out.mem_limit = hash_mem;
    out.ngroups_limit = std::floor(hash_mem / entry_size);
    return out;
  }
  // The partitions' buffers come out of hash_mem, but the groups keep at least three
  // quarters of it: with the fewest partitions, it is not exceeded by much.
  out.partitions = choose_num_partitions(groups, entry_size, hash_mem);
  const double partition_mem = kReadBufferBytes + kWriteBufferBytes * out.partitions;
  out.mem_limit =
      hash_mem > 4 * partition_mem ? hash_mem - partition_mem : std::floor(hash_mem * 0.75);
  out.ngroups_limit = out.mem_limit > entry_size ? std::floor(out.mem_limit / entry_size) : 1;
  return out;
}

int executor_planned_partitions(const CostSettings& cs, double input_width, double transition_space,
                                double groups) {
  const double entry = hash_agg_entry_size(0, input_width, transition_space);
  return hash_agg_set_limits(cs, entry, groups).partitions;
}

GroupAggCost cost_agg(const CostSettings& cs, const GroupAggInput& in) {
  GroupAggCost out;
  const AggClauseCosts& aggs = in.aggs;
  const double input_tuples = in.input.rows;
  const double groups = in.groups;
  double startup, total;
  if (in.strategy == AggStrategy::kPlain) {
    // All input first, then the one row.
    startup = in.input.total;
    startup += aggs.trans.startup;
    startup += aggs.trans.per_tuple * input_tuples;
    startup += aggs.final_cost.startup;
    startup += aggs.final_cost.per_tuple;
    total = startup + cs.cpu_tuple_cost;
  } else if (in.strategy == AggStrategy::kSorted) {
    // Groups come out as the sorted input passes their last row.
    startup = in.input.startup;
    total = in.input.total;
    total += aggs.trans.startup;
    total += aggs.trans.per_tuple * input_tuples;
    total += (cs.cpu_operator_cost * in.group_columns) * input_tuples;
    total += aggs.final_cost.startup;
    total += aggs.final_cost.per_tuple * groups;
    total += cs.cpu_tuple_cost * groups;
  } else {
    // The whole input goes into the table (a hash per group column per row) before
    // the first group comes out; the same sums as above, so the totals tie.
    startup = in.input.total;
    startup += aggs.trans.startup;
    startup += aggs.trans.per_tuple * input_tuples;
    startup += (cs.cpu_operator_cost * in.group_columns) * input_tuples;
    startup += aggs.final_cost.startup;
    total = startup;
    total += aggs.final_cost.per_tuple * groups;
    total += cs.cpu_tuple_cost * groups;

    // Spilling adds no transitions (groups stay in memory until finalized) and no
    // hashing (the hash is written with the tuple): only I/O and moving tuples. The
    // writes come before the first group, the reads after.
    HashAggSpill& s = out.spill;
    s.entry_size =
        hash_agg_entry_size(in.states.transitions, in.input_width, in.states.transition_space);
    s.limits = hash_agg_set_limits(cs, s.entry_size, groups);
    double nbatches =
        std::max((groups * s.entry_size) / s.limits.mem_limit, groups / s.limits.ngroups_limit);
    nbatches = std::max(std::ceil(nbatches), 1.0);
    s.batches = nbatches;
    const int num_partitions = std::max(s.limits.partitions, 2);
    // Each level of recursion splits a batch num_partitions ways.
    s.depth = int(std::ceil(std::log(nbatches) / std::log(num_partitions)));
    const double pages = relation_byte_size(input_tuples, in.input_width) / kBlockBytes;
    s.pages_written = s.pages_read = pages * s.depth;
    // Hash aggregation reads and writes less sequentially than a sort.
    s.pages_read *= 2.0;
    s.pages_written *= 2.0;
    startup += s.pages_written * cs.random_page_cost;
    total += s.pages_written * cs.random_page_cost;
    total += s.pages_read * cs.seq_page_cost;
    const double spill_cost = s.depth * input_tuples * 2.0 * cs.cpu_tuple_cost;
    startup += spill_cost;
    total += spill_cost;
  }
  double output_tuples = groups;
  if (in.having) {
    startup += in.having->cost.startup;
    total += in.having->cost.startup + output_tuples * in.having->cost.per_tuple;
    output_tuples = clamp_row_est(output_tuples * in.having->selectivity);
  }
  out.path = {startup, total, output_tuples};
  return out;
}

PathCost cost_group(const CostSettings& cs, const PathCost& input, int group_columns, double groups,
                    const std::optional<HavingQual>& having) {
  double output_tuples = groups;
  double startup = input.startup;
  double total = input.total;
  // Every column compared for most rows.
  total += cs.cpu_operator_cost * input.rows * group_columns;
  if (having) {
    startup += having->cost.startup;
    total += having->cost.startup + output_tuples * having->cost.per_tuple;
    output_tuples = clamp_row_est(output_tuples * having->selectivity);
  }
  return {startup, total, output_tuples};
}

}  // namespace tp
