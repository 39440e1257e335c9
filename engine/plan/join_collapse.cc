#include "engine/plan/join_collapse.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"

namespace tp {
namespace {

// An item of a joinlist: a relation, or a sub-list.
struct Item {
  Relids relids = 0;
  std::vector<Item> list;  // a sub-list's items (empty: a relation)
};

class Deconstructor {
 public:
  Deconstructor(const PlannerSettings& s, int position) : s_(s), position_(position) {}

  // The query's joinlist: its FROM clause is a FromExpr of one item or a comma list.
  std::vector<Item> top(const JoinTreeNode& root) {
    std::vector<Item> list = from_list(root);
    check_geqo(list);
    return list;
  }

  std::vector<Relids> units;

 private:
  // A FromExpr: its items in order, each one's list concatenated while the whole stays
  // within from_collapse_limit (counting the items still to come), else a sub-list.
  std::vector<Item> from_list(const JoinTreeNode& node) {
    std::vector<const JoinTreeNode*> items;
    collect_commas(node, items);
    std::vector<Item> out;
    size_t remaining = items.size();
    for (const JoinTreeNode* item : items) {
      std::vector<Item> sub = recurse(*item);
      --remaining;
      if (sub.size() <= 1 || out.size() + sub.size() + remaining <= size_t(s_.from_collapse_limit))
        out.insert(out.end(), sub.begin(), sub.end());
      else
        out.push_back(sublist(std::move(sub)));
    }
    return out;
  }

  static void collect_commas(const JoinTreeNode& node, std::vector<const JoinTreeNode*>& out) {
    if (node.rel < 0 && node.comma) {
      collect_commas(*node.left, out);
      collect_commas(*node.right, out);
      return;
    }
    out.push_back(&node);
  }

  std::vector<Item> recurse(const JoinTreeNode& node) {
    check_stack_depth();
    if (node.rel >= 0) return {Item{node.relids, {}}};
    if (node.comma) return from_list(node);
    // Below a pulled-up sublink's join, the FROM items still to join (unless another
    // sublink's join comes first) and the subquery's are each a FromExpr.
    const bool from_left = node.sublink && !node.left->sublink;
    std::vector<Item> left = from_left ? from_list(*node.left) : recurse(*node.left);
    std::vector<Item> right = node.sublink ? from_list(*node.right) : recurse(*node.right);
    if (node.kind == JoinKind::kFull) {
      // The join order is forced exactly here.
      std::vector<Item> pair;
      pair.push_back(sublist(std::move(left)));
      pair.push_back(sublist(std::move(right)));
      return {sublist(std::move(pair))};
    }
    if (left.size() + right.size() <= size_t(s_.join_collapse_limit)) {
      left.insert(left.end(), right.begin(), right.end());
      return left;
    }
    std::vector<Item> out;
    out.push_back(left.size() == 1 ? left[0] : sublist(std::move(left)));
    out.push_back(right.size() == 1 ? right[0] : sublist(std::move(right)));
    return out;
  }

  Item sublist(std::vector<Item> items) {
    check_geqo(items);
    Item out;
    for (const Item& i : items) out.relids |= i.relids;
    out.list = std::move(items);
    if (out.list.size() > 1) units.push_back(out.relids);
    return out;
  }

  void check_geqo(const std::vector<Item>& list) const {
    if (!s_.geqo || list.size() < size_t(s_.geqo_threshold)) return;
    throw Error("a join search of " + std::to_string(list.size()) +
                " FROM items is not supported with geqo on: PostgreSQL gives it to its "
                "genetic optimizer (geqo_threshold is " +
                std::to_string(s_.geqo_threshold) +
                "), which tidepool does not have; set geqo = off or raise geqo_threshold")
        .at_position(position_)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  }

  const PlannerSettings& s_;
  int position_;
};

}  // namespace

JoinSubproblems join_subproblems(const JoinTreeNode& tree, const PlannerSettings& settings,
                                 int position) {
  Deconstructor d(settings, position);
  d.top(tree);
  return {std::move(d.units)};
}

bool respects_units(const std::vector<Relids>& units, Relids relids) {
  return std::all_of(units.begin(), units.end(), [relids](Relids u) {
    const Relids common = relids & u;
    return common == 0 || common == u || common == relids;
  });
}

}  // namespace tp
