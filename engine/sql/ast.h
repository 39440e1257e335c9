// The parsed form of a statement. Kept deliberately plain: the binder and
// planner read it, nothing rewrites it in place.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/core/session_memory.h"
#include "engine/sql/type_name.h"

namespace tp::sql {

enum class ExprKind {
  kIntConst,   // ival
  kNumConst,   // dval (a literal with a decimal point or exponent: PostgreSQL's numeric)
  kStrConst,   // sval
  kBoolConst,  // ival 0/1
  kNullConst,
  kColumnRef,  // name
  kStar,       // * in a target list or count(*)
  // name(args); star_arg for count(*). sql_syntax: written in SQL's own syntax, which
  // deparse prints back: extract (args: the field, lower case, as a kStrConst; the
  // source), position (POSITION(args[0] IN args[1])), substring (SUBSTRING(s FROM a
  // [FOR b]); FOR alone makes a 1), btrim / ltrim / rtrim (TRIM([BOTH | LEADING |
  // TRAILING] [chars FROM] s): args [s] or [s, chars]), current_date,
  // current_timestamp, localtimestamp (no args).
  kFuncCall,
  kUnary,    // op "-" or "+", args[0]
  kBinary,   // op in + - * / % ||, args[0], args[1]
  kCompare,  // op in = <> < <= > >=, args[0], args[1]
  kAnd,      // args (two or more)
  kOr,       // args (two or more)
  kNot,      // args[0]
  kBetween,  // args[0] BETWEEN args[1] AND args[2]; negated for NOT BETWEEN
  kInList,   // args[0] IN (args[1..], or int_items); negated for NOT IN
  kCast,     // args[0]::type (or CAST(args[0] AS type)): cast_type; name, sval below
  kIsNull,   // args[0] IS NULL; negated for IS NOT NULL
  // args[0] LIKE args[1] [ESCAPE args[2]]: name "~~" (LIKE) or "~~*" (ILIKE), as
  // PostgreSQL's operators; negated for NOT LIKE / NOT ILIKE.
  kLike,
  // CASE [operand] WHEN w THEN t ... [ELSE e] END: args are the operand when
  // case_operand, then each WHEN's (w, t) in order, then e when case_else.
  kCase,
  kBoolTest,  // args[0] IS TRUE / FALSE / UNKNOWN: name "true", "false", "unknown"; negated: IS NOT
  // A subquery (PostgreSQL's SubLink) over `subselect`: name "exists" (EXISTS (...)),
  // "in" (args[0] IN (SELECT ...), negated for NOT IN) or "expr" ((SELECT ...), a scalar
  // subquery).
  kSubLink,
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct Select;

// A statement's parse makes at most this many expression nodes (160 bytes
// each, more with their names and lists): a bound on its memory however its text is written (SELECT
// 1,1,1,... or a VALUES list of millions of rows), refused with 54001 past it. IN lists of plain
// integers take no nodes (Expr::int_items).
inline constexpr uint64_t kMaxParsedNodes = 1'000'000;

// About what one parsed node takes (the 160-byte Expr, the allocator's header,
// its place in its parent's list, a name past the string's inline 15 bytes):
// the parse's share of its session's memory (engine/core/session_memory.h) is
// counted at this much per node.
inline constexpr uint64_t kParsedNodeBytes = 256;

// The running parse's node budget, set for the length of one parse_statement
// call (which sets one when none is set; a test may set a smaller one around
// it). With a TrackedMemory, it also publishes what the parse has made so far.
class ParsedNodeBudget {
 public:
  explicit ParsedNodeBudget(uint64_t nodes = kMaxParsedNodes, TrackedMemory* memory = nullptr)
      : left_(nodes), memory_(memory), saved_(current()) {
    current() = this;
  }
  ~ParsedNodeBudget() { current() = saved_; }
  ParsedNodeBudget(const ParsedNodeBudget&) = delete;
  ParsedNodeBudget& operator=(const ParsedNodeBudget&) = delete;

  // The running parse's budget, or null outside a parse (the planner's own
  // nodes are not counted).
  static ParsedNodeBudget*& current() {
    thread_local ParsedNodeBudget* budget = nullptr;
    return budget;
  }
  // Throws 54001 when no node is left; publishes the memory every 4,096 nodes.
  void take_node();
  // An integer of an IN list (8 bytes, no node).
  void take_int_item() {
    if (++int_items_ % 4096 == 0) publish();
  }
  // The parse's memory so far: nodes and IN-list integers.
  uint64_t bytes() const { return made_ * kParsedNodeBytes + int_items_ * sizeof(int64_t); }
  void publish() {
    if (memory_ != nullptr) memory_->set(bytes());
  }

 private:
  uint64_t left_;
  uint64_t made_ = 0;
  uint64_t int_items_ = 0;
  TrackedMemory* memory_;
  ParsedNodeBudget* saved_;
};

// Counts a node against the running parse's budget, if any.
inline void count_parsed_node() {
  if (ParsedNodeBudget* b = ParsedNodeBudget::current()) b->take_node();
}

struct Expr {
  ExprKind kind;
  int position = 0;  // 1-based offset in the statement text
  std::string name;  // column or function name, operator, cast type
  // kColumnRef / kStar written qualified (`t.a`, `t.*`): the table; `sval` then holds
  // the schema when that is written too (`public.t.a`).
  std::string qualifier;
  int64_t ival = 0;
  double dval = 0;
  std::string sval;  // string constant; for NumConst the literal text (exact, signed)
  std::vector<ExprPtr> args;
  std::shared_ptr<const Select> subselect;  // kSubLink
  // kInList whose every item is a plain integer literal (IN (1, 2, 3)): the items, in
  // order, in place of args[1..] (8 bytes each instead of a node: a list of millions).
  std::vector<int64_t> int_items;
  bool negated = false;
  // kInList written `= ANY (array)` / `<> ALL (array)`: PostgreSQL keeps it an array
  // operator whatever its length (only IN (v) becomes v's comparison).
  bool array = false;
  bool star_arg = false;
  bool symmetric = false;     // kBetween: BETWEEN SYMMETRIC (the bounds in either order)
  bool distinct = false;      // kFuncCall: an aggregate over distinct values (count(DISTINCT a))
  bool sql_syntax = false;    // kFuncCall: written in SQL's syntax (EXTRACT(f FROM x), ...)
  bool case_operand = false;  // kCase: args[0] is the operand (CASE x WHEN ...)
  bool case_else = false;     // kCase: the last arg is the ELSE result
  // The $n this node stands for (engine/sql/params.h): a parameter's value, in place of
  // the literal it is; 0 for everything else.
  int param = 0;
  // Height of the tree below and including this node (1 for a leaf). The parser
  // bounds it (engine/core/stack_depth.h), so every recursive walk of a tree is bounded.
  int height = 1;
  // kCast: the target type as written (id, typmod, where its name starts). `name` is
  // what the constant evaluator (engine/sql/value.h) casts to: "int", "bigint",
  // "float8", "numeric", "text", "regclass", or "" for a type it has no values of
  // (casts to those are refused when evaluated); `sval` is pg_type's name (the
  // column name PostgreSQL gives a cast). A cast to regclass, which has no TypeId,
  // is told by `name` alone: only cast_type.position is set then.
  TypeRef cast_type;

  Expr(ExprKind k, int pos) : kind(k), position(pos) { count_parsed_node(); }
};

struct ColumnDef {
  std::string name;
  TypeRef type;
  bool primary_key = false;
  bool not_null = false;
  int position = 0;
};

// One `name [= value]` of a storage option list: WITH (...), SET (...), RESET (...).
struct RelOption {
  std::string name;
  std::optional<std::string> value;  // as written (a number, word or string's text)
  int position = 0;
};

struct CreateTable {
  std::string name;
  int name_position = 0;
  std::vector<ColumnDef> columns;
  std::vector<std::string> primary_key;  // from a column or a table constraint
  int primary_key_position = 0;
  std::optional<int> fillfactor;
  std::optional<int> parallel_workers;
  bool if_not_exists = false;
};

// ALTER TABLE [IF EXISTS] name SET (option = value, ...) | RESET (option, ...) |
// ADD [CONSTRAINT name] PRIMARY KEY (columns).
struct AlterTable {
  std::string name;
  int name_position = 0;
  bool if_exists = false;
  bool reset = false;
  std::vector<RelOption> options;
  std::vector<std::string> add_primary_key;  // ADD PRIMARY KEY's columns
  std::string constraint_name;               // ADD CONSTRAINT name PRIMARY KEY
  int add_position = 0;
};

struct DropTable {
  std::vector<std::string> names;
  bool if_exists = false;
};

struct Truncate {
  std::vector<std::string> names;
};

struct Target {
  ExprPtr expr;
  std::string alias;  // empty: derived from the expression as PostgreSQL does
};

// How a FROM item joins its two sides (`sides`): a comma of the FROM list, CROSS JOIN,
// or a qualified join with ON or USING. kNone: the item is a table or a function.
enum class JoinKind : uint8_t { kNone, kComma, kCross, kInner, kLeft, kRight, kFull };

struct FromItem {
  bool is_function = false;  // generate_series(...) rather than a table
  JoinKind join = JoinKind::kNone;
  std::string name;    // table or function name
  std::string schema;  // "public" or "pg_catalog" when the name was qualified
  int position = 0;
  std::vector<ExprPtr> func_args;
  std::string alias;                        // s in generate_series(...) s(i)
  std::vector<std::string> column_aliases;  // i in s(i)
  // A join: its left and right items, the ON condition or the USING columns.
  std::vector<FromItem> sides;
  ExprPtr on;
  std::vector<std::string> using_columns;
  // A subquery in FROM: `(SELECT ...) alias [(columns)]` (alias and column_aliases above).
  std::shared_ptr<const Select> subquery;
  // `LATERAL (SELECT ...)`: the subquery may read the FROM items before it.
  bool lateral = false;
  // Set by the planner only (engine/plan/lateral.h): the table a LATERAL subquery it
  // plans on its own reads, by the name EXPLAIN gives it.
  std::string lateral_outer;
  // Set by the planner only (engine/plan/from_subqueries.h): the WHERE of a subquery pulled
  // up in this item's place, filtering it as PostgreSQL's pulled-up FromExpr quals do.
  ExprPtr pulled_quals;

  bool is_join() const { return join != JoinKind::kNone; }
  // A single table (not a function, not a join, not a subquery).
  bool is_table() const { return !is_function && !is_join() && !subquery; }
};

struct OrderItem {
  ExprPtr expr;
  bool descending = false;
  // NULLS FIRST / LAST as written; nullopt: the default (NULLS FIRST exactly when DESC).
  std::optional<bool> nulls_first;
};

// One `name [(columns)] AS [[NOT] MATERIALIZED] (SELECT ...)` of a WITH clause.
struct CommonTableExpr {
  std::string name;
  int position = 0;
  std::vector<std::string> column_aliases;
  std::shared_ptr<const Select> query;
  std::optional<bool> materialized;  // AS MATERIALIZED / AS NOT MATERIALIZED as written
};

struct SetOperation;

struct Select {
  std::vector<CommonTableExpr> with;  // WITH's queries, in order
  // `left UNION [ALL] right`: this Select's ORDER BY, LIMIT and OFFSET apply to the whole
  // and its other fields are unused. Null: a plain SELECT (or VALUES).
  std::shared_ptr<const SetOperation> set_operation;
  // The planner pulled its subqueries in FROM (and WITH's) up into this copy: it is
  // planned by the join planner, whose names it prints qualified, as PostgreSQL does for
  // a query whose range table holds more than one entry.
  bool pulled_up = false;
  bool distinct = false;             // SELECT DISTINCT (also with ON)
  std::vector<ExprPtr> distinct_on;  // SELECT DISTINCT ON (expr, ...)
  std::vector<Target> targets;
  std::optional<FromItem> from;
  ExprPtr where;
  // GROUP BY items (columns, expressions, output ordinals) and HAVING.
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  int group_by_position = 0;  // where GROUP BY starts (errors about it point there)
  std::vector<OrderItem> order_by;
  std::optional<int64_t> limit;   // LIMIT n or FETCH FIRST n ROWS ONLY
  std::optional<int64_t> offset;  // OFFSET n [ROWS]
  // VALUES (...), (...) as a row source (INSERT ... VALUES); targets unused then.
  std::vector<std::vector<ExprPtr>> values;
};

// `left UNION [ALL] right`, PostgreSQL's SetOperationStmt (left-deep as written: `a UNION
// b UNION ALL c` is `(a UNION b) UNION ALL c`). A side is a plain SELECT (a parenthesised
// one with its own ORDER BY / LIMIT) or another set operation.
struct SetOperation {
  bool all = false;
  int position = 0;  // where UNION stands
  std::shared_ptr<const Select> left;
  std::shared_ptr<const Select> right;
};

struct Insert {
  std::string table;
  int table_position = 0;
  std::vector<std::string> columns;  // empty: all, in order
  Select source;
};

struct SetStmt {
  std::string name;
  std::string value;        // as written ('128MB' without quotes, on, 4, ...)
  bool to_default = false;  // SET x TO DEFAULT
  int value_position = 0;
};

struct ShowStmt {
  std::string name;  // "all" for SHOW ALL
};

struct ResetStmt {
  std::string name;  // "all" for RESET ALL
};

struct CreateIndex {
  std::string name;  // empty: generated as PostgreSQL does (t_a_idx)
  std::string table;
  std::vector<std::string> columns;
  bool unique = false;
  bool if_not_exists = false;
  std::optional<bool> deduplicate_items;  // WITH (deduplicate_items = ...)
};

struct DropIndex {
  std::vector<std::string> names;
  bool if_exists = false;
};

struct ExplainOptions {
  bool analyze = false;
  bool buffers = false;
  bool timing = true;
  bool costs = true;
  bool verbose = false;
  bool json = false;
};

struct Analyze {
  std::vector<std::string> tables;  // empty: every table
  bool vacuum = false;
  // VACUUM's options, parenthesised or the old keywords (FULL FREEZE VERBOSE
  // ANALYZE), as written; engine/session/vacuum.cc accepts ANALYZE alone.
  std::vector<std::string> options;
};

// BEGIN / START TRANSACTION, COMMIT / END, ROLLBACK / ABORT: a block's writes commit
// or roll back together (engine/session/transaction_block.cc).
struct TransactionStmt {
  enum class Kind { kBegin, kCommit, kRollback } kind = Kind::kBegin;
  bool read_only = false;  // BEGIN READ ONLY: a write in the block is 25006
};

// COPY table [(columns)] FROM STDIN, COPY {table [(columns)] | (query)} TO STDOUT, with
// the format's options resolved (engine/sql/copy_statement.cc): the delimiter, NULL
// string, quote and escape as PostgreSQL defaults them for the format.
struct CopyStmt {
  enum class Format : uint8_t { kText, kCsv, kBinary };
  std::string table;  // empty for COPY (query) TO
  int table_position = 0;
  std::vector<std::string> columns;     // empty: every column, in order
  std::shared_ptr<const Select> query;  // COPY (query) TO
  bool from = true;
  Format format = Format::kText;
  bool header = false;        // the first line names the columns
  bool header_match = false;  // HEADER MATCH: COPY FROM checks those names
  bool freeze = false;
  std::string delimiter;
  std::string null_string;
  std::string quote;
  std::string escape;
};

// PREPARE name [(types)] AS statement: the statement's text, parsed when prepared
// (its $n need the parameters' context).
struct PrepareStmt {
  std::string name;
  std::vector<TypeRef> types;
  std::string text;
};

// EXECUTE name [(values)]; under EXPLAIN, `explain` is EXPLAIN's text before it
// ("EXPLAIN (ANALYZE) "), run again over the prepared statement.
struct ExecuteStmt {
  std::string name;
  std::vector<ExprPtr> args;
  int position = 0;
  std::string explain;
};

// DEALLOCATE [PREPARE] {name | ALL}; DISCARD ALL.
struct DeallocateStmt {
  std::string name;  // empty: ALL
  bool discard = false;
};

struct Explain;

using Statement =
    std::variant<CreateTable, DropTable, Truncate, Insert, Select, SetStmt, ShowStmt, ResetStmt,
                 CreateIndex, DropIndex, Analyze, AlterTable, TransactionStmt, CopyStmt,
                 PrepareStmt, ExecuteStmt, DeallocateStmt, std::unique_ptr<Explain>>;

struct Explain {
  ExplainOptions options;
  Statement statement;
};

// One statement with the text it came from (for error carets).
struct ParsedStatement {
  Statement statement;
  std::string text;
};

}  // namespace tp::sql
