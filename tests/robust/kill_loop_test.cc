// kill -9 at random moments of INSERT, CREATE INDEX, DROP INDEX, TRUNCATE,
// CREATE/DROP TABLE, ALTER TABLE SET/RESET (parallel_workers), VACUUM [ANALYZE] run by the
// `tidepool sql` binary; after each kill the directory is reopened and must hold the state before
// the statement or the state after it (row counts, the set of relations), every index present
// must pass tp_verify, t's visibility map must be sound, and an Index Only Scan trusting it must
// count every row. The seed is printed; TIDEPOOL_KILL_SEED=N replays a run,
// TIDEPOOL_KILL_ITERATIONS=N and TIDEPOOL_KILL_SECONDS=S change its length.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <vector>

#include "engine/storage/visibility_map.h"
#include "tests/robust/child_process.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using namespace std::chrono_literals;
using testing::ChildProcess;
using testing::options_for;
using testing::scalar;
using testing::TempDir;

// What the directory holds, as far as the loop changes it.
struct State {
  uint64_t t_rows = 0;
  std::set<std::string> indexes;  // of t
  bool side = false;              // table "side" exists
  uint64_t side_rows = 0;
  int parallel_workers = -1;  // t's option; -1: not set

  bool operator==(const State&) const = default;
  std::string text() const {
    std::string s = "t rows " + std::to_string(t_rows) + ", indexes {";
    for (const auto& i : indexes) s += " " + i;
    s += " }, side ";
    s += side ? "rows " + std::to_string(side_rows) : "absent";
    s += ", parallel_workers " + std::to_string(parallel_workers);
    return s;
  }
};

// Reads the state through a fresh session (recovery runs as it opens) and
// checks every index with the verifier and every table's rows by a scan.
State observe(const std::string& data) {
  Session s(options_for(data));
  State st;
  const RelationEntry* t = s.catalog().find("t");
  EXPECT_NE(t, nullptr);
  if (!t) return st;
  st.t_rows = std::stoull(scalar(s, "SELECT count(*) FROM t"));
  st.parallel_workers = t->parallel_workers;
  EXPECT_EQ(st.t_rows, t->rows) << "the catalog's row count differs from the heap's";
  for (const RelationEntry* idx : s.catalog().indexes_of(t->oid)) {
    st.indexes.insert(idx->name);
    std::string verdict = scalar(s, "SELECT tp_verify('" + idx->name + "')");
    EXPECT_EQ(verdict.rfind("index \"" + idx->name + "\" is valid", 0), 0u) << verdict;
  }
  for (const std::string& why :
       verify_visibility_map(s.data_dir().vm_path(t->relnumber), BlockNumber(t->pages)))
    ADD_FAILURE() << why;
  {
    // t_a is always there: an Index Only Scan of it skips the pages the map marks.
    s.execute("SET enable_seqscan = off");
    s.execute("SET enable_bitmapscan = off");
    EXPECT_EQ(scalar(s, "SELECT count(a) FROM t WHERE a > -1"), std::to_string(t->rows));
  }
  if (s.catalog().find("side")) {
    st.side = true;
    st.side_rows = std::stoull(scalar(s, "SELECT count(*) FROM side"));
  }
  return st;
}

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

TEST(KillLoop, OldOrNewContentsAfterEveryKill) {
  const uint64_t seed = env_or("TIDEPOOL_KILL_SEED", std::random_device{}());
  const uint64_t iterations = env_or("TIDEPOOL_KILL_ITERATIONS", 30);
  std::printf("kill loop: seed %llu, %llu iterations (TIDEPOOL_KILL_SEED=%llu replays it)\n",
              (unsigned long long)seed, (unsigned long long)iterations, (unsigned long long)seed);
  RecordProperty("seed", std::to_string(seed));
  std::mt19937_64 rng(seed);
  TempDir tmp;
  const std::string data = tmp.data();
  {
    Session s(options_for(data));
    s.execute("CREATE TABLE t (a int, b bigint)");
    s.execute("CREATE INDEX t_a ON t (a)");
    s.execute("INSERT INTO t SELECT g, g * 7 FROM generate_series(1, 5000) g");
  }
  State state = observe(data);
  ASSERT_EQ(state.t_rows, 5000u);
  // 18 s: the suite's per-test budget under ASan; TIDEPOOL_KILL_SECONDS for longer runs.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(env_or("TIDEPOOL_KILL_SECONDS", 18));
  int killed = 0, finished = 0;
  for (uint64_t it = 0; it < iterations && std::chrono::steady_clock::now() < deadline; ++it) {
    State next = state;
    std::string sql;
    switch (rng() % 8) {
      case 0:
      case 1: {
        if (state.t_rows > 150000) {
          sql = "TRUNCATE t";
          next.t_rows = 0;
          break;
        }
        uint64_t n = 5000 + rng() % 30000;
        sql = "INSERT INTO t SELECT g, g FROM generate_series(1, " + std::to_string(n) +
              ") g ORDER BY random()";
        next.t_rows += n;
        break;
      }
      case 2: {
        std::string name = "t_b" + std::to_string(it);
        sql = "CREATE INDEX " + name + " ON t (b, a)";
        next.indexes.insert(name);
        break;
      }
      case 3: {
        std::vector<std::string> extra;  // t_a stays: INSERT keeps one index up to date
        for (const auto& name : state.indexes)
          if (name != "t_a") extra.push_back(name);
        if (extra.empty()) {
          sql = "TRUNCATE t";
          next.t_rows = 0;
          break;
        }
        const std::string victim = extra[rng() % extra.size()];
        sql = "DROP INDEX " + victim;
        next.indexes.erase(victim);
        break;
      }
      case 4:
        sql = "TRUNCATE t";
        next.t_rows = 0;
        break;
      case 5:
        if (state.parallel_workers >= 0) {
          sql = "ALTER TABLE t RESET (parallel_workers)";
          next.parallel_workers = -1;
        } else {
          next.parallel_workers = int(rng() % 9);
          sql = "ALTER TABLE t SET (parallel_workers = " + std::to_string(next.parallel_workers) +
                ")";
        }
        break;
      case 6:
        sql = rng() % 2 ? "VACUUM t" : "VACUUM ANALYZE";  // changes no row or relation
        break;
      default:
        if (state.side) {
          sql = "DROP TABLE side";
          next.side = false;
          next.side_rows = 0;
        } else {
          sql = "CREATE TABLE side (x int PRIMARY KEY)";
          next.side = true;
        }
        break;
    }
    const auto delay = std::chrono::microseconds(rng() % 400000);
    SCOPED_TRACE("iteration " + std::to_string(it) + ": " + sql + ", kill after " +
                 std::to_string(delay.count()) + " us, seed " + std::to_string(seed));
    {
      ChildProcess child({"sql", "-D", data, "-c", sql}, tmp.path());
      if (child.wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(delay))) {
        ++finished;
        EXPECT_TRUE(WIFEXITED(child.status()) && WEXITSTATUS(child.status()) == 0)
            << child.describe() << "\n"
            << child.stderr_text();
      } else {
        child.signal(SIGKILL);
        child.wait();
        ++killed;
      }
    }
    State seen;
    try {
      seen = observe(data);
    } catch (const Error& e) {
      ADD_FAILURE() << "reopening after the kill: " << e.what();
      break;
    }
    EXPECT_TRUE(seen == state || seen == next)
        << "after the kill: " << seen.text() << "\nbefore: " << state.text()
        << "\nafter the statement: " << next.text();
    if (::testing::Test::HasFailure()) break;
    state = seen;
  }
  std::printf("kill loop: %d killed mid-run, %d finished first\n", killed, finished);
  EXPECT_GT(killed, 0);
}

}  // namespace
}  // namespace tp
