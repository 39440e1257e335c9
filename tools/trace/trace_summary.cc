#include "tools/trace/trace_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

namespace tp::trace {

namespace {

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string size_text(int64_t bytes) {
  if (bytes % 1024 == 0 && bytes >= 1024) return std::to_string(bytes / 1024) + " kB";
  return std::to_string(bytes) + " B";
}

void by_size_and_method(const TraceData& t, std::string& out) {
  // (kind, method, direct, bytes per I/O) -> count, bytes
  std::map<std::tuple<std::string, std::string, bool, int64_t>, std::pair<int64_t, int64_t>> rows;
  int64_t total_bytes = 0;
  for (const TraceIo& io : t.ios) {
    auto& r = rows[{io.write ? "write" : "read", io.method, io.direct, io.bytes}];
    ++r.first;
    r.second += io.bytes;
    total_bytes += io.bytes;
  }
  out += "\nI/Os by size and method\n";
  out += format("  %-5s  %-8s  %-8s  %8s  %8s  %10s  %7s\n", "kind", "method", "I/O", "size",
                "I/Os", "MB", "bytes");
  for (const auto& [key, r] : rows) {
    const auto& [kind, method, direct, bytes] = key;
    out +=
        format("  %-5s  %-8s  %-8s  %8s  %8lld  %10.1f  %6.1f%%\n", kind.c_str(), method.c_str(),
               direct ? "direct" : "buffered", size_text(bytes).c_str(), (long long)r.first,
               double(r.second) / 1e6, total_bytes ? 100.0 * double(r.second) / total_bytes : 0.0);
  }
  if (rows.empty()) out += "  (no I/O)\n";
}

void latency_line(const char* what, std::vector<double> us, std::string& out) {
  if (us.empty()) {
    out += format("  %-28s  %8s\n", what, "none");
    return;
  }
  double sum = 0;
  for (double v : us) sum += v;
  const double mean = sum / double(us.size());
  const double p50 = percentile(us, 50), p90 = percentile(us, 90), p99 = percentile(us, 99);
  out += format("  %-28s  %8zu  %9.1f  %9.1f  %9.1f  %9.1f  %9.1f\n", what, us.size(), p50, p90,
                p99, us.back(), mean);
}

void latencies(const TraceData& t, std::string& out) {
  std::vector<double> whole;
  for (const TraceIo& io : t.ios)
    if (io.reaped_us >= io.staged_us) whole.push_back(io.reaped_us - io.staged_us);
  out += "\nI/O latency (microseconds)\n";
  out += format("  %-28s  %8s  %9s  %9s  %9s  %9s  %9s\n", "", "I/Os", "p50", "p90", "p99", "max",
                "mean");
  // The system call alone (sync and worker): the device's own latency, without the
  // queue in front of the I/O workers that "in flight" includes.
  std::vector<double> calls;
  for (const TraceSlice& s : t.slices)
    if (s.kind == SliceKind::kSyscall) calls.push_back(s.dur_us);
  latency_line("system call (sync, worker)", calls, out);
  latency_line("in flight (submit -> result)", in_flight_latencies(t), out);
  latency_line("staged -> reaped", whole, out);
}

// Histogram buckets: 0, 1, 2, 3-4, 5-8, ... powers of two.
std::string bucket_name(int level) {
  if (level <= 2) return std::to_string(level);
  int hi = 4;
  while (hi < level) hi *= 2;
  return std::to_string(hi / 2 + 1) + "-" + std::to_string(hi);
}
int bucket_key(int level) {
  if (level <= 2) return level;
  int hi = 4;
  while (hi < level) hi *= 2;
  return hi;
}

void in_flight_histogram(const TraceData& t, std::string& out) {
  const double span = t.end_us();
  std::map<int, std::pair<std::string, double>> buckets;
  for (const auto& [level, us] : in_flight_time(t)) {
    auto& b = buckets[bucket_key(level)];
    b.first = bucket_name(level);
    b.second += us;
  }
  out += format("\nI/Os in flight (share of the %.1f ms traced; time-weighted mean %.2f)\n",
                span / 1000, mean_in_flight(t));
  for (const auto& [key, b] : buckets) {
    const double share = span > 0 ? b.second / span : 0;
    out += format("  %7s  %6.1f%%  %s\n", b.first.c_str(), 100 * share,
                  std::string(size_t(std::lround(share * 50)), '#').c_str());
  }
}

// Time-weighted mean of a step counter over [first sample, end].
double step_mean(const std::vector<std::pair<double, double>>& s, double end) {
  double area = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const double until = i + 1 < s.size() ? s[i + 1].first : std::max(end, s[i].first);
    area += s[i].second * (until - s[i].first);
  }
  const double width = std::max(end, s.back().first) - s.front().first;
  return width > 0 ? area / width : s.back().second;
}

void distances(const TraceData& t, std::string& out) {
  bool any = false;
  for (const auto& [name, samples] : t.counters) {
    if (name.rfind("look-ahead distance", 0) != 0 || samples.empty()) continue;
    if (!any) out += "\nRead streams' look-ahead distance (buffers)\n";
    any = true;
    double max = 0;
    for (const auto& [ts, v] : samples) max = std::max(max, v);
    out += format("  %-44s  first %5.0f  max %5.0f  time-weighted mean %7.1f  (%zu samples)\n",
                  name.c_str(), samples.front().second, max, step_mean(samples, t.end_us()),
                  samples.size());
  }
  if (!any) out += "\nRead streams' look-ahead distance: no read stream in this trace\n";
}

// The union of intervals' length.
double covered(std::vector<std::pair<double, double>> spans) {
  std::sort(spans.begin(), spans.end());
  double total = 0, until = -1;
  for (const auto& [b, e] : spans) {
    if (e <= until) continue;
    total += e - std::max(b, until);
    until = e;
  }
  return total;
}

void threads(const TraceData& t, std::string& out) {
  out += "\nThreads: where the time went (ms)\n";
  out += format("  %-20s  %9s  %9s  %9s  %9s  %9s  %s\n", "thread", "active", "syscalls",
                "complete", "waiting", "rest", "waits by event (ms)");
  const double end = t.end_us();
  for (int64_t tid : t.threads()) {
    std::vector<std::pair<double, double>> waits, busy;  // busy: any slice of the thread
    std::map<std::string, double> by_event;
    double syscalls = 0, complete = 0, first = end, last = 0;
    for (const TraceSlice& s : t.slices) {
      if (s.tid != tid) continue;
      first = std::min(first, s.begin_us);
      last = std::max(last, s.begin_us + s.dur_us);
      busy.emplace_back(s.begin_us, s.begin_us + s.dur_us);
      if (s.kind == SliceKind::kSyscall) syscalls += s.dur_us;
      if (s.kind == SliceKind::kComplete) complete += s.dur_us;
      if (s.kind == SliceKind::kWait) {
        waits.emplace_back(s.begin_us, s.begin_us + s.dur_us);
        by_event[s.name.rfind("wait: ", 0) == 0 ? s.name.substr(6) : s.name] += s.dur_us;
      }
    }
    for (const TraceIo& io : t.ios) {
      if (io.issuer_tid != tid) continue;
      first = std::min(first, io.staged_us);
      last = std::max(last, io.reaped_us);
    }
    // The query thread runs the whole statement; others from their first event to their last.
    const bool query = t.thread_name(tid) == "query";
    const double active = query ? end : std::max(0.0, last - first);
    const double waiting = covered(waits);
    // A system call can run inside a wait (sync; worker when its queue is full): the rest
    // is what no slice of the thread covers.
    const double rest = std::max(0.0, active - covered(busy));
    std::string events;
    for (const auto& [name, us] : by_event)
      events += (events.empty() ? "" : ", ") + name + format(" %.1f", us / 1000);
    out += format("  %-20s  %9.1f  %9.1f  %9.1f  %9.1f  %9.1f  %s\n", t.thread_name(tid).c_str(),
                  active / 1000, syscalls / 1000, complete / 1000, waiting / 1000, rest / 1000,
                  events.c_str());
  }
  out +=
      "  (a system call can run inside a wait: sync, or worker when its queue is full; rest is\n"
      "   the time no slice covers: running the plan for query and parallel workers, idle for\n"
      "   I/O workers)\n";
}

}  // namespace

double percentile(std::vector<double>& values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t rank = size_t(std::ceil(p / 100 * double(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

std::map<int, double> in_flight_time(const TraceData& t) {
  std::map<int, double> time;
  const double end = t.end_us();
  double at = 0;
  int level = 0;
  for (const auto& [ts, d] : t.in_flight_steps()) {
    time[level] += ts - at;
    at = ts;
    level += d;
  }
  time[level] += std::max(0.0, end - at);
  return time;
}

double mean_in_flight(const TraceData& t) {
  const double span = t.end_us();
  double weighted = 0;
  for (const auto& [level, us] : in_flight_time(t)) weighted += double(level) * us;
  return span > 0 ? weighted / span : 0;
}

std::vector<double> in_flight_latencies(const TraceData& t) {
  std::vector<double> us;
  for (const TraceIo& io : t.ios)
    if (io.in_flight_known()) us.push_back(io.done_us - io.submitted_us);
  return us;
}

int64_t blocks_read(const TraceData& t) {
  int64_t blocks = 0;
  for (const TraceIo& io : t.ios)
    if (!io.write) blocks += io.blocks;
  return blocks;
}

std::string trace_summary(const TraceData& t) {
  std::string out = "I/O trace " + t.path + "\n";
  if (!t.statement.empty()) out += "statement: " + t.statement + "\n";
  const int64_t blocks = blocks_read(t);
  out += format("%.1f ms traced, %zu I/Os (%lld blocks read), %lld I/Os and %lld events dropped\n",
                t.end_us() / 1000, t.ios.size(), (long long)blocks, (long long)t.ios_dropped,
                (long long)t.events_dropped);
  if (t.ios_dropped + t.events_dropped > 0)
    out += "(the trace was full: raise io_trace_max_events for the whole statement)\n";
  by_size_and_method(t, out);
  latencies(t, out);
  in_flight_histogram(t, out);
  distances(t, out);
  threads(t, out);
  return out;
}

}  // namespace tp::trace
