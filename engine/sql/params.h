// A statement's parameters, $1 .. $n: the extended query protocol's (Parse, Bind) and
// SQL EXECUTE's. tidepool plans every execution with its parameters' values, as
// PostgreSQL's custom plans do: the parser puts each value where its `$n` stands, as
// the literal PostgreSQL's planner sees once it has substituted the Param.
//
//   typed $n (a type given at Parse, or inferred)   CAST('value' AS type), or NULL::type
//   $n of unknown type                               'value' (an untyped literal), or NULL
//
// An untyped literal takes its type from its context when it is bound, and so does a
// parameter of unknown type: the binder reports the type it gets (`infer`), which is
// how Parse learns the types of the parameters the client did not give (PostgreSQL's
// variable parameters). Parse runs the statement's analysis with `describing` set:
// every value NULL, any $n allowed (a parameter past the ones given is unknown).
//
//   sql::StatementParams params({TypeId::kInt4}, /*describing=*/true);
//   sql::ScopedParams scope(params);  // for the parse, binding and planning
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/core/types.h"

namespace tp::sql {

struct ParamSlot {
  std::optional<TypeId> type;  // none: unknown, its context decides
  bool isnull = true;
  std::string text;  // the value in its type's text form (when not NULL)
};

// PostgreSQL's limit on a statement's parameters (the protocol counts them in 16 bits).
inline constexpr int kMaxParams = 65535;

class StatementParams {
 public:
  StatementParams() = default;
  StatementParams(std::vector<ParamSlot> slots, bool describing)
      : slots_(std::move(slots)), describing_(describing) {}

  bool describing() const { return describing_; }
  // A generic plan (PostgreSQL's plan cache): the statement is parsed and planned with
  // each typed $n a Param whose value the plan reads when it runs (the slots' values
  // then), so that one plan serves every execution. Parsing sees NULLs, as describing.
  bool generic() const { return generic_; }
  void set_generic(bool generic) { generic_ = generic; }
  // The slot of $n (1-based), or null when the statement has no $n. While describing,
  // any $n up to kMaxParams exists (unknown until inferred).
  const ParamSlot* slot(int n);
  // The binder found $n's type from its context (the first context decides).
  void infer(int n, TypeId type);
  // The highest $n seen or given, and each one's type (unknown ones empty).
  const std::vector<ParamSlot>& slots() const { return slots_; }

 private:
  std::vector<ParamSlot> slots_;
  bool describing_ = false;
  bool generic_ = false;
};

// The parameters of the statement this thread parses and plans, or null.
StatementParams* current_params();

// True for the NULL that stands for $param while a statement is only described or
// planned generically: a value not known yet, which no folding may take for a NULL (a
// WHERE over it is bound, so that its parameters get their types, or become Params).
inline bool param_value_unknown(int param) {
  const StatementParams* p = param != 0 ? current_params() : nullptr;
  return p != nullptr && (p->describing() || p->generic());
}

// True where $param becomes a Param of a generic plan (a TypedExpr kParam with `param`
// set) rather than a constant.
inline bool generic_param(int param) {
  const StatementParams* p = param != 0 ? current_params() : nullptr;
  return p != nullptr && p->generic();
}

class ScopedParams {
 public:
  explicit ScopedParams(StatementParams* params) : saved_(current_params()) { set(params); }
  ~ScopedParams() { set(saved_); }
  ScopedParams(const ScopedParams&) = delete;
  ScopedParams& operator=(const ScopedParams&) = delete;

 private:
  static void set(StatementParams* params);
  StatementParams* saved_;
};

}  // namespace tp::sql
