// ExecParams: the run-time parameters of a plan (PostgreSQL's PARAM_EXEC values). A
// Nested Loop sets them from its current outer row before it rescans its inner side; a
// parameterized node below reads them (an inner Index Scan's `o.cust = $0` once the
// planner builds those; a test node here).
//
//   ExecParams params({TypeId::kInt4, TypeId::kText});
//   params.set_from_row({0, 2}, outer_row, outer_shape);  // $0 = slot 0, $1 = slot 2
//   inner->rescan();                                       // reads params.value(0)
//
// A by-reference value is copied into the parameters' own arena, because the outer
// row's batch is replaced when the Nested Loop reads its next outer batch while the
// inner side may still hold the value (a Materialize's stored key). The arena is
// emptied, not freed, at each set: copying an outer row's values costs no allocation
// once the arena has grown to the largest row's values.
//
// `generation()` counts the sets. A node that can keep its work across rescans
// (Materialize, Hash) remembers the generation it was built under and rebuilds only
// when it moved: PostgreSQL's chgParam, for the parameters that node's subtree reads.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/datum.h"
#include "engine/core/datum_ops.h"
#include "engine/core/types.h"
#include "engine/core/value_arena.h"
#include "scans/row_batch.h"

namespace tp::scans {

class ExecParams {
 public:
  explicit ExecParams(std::vector<TypeId> types)
      : types_(std::move(types)), values_(types_.size(), 0), nulls_(types_.size(), 1) {
    for (TypeId t : types_) typlen_.push_back(type_info(t).byval ? 0 : type_info(t).len);
  }

  // One more parameter, while the plan is built (a value the plan derives from the
  // others, such as an outer value cast to an index key's type); its index.
  size_t add(TypeId t) {
    types_.push_back(t);
    typlen_.push_back(type_info(t).byval ? 0 : type_info(t).len);
    values_.push_back(0);
    nulls_.push_back(1);
    return types_.size() - 1;
  }

  size_t size() const { return types_.size(); }
  TypeId type(size_t i) const { return types_[i]; }
  Datum value(size_t i) const { return values_[i]; }
  bool is_null(size_t i) const { return nulls_[i] != 0; }
  uint64_t generation() const { return generation_; }

  // $i = slots[i] of `row` for every parameter (slots.size() == size()); the previous
  // values' bytes are forgotten.
  void set_from_row(const std::vector<uint32_t>& slots, RowRef row) {
    arena_.clear();
    for (size_t i = 0; i < slots.size(); ++i) {
      const uint32_t s = slots[i];
      if (row.is_null(s)) {
        nulls_[i] = 1;
        values_[i] = 0;
        continue;
      }
      nulls_[i] = 0;
      const Datum d = row.values[s];
      values_[i] =
          typlen_[i] == 0 ? d : arena_.copy(datum_pointer(d), datum_ref_size(typlen_[i], d));
    }
    ++generation_;
  }
  // One parameter, for a caller that is not a Nested Loop (a test, an InitPlan later);
  // the by-reference bytes must live until the next set.
  void set(size_t i, Datum d, bool isnull) {
    values_[i] = isnull ? 0 : d;
    nulls_[i] = isnull ? 1 : 0;
    ++generation_;
  }

 private:
  std::vector<TypeId> types_;
  std::vector<int16_t> typlen_;  // 0: by value; else the type's length (-1: varlena)
  std::vector<Datum> values_;
  std::vector<uint8_t> nulls_;
  ValueArena arena_;
  uint64_t generation_ = 0;
};

// A generic plan's $n (PostgreSQL's PARAM_EXTERN) that an index key reads: entry `index`
// of `params`, set to the execution's value of $n before the plan runs. `params` belongs
// to the plan (its subquery host, or the plan itself).
struct ExternKey {
  ExecParams* params = nullptr;
  size_t index = 0;
  int n = 0;
};

}  // namespace tp::scans
