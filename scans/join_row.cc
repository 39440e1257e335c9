#include "scans/join_row.h"

#include <cassert>
#include <cstring>

#include "engine/core/datetime.h"
#include "scans/exec_node.h"

namespace tp::scans {

std::string join_node_name(const char* base, JoinType type) {
  std::string name = base;
  switch (type) {
    case JoinType::kInner:
      // "Nested Loop" alone; "Hash Join", "Merge Join".
      return name == "Nested Loop" ? name : name + " Join";
    case JoinType::kLeft:
      return name + " Left Join";
    case JoinType::kRight:
      return name + " Right Join";
    case JoinType::kFull:
      return name + " Full Join";
    case JoinType::kSemi:
      return name + " Semi Join";
    case JoinType::kAnti:
      return name + " Anti Join";
  }
  return name;
}

JoinRows::JoinRows(const JoinSpec& spec)
    : spec_(spec),
      outer_width_(uint32_t(spec.outer_types.size())),
      inner_width_(uint32_t(spec.inner_types.size())),
      values_(size_t(outer_width_) + inner_width_, 0),
      nulls_(std::make_unique<bool[]>(size_t(outer_width_) + inner_width_ + 1)) {
  std::vector<TypeId> types;
  for (uint32_t k = 0; k < spec_.output.size(); ++k) {
    const uint32_t s = spec_.output[k];
    assert(s < outer_width_ + inner_width_);
    assert(s < outer_width_ || (spec_.type != JoinType::kSemi && spec_.type != JoinType::kAnti));
    const bool outer = s < outer_width_;
    const TypeId t = outer ? spec_.outer_types[s] : spec_.inner_types[s - outer_width_];
    types.push_back(t);
    if (!type_info(t).byval) ref_slots_[outer ? 0 : 1].push_back({k, type_info(t).len});
  }
  shape_ = std::make_shared<const RowShape>(std::move(types));
  // CURRENT_DATE in a join filter is the statement's; one time for every pair.
  eval_.statement_time = timestamp_now();
}

void JoinRows::set_side(int side, RowRef r) {
  const uint32_t at = side == 0 ? 0 : outer_width_;
  const uint32_t width = side == 0 ? outer_width_ : inner_width_;
  Datum* v = values_.data() + at;
  if (width > 0) std::memcpy(v, r.values, sizeof(Datum) * width);
  bool* n = nulls_.get() + at;
  const uint8_t bit = uint8_t(1u << side);
  null_sides_ &= uint8_t(~bit);
  if (r.nulls == nullptr) {
    std::memset(n, 0, width);
    return;
  }
  for (uint32_t s = 0; s < width; ++s) {
    n[s] = r.nulls[s] != 0;
    if (!n[s]) continue;
    v[s] = 0;  // an output row's NULL slot holds 0, as RowBatch::set_null leaves it
    null_sides_ |= bit;
  }
}

void JoinRows::set_side_null(int side) {
  const uint32_t at = side == 0 ? 0 : outer_width_;
  const uint32_t width = side == 0 ? outer_width_ : inner_width_;
  std::fill_n(values_.data() + at, width, Datum(0));
  std::fill_n(nulls_.get() + at, width, true);
  if (width > 0) null_sides_ |= uint8_t(1u << side);
}

bool JoinRows::filter_passes(uint64_t& removed) {
  if (!spec_.filter) return true;
  // The filter's intermediates are dead once it has answered.
  eval_arena_.clear();
  if (evaluate_qual(*spec_.filter, values_.data(), nulls_.get(), eval_)) return true;
  ++removed;
  return false;
}

void JoinRows::start_batch(RowBatch& out, uint32_t rows) {
  out.shape = shape_;
  out.reset(output_width(), rows);
  kept_[0] = kept_[1] = 0;
}

void JoinRows::emit_null_flags(RowBatch& out) {
  uint8_t* flags = out.null_flags(out.count);
  for (size_t k = 0; k < spec_.output.size(); ++k) flags[k] = nulls_[spec_.output[k]] ? 1 : 0;
}

void JoinRows::keep_refs(RowBatch& out, int side) {
  if (ref_slots_[side].empty()) return;
  for (uint32_t r = kept_[side]; r < out.count; ++r) {
    Datum* v = out.row(r);
    for (const RefSlot& s : ref_slots_[side]) {
      if (out.is_null(r, s.slot)) continue;
      v[s.slot] = out.arena.copy(datum_pointer(v[s.slot]), datum_ref_size(s.typlen, v[s.slot]));
    }
  }
  kept_[side] = out.count;
}

namespace {
bool integers_equal(TypeId, Datum a, Datum b) {
  return a == b;
}
bool bytes_equal(TypeId, Datum a, Datum b) {
  return varlena_payload(datum_pointer(a)) == varlena_payload(datum_pointer(b));
}
bool typed_equal(TypeId t, Datum a, Datum b) {
  return compare_datums(t, a, b) == 0;
}
}  // namespace

KeyEquality::KeyEquality(const std::vector<TypeId>& types) : types_(types) {
  for (TypeId t : types_) {
    const bool integral = datum_is_integral(t);
    const bool bytes = t == TypeId::kText || t == TypeId::kVarchar;
    equal_.push_back(integral ? integers_equal : bytes ? bytes_equal : typed_equal);
    integral_ = integral_ && integral;
  }
}

bool JoinRows::qual_passes() {
  eval_arena_.clear();
  if (evaluate_qual(*spec_.qual, values_.data(), nulls_.get(), eval_)) return true;
  ++qual_removed_;
  return false;
}

void explain_join_filter(const JoinRows& rows, uint64_t removed, uint64_t loops, bool analyze,
                         std::vector<std::string>& lines) {
  const JoinSpec& spec = rows.spec();
  if (spec.filter) {
    lines.push_back("Join Filter: " +
                    (spec.filter_text.empty() ? deparse(*spec.filter) : spec.filter_text));
    if (analyze && removed > 0) lines.push_back(rows_removed_line("Join Filter", removed, loops));
  }
  if (spec.qual) {
    lines.push_back("Filter: " + (spec.qual_text.empty() ? deparse(*spec.qual) : spec.qual_text));
    if (analyze && rows.qual_removed() > 0)
      lines.push_back(rows_removed_line("Filter", rows.qual_removed(), loops));
  }
}

}  // namespace tp::scans
