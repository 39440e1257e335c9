#include "engine/session/session_registry.h"

#include <unistd.h>

#include "engine/core/wait_event.h"
#include "engine/session/session.h"

namespace tp {

SessionEntry& SessionRegistry::add(Session* session) {
  std::lock_guard lock(mutex_);
  int pid = int(::gettid());
  if (entries_.count(pid) != 0) pid = next_synthetic_pid_++;
  auto entry = std::make_unique<SessionEntry>();
  entry->pid = pid;
  entry->session = session;
  entry->backend_start = std::chrono::system_clock::now();
  SessionEntry& e = *entry;
  entries_.emplace(pid, std::move(entry));
  return e;
}

void SessionRegistry::remove(const SessionEntry& entry) {
  std::lock_guard lock(mutex_);
  entries_.erase(entry.pid);
}

void SessionRegistry::set_client(SessionEntry& entry, std::string application_name,
                                 std::string client_addr) {
  std::lock_guard lock(mutex_);
  entry.application_name = std::move(application_name);
  entry.client_addr = std::move(client_addr);
}

namespace {

// PostgreSQL keeps the first track_activity_query_size - 1 bytes of a statement
// (1023 by default), cut at a character boundary: pg_stat_activity never holds a
// copy of a multi-megabyte statement.
constexpr size_t kTrackedQueryBytes = 1023;

std::string tracked_query(std::string_view query) {
  if (query.size() <= kTrackedQueryBytes) return std::string(query);
  size_t n = kTrackedQueryBytes;
  while (n > 0 && (static_cast<unsigned char>(query[n]) & 0xC0) == 0x80) --n;
  return std::string(query.substr(0, n));
}

}  // namespace

void SessionRegistry::statement_started(SessionEntry& entry, std::string_view query) {
  std::string tracked = tracked_query(query);
  std::lock_guard lock(mutex_);
  entry.query = std::move(tracked);
  entry.state = "active";
  entry.query_start = std::chrono::system_clock::now();
}

void SessionRegistry::statement_ended(SessionEntry& entry, bool in_transaction_block) {
  std::lock_guard lock(mutex_);
  entry.state = in_transaction_block ? "idle in transaction" : "idle";
}

std::vector<SessionActivity> SessionRegistry::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<SessionActivity> rows;
  rows.reserve(entries_.size());
  for (const auto& [pid, e] : entries_) {
    SessionActivity a;
    a.pid = pid;
    a.application_name = e->application_name;
    a.client_addr = e->client_addr;
    a.backend_start = e->backend_start;
    a.query_start = e->query_start;
    a.state = e->state;
    a.query = e->query;
    auto wait = WaitEvent(e->wait_event.load(std::memory_order_relaxed));
    a.wait_event_type = wait_event_type_name(wait);
    a.wait_event = wait_event_name(wait);
    for (int p = 0; p < int(MemoryPart::kCount); ++p)
      a.memory_bytes[p] = e->memory.bytes(MemoryPart(p));
    a.memory_total = e->memory.total();
    a.memory_peak = e->memory.peak();
    if (e->streams != nullptr) {
      for (int g = 0; g < StreamGauges::kSize; ++g) {
        const StreamGauge& gauge = (*e->streams)[g];
        if (!gauge.claimed.load(std::memory_order_acquire)) continue;
        const char* label = gauge.label.load(std::memory_order_relaxed);
        a.streams.push_back({.label = label ? label : "",
                             .worker = gauge.worker.load(std::memory_order_relaxed),
                             .distance = gauge.distance.load(std::memory_order_relaxed),
                             .max_pinned = gauge.max_pinned.load(std::memory_order_relaxed),
                             .pinned = gauge.pinned.load(std::memory_order_relaxed),
                             .ios = gauge.ios.load(std::memory_order_relaxed)});
      }
    }
    rows.push_back(std::move(a));
  }
  return rows;
}

bool SessionRegistry::cancel(int pid) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(pid);
  if (it == entries_.end()) return false;
  it->second->session->cancel();
  return true;
}

bool SessionRegistry::terminate(int pid) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(pid);
  if (it == entries_.end()) return false;
  it->second->terminate_requested.store(true);
  it->second->session->cancel();
  return true;
}

}  // namespace tp
