#include "tools/trace/trace_data.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/core/error.h"

namespace tp::trace {

namespace {

using Json = nlohmann::json;

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error("I/O trace \"" + path + "\": " + what);
}

// A field of an event, or an error naming the event's index and the field.
const Json& field(const std::string& path, const Json& e, size_t index, const char* name) {
  auto it = e.find(name);
  if (it == e.end())
    bad(path, "event " + std::to_string(index) + " has no \"" + std::string(name) + "\"");
  return *it;
}

double number(const std::string& path, const Json& e, size_t index, const char* name) {
  const Json& v = field(path, e, index, name);
  if (!v.is_number())
    bad(path, "event " + std::to_string(index) + ": \"" + std::string(name) + "\" is not a number");
  return v.get<double>();
}

std::string text(const Json& e, const char* name) {
  auto it = e.find(name);
  return it != e.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t integer(const Json& args, const char* name) {
  auto it = args.find(name);
  return it != args.end() && it->is_number() ? it->get<int64_t>() : 0;
}

class Loader {
 public:
  explicit Loader(TraceData& data) : d_(data) {}

  // `other`: the file's otherData object.
  void header(const Json& other) {
    if (!other.is_object() || !other.contains("tidepool_io_trace"))
      bad(d_.path, "not a tidepool I/O trace (no otherData.tidepool_io_trace)");
    d_.statement = text(other, "statement");
    d_.ios_kept = integer(other, "ios");
    d_.ios_dropped = integer(other, "ios_dropped");
    d_.events_kept = integer(other, "events");
    d_.events_dropped = integer(other, "events_dropped");
  }

  void event(const Json& e, size_t i) {
    if (!e.is_object()) bad(d_.path, "event " + std::to_string(i) + " is not an object");
    const std::string ph = text(e, "ph");
    const std::string cat = text(e, "cat");
    if (ph == "M") return metadata(e, i);
    if (ph == "C") return counter(e, i);
    if ((ph == "b" || ph == "e") && cat == "io") return io(e, i, ph == "b");
    if (ph == "X") return slice(e, i, cat);
    // Other phases (none written today) are left to Perfetto.
  }

 private:
  void metadata(const Json& e, size_t i) {
    const std::string name = text(e, "name");
    if (name != "thread_name" && name != "thread_sort_index") return;
    const int64_t tid = int64_t(number(d_.path, e, i, "tid"));
    const Json& args = field(d_.path, e, i, "args");
    if (name == "thread_name") d_.thread_names[tid] = text(args, "name");
    if (name == "thread_sort_index") d_.thread_order[tid] = int(integer(args, "sort_index"));
  }

  void counter(const Json& e, size_t i) {
    const Json& args = field(d_.path, e, i, "args");
    if (!args.is_object() || args.empty() || !args.begin()->is_number())
      bad(d_.path, "counter event " + std::to_string(i) + " has no numeric value");
    d_.counters[text(e, "name")].emplace_back(number(d_.path, e, i, "ts"),
                                              args.begin()->get<double>());
  }

  void io(const Json& e, size_t i, bool begin) {
    const int64_t id = int64_t(number(d_.path, e, i, "id"));
    const double ts = number(d_.path, e, i, "ts");
    auto [it, added] = index_.try_emplace(id, d_.ios.size());
    if (added) d_.ios.emplace_back();
    TraceIo& io = d_.ios[it->second];
    if (text(e, "name") == "in flight") {
      (begin ? io.submitted_us : io.done_us) = ts;
      return;
    }
    if (!begin) {
      io.reaped_us = ts;
      return;
    }
    io.staged_us = ts;
    io.name = text(e, "name");
    io.write = io.name.rfind("write", 0) == 0;
    io.issuer_tid = int64_t(number(d_.path, e, i, "tid"));
    const Json& args = field(d_.path, e, i, "args");
    io.relation = text(args, "relation");
    io.method = text(args, "method");
    io.result = text(args, "result");
    io.first_block = integer(args, "first_block");
    io.blocks = integer(args, "blocks");
    io.bytes = integer(args, "bytes");
    auto direct = args.find("direct");
    io.direct = direct != args.end() && direct->is_boolean() && direct->get<bool>();
  }

  void slice(const Json& e, size_t i, const std::string& cat) {
    TraceSlice s;
    if (cat == "io.syscall")
      s.kind = SliceKind::kSyscall;
    else if (cat == "io.complete")
      s.kind = SliceKind::kComplete;
    else if (cat == "wait")
      s.kind = SliceKind::kWait;
    else
      return;
    s.tid = int64_t(number(d_.path, e, i, "tid"));
    s.begin_us = number(d_.path, e, i, "ts");
    s.dur_us = number(d_.path, e, i, "dur");
    s.name = text(e, "name");
    d_.slices.push_back(std::move(s));
  }

  TraceData& d_;
  std::map<int64_t, size_t> index_;  // async id -> position in d_.ios
};

// "io worker 2" before "io worker 10": runs of digits compare as numbers.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      const unsigned long long x = std::stoull(a.substr(i, ei - i));
      const unsigned long long y = std::stoull(b.substr(j, ej - j));
      if (x != y) return x < y;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

double TraceData::end_us() const {
  double end = 0;
  for (const TraceIo& io : ios) end = std::max({end, io.staged_us, io.reaped_us, io.done_us});
  for (const TraceSlice& s : slices) end = std::max(end, s.begin_us + s.dur_us);
  for (const auto& [name, samples] : counters)
    for (const auto& [t, v] : samples) end = std::max(end, t);
  return end;
}

std::vector<std::pair<double, int>> TraceData::in_flight_steps() const {
  std::vector<std::pair<double, int>> steps;
  for (const TraceIo& io : ios) {
    if (!io.in_flight_known()) continue;
    steps.emplace_back(io.submitted_us, +1);
    steps.emplace_back(io.done_us, -1);
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

std::vector<int64_t> TraceData::threads() const {
  std::vector<int64_t> tids;
  for (const auto& [tid, name] : thread_names) tids.push_back(tid);
  for (const TraceIo& io : ios)
    if (!thread_names.count(io.issuer_tid)) tids.push_back(io.issuer_tid);
  for (const TraceSlice& s : slices)
    if (!thread_names.count(s.tid)) tids.push_back(s.tid);
  std::sort(tids.begin(), tids.end());
  tids.erase(std::unique(tids.begin(), tids.end()), tids.end());
  auto order = [this](int64_t tid) {
    auto it = thread_order.find(tid);
    return it == thread_order.end() ? 1 : it->second;
  };
  std::stable_sort(tids.begin(), tids.end(), [&](int64_t a, int64_t b) {
    if (order(a) != order(b)) return order(a) < order(b);
    return natural_less(thread_name(a), thread_name(b));
  });
  return tids;
}

std::string TraceData::thread_name(int64_t tid) const {
  auto it = thread_names.find(tid);
  return it == thread_names.end() || it->second.empty() ? "thread " + std::to_string(tid)
                                                        : it->second;
}

TraceData load_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot be read (does it exist?)");
  TraceData data;
  data.path = path;
  Loader loader(data);
  // Events are handled as the parser finishes each one and then dropped: a trace of a
  // million I/Os is a gigabyte of text, and its whole tree would not fit in memory.
  // Depth 1 holds otherData and traceEvents, depth 2 the events.
  size_t events = 0;
  std::string key;  // the top-level key being parsed
  bool header = false;
  auto each = [&](int depth, Json::parse_event_t what, Json& parsed) {
    using E = Json::parse_event_t;
    if (depth == 1 && what == E::key) key = parsed.get<std::string>();
    if (depth == 1 && what == E::object_end && key == "otherData") {
      loader.header(parsed);  // tidepool writes it first
      header = true;
    }
    if (depth == 2 && what == E::object_end && key == "traceEvents") {
      if (!header) loader.header(Json::object());  // not ours: says so
      loader.event(parsed, events++);
      return false;
    }
    return true;
  };
  Json root;
  try {
    root = Json::parse(in, each);
  } catch (const Json::exception& e) {
    bad(path, std::string("is not valid JSON: ") + e.what());
  }
  if (!root.is_object()) bad(path, "is not a JSON object");
  if (!header) loader.header(Json::object());
  if (!root.contains("traceEvents") || !root["traceEvents"].is_array())
    bad(path, "has no traceEvents array");
  // An I/O whose staging event was lost (or a file cut short) is not one we can report.
  std::erase_if(data.ios, [](const TraceIo& io) { return io.staged_us < 0; });
  return data;
}

}  // namespace tp::trace
