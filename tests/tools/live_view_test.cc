// The live view's snapshot (tools/live/live_view.h) and its HTTP (tools/live/http.h):
// the cells match the pool's buffers state by state, a large pool is aggregated into
// bounded cells whose mix adds up, a click's rows are pg_buffercache's, a running
// scan's read stream shows under its session and its ring's buffers are listed, and
// requests are parsed strictly.
#include <gmock/gmock.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "tests/support/test_util.h"
#include "tools/live/http.h"
#include "tools/live/live_view.h"

namespace tp::live {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;

class LiveViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DatabaseOptions o;
    o.data_dir = dir_.data();
    o.settings = {"shared_buffers=2MB"};  // 256 buffers
    db_ = Database::open(o);
    s_ = std::make_unique<Session>(db_);
    s_->execute("CREATE TABLE t (a int, b int)");
    s_->execute("INSERT INTO t SELECT i, i FROM generate_series(1, 5000) s(i)");
  }
  int count(const Json& pool, CellState st) {
    int n = 0;
    for (int s : pool["state"]) n += s == int(st) ? 1 : 0;
    return n;
  }

  testing::TempDir dir_;
  std::shared_ptr<Database> db_;
  std::unique_ptr<Session> s_;
};

TEST_F(LiveViewTest, EachBufferIsACellInTheStateThePoolGivesIt) {
  s_->storage().evict_all();  // writes the dirty pages back, then empties the pool
  s_->execute("SELECT count(*) FROM t");
  const auto buffers = db_->storage().pool().snapshot();
  int valid = 0;
  for (const auto& b : buffers) valid += b.state == bufmgr::BufferState::kValid ? 1 : 0;
  ASSERT_GT(valid, 10);

  LiveView view(*db_);
  const Json j = Json::parse(view.next_json());
  const Json& pool = j["pool"];
  EXPECT_EQ(pool["buffers"], 256);
  EXPECT_EQ(pool["cell"], 1);
  EXPECT_EQ(pool["cells"], 256);
  EXPECT_EQ(pool["state"].size(), 256u);
  EXPECT_FALSE(pool.contains("mix"));
  EXPECT_EQ(count(pool, CellState::kValid), valid);
  EXPECT_EQ(count(pool, CellState::kFree), 256 - valid);
  EXPECT_GE(pool["hand"].get<int>(), 0);
  EXPECT_LT(pool["hand"].get<int>(), 256);
  // Every non-free cell names a relation of the legend, and t is one of them.
  bool saw_t = false;
  for (const Json& r : j["relations"]) saw_t = saw_t || r["name"] == "t";
  EXPECT_TRUE(saw_t) << j["relations"];
  for (size_t c = 0; c < 256; ++c) {
    if (pool["state"][c] == int(CellState::kFree)) {
      EXPECT_EQ(pool["rel"][c], -1);
    } else {
      EXPECT_LT(pool["rel"][c].get<int>(), int(j["relations"].size()));
      EXPECT_GE(pool["usage"][c].get<int>(), 10);  // a page read once has usage 1 or more
    }
  }
  // This session is listed with its last statement; nothing is in flight now.
  ASSERT_FALSE(j["sessions"].empty());
  EXPECT_THAT(j["sessions"][0]["query"].get<std::string>(), HasSubstr("count(*)"));
  EXPECT_EQ(j["io"]["ios"].size(), 0u);
  EXPECT_EQ(j["seq"], 1);
  EXPECT_EQ(Json::parse(view.next_json())["seq"], 2);
}

// A page held is a pinned cell; let go after a change, a dirty one.
TEST_F(LiveViewTest, PinnedAndDirtyBuffersAreCellsOfTheirOwn) {
  s_->storage().evict_all();
  const RelationEntry* t = nullptr;
  const auto catalog = db_->data_dir().catalog_snapshot();
  for (const RelationEntry& e : catalog->relations)
    if (e.name == "t") t = &e;
  ASSERT_NE(t, nullptr);
  bufmgr::BufferPool& pool = db_->storage().pool();
  LiveView view(*db_);
  {
    bufmgr::WriteGuard page = pool.read_buffer(db_->storage().file(*t), 0).lock_exclusive();
    const Json held = Json::parse(view.next_json())["pool"];
    EXPECT_EQ(count(held, CellState::kPinned), 1);
    EXPECT_EQ(count(held, CellState::kDirty), 0);
    page.mark_dirty();  // the same bytes: written back unchanged later
  }
  const Json after = Json::parse(view.next_json())["pool"];
  EXPECT_EQ(count(after, CellState::kPinned), 0);
  EXPECT_EQ(count(after, CellState::kDirty), 1);
}

TEST_F(LiveViewTest, ALargePoolIsDrawnInBoundedCellsWhoseMixAddsUp) {
  s_->execute("SELECT count(*) FROM t");
  LiveLimits limits;
  limits.max_cells = 10;
  LiveView view(*db_, limits);
  const Json pool = Json::parse(view.next_json())["pool"];
  EXPECT_EQ(pool["cell"], 26);  // ceil(256 / 10)
  EXPECT_EQ(pool["cells"], 10);
  ASSERT_EQ(pool["mix"].size(), 10u * kCellStates);
  int total = 0, valid = 0;
  for (size_t i = 0; i < pool["mix"].size(); ++i) {
    total += pool["mix"][i].get<int>();
    if (i % kCellStates == size_t(CellState::kValid)) valid += pool["mix"][i].get<int>();
  }
  EXPECT_EQ(total, 256);
  EXPECT_GT(valid, 0);
  EXPECT_EQ(buffers_per_cell(256, 10), 26);
  EXPECT_EQ(buffers_per_cell(256, 4096), 1);
  EXPECT_EQ(buffers_per_cell(0, 4096), 1);
}

TEST_F(LiveViewTest, ACellsRowsArePgBuffercachesRows) {
  s_->execute("SELECT count(*) FROM t");
  LiveView view(*db_);
  const Json pool = Json::parse(view.next_json())["pool"];
  size_t used = 0;
  while (used < 256 && pool["state"][used] == int(CellState::kFree)) ++used;
  ASSERT_LT(used, 256u);
  const Json cell = Json::parse(view.cell_json(int64_t(used)));
  ASSERT_EQ(cell["buffers"].size(), 1u);
  const Json& b = cell["buffers"][0];
  const auto rows = s_->execute(
                          "SELECT relation, relblocknumber, usagecount FROM pg_buffercache "
                          "WHERE bufferid = " +
                          std::to_string(used + 1))
                        .rows;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(b["bufferid"], used + 1);
  EXPECT_EQ(b["relation"], rows[0][0]);
  EXPECT_EQ(std::to_string(b["relblocknumber"].get<int64_t>()), rows[0][1]);
  EXPECT_EQ(view.cell_json(256), "null");
  EXPECT_EQ(view.cell_json(-1), "null");
}

// Takes a snapshot when the statement's `at`th row comes, while its scan is open.
class SnapshotAtRow : public RowSink {
 public:
  SnapshotAtRow(LiveView& view, int at) : view_(view), at_(at) {}
  void begin(const ResultSet& /*header*/) override {}
  void row(const std::vector<std::string>& /*cells*/, const std::vector<bool>* /*nulls*/) override {
    if (++rows_ == at_) json = view_.next_json();
  }
  std::string json;

 private:
  LiveView& view_;
  int at_;
  int rows_ = 0;
};

// A session's open read streams show under it with their look-ahead, and are gone
// when the statement ends.
TEST_F(LiveViewTest, ASessionsReadStreamsShowWhileItsScanRuns) {
  s_->execute("CREATE INDEX t_a ON t (a)");
  s_->execute("SET enable_seqscan = off");
  s_->execute("SET enable_bitmapscan = off");
  s_->execute("SET index_prefetch = immediate");
  s_->storage().evict_all();
  LiveView view(*db_);
  SnapshotAtRow sink(view, 100);
  s_->execute("SELECT a FROM t WHERE a > 0 AND b > 0", &sink);
  ASSERT_FALSE(sink.json.empty());
  const Json sessions = Json::parse(sink.json)["sessions"];
  ASSERT_EQ(sessions.size(), 1u);
  // Two streams: the heap pages', and the B-tree's leaf read-ahead.
  const Json& streams = sessions[0]["streams"];
  ASSERT_EQ(streams.size(), 2u) << streams.dump();
  std::set<std::string> labels;
  for (const Json& s : streams) {
    labels.insert(s["label"].get<std::string>());
    EXPECT_EQ(s["worker"], 0);
    EXPECT_GE(s["distance"].get<int>(), 1);
    EXPECT_GE(s["max"].get<int>(), s["distance"].get<int>());
    EXPECT_LE(s["pinned"].get<int>(), s["max"].get<int>());
    EXPECT_LE(s["ios"].get<int>(), s["pinned"].get<int>());
  }
  EXPECT_EQ(labels, (std::set<std::string>{"index heap", "index leaves"}));
  // The I/Os this session's streams have in flight say whose they are.
  const Json io = Json::parse(sink.json)["io"];
  for (const Json& r : io["ios"])
    EXPECT_EQ(r["who"], r["thread"] == sessions[0]["pid"] ? "session" : "parallel worker") << r;
  const Json after = Json::parse(view.next_json())["sessions"];
  EXPECT_TRUE(after[0]["streams"].empty()) << after.dump();
}

// A seq scan of a table over a quarter of the pool runs in a ring: its cells are
// listed while it runs (each holding one of the table's pages), and gone after.
TEST_F(LiveViewTest, ASeqScansRingIsListedWhileItRuns) {
  s_->execute("CREATE TABLE big (a int, b int)");
  s_->execute("INSERT INTO big SELECT i, i FROM generate_series(1, 30000) s(i)");  // 133 pages
  s_->storage().evict_all();
  LiveView view(*db_);
  SnapshotAtRow sink(view, 20000);
  s_->execute("SELECT a FROM big", &sink);
  ASSERT_FALSE(sink.json.empty());
  const Json j = Json::parse(sink.json);
  ASSERT_EQ(j["rings"].size(), 1u) << j["rings"].dump();
  const Json& ring = j["rings"][0];
  EXPECT_EQ(ring["kind"], "bulk read");
  EXPECT_EQ(ring["slots"], 32);  // an eighth of the 256-buffer pool
  EXPECT_GE(ring["cells"].size(), 2u);
  EXPECT_LE(ring["cells"].size(), 32u);
  const int big = [&] {
    const Json& legend = j["relations"];
    for (size_t i = 0; i < legend.size(); ++i)
      if (legend[i]["name"] == "big") return int(i);
    return -1;
  }();
  ASSERT_GE(big, 0);
  for (const Json& c : ring["cells"]) EXPECT_EQ(j["pool"]["rel"][c.get<size_t>()], big) << c;
  EXPECT_TRUE(Json::parse(view.next_json())["rings"].empty());
  // The session's stream showed too, as a seq scan's.
  const Json& streams = j["sessions"][0]["streams"];
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0]["label"], "seq scan");
}

TEST(LiveHttp, ParsesOnlyARequestLineABrowserSends) {
  HttpRequest r;
  EXPECT_EQ(parse_request("GET /events?hz=2 HTTP/1.1\r\nHost: x\r\n", r), ParseStatus::kIncomplete);
  ASSERT_EQ(parse_request("GET /events?hz=2 HTTP/1.1\r\nHost: x\r\n\r\n", r),
            ParseStatus::kComplete);
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/events");
  EXPECT_EQ(r.query, "hz=2");
  EXPECT_EQ(query_param(r.query, "hz"), "2");
  EXPECT_EQ(query_param("a=1&hz=7&b", "hz"), "7");
  EXPECT_EQ(query_param("a=1&b", "hz"), "");
  for (const char* bad :
       {"GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/2\r\n\r\n", "GET relative HTTP/1.1\r\n\r\n",
        "GET /a b HTTP/1.1\r\n\r\n", "G3T / HTTP/1.1\r\n\r\n", " / HTTP/1.1\r\n\r\n"})
    EXPECT_EQ(parse_request(bad, r), ParseStatus::kBad) << bad;
  EXPECT_EQ(parse_request(std::string(kMaxRequestHead, 'a'), r), ParseStatus::kTooLarge);
  const std::string response = http_response(404, "text/plain", "not found\n");
  EXPECT_THAT(response, HasSubstr("HTTP/1.1 404 Not Found\r\n"));
  EXPECT_THAT(response, HasSubstr("Content-Length: 10\r\n"));
  EXPECT_EQ(response.substr(response.size() - 10), "not found\n");
  EXPECT_EQ(http_response(200, "text/html", "<p>", true).find("<p>"), std::string::npos);
  EXPECT_EQ(event("{\"a\":1}"), "data: {\"a\":1}\n\n");
}

}  // namespace
}  // namespace tp::live
