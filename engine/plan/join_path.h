// The paths of a join search (PostgreSQL's Path, NestPath, MergePath, HashPath and
// MaterialPath) and their pathkeys, and add_path, which keeps a relation's pathlist.
//
// A path is shared: a join path points at the paths of its two inputs, kept by every
// join relation above that uses them (as PostgreSQL's paths are), so the chosen plan is
// one tree walked once at the end (engine/plan/join_build.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/join_cost.h"
#include "engine/plan/join_query.h"
#include "engine/plan/parallel_paths.h"
#include "scans/exec_node.h"
#include "scans/exec_params.h"
#include "scans/sort_limit_agg.h"

namespace tp {

// One sort key of a path's order: an equivalence class (a var's class, or a key of its
// own for a var in none: JoinSearch::key_of), its direction and NULLs' place.
struct PathKey {
  uint32_t key = 0;
  bool descending = false;
  bool nulls_first = false;
  friend bool operator==(const PathKey&, const PathKey&) = default;
};

enum class PathKeysComparison { kEqual, kBetter1, kBetter2, kDifferent };

// compare_pathkeys: equal, one a longer version of the other (better), or different.
PathKeysComparison compare_pathkeys(const std::vector<PathKey>& a, const std::vector<PathKey>& b);
// How many leading keys `have` shares with `wanted` (pathkeys_count_contained_in).
size_t common_pathkeys(const std::vector<PathKey>& have, const std::vector<PathKey>& wanted);
// pathkeys_contained_in: `wanted` is a prefix of `have`.
bool pathkeys_contained_in(const std::vector<PathKey>& wanted, const std::vector<PathKey>& have);

// One clause of a join's restrictlist (build_joinrel_restrictlist), for the pair of
// relation sets it was made for (`rel1`, `rel2`). An equality whose two sides each read
// one side of the pair (`equi`: a class's clause, or `f(a) = g(b)` of one type) is a
// hash and a merge clause: `key1` is its rel1 side, `key2` its rel2 side.
struct RestrictClause {
  TypedExpr expr;  // as EXPLAIN prints it in a Join Filter
  bool equi = false;
  TypedExpr key1;
  TypedExpr key2;
  // What the join nodes hash and compare: the keys as the operator compares them (a
  // `real = double precision` side cast up, as PostgreSQL's cross-type hash functions
  // do); the keys themselves for one type.
  TypedExpr exec1;
  TypedExpr exec2;
  // A hash clause too (not every cross-type family hashes: date = timestamptz only
  // merges).
  bool hashable = true;
  // equi: the pathkeys of key1's side and key2's (a class, a var's own key, or the
  // clause's own key); the same but for an outer join's `a.x = b.y`, whose sides are
  // no class (one may go NULL above the join).
  uint32_t key = 0;
  uint32_t key_b = 0;
  double selectivity = 1;       // clause_selectivity as an inner join's
  double semi_selectivity = 1;  // as an anti join's (eqjoinsel_semi)
  // A WHERE clause (or an inner join's); false for an outer join's own ON clause, which
  // decides matches: only those are an outer join's hash or merge keys and Join Filter,
  // the others its Filter.
  bool pushed_down = true;
  // Its outer join may use it to merge (a side a WHERE constant fixes sorts nothing).
  bool mergeable = true;
};

struct RestrictList {
  Relids rel1 = 0;
  Relids rel2 = 0;
  std::vector<RestrictClause> clauses;
};

struct JoinPath {
  // kDummy: a relation proven empty (PostgreSQL's dummy path, a Result that returns
  // nothing).
  // kUnique: its input (outer) made distinct on `unique_vars` (create_unique_path).
  // kGather: a Gather over a partial path (outer), each participant running a copy.
  enum class Kind : uint8_t {
    kScan,
    kNestLoop,
    kHashJoin,
    kMergeJoin,
    kMaterial,
    kMemoize,
    kDummy,
    kUnique,
    kGather
  };
  Kind kind = Kind::kScan;
  JoinKind join_kind = JoinKind::kInner;  // joins: inner, left, right, full or anti
  PathCost cost;
  Relids relids = 0;
  int width = 0;
  std::vector<PathKey> pathkeys;
  std::shared_ptr<const JoinPath> outer;  // joins; kMaterial, kMemoize: its input
  std::shared_ptr<const JoinPath> inner;
  int scan = -1;  // kScan: the base relation's path (its builder)
  // A partial path (PostgreSQL's partial_pathlist) runs in every participant of a Gather
  // above it: its rows are one participant's share, `workers` the Gather's. A kScan
  // partial path is `partial_scan`, whose blocks the participants share.
  int workers = 0;
  std::shared_ptr<const PartialScan> partial_scan;
  // Whether the path may run below a Gather (false for a Gather and all above one).
  bool parallel_safe = true;
  // kGather as a Gather Merge: each participant sorts its rows on `merge_keys` (slots of
  // the relation's vars), costed `merge_sort_cost`, bounded by a LIMIT's `merge_bound`.
  bool gather_merge = false;
  std::vector<scans::SortKey> merge_keys;
  std::string merge_text;
  PathCost merge_sort_cost;
  int64_t merge_bound = -1;
  bool mark_restore = false;  // kScan: an index scan (ExecSupportsMarkRestore)
  std::shared_ptr<const RestrictList> restrict;
  // Hash join: the hash clauses; merge join: the merge clauses in key order; nested loop:
  // the clauses its parameterized inner side applies (no Join Filter checks them).
  std::vector<size_t> join_keys;
  // Merge join: the Sorts under it (empty: that side is presorted), and their costs.
  std::vector<PathKey> outer_sort;
  std::vector<PathKey> inner_sort;
  PathCost outer_sort_cost;
  PathCost inner_sort_cost;
  bool materialize_inner = false;  // merge join: a Materialize over the inner side
  // Nested loop: its inner index is looked up ahead (nestloop_prefetch; under
  // prefetch_aware only where batch_gain says it pays).
  bool nestloop_batch = false;
  std::vector<uint32_t> unique_vars;  // kUnique: its keys
  // kUnique by expressions (semi_rhs_exprs): its keys, computed below it and kept in its
  // rows after the vars.
  std::vector<TypedExpr> unique_exprs;
  bool unique_hashed = false;  // kUnique: a HashAggregate, else Unique over a Sort
  PathCost unique_sort_cost;   // kUnique: that Sort
  PathCost inner_material_cost;
  int hash_buckets = 0;  // hash join: the planned table
  int hash_batches = 0;
  // Memoize: what a rescan costs (cost_memoize_rescan), the cache's planned entries, and
  // whether an entry is complete after one row (an inner-unique join).
  RescanCost memo_rescan{};
  double memo_entries = 0;
  bool memo_singlerow = false;
  // A parameterized scan (the inner side of a Nested Loop over `required_outer`): what
  // its parameters are over the outer row (a column, or an expression such as
  // `(k)::numeric`), in parameter order, the classes whose clauses it applies, and its
  // nodes over the loop's parameters.
  Relids required_outer = 0;
  std::vector<TypedExpr> param_exprs;
  std::vector<TypedExpr> param_keys;  // as written (param_exprs may cast one to its key's type)
  std::vector<uint32_t> param_classes;
  std::vector<std::string> param_filters;  // Join Filters it applies, as deparsed
  // The relations those filters wait for (an outer join below delays one): only a join
  // holding them all may take the path as its inner side.
  Relids param_needs = 0;
  // One of its clauses is no hashable equality (an inequality, a cross-type datetime
  // equality): a Memoize above compares the keys' bytes (paraminfo_get_equal_hashops'
  // binary mode).
  bool param_binary = false;
  // Its scan filters by join clauses no index key holds (PostgreSQL's ppi_clauses that
  // are no index condition): a Memoize over it keys on their outer columns too, in
  // ppi_clauses' order (those clauses first), each key the parameter `memo_params` names
  // (empty: key i is parameter i); one that compares no outer column alone (an OR over
  // both relations) leaves paraminfo_get_equal_hashops no key, so no Memoize.
  bool param_moved = false;
  bool memo_blocked = false;
  // A parameterized index scan under prefetch_aware: what nestloop_prefetch saves per
  // loop (IndexScanCost::batch_gain, batch_gain_first_page); 0 for other paths.
  double batch_gain = 0;
  double batch_gain_first_page = 0;
  std::vector<size_t> memo_params;
  std::function<std::unique_ptr<scans::ExecNode>(const scans::ExecParams*)> param_build;
  // A LATERAL subquery's scan: a Memoize over it compares its keys' bytes (binary mode).
  bool lateral = false;
};

using JoinPathPtr = std::shared_ptr<const JoinPath>;

// pathnode.c's add_path for unparameterized paths of one relation (same rows): `p` is
// kept unless a path in `list` dominates it (fuzzily cheaper by 1%, with no worse
// pathkeys; `consider_startup` when a LIMIT makes startup cost count), and those it
// dominates are dropped. `list` stays ordered by total cost.
// A parallel-safe path beats an unsafe one of fuzzily equal costs and order.
void add_path(std::vector<JoinPathPtr>& list, JoinPathPtr p, bool consider_startup);

// add_partial_path over a relation's partial paths: total cost alone (1% fuzz), better
// pathkeys keeping a fuzzily dearer path. `list` stays ordered by total cost.
void add_partial_path(std::vector<JoinPathPtr>& list, JoinPathPtr p);

// add_partial_path_precheck: whether a partial path of `total` cost (a lower bound, the
// initial cost) and `pathkeys` could survive beside the relation's partial paths and its
// regular ones (a regular path fuzzily cheaper, in an order at least as good, rules it
// out, unless `consider_startup` and the new one may win on startup).
bool partial_path_precheck(const std::vector<JoinPathPtr>& partial,
                           const std::vector<JoinPathPtr>& regular, double total,
                           const std::vector<PathKey>& pathkeys, bool consider_startup);

// The rows of a partial join path: the relation's, divided among the participants.
double partial_rows(double rows, int workers, bool leader_participation);

}  // namespace tp
