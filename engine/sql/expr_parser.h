// Expressions of tidepool's SQL, lowest precedence first as PostgreSQL 15's gram.y
// (OR, AND, NOT, IS tests, comparisons, BETWEEN / IN / LIKE, ||, + -, * / %, unary
// sign, ::casts, primaries: CASE, CAST and the SQL-syntax functions among them, in
// expr_parser_special.cc). Nesting is bounded: the recursion by a depth count and
// check_stack_depth(), every tree by its height (engine/core/stack_depth.h), so no
// later walk can overflow the stack.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/stack_depth.h"
#include "engine/sql/ast.h"
#include "engine/sql/token_cursor.h"
#include "engine/sql/type_name.h"

namespace tp::sql {

class ExprParser : public TokenCursor {
 public:
  ExprParser(std::string_view text, std::vector<std::string>* notices);

  // One expression at the cursor.
  ExprPtr expr();

 protected:
  // A type name at the cursor, with its modifiers (engine/sql/type_name.h).
  TypeRef type_name();

 private:
  // type_name.cc: the parts of PostgreSQL's Typename rule.
  TypeRef sql_type(const Token& word);
  TypeRef generic_type(const Token& name);
  TypeRef character_type(bool varying, int position);
  TypeRef timestamp_type(int position);
  TypeRef interval_type(int position);
  [[noreturn]] void refuse_type(const std::string& name, int position) const;
  int32_t unsigned_modifier();
  std::vector<int64_t> modifier_list(int type_position);
  int32_t datetime_precision(const char* type);
  int32_t checked_precision(const char* type, int64_t p, int position, const char* suffix = "");
  int32_t interval_modifiers(const std::vector<int64_t>& mods, int position);
  // A WARNING from the parse (kParseWarning): PostgreSQL's at `position`.
  void warn(const std::string& message) {
    if (notices_) notices_->push_back(std::string(kParseWarning) + message);
  }

  static ExprPtr numeric_constant(const Token& t);
  ExprPtr or_expr();
  [[gnu::noinline]] ExprPtr or_rest(ExprPtr left);
  ExprPtr and_expr();
  [[gnu::noinline]] ExprPtr and_rest(ExprPtr left);
  ExprPtr not_expr();
  [[gnu::noinline]] ExprPtr negation();
  ExprPtr comparison();
  [[gnu::noinline]] ExprPtr comparison_rest(ExprPtr left);
  [[gnu::noinline]] ExprPtr predicate(ExprPtr left);
  [[gnu::noinline]] ExprPtr null_test(ExprPtr left);
  [[gnu::noinline]] ExprPtr array_comparison(ExprPtr left, const std::string& op, int pos);
  bool integer_items(Expr& e);
  ExprPtr operator_expr();
  [[gnu::noinline]] ExprPtr operator_rest(ExprPtr left);
  ExprPtr additive();
  [[gnu::noinline]] ExprPtr additive_rest(ExprPtr left);
  ExprPtr multiplicative();
  [[gnu::noinline]] ExprPtr multiplicative_rest(ExprPtr left);
  ExprPtr at_time_zone();
  ExprPtr column_ref(const Token& t);
  ExprPtr unary();
  [[gnu::noinline]] ExprPtr signed_operand();
  ExprPtr cast();
  [[gnu::noinline]] ExprPtr cast_rest(ExprPtr e);
  ExprPtr cast_to_type(ExprPtr operand, int pos);
  std::string cast_target(const TypeRef& t) const;
  ExprPtr primary();
  void refuse_subquery() const;

 protected:
  // A SELECT in parentheses (EXISTS (...), x IN (...), a subquery in FROM), at its SELECT:
  // the statement parser reads it; an expression alone refuses it.
  virtual std::shared_ptr<const Select> subselect();

 private:
  [[gnu::noinline]] ExprPtr primary_leaf();
  ExprPtr parameter(const Token& t);
  [[gnu::noinline]] ExprPtr function_call(const Token& name);

  // expr_parser_special.cc: the forms PostgreSQL's grammar spells out with keywords.
  // `word` is an unquoted identifier at the cursor; null when it starts none of them.
  [[gnu::noinline]] ExprPtr keyword_form(const Token& word);
  ExprPtr typed_literal(const Token& word);
  ExprPtr case_expr(int pos);
  ExprPtr cast_call(int pos);
  ExprPtr sql_function(const char* name, int pos);
  ExprPtr extract_call(int pos);
  ExprPtr position_call(int pos);
  ExprPtr substring_call(int pos);
  ExprPtr trim_call(int pos);

  std::vector<std::string>* notices_;
  int max_depth_;
  int depth_ = 0;  // expression nesting of the current recursion

  // One level of recursion into a nested expression: bounded in count and in stack.
  class Nest {
   public:
    explicit Nest(ExprParser& p) : p_(p) {
      if (++p_.depth_ > p_.max_depth_) {
        --p_.depth_;
        throw_stack_depth_exceeded();
      }
      check_stack_depth();
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    ExprParser& p_;
  };

  // Sets the height of a node whose arguments are complete; refuses trees
  // deeper than the bound, so none exists for later walks (or ~Expr) to recurse through.
  ExprPtr sealed(ExprPtr e) const {
    int h = 0;
    for (const auto& a : e->args) h = std::max(h, a->height);
    e->height = h + 1;
    if (e->height > max_depth_) throw_stack_depth_exceeded();
    return e;
  }
};

}  // namespace tp::sql
