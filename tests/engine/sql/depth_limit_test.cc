// Issue #10: deeply nested input is PostgreSQL's "stack depth limit exceeded",
// never a stack overflow (in the parser, the evaluator, the planner's walks or
// the parse tree's destructor). Run under ASan, where frames are largest.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>

#include <functional>

#include "engine/core/stack_depth.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::scalar;
using testing::TempDir;

const char* const kHint =
    "Increase the configuration parameter \"max_stack_depth\" (currently 2048kB), after "
    "ensuring the platform's stack depth limit is adequate.";

std::string repeat(const std::string& s, int n) {
  std::string out;
  out.reserve(s.size() * size_t(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// The error of a statement, with its hint; "" when it succeeds.
std::string depth_error(Session& s, const std::string& sql) {
  try {
    s.execute(sql);
  } catch (const Error& e) {
    EXPECT_EQ(e.hint(), kHint);
    return e.what();
  }
  return "";
}

class DepthLimit : public ::testing::Test {
 protected:
  DepthLimit() : s_(testing::options_for(tmp_.data())) {
    s_.execute("CREATE TABLE t (a int, b int)");
    s_.execute("INSERT INTO t VALUES (1, 2)");
  }
  TempDir tmp_;
  Session s_;
};

TEST_F(DepthLimit, HostileNestingIsAnErrorNotACrash) {
  const std::string kErr = "stack depth limit exceeded";
  EXPECT_EQ(depth_error(s_, "SELECT " + repeat("(", 10000) + "1" + repeat(")", 10000)), kErr);
  EXPECT_EQ(depth_error(s_, "SELECT " + repeat("NOT ", 50000) + "true"), kErr);
  EXPECT_EQ(depth_error(s_, "SELECT 1" + repeat(" + 1", 50000)), kErr);
  EXPECT_EQ(depth_error(s_, "SELECT 1" + repeat(" * 1", 50000)), kErr);
  EXPECT_EQ(depth_error(s_, "SELECT " + repeat("- ", 50000) + "1"), kErr);
  EXPECT_EQ(depth_error(s_, "SELECT 1" + repeat("::int", 50000)), kErr);
  EXPECT_EQ(depth_error(s_, "SELECT " + repeat("abs(", 20000) + "1" + repeat(")", 20000)), kErr);
  EXPECT_EQ(depth_error(s_, "SELECT 1 IN (" + repeat("1 IN (", 20000) + "1" + repeat(")", 20001)),
            kErr);
  EXPECT_EQ(depth_error(s_, "SELECT count(*) FROM t WHERE " + repeat("NOT ", 50000) + "a = 1"),
            kErr);
  EXPECT_EQ(depth_error(s_, "SELECT count(*) FROM t WHERE a = 0" + repeat(" + 1", 50000)), kErr);
  EXPECT_EQ(depth_error(s_, "INSERT INTO t VALUES (1" + repeat(" - 1", 50000) + ", 1)"), kErr);
  EXPECT_EQ(depth_error(s_, "EXPLAIN SELECT a FROM t WHERE " + repeat("(", 10000) + "a = 1" +
                                repeat(")", 10000)),
            kErr);
  // Unbalanced or cut off: still the limit first, never a crash.
  EXPECT_EQ(depth_error(s_, "SELECT " + repeat("(", 100000)), kErr);
  // The session is intact.
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "1");
}

TEST_F(DepthLimit, OrdinaryNestingStillWorks) {
  EXPECT_EQ(scalar(s_, "SELECT " + repeat("(", 150) + "7" + repeat(")", 150)), "7");
  EXPECT_EQ(scalar(s_, "SELECT 0" + repeat(" + 1", 500)), "500");
  EXPECT_EQ(scalar(s_, "SELECT " + repeat("NOT ", 300) + "true"), "t");
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE " + repeat("NOT ", 300) + "a = 1"), "1");
  // Wide is not deep: long AND / IN lists are flat.
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE a = 1" + repeat(" AND a > 0", 5000)), "1");
  std::string list = "0";
  for (int i = 1; i < 5000; ++i) list += ", " + std::to_string(i);
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE a IN (" + list + ")"), "1");
}

// AND and OR alternating cannot be flattened: the tree keeps its depth through
// the planner's walks, the EXPLAIN deparser and the per-row qual.
std::string alternating(int levels) {
  std::string w = "a = 1";
  for (int i = 0; i < levels; ++i)
    w = "a = 1 " + std::string(i % 2 ? "AND" : "OR") + " (" + w + ")";
  return w;
}

TEST_F(DepthLimit, TreesNearTheBoundPassThePlannerAndTheScans) {
  // 100 levels fit in 2MB even with ASan's frames (about 6 kB of parser stack a level).
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t WHERE " + alternating(100)), "1");
  EXPECT_EQ(depth_error(s_, "EXPLAIN SELECT count(*) FROM t WHERE " + alternating(100)), "");
  // Near the bound: it runs (a build with small frames) or the stack check refuses it
  // first (ASan); it never crashes.
  for (const char* prefix :
       {"SELECT count(*) FROM t WHERE ", "EXPLAIN ANALYZE SELECT a FROM t WHERE "}) {
    std::string e = depth_error(s_, prefix + alternating(1015));
    EXPECT_TRUE(e.empty() || e == "stack depth limit exceeded") << e;
  }
  EXPECT_EQ(depth_error(s_, "SELECT count(*) FROM t WHERE " + alternating(1030)),
            "stack depth limit exceeded");
}

TEST_F(DepthLimit, MaxStackDepthSettingMovesTheLimit) {
  EXPECT_EQ(s_.settings().show("max_stack_depth"), "2MB");
  EXPECT_EQ(max_expression_depth(), 1024);
  s_.execute("SET max_stack_depth = '100kB'");
  EXPECT_EQ(max_expression_depth(), 50);
  try {
    s_.execute("SELECT " + repeat("(", 60) + "1" + repeat(")", 60));
    ADD_FAILURE() << "60 levels passed a 50-level limit";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "stack depth limit exceeded");
    EXPECT_NE(e.hint().find("(currently 100kB)"), std::string::npos);
  }
  s_.execute("RESET max_stack_depth");
  EXPECT_EQ(max_stack_depth_kb(), 2048);
  int64_t platform = platform_stack_limit_kb();
  if (platform >= 0) {
    EXPECT_EQ(
        testing::error_of(s_, "SET max_stack_depth = '" + std::to_string(platform + 1) + "kB'"),
        "\"max_stack_depth\" must not exceed " + std::to_string(platform) + "kB.");
    EXPECT_EQ(max_stack_depth_kb(), 2048);  // unchanged
  }
}

// check_stack_depth() measures real stack: a recursion that uses 1 kB a level
// stops near max_stack_depth, whatever the frame size of the build.
int recurse(int level) {
  volatile char pad[1024];
  pad[0] = char(level);
  if (level > 1000000) return 0;  // never reached: 1 GB of stack
  check_stack_depth();
  return recurse(level + 1) + pad[0];
}

TEST(StackDepth, CheckMeasuresTheStack) {
  int reached = 0;
  try {
    reached = recurse(0);
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "stack depth limit exceeded");
    reached = -1;
  }
  EXPECT_EQ(reached, -1);
}

// Runs `fn` on a thread whose stack is `bytes`, as a server's connection thread has
// its own stack whatever `ulimit -s` says.
void run_on_stack(size_t bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto body = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// Issue #29: with `ulimit -s unlimited` a client could raise max_stack_depth far past
// its thread's stack and overflow it. The thread's real stack caps the setting.
TEST_F(DepthLimit, TheThreadsOwnStackCapsTheSettingUnderAnUnlimitedRlimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_STACK, &saved), 0);
  rlimit unlimited = saved;
  unlimited.rlim_cur = saved.rlim_max;  // RLIM_INFINITY where the hard limit allows
  setrlimit(RLIMIT_STACK, &unlimited);
  // A smaller stack than the setting: the statement's own walks stay within it. (First:
  // glibc may hand a later, smaller thread the cached stack of an earlier, larger one.)
  run_on_stack(1u << 20, [&] {
    EXPECT_EQ(platform_stack_limit_kb(), 512);
    EXPECT_EQ(max_expression_depth(), 512 * 1024 / int(kStackBytesPerExpressionLevel));
    EXPECT_EQ(testing::error_of(s_, "SELECT 1" + repeat(" + 1", 100000)),
              "stack depth limit exceeded");
    EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "1");
  });
  run_on_stack(4u << 20, [&] {
    EXPECT_EQ(platform_stack_limit_kb(), 4096 - 512);
    EXPECT_EQ(testing::error_of(s_, "SET max_stack_depth = '1GB'"),
              "\"max_stack_depth\" must not exceed 3584kB.");
    EXPECT_EQ(max_stack_depth_kb(), 2048);  // unchanged
    s_.execute("SET max_stack_depth = '3MB'");
    EXPECT_EQ(max_expression_depth(), 3 * 512);
    const std::string err = "stack depth limit exceeded";
    EXPECT_EQ(testing::error_of(s_, "SELECT 1" + repeat(" + 1", 200000)), err);
    EXPECT_EQ(testing::error_of(s_, "SELECT 1" + repeat("::int", 200000)), err);
    EXPECT_EQ(testing::error_of(s_, "SELECT " + repeat("(", 100000) + "1" + repeat(")", 100000)),
              err);
    s_.execute("RESET max_stack_depth");
  });
  setrlimit(RLIMIT_STACK, &saved);
  EXPECT_EQ(scalar(s_, "SELECT count(*) FROM t"), "1");
}

}  // namespace
}  // namespace tp
