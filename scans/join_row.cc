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
  for (uint32_t s : spec_.output) {
    assert(s < outer_width_ + inner_width_);
    assert(s < outer_width_ || (spec_.type != JoinType::kSemi && spec_.type != JoinType::kAnti));
    const TypeId t = s < outer_width_ ? spec_.outer_types[s] : spec_.inner_types[s - outer_width_];
    types.push_back(t);
    out_typlen_.push_back(type_info(t).byval ? 0 : type_info(t).len);
  }
  shape_ = std::make_shared<const RowShape>(std::move(types));
  // CURRENT_DATE in a join filter is the statement's; one time for every pair.
  eval_.statement_time = timestamp_now();
}

void JoinRows::set_side(uint32_t at, uint32_t width, RowRef r) {
  if (width > 0) std::memcpy(values_.data() + at, r.values, sizeof(Datum) * width);
  bool* n = nulls_.get() + at;
  if (r.nulls == nullptr)
    std::memset(n, 0, width);
  else
    for (uint32_t s = 0; s < width; ++s) n[s] = r.nulls[s] != 0;
}

void JoinRows::set_side_null(uint32_t at, uint32_t width) {
  std::fill_n(values_.data() + at, width, Datum(0));
  std::fill_n(nulls_.get() + at, width, true);
}

bool JoinRows::filter_passes(uint64_t& removed) {
  if (!spec_.filter) return true;
  // The filter's intermediates are dead once it has answered.
  eval_arena_.clear();
  if (evaluate_qual(*spec_.filter, values_.data(), nulls_.get(), eval_)) return true;
  ++removed;
  return false;
}

void JoinRows::start_batch(RowBatch& out, uint32_t rows) const {
  out.shape = shape_;
  out.reset(output_width(), rows);
}

void JoinRows::emit(RowBatch& out) {
  if (spec_.qual) {
    eval_arena_.clear();
    if (!evaluate_qual(*spec_.qual, values_.data(), nulls_.get(), eval_)) {
      ++qual_removed_;
      return;
    }
  }
  const uint32_t row = out.count;
  Datum* v = out.row(row);
  bool any_null = false;
  for (size_t k = 0; k < spec_.output.size(); ++k) {
    const uint32_t s = spec_.output[k];
    if (nulls_[s]) {
      any_null = true;
      v[k] = 0;
      continue;
    }
    const Datum d = values_[s];
    v[k] = out_typlen_[k] == 0
               ? d
               : out.arena.copy(datum_pointer(d), datum_ref_size(out_typlen_[k], d));
  }
  if (any_null || out.has_nulls) {
    uint8_t* flags = out.null_flags(row);
    for (size_t k = 0; k < spec_.output.size(); ++k) flags[k] = nulls_[spec_.output[k]] ? 1 : 0;
  }
  ++out.count;
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
