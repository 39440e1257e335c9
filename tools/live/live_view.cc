#include "tools/live/live_view.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>
#include <vector>

#include "aio/aio.h"
#include "engine/session/session_registry.h"
#include "engine/session/table_locks.h"
#include "engine/storage/datadir.h"

namespace tp::live {

using Json = nlohmann::json;

namespace {

// Holds the database lock in watch mode for one snapshot, if it is free now.
class WatchLock {
 public:
  explicit WatchLock(LockManager& locks)
      : locks_(locks), held_(locks.try_acquire(LockObject::database(), LockMode::kWatch)) {}
  ~WatchLock() {
    if (held_) locks_.release(LockObject::database(), LockMode::kWatch);
  }
  WatchLock(const WatchLock&) = delete;
  WatchLock& operator=(const WatchLock&) = delete;
  bool held() const { return held_; }

 private:
  LockManager& locks_;
  bool held_;
};

CellState state_of(const bufmgr::BufferPool::BufferInfo& b) {
  using bufmgr::BufferState;
  if (b.state == BufferState::kReading) return CellState::kIo;
  if (b.state != BufferState::kValid && b.state != BufferState::kDirty) return CellState::kFree;
  if (b.refcount > 0) return CellState::kPinned;
  return b.state == BufferState::kDirty ? CellState::kDirty : CellState::kValid;
}

// The relations the pool's buffers belong to, numbered in order of first sight.
class RelationIndex {
 public:
  explicit RelationIndex(Database& db) {
    for (const auto& e : db.data_dir().catalog_snapshot()->relations) names_[e.relnumber] = e.name;
  }
  int of(uint32_t relnumber) {
    auto [it, added] = index_.emplace(relnumber, int(order_.size()));
    if (added) order_.push_back(relnumber);
    return it->second;
  }
  Json legend() const {
    Json out = Json::array();
    for (uint32_t r : order_) {
      auto it = names_.find(r);
      out.push_back({{"id", r}, {"name", it != names_.end() ? it->second : std::to_string(r)}});
    }
    return out;
  }
  std::string name(uint32_t relnumber) const {
    auto it = names_.find(relnumber);
    return it != names_.end() ? it->second : std::to_string(relnumber);
  }

 private:
  std::unordered_map<uint32_t, std::string> names_;
  std::unordered_map<uint32_t, int> index_;
  std::vector<uint32_t> order_;
};

// The pool as cells: per cell its state (the most active one present: I/O, pinned,
// dirty, valid, free), usage count (tenths, the mean of its valid buffers), relation
// (the commonest) and, for cells of several buffers, how many buffers are in each state.
Json pool_json(const std::vector<bufmgr::BufferPool::BufferInfo>& buffers, int32_t hand,
               int max_cells, RelationIndex& rels) {
  const int n = int(buffers.size());
  const int per = buffers_per_cell(n, max_cells);
  const int cells = n == 0 ? 0 : (n + per - 1) / per;
  std::vector<int> state(static_cast<size_t>(cells)), usage(static_cast<size_t>(cells));
  std::vector<int> rel(static_cast<size_t>(cells), -1), mix;
  if (per > 1) mix.assign(size_t(cells) * kCellStates, 0);
  std::vector<std::pair<int, int>> counts;  // relation index, buffers of the cell
  for (int c = 0; c < cells; ++c) {
    int top = 0, usage_sum = 0, used = 0;
    counts.clear();
    for (int b = c * per; b < std::min(n, (c + 1) * per); ++b) {
      const auto& info = buffers[size_t(b)];
      const int s = int(state_of(info));
      top = std::max(top, s);
      if (per > 1) ++mix[size_t(c) * kCellStates + size_t(s)];
      if (s == int(CellState::kFree)) continue;
      usage_sum += int(info.usage);
      ++used;
      const int r = rels.of(info.tag.relnumber);
      auto it = std::find_if(counts.begin(), counts.end(), [&](auto& p) { return p.first == r; });
      if (it == counts.end())
        counts.emplace_back(r, 1);
      else
        ++it->second;
    }
    state[size_t(c)] = top;
    usage[size_t(c)] = used == 0 ? 0 : (usage_sum * 10 + used / 2) / used;
    if (!counts.empty())
      rel[size_t(c)] = std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) {
                         return a.second < b.second;
                       })->first;
  }
  Json pool = {{"buffers", n},   {"cell", per},    {"cells", cells}, {"hand", hand},
               {"state", state}, {"usage", usage}, {"rel", rel}};
  if (per > 1) pool["mix"] = mix;
  return pool;
}

// The rings alive now (a large seq scan's, a bulk load's): each ring's kind and the
// cells holding its buffers, sorted, at most `max_cells` cells over all rings.
Json rings_json(const bufmgr::BufferPool& pool, int buffers, int max_cells) {
  const int per = buffers_per_cell(buffers, max_cells);
  Json out = Json::array();
  int listed = 0;
  pool.ring_registry()->for_each([&](const bufmgr::BufferStrategy& ring) {
    std::vector<int> cells;
    for (int32_t b : ring.buffers())
      if (b >= 0 && b < buffers) cells.push_back(b / per);  // a pool resized since: left out
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    if (listed + int(cells.size()) > max_cells) return;
    listed += int(cells.size());
    out.push_back(
        {{"kind", ring.kind() == bufmgr::StrategyKind::kBulkRead ? "bulk read" : "bulk write"},
         {"slots", ring.ring_size()},
         {"cells", cells}});
  });
  return out;
}

// `sessions`: the sessions' thread ids, so that each I/O says whose it is (an I/O owned
// by another thread is a parallel worker's: the only other threads that read).
Json io_json(Database& db, int max_ios, RelationIndex& rels, const std::set<uint64_t>& sessions) {
  aio::IoSystem& io = db.storage().io();
  std::vector<aio::IoInFlightRow> rows = io.in_flight();
  Json list = Json::array();
  std::unordered_map<std::string, int> by_state;
  for (const aio::IoInFlightRow& r : rows) {
    const std::string state = aio::io_state_name(r.state);
    ++by_state[state];
    if (int(list.size()) >= max_ios || r.state == aio::IoState::kHandedOut) continue;
    list.push_back({{"thread", r.owner_thread},
                    {"who", sessions.count(r.owner_thread) ? "session" : "parallel worker"},
                    {"state", state},
                    {"op", aio::io_op_name(r.op)},
                    {"relation", rels.name(r.relnumber)},
                    {"block", r.first_block},
                    {"blocks", r.nblocks}});
  }
  // The worker method's queue apart from the I/Os a worker has started (both SUBMITTED);
  // counted a moment apart, so clamped.
  const int submitted = by_state.count("SUBMITTED") ? by_state["SUBMITTED"] : 0;
  const int queued = std::clamp(io.queued_at_workers(), 0, submitted);
  return {{"method", aio::io_method_name(io.method())},
          {"in_flight", rows.size()},
          {"by_state", by_state},
          {"io_workers", io.method_threads().size()},
          {"queued", queued},
          {"at_device", submitted - queued},
          {"ios", list}};
}

Json sessions_json(const std::vector<SessionActivity>& activity, const LiveLimits& limits) {
  Json out = Json::array();
  for (const SessionActivity& a : activity) {
    if (int(out.size()) >= limits.max_sessions) break;
    Json streams = Json::array();
    for (const SessionActivity::Stream& s : a.streams)
      streams.push_back({{"label", s.label},
                         {"worker", s.worker},
                         {"distance", s.distance},
                         {"max", s.max_pinned},
                         {"pinned", s.pinned},
                         {"ios", s.ios}});
    out.push_back(
        {{"pid", a.pid},
         {"state", a.state},
         {"query", a.query.substr(0, limits.max_query_bytes)},
         {"wait", a.wait_event_type.empty() ? "" : a.wait_event_type + ":" + a.wait_event},
         {"client", a.client_addr},
         {"streams", streams}});
  }
  return out;
}

std::string text(const Json& j) {
  // A statement's bytes need not be UTF-8: replaced, never a throw.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

int buffers_per_cell(int buffers, int max_cells) {
  max_cells = std::max(1, max_cells);
  return std::max(1, (buffers + max_cells - 1) / max_cells);
}

LiveView::LiveView(Database& db, LiveLimits limits)
    : db_(db), limits_(limits), start_(std::chrono::steady_clock::now()), last_(start_) {
  last_counters_ = db_.storage().pool().counters_total();
}

std::string LiveView::next_json() {
  WatchLock lock(db_.locks());
  if (!lock.held()) return "";
  bufmgr::BufferPool& pool = db_.storage().pool();
  RelationIndex rels(db_);
  Json j;
  j["seq"] = ++seq_;
  const auto now = std::chrono::steady_clock::now();
  j["ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(now - start_).count();
  const std::vector<bufmgr::BufferPool::BufferInfo> buffers = pool.snapshot();
  j["pool"] = pool_json(buffers, pool.clock_hand(), limits_.max_cells, rels);
  j["rings"] = rings_json(pool, int(buffers.size()), limits_.max_cells);
  const std::vector<SessionActivity> activity = db_.sessions().snapshot();
  std::set<uint64_t> session_threads;
  for (const SessionActivity& a : activity) session_threads.insert(uint64_t(a.pid));
  j["io"] = io_json(db_, limits_.max_ios, rels, session_threads);
  const bufmgr::PoolCounters c = pool.counters_total();
  const double seconds = std::max(1e-3, std::chrono::duration<double>(now - last_).count());
  j["rates"] = {{"hits", double(c.hits - last_counters_.hits) / seconds},
                {"reads", double(c.reads - last_counters_.reads) / seconds},
                {"writes", double(c.writes - last_counters_.writes) / seconds},
                {"evictions", double(c.evictions - last_counters_.evictions) / seconds}};
  last_counters_ = c;
  last_ = now;
  j["sessions"] = sessions_json(activity, limits_);
  j["relations"] = rels.legend();
  return text(j);
}

std::string LiveView::cell_json(int64_t cell) {
  WatchLock lock(db_.locks());
  if (!lock.held()) return "null";
  const std::vector<bufmgr::BufferPool::BufferInfo> buffers = db_.storage().pool().snapshot();
  const int n = int(buffers.size());
  const int per = buffers_per_cell(n, limits_.max_cells);
  if (cell < 0 || cell * per >= n) return "null";
  RelationIndex rels(db_);
  Json rows = Json::array();
  const int first = int(cell) * per;
  for (int b = first; b < std::min({n, first + per, first + 64}); ++b) {
    const auto& info = buffers[size_t(b)];
    const CellState s = state_of(info);
    Json row = {{"bufferid", b + 1}, {"state", int(s)}};  // PostgreSQL numbers buffers from 1
    if (s != CellState::kFree) {
      row["relation"] = rels.name(info.tag.relnumber);
      row["relblocknumber"] = info.tag.block;
      row["usagecount"] = info.usage;
      row["pinning_backends"] = info.refcount;
      row["isdirty"] = info.state == bufmgr::BufferState::kDirty;
    }
    rows.push_back(row);
  }
  return text({{"cell", cell}, {"buffers", rows}});
}

}  // namespace tp::live
