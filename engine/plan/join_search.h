// The join search of an inner join of base relations, as PostgreSQL 15's
// standard_join_search does it: join relations built level by level by dynamic
// programming (join_search_one_level: each relation of the level below joined with a
// base relation it has a join clause with, then bushy pairs, then clauseless joins when
// a level is empty), each joined pair's restrictlist (the Join Filters that become
// evaluable there, then one clause per equivalence class with members on both sides),
// the join relation's rows from the first pair that makes it (calc_joinrel_size_estimate
// with eqjoinsel), and add_paths_to_joinrel's paths for both orders of each pair:
//
//   sort_inner_and_outer   Merge Join over both cheapest paths sorted on the classes
//   match_unsorted_outer   Nested Loop of every outer path with the cheapest inner path,
//                          with each parameterized inner index path (and a Memoize over
//                          it) and with a Materialize over the cheapest; Merge Join over
//                          an outer path already in a class's order (an index's)
//   hash_inner_and_outer   Hash Join of the cheapest-startup and cheapest-total outer
//                          paths with the cheapest inner path
//
// each costed by join_cost.h's initial and final costs (a merge join's input fractions
// from mergejoinscansel) and kept by add_path (join_path.h).
//
// Outer and anti joins (outer_joins.h) restrict the order: a pair is joined only if
// join_is_legal, a LEFT join's pair gets Left paths one way and Right paths the other
// (no Nested Loop: it can only preserve its outer side), a FULL join only Merge and
// Hash paths, an anti join one way only.
//
// Partial paths (join_partial.cc): a base relation's partial scans, and a join's partial
// paths made as add_paths_to_joinrel makes them over a partial outer path and a
// parallel-safe inner one (nested loops over the inner's plain and parameterized paths
// and their Memoize, a merge join of both sorted, a hash join whose Hash each
// participant builds), kept by add_partial_path; a Gather over the cheapest one below
// the top level, and a Gather Merge over each participant's Sort of it in the leading
// ORDER BY keys the relation returns. Not yet: Parallel Hash (a shared table), a Gather
// Merge straight over an ordered partial path, parameterization by several relations.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/plan/join_cost.h"
#include "engine/plan/join_path.h"
#include "engine/plan/join_query.h"
#include "engine/plan/join_selectivity.h"
#include "engine/plan/plan_context.h"
#include "engine/plan/scan_choice.h"
#include "engine/plan/selectivity.h"

namespace tp {

// A base relation as the scan chooser made its paths.
struct JoinBaseInput {
  double tuples = 0;  // rel->tuples
  double rows = 0;    // after its restrictions
  int width = 0;
  const RelationStatsView* view = nullptr;
  std::vector<JoinPathPtr> paths;          // kScan paths, as add_path keeps them
  std::vector<JoinPathPtr> partial_paths;  // partial kScan paths, add_partial_path's order
  // Its index paths parameterized by join clauses (TablePaths::param_paths).
  std::function<std::vector<ParamScanPath>(const std::vector<ParamClause>&,
                                           const std::vector<Clause>&, double)>
      param_paths;
  bool dummy = false;  // its one restriction is FALSE: no scan, PostgreSQL's dummy relation
};

struct JoinRelation {
  Relids relids = 0;
  double rows = 0;
  int width = 0;
  std::vector<uint32_t> vars;  // the vars it returns, ascending
  std::vector<JoinPathPtr> paths;
  // Its parameterized paths: a base relation's (each outer relation's kept by add_path),
  // a join relation's over one of those (join_param_joins.cc).
  std::vector<JoinPathPtr> param_paths;
  // A join relation's rows per parameterization (ppi_rows: from the first pair of paths
  // that made one).
  std::vector<std::pair<Relids, double>> param_rows;
  JoinPathPtr cheapest_total;
  JoinPathPtr cheapest_startup;
  std::vector<JoinPathPtr> partial_paths;  // cheapest total first
};

// Which side of a pair add_paths_to_joinrel unique-ifies (a semi join's right side).
enum class UniqueSide : uint8_t { kNone, kInner, kOuter };

class JoinSearch {
 public:
  // `query_pathkeys`: the ORDER BY's (JoinSearch::key_of for a var, else a key no path
  // gives); `consider_startup` when a LIMIT makes startup cost count.
  JoinSearch(const PlanContext& ctx, const JoinQuery& q, std::vector<JoinBaseInput> base,
             std::vector<PathKey> query_pathkeys, bool consider_startup);

  // The relation of all the base relations, its paths made.
  const JoinRelation& run();

  // A var's pathkey: its class, or a key of its own.
  uint32_t key_of(uint32_t var) const;
  // The side of an equi clause that reads `side` (key1 or key2).
  const TypedExpr& side_key(const RestrictClause& c, Relids side) const;
  // The vars a relation of `relids` returns, ascending.
  std::vector<uint32_t> output_vars(Relids relids) const;
  const JoinRelation& relation(Relids relids) const { return rels_[index_.at(relids)]; }

 private:
  struct Pair {
    const JoinRelation& outer;
    const JoinRelation& inner;
    const RestrictList& restrict;
    JoinRelation& join;
    std::shared_ptr<const RestrictList> shared;
    JoinKind kind = JoinKind::kInner;
    bool inner_unique = false;
    SemiAntiFactors semi;
    std::vector<size_t> merge;  // the restrictlist's merge clauses (select_mergejoin_clauses)
    std::vector<size_t> hash;   // and its hash clauses
    // JOIN_UNIQUE_INNER / _OUTER: that side is a unique path, joined as an inner join.
    UniqueSide unique = UniqueSide::kNone;
    JoinPathPtr outer_total;
    JoinPathPtr outer_startup;
    JoinPathPtr inner_total;
    // Partial paths are made (the outer side has some, no unique-ified outer side, no
    // Right or Full join): the cheapest partial outer path and the cheapest
    // parallel-safe inner path (none: no partial merge or hash join).
    JoinPathPtr partial_outer;
    JoinPathPtr safe_inner;
    // While join_param_joins.cc makes a parameterized join path: the parameterized path
    // of one side it is made over (the paths made go to the relation's param_paths).
    JoinPathPtr param_child;
  };

  void search_level(size_t level);
  void add_param_paths(JoinRelation& inner, size_t rel);
  // join_param_joins.cc: a join relation's paths parameterized by a relation outside it
  // (one input's parameterized path joined to the other's cheapest path), for the
  // relations an outer join keeps from joining it directly (param_source_rels).
  void add_param_join_paths(Pair& p);
  Relids param_source_rels(Relids joinrelids) const;
  JoinPathPtr materialized(const JoinPathPtr& inner) const;
  bool links_enforced(const JoinPath& child, Relids join, Relids outside) const;
  void param_outer_nestloops(Pair& p, const JoinPathPtr& child);
  void keep_param_join_path(Pair& p, std::shared_ptr<JoinPath> path);
  // join_lateral.cc: a LATERAL subquery's one path, parameterized by the relation it
  // reads; the join relations that may hold it (those holding that relation too); and
  // the Nested Loops that join it, the only method that can.
  void add_lateral_path(JoinRelation& inner, size_t rel);
  bool lateral_legal(Relids joined) const;
  bool lateral_link(Relids a, Relids b) const;
  bool lateral_restricted(Relids r) const;
  void lateral_nestloops(Pair& p);
  // join_param_paths.cc: what a scan of one relation parameterized by another is asked
  // for (add_param_paths): the index keys (the classes', then the Join Filters'), each
  // key's outer value as run and as written, and the other join clauses movable into it.
  struct ParamRequest {
    std::vector<ParamClause> clauses;
    std::vector<TypedExpr> outer, written;
    std::vector<uint32_t> classes;  // the classes of the first keys
    // Every movable Join Filter in the query's order (ppi_clauses' joininfo part), with
    // its key's place in `clauses` (-1: no key; an index that does not apply a key
    // filters by it too).
    struct Movable {
      const JoinFilterClause* filter = nullptr;
      int key = -1;
    };
    std::vector<Movable> movable;
  };
  void add_class_params(size_t rel, size_t other, ParamRequest& r) const;
  void add_filter_params(size_t rel, size_t other, ParamRequest& r) const;
  bool add_filter_key(size_t rel, size_t other, const JoinFilterClause& f, ParamRequest& r) const;
  std::vector<Clause> moved_clauses(size_t rel, const ParamRequest& r,
                                    std::vector<TypedExpr>& outer_values) const;
  std::optional<std::vector<size_t>> memo_sides(size_t rel, const ParamRequest& r,
                                                std::vector<TypedExpr>& values) const;
  void set_memo_keys(JoinPath& path, const ParamRequest& r, const std::vector<size_t>& applied,
                     const std::vector<size_t>& sides, const std::vector<TypedExpr>& values) const;
  // A var slot of `rel` back to its table column.
  static void to_columns(TypedExpr& e, uint32_t first_var);
  std::optional<RestrictClause> expression_member_clause(uint32_t c, std::optional<uint32_t> m1,
                                                         std::optional<uint32_t> m2, Relids rel1,
                                                         Relids rel2, bool semi_or_anti,
                                                         double inner_rows) const;
  Relids class_relids(const JoinClass& c) const;
  bool has_join_clauses(const JoinRelation& r) const;
  bool have_relevant_joinclause(const JoinRelation& a, const JoinRelation& b) const;
  bool have_join_order_restriction(const JoinRelation& a, const JoinRelation& b) const;
  bool has_legal_joinclause(const JoinRelation& r) const;
  bool joinable(const JoinRelation& a, const JoinRelation& b) const;
  void make_join_rel(size_t r1, size_t r2);
  double pair_rows(JoinKind kind, const RestrictList& restrict, double outer_rows,
                   double inner_rows) const;
  std::shared_ptr<const RestrictList> restrictlist(Relids rel1, Relids rel2, JoinKind kind) const;
  void mark_equi(RestrictClause& c, Relids rel1, Relids rel2, uint32_t key) const;
  std::pair<std::optional<uint32_t>, std::optional<uint32_t>> class_members(size_t c, Relids rel1,
                                                                            Relids rel2) const;
  // Pathkeys of a Join Filter's own equality: after every var's.
  static constexpr uint32_t kOwnKeys = 0x40000000u;
  uint32_t expression_key(const TypedExpr& side, uint32_t own) const;
  // `semi_inner`: an anti join's inner relations, whose estimators it uses.
  double clause_selectivity(const TypedExpr& e, Relids semi_inner = 0,
                            double inner_rows = -1) const;
  ::tp::JoinVar join_var(uint32_t var) const;
  void set_cheapest(JoinRelation& r) const;
  void mark_dummy(JoinRelation& r) const;
  std::vector<PathKey> useful_pathkeys(const JoinRelation& r, std::vector<PathKey> keys) const;

  // add_paths_to_joinrel and its three parts (join_methods.cc).
  void add_paths(JoinRelation& join, const JoinRelation& outer, const JoinRelation& inner,
                 const std::shared_ptr<const RestrictList>& restrict, JoinKind kind,
                 UniqueSide unique = UniqueSide::kNone, JoinPathPtr unique_path = nullptr);
  void sort_inner_and_outer(Pair& p);
  void match_unsorted_outer(Pair& p);
  void merge_paths_for_outer(Pair& p, const JoinPathPtr& outer, const std::vector<PathKey>& keys,
                             bool partial = false);
  void hash_inner_and_outer(Pair& p);
  // create_unique_path (join_unique.cc): `rel` distinct on a semi join's right vars.
  JoinPathPtr unique_path(const JoinRelation& rel, const SpecialJoin& sj);
  double semi_rhs_groups(const SpecialJoin& sj, double rows) const;
  // get_loop_count (join_unique.cc): how often `other` rescans a scan of `rel`.
  double loop_count(size_t rel, size_t other) const;
  JoinPathPtr memoize_path(const Pair& p, const JoinPath& outer, const JoinPathPtr& inner) const;
  // `partial`: a partial path over a partial outer path (try_partial_*_path), kept by
  // add_partial_path after its precheck.
  // Whether a nested loop over `inner` looks it up ahead (nestloop_prefetch), its
  // saving taken off `in`'s inner costs when prefetch_aware priced it.
  bool nestloop_batch(const Pair& p, const JoinPath& inner, NestLoopInput& in) const;
  void try_nestloop(Pair& p, const JoinPathPtr& outer, const JoinPathPtr& inner,
                    std::vector<PathKey> pathkeys, bool partial = false);
  void try_mergejoin(Pair& p, const JoinPathPtr& outer, const JoinPathPtr& inner,
                     std::vector<PathKey> pathkeys, const std::vector<size_t>& clauses,
                     std::vector<PathKey> outer_sort, std::vector<PathKey> inner_sort,
                     bool partial = false);
  void try_hashjoin(Pair& p, const JoinPathPtr& outer, const JoinPathPtr& inner,
                    bool partial = false);
  // Partial paths (join_partial.cc): the pair's partial outer and safe inner paths,
  // consider_parallel_nestloop, consider_parallel_mergejoin, and a join relation's
  // Gather (generate_gather_paths).
  void prepare_partial(Pair& p) const;
  void consider_parallel_nestloop(Pair& p);
  void consider_parallel_mergejoin(Pair& p);
  void add_gather_path(JoinRelation& r, bool base = false) const;
  // Where a path's rows and precheck go: the relation's rows, or a participant's share.
  double path_rows(const Pair& p, const JoinPath& outer, bool partial) const;
  bool keep_partial(const Pair& p, double initial_total, const std::vector<PathKey>& keys) const;
  void add_join_path(Pair& p, std::shared_ptr<JoinPath> path, bool partial);
  bool inner_is_unique(const JoinRelation& inner, const RestrictList& r, JoinKind kind) const;
  MergeScanFractions scan_fractions(const RestrictClause& c, const JoinPath& outer,
                                    const std::vector<PathKey>& order) const;
  HashBucketStats bucket_stats(const RestrictClause& c, const TypedExpr& inner_key, double buckets);
  // The pair's merge and hash clauses; false when a FULL join has a clause that is no
  // merge clause (no Merge Full Join then).
  bool select_equi_clauses(Pair& p) const;
  uint32_t outer_key(const Pair& p, size_t clause) const;
  // The inner side's sort keys matching `outer_keys` of `merge` clauses.
  std::vector<PathKey> inner_keys_for(const Pair& p, const std::vector<size_t>& merge,
                                      const std::vector<PathKey>& outer_keys) const;
  std::vector<PathKey> join_pathkeys(const Pair& p, const std::vector<PathKey>& outer) const;
  std::vector<PathKey> outer_keys_for_merge(const Pair& p,
                                            const std::vector<size_t>& clauses) const;
  QualCost quals_cost(const RestrictList& r, const std::vector<size_t>* only = nullptr) const;
  double approx_tuple_count(const JoinPath& outer, const JoinPath& inner, const RestrictList& r,
                            const std::vector<size_t>& clauses) const;

  const PlanContext& ctx_;
  const CostSettings& cs_;
  const JoinQuery& q_;
  std::vector<JoinBaseInput> base_;
  std::vector<PathKey> query_pathkeys_;
  bool consider_startup_;
  // The relations may have partial paths (PostgreSQL's consider_parallel).
  bool consider_parallel_ = false;
  std::vector<uint32_t> var_key_;                           // per var: its class, or classes + var
  std::vector<std::pair<uint32_t, uint32_t>> merge_pairs_;  // outer_join_merge_pairs
  struct ExpressionMergeSide {
    uint32_t key;
    Relids side;   // the relations the expression reads
    Relids other;  // the clause's other side's
  };
  std::vector<ExpressionMergeSide> expression_merge_sides_;
  std::vector<JoinRelation> rels_;  // base relations first
  std::map<Relids, size_t> index_;  // relids -> rels_
  std::vector<std::vector<size_t>> levels_;
  // estimate_hash_bucket_stats as cached on the clause for its inner side.
  std::map<std::pair<std::string, std::string>, HashBucketStats> bucket_cache_;
  std::map<Relids, JoinPathPtr> unique_cache_;  // create_unique_path's, per relation
};

}  // namespace tp
