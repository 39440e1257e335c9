// Limits instead of stack overflows: PostgreSQL's check_stack_depth() and the
// expression-depth bound that keeps every recursive walk of a parsed expression
// (binding, evaluation, deparsing, destruction) inside the stack.
//
// Two guards, one setting (`max_stack_depth`, kB, PostgreSQL's default 2MB):
//  1. check_stack_depth() measures how much of the current thread's stack is in
//     use (its top, from pthread_getattr_np, minus the current frame address)
//     and throws `stack depth limit exceeded` past max_stack_depth (or past the
//     thread's own stack size less a safety margin, if that is smaller). The
//     parser and the evaluator call it at each level of recursion. It measures
//     real bytes, so it adapts to frames that ASan makes several times larger.
//  2. max_expression_depth() bounds the height of an expression tree at parse
//     time (one level per kStackBytesPerExpressionLevel of max_stack_depth:
//     1024 levels by default). No deeper tree is ever built, so code that
//     recurses over a tree without checking (a unique_ptr chain's destructor,
//     the planner's walks) needs at most that many frames.
// Both raise the same error, with PostgreSQL's hint.
//
// The limit is process-wide, as a PostgreSQL backend's GUC is per process:
// SET max_stack_depth in one session applies to every session of the process.
#pragma once

#include <cstdint>

namespace tp {

// Stack budgeted per level of expression nesting when bounding tree height.
inline constexpr int64_t kStackBytesPerExpressionLevel = 2048;

// Throws tp::Error("stack depth limit exceeded") when the current thread has
// used more stack than max_stack_depth allows.
void check_stack_depth();

// The error check_stack_depth() throws, for other depth bounds to share.
[[noreturn]] void throw_stack_depth_exceeded();

// The current limit in kB (the max_stack_depth setting).
int64_t max_stack_depth_kb();

// Sets the limit; throws tp::Error (PostgreSQL's message) when it exceeds what
// the platform's stack rlimit leaves (platform_stack_limit_kb()).
void set_max_stack_depth_kb(int64_t kb);

// Sets the limit as a statement starts (a Session's value, checked when it was set),
// without an error: check_stack_depth() and max_expression_depth() still hold each
// thread to its own stack.
void apply_max_stack_depth_kb(int64_t kb);

// The largest max_stack_depth the platform allows: the stack rlimit or the calling
// thread's own stack, whichever is smaller, less 512 kB (PostgreSQL's margin); -1 when
// neither is known.
int64_t platform_stack_limit_kb();

// max_stack_depth_kb(), or less when the calling thread's stack is smaller.
int64_t effective_stack_depth_kb();

// Deepest expression tree the parser builds under the current limit.
int max_expression_depth();

}  // namespace tp
