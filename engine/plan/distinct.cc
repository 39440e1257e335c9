#include "engine/plan/distinct.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/plan/parallel_cost.h"
#include "scans/distinct.h"

namespace tp {
namespace {

constexpr double kPageBytes = 8192;
// nodeAgg.c: a group's entry is a TupleHashEntryData (24 bytes) and its first tuple, a
// MinimalTuple (header MAXALIGNed to 16) in a chunk with a 16-byte header.
constexpr double kHashEntryOverhead = 24 + 16 + 16;
constexpr double kPartitionFactor = 1.5;  // HASHAGG_PARTITION_FACTOR
constexpr double kMinPartitions = 4, kMaxPartitions = 1024;

double maxalign(double width) {
  return std::ceil(width / 8) * 8;
}

// ceil(log2(n)) (PostgreSQL's my_log2).
int ceil_log2(int n) {
  int bits = 0;
  while ((1 << bits) < n) ++bits;
  return bits;
}

// hash_choose_num_partitions with no hash bits used yet: a power of two.
int choose_num_partitions(double groups, double entry_size, double hash_mem) {
  const double partition_limit = (hash_mem * 0.25 - kPageBytes) / kPageBytes;
  double partitions = 1 + kPartitionFactor * groups * entry_size / hash_mem;
  partitions = std::min(partitions, partition_limit);
  partitions = std::clamp(partitions, kMinPartitions, kMaxPartitions);
  return 1 << ceil_log2(int(partitions));
}

// A path of an upper relation as add_path weighs it. `keys` is how many leading DISTINCT
// keys the path is ordered by (every order here is a prefix of them, so the longer is
// the better).
struct UpperPath {
  PathCost cost;
  size_t keys = 0;
  bool parallel_safe = true;
  int id = 0;
};

// Whether `a` is as good as `b` on rows, parallel safety and order (what add_path asks
// beside the costs before one path may drop another).
bool no_worse(const UpperPath& a, const UpperPath& b) {
  return a.keys >= b.keys && a.cost.rows <= b.cost.rows && a.parallel_safe >= b.parallel_safe;
}

// pathnode.c's add_path over paths without parameters. `kept` stays in PostgreSQL's
// order: by total cost, a new path after those as cheap.
void add_path(std::vector<UpperPath>& kept, const UpperPath& p, bool consider_startup) {
  bool accept = true;
  size_t insert_at = 0;
  for (size_t i = 0; i < kept.size();) {
    const UpperPath& old = kept[i];
    const FuzzyCompare c = compare_path_costs_fuzzily(p.cost, old.cost, consider_startup);
    bool remove_old = false;
    if (c == FuzzyCompare::kEqual && p.keys != old.keys) {
      remove_old = p.keys > old.keys && no_worse(p, old);
      accept = !(p.keys < old.keys && no_worse(old, p));
    } else if (c == FuzzyCompare::kEqual) {
      // The same order: the parallel-safe path, then the fewer rows, then the cheaper.
      const bool better = p.parallel_safe != old.parallel_safe ? p.parallel_safe
                          : p.cost.rows != old.cost.rows       ? p.cost.rows < old.cost.rows
                                                               : false;
      if (p.parallel_safe != old.parallel_safe || p.cost.rows != old.cost.rows)
        (better ? remove_old : accept) = better;
      else if (compare_path_costs_fuzzily(p.cost, old.cost, consider_startup, 1.0000000001) ==
               FuzzyCompare::kNewBetter)
        remove_old = true;
      else
        accept = false;
    } else if (c == FuzzyCompare::kNewBetter) {
      remove_old = no_worse(p, old);
    } else if (c == FuzzyCompare::kOldBetter) {
      accept = !no_worse(old, p);
    }
    if (remove_old) {
      kept.erase(kept.begin() + ptrdiff_t(i));
      continue;
    }
    if (p.cost.total >= old.cost.total) insert_at = i + 1;
    if (!accept) return;
    ++i;
  }
  kept.insert(kept.begin() + ptrdiff_t(insert_at), p);
}

// set_cheapest's cheapest total path: the lowest total, then startup, then the first.
const UpperPath& cheapest_total(const std::vector<UpperPath>& paths) {
  const UpperPath* best = &paths.front();
  for (const UpperPath& p : paths)
    if (p.cost.total < best->cost.total ||
        (p.cost.total == best->cost.total && p.cost.startup < best->cost.startup))
      best = &p;
  return *best;
}

}  // namespace

PathCost cost_unique(const CostSettings& cs, const PathCost& input, size_t columns,
                     double num_groups) {
  return {input.startup, input.total + cs.cpu_operator_cost * input.rows * double(columns),
          num_groups};
}

PathCost cost_hash_distinct(const CostSettings& cs, const PathCost& input, size_t group_columns,
                            double num_groups, int input_width, int* partitions) {
  PathCost p;
  p.startup = input.total + cs.cpu_operator_cost * double(group_columns) * input.rows;
  p.total = p.startup + cs.cpu_tuple_cost * num_groups;
  p.rows = num_groups;
  // hash_agg_set_limits: all of hash_mem when the groups fit, else hash_mem less the
  // partitions' buffers (at least 3/4 of it).
  const double hash_mem = std::floor(double(cs.work_mem_kb) * cs.hash_mem_multiplier * 1024.0);
  const double entry = kHashEntryOverhead + input_width;
  double mem_limit = hash_mem;
  int nparts = 0;
  if (num_groups * entry > hash_mem) {
    nparts = choose_num_partitions(num_groups, entry, hash_mem);
    const double partition_mem = kPageBytes + kPageBytes * nparts;
    mem_limit =
        hash_mem > 4 * partition_mem ? hash_mem - partition_mem : std::floor(hash_mem * 0.75);
  }
  if (partitions) *partitions = nparts;
  const double ngroups_limit = mem_limit > entry ? std::floor(mem_limit / entry) : 1;
  double nbatches = std::max(num_groups * entry / mem_limit, num_groups / ngroups_limit);
  nbatches = std::max(std::ceil(nbatches), 1.0);
  const int num_partitions = std::max(nparts, 2);
  const double depth = std::ceil(std::log(nbatches) / std::log(double(num_partitions)));
  if (depth <= 0) return p;
  // Each level of recursion writes every input tuple and reads it back, at twice the
  // page costs for hash aggregation's worse I/O pattern, plus the CPU to spill a tuple.
  const double pages = input.rows * (maxalign(input_width) + 24) / kPageBytes;
  const double written = pages * depth * 2.0, read = pages * depth * 2.0;
  const double spill_cpu = depth * input.rows * 2.0 * cs.cpu_tuple_cost;
  p.startup += written * cs.random_page_cost + spill_cpu;
  p.total += written * cs.random_page_cost + read * cs.seq_page_cost + spill_cpu;
  return p;
}

namespace {

// The distinct relation as create_final_distinct_paths fills it from one input
// relation: `shapes` holds each path's plan, `paths` what add_path kept.
struct DistinctRel {
  std::vector<DistinctChoice> shapes;
  std::vector<UpperPath> paths;
};

void add_final_distinct_paths(const CostSettings& cs, const DistinctQuery& q, size_t rel_index,
                              const DistinctInputRel& rel, DistinctRel& out) {
  // upper relations consider startup costs when the query has a LIMIT (tuple_fraction > 0)
  const bool startup = q.limit_count.has_value();
  auto add = [&](DistinctChoice c, size_t keys, bool safe) {
    c.rel = rel_index;
    out.shapes.push_back(c);
    add_path(out.paths, {c.distinct, keys, safe, int(out.shapes.size() - 1)}, startup);
  };
  const std::vector<DistinctInput>& inputs = rel.inputs;
  auto unique_over = [&](size_t input, DistinctKind kind, const PathCost& sorted) {
    DistinctChoice c;
    c.input = input;
    c.kind = kind;
    c.sort = sorted;
    c.distinct = cost_unique(cs, sorted, q.unique_columns, rel.num_groups);
    add(c, q.unique_columns, inputs[input].parallel_safe);
  };
  // The input relation's paths run cheapest first.
  std::vector<size_t> by_cost(inputs.size());
  for (size_t i = 0; i < by_cost.size(); ++i) by_cost[i] = i;
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](size_t a, size_t b) { return inputs[a].cost.total < inputs[b].cost.total; });
  for (size_t i : by_cost)
    if (inputs[i].ordered) unique_over(i, DistinctKind::kUnique, inputs[i].cost);
  const DistinctInput& in = inputs[rel.cheapest];
  if (in.ordered)
    unique_over(rel.cheapest, DistinctKind::kUnique, in.cost);
  else
    unique_over(rel.cheapest, DistinctKind::kSortUnique,
                disabled_if(!q.enable_sort, cost_sort(cs, in.cost, in.cost.rows, q.width, 0, -1)));
  if (q.enable_hashagg) {
    DistinctChoice h;
    h.input = rel.cheapest;
    h.kind = DistinctKind::kHashAggregate;
    h.distinct = cost_hash_distinct(cs, in.cost, q.group_columns, rel.num_groups, q.width,
                                    &h.planned_partitions);
    h.distinct.total += q.hash_output_cost * rel.num_groups;
    add(h, 0, in.parallel_safe);
  }
}

}  // namespace

DistinctChoice choose_distinct(const CostSettings& cs, const DistinctQuery& q,
                               const std::vector<DistinctInputRel>& rels) {
  const bool startup = q.limit_count.has_value();
  DistinctRel distinct;
  for (size_t r = 0; r < rels.size(); ++r) add_final_distinct_paths(cs, q, r, rels[r], distinct);
  // create_ordered_paths: a path in ORDER BY's order as it is (every Unique), else only
  // the cheapest one, under a Sort bounded by the LIMIT.
  std::vector<UpperPath> ordered_rel = distinct.paths;
  if (q.has_order_by && q.order_keys) {
    ordered_rel.clear();
    const int cheapest_id = cheapest_total(distinct.paths).id;
    for (UpperPath p : distinct.paths) {
      if (p.keys == 0 && p.id != cheapest_id) continue;
      if (p.keys == 0) {
        DistinctChoice& c = distinct.shapes[size_t(p.id)];
        c.order_sort = disabled_if(
            !q.enable_sort, cost_sort(cs, c.distinct, c.distinct.rows, q.width, 0, q.limit_tuples));
        p.cost = *c.order_sort;
        p.keys = q.order_keys;  // ORDER BY's keys, a prefix of the DISTINCT keys
      }
      add_path(ordered_rel, p, startup);
    }
  }
  std::vector<UpperPath> final_rel;
  for (UpperPath p : ordered_rel) {
    if (q.limit_count || q.offset > 0)
      p.cost = cost_limit(p.cost, q.offset, q.limit_count.value_or(-1));
    add_path(final_rel, p, startup);
  }
  return distinct.shapes[size_t(cheapest_total(final_rel).id)];
}

std::unique_ptr<scans::ExecNode> build_distinct(std::unique_ptr<scans::ExecNode> scan,
                                                const DistinctChoice& choice,
                                                const DistinctNodeSpec& spec) {
  auto estimated = [&](std::unique_ptr<scans::ExecNode> n, const PathCost& c, bool input = false) {
    n->estimate = {c.startup, c.total, c.rows,
                   input && spec.input_width >= 0 ? spec.input_width : spec.width};
    return n;
  };
  std::unique_ptr<scans::ExecNode> top = std::move(scan);
  if (spec.one_row) {
    if (choice.kind == DistinctKind::kSortUnique)
      top = estimated(
          std::make_unique<scans::OneRowNode>(std::move(top), "Sort", "Sort Key: " + spec.key_text),
          choice.sort);
    const bool hashed = choice.kind == DistinctKind::kHashAggregate;
    return estimated(
        std::make_unique<scans::OneRowNode>(std::move(top), hashed ? "HashAggregate" : "Unique",
                                            hashed ? "Group Key: " + spec.group_text : ""),
        choice.distinct);
  }
  if (choice.kind == DistinctKind::kSortUnique)
    top = estimated(std::make_unique<scans::SortNode>(std::move(top), spec.keys, spec.key_text, 0,
                                                      spec.max_bytes),
                    choice.sort, true);
  if (choice.kind == DistinctKind::kHashAggregate) {
    top = estimated(std::make_unique<scans::HashAggregateNode>(
                        std::move(top), spec.group_slots, spec.group_text,
                        choice.planned_partitions, spec.max_bytes),
                    choice.distinct, true);
    if (choice.order_sort)
      top = estimated(
          std::make_unique<scans::SortNode>(std::move(top), spec.order_keys, spec.order_text,
                                            spec.order_bound, spec.max_bytes),
          *choice.order_sort, true);
    return top;
  }
  std::vector<uint32_t> slots;
  if (spec.unique_slots)
    slots = *spec.unique_slots;
  else
    for (const scans::SortKey& k : spec.keys) slots.push_back(k.slot);
  top = estimated(std::make_unique<scans::UniqueNode>(std::move(top), std::move(slots)),
                  choice.distinct);
  // Over a Sort the Unique returns the Sort's narrow rows, so PostgreSQL needs no Result.
  if (spec.result && choice.kind == DistinctKind::kUnique)
    top = estimated(std::make_unique<scans::ResultNode>(std::move(top)), choice.distinct);
  return top;
}

}  // namespace tp
