#include "engine/core/stack_depth.h"

#include <pthread.h>
#include <sys/resource.h>

#include <atomic>
#include <string>

#include "engine/core/error.h"

namespace tp {
namespace {

constexpr int64_t kDefaultKb = 2048;
constexpr int64_t kPlatformMarginKb = 512;  // PostgreSQL's STACK_DEPTH_SLOP

std::atomic<int64_t> g_limit_kb{kDefaultKb};

// The current thread's stack: its highest address (stacks grow down here) and
// size. Looked up once per thread.
struct ThreadStack {
  uintptr_t top = 0;
  int64_t size = 0;
};

ThreadStack lookup_thread_stack() {
  ThreadStack ts;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return ts;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    ts.top = reinterpret_cast<uintptr_t>(addr) + size;
    ts.size = int64_t(size);
  }
  pthread_attr_destroy(&attr);
  return ts;
}

const ThreadStack& thread_stack() {
  thread_local ThreadStack ts = lookup_thread_stack();
  return ts;
}

}  // namespace

[[noreturn]] void throw_stack_depth_exceeded() {
  throw Error("stack depth limit exceeded", "",
              "Increase the configuration parameter \"max_stack_depth\" (currently " +
                  std::to_string(max_stack_depth_kb()) +
                  "kB), after ensuring the platform's stack depth limit is adequate.")
      .with_sqlstate(sqlstate::kStatementTooComplex);
}

void check_stack_depth() {
  const ThreadStack& ts = thread_stack();
  if (ts.top == 0) return;  // unknown stack: only the expression-depth bound applies
  auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  int64_t used = here < ts.top ? int64_t(ts.top - here) : 0;
  int64_t limit = g_limit_kb.load(std::memory_order_relaxed) * 1024;
  // A thread with a small stack (a worker's) keeps a quarter of it as a margin.
  int64_t own = ts.size - ts.size / 4;
  if (used > limit || used > own) throw_stack_depth_exceeded();
}

int64_t max_stack_depth_kb() {
  return g_limit_kb.load(std::memory_order_relaxed);
}

int64_t platform_stack_limit_kb() {
  // The calling thread's own stack: under `ulimit -s unlimited` the rlimit bounds
  // nothing, but a server's connection thread still has the stack it was made with.
  const ThreadStack& ts = thread_stack();
  int64_t kb = -1;
  if (ts.size > 0) kb = ts.size / 1024 - kPlatformMarginKb;
  // Read once per thread: every parse asks (max_expression_depth), and the process's
  // stack rlimit does not change under a running thread's stack.
  thread_local const rlimit rl = [] {
    rlimit r{};
    if (getrlimit(RLIMIT_STACK, &r) != 0) r.rlim_cur = RLIM_INFINITY;
    return r;
  }();
  if (rl.rlim_cur != RLIM_INFINITY) {
    const int64_t by_rlimit = int64_t(rl.rlim_cur / 1024) - kPlatformMarginKb;
    if (kb < 0 || by_rlimit < kb) kb = by_rlimit;
  }
  return kb < 0 && ts.size > 0 ? 0 : kb;
}

int64_t effective_stack_depth_kb() {
  const int64_t limit = max_stack_depth_kb();
  const int64_t platform = platform_stack_limit_kb();
  return platform >= 0 && platform < limit ? platform : limit;
}

void apply_max_stack_depth_kb(int64_t kb) {
  // Validated when it was set; a thread with a smaller stack than the one that set it
  // is held to its own by check_stack_depth() and max_expression_depth().
  g_limit_kb.store(kb, std::memory_order_relaxed);
}

void set_max_stack_depth_kb(int64_t kb) {
  int64_t platform = platform_stack_limit_kb();
  if (platform >= 0 && kb > platform)
    throw Error("\"max_stack_depth\" must not exceed " + std::to_string(platform) + "kB.", "",
                "Increase the platform's stack depth limit via \"ulimit -s\" or local "
                "equivalent.")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  g_limit_kb.store(kb, std::memory_order_relaxed);
}

int max_expression_depth() {
  // Bounded by this thread's stack too: the trees it builds are walked (and destroyed)
  // by recursions that do not check, here and on threads with stacks of the same size.
  return int(effective_stack_depth_kb() * 1024 / kStackBytesPerExpressionLevel);
}

}  // namespace tp
