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
  rlimit rl{};
  if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return -1;
  int64_t kb = int64_t(rl.rlim_cur / 1024) - kPlatformMarginKb;
  return kb < 0 ? 0 : kb;
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
  return int(max_stack_depth_kb() * 1024 / kStackBytesPerExpressionLevel);
}

}  // namespace tp
