#include "engine/session/trace_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "aio/aio.h"
#include "engine/core/error.h"

namespace tp {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (1-4), or 0 when it is not one
// (a stray continuation byte, a truncated or overlong sequence, a surrogate, > U+10FFFF).
size_t utf8_sequence(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return k < s.size() ? (unsigned char)s[k] : 0u; };
  const unsigned c = b(i);
  const auto cont = [&](size_t k) { return (b(k) & 0xC0u) == 0x80u; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned c1 = b(i + 1);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) return 0;
    return cont(i + 1) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned c1 = b(i + 1);
    if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return 0;
    return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

// A JSON string: quotes, backslashes and control characters escaped, and each byte that
// is not well-formed UTF-8 (a statement may hold any) replaced by U+FFFD.
std::string quoted(const std::string& s) {
  std::string r = "\"";
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = (unsigned char)s[i];
    const size_t n = utf8_sequence(s, i);
    if (n == 0) {
      r += "\\ufffd";
      ++i;
    } else if (c == '"' || c == '\\') {
      r += '\\';
      r += char(c);
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      r += buf;
      ++i;
    } else {
      r.append(s, i, n);
      i += n;
    }
  }
  return r + "\"";
}

class Writer {
 public:
  Writer(const IoTrace& trace, const TraceFileInfo& info) : trace_(trace), info_(info) {}

  std::string json() {
    out_ = kTraceFileMarker;
    out_ += ", \"statement\": " + quoted(info_.statement);
    out_ += ", \"ios\": " + std::to_string(trace_.io_count());
    out_ += ", \"ios_dropped\": " + std::to_string(trace_.ios_dropped());
    out_ += ", \"events\": " + std::to_string(trace_.event_count());
    out_ += ", \"events_dropped\": " + std::to_string(trace_.events_dropped());
    out_ += ", \"clock\": \"CLOCK_MONOTONIC, microseconds since the statement started\"}";
    out_ += ",\n\"displayTimeUnit\": \"ms\",\n\"traceEvents\": [\n";
    out_ +=
        "{\"ph\": \"M\", \"pid\": 1, \"name\": \"process_name\", \"args\": {\"name\": "
        "\"tidepool\"}}";
    for (size_t i = 0; i < trace_.io_count(); ++i) io(i, trace_.io(i));
    in_flight();
    for (size_t i = 0; i < trace_.event_count(); ++i) event(trace_.event(i));
    thread_names();
    out_ += "\n]}\n";
    return std::move(out_);
  }

 private:
  std::string ts(int64_t ns) const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", double(ns - trace_.started_ns()) / 1000.0);
    return buf;
  }
  std::string dur(int64_t from, int64_t to) const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", double(std::max<int64_t>(0, to - from)) / 1000.0);
    return buf;
  }
  void add(const std::string& event) {
    out_ += ",\n";
    out_ += event;
  }
  std::string thread(pid_t tid) {
    seen_.insert(tid);
    return std::to_string(tid);
  }

  std::string relation(uint32_t relnumber) const {
    std::string name = info_.relation_name ? info_.relation_name(relnumber) : "";
    return name.empty() ? std::to_string(relnumber) : name;
  }

  void io(size_t id, const IoTraceRecord& r) {
    const std::string rel = relation(r.relnumber);
    std::string name =
        std::string(r.write ? "write " : "read ") + rel + " " + std::to_string(r.first_block);
    if (r.nblocks > 1) name += ".." + std::to_string(r.first_block + r.nblocks - 1);
    const std::string args =
        "{\"relation\": " + quoted(rel) + ", \"first_block\": " + std::to_string(r.first_block) +
        ", \"blocks\": " + std::to_string(r.nblocks) +
        ", \"bytes\": " + std::to_string(uint64_t(r.nblocks) * 8192) + ", \"method\": \"" +
        aio::io_method_name(aio::IoMethodKind(r.method)) +
        "\", \"direct\": " + (r.direct ? "true" : "false") + ", \"result\": \"" + status(r) +
        "\", \"bytes_done\": " + std::to_string(r.bytes_done) + "}";
    const std::string common = "\"pid\": 1, \"cat\": \"io\", \"id\": " + std::to_string(id) +
                               ", \"name\": " + quoted(name) + ", \"tid\": " + thread(r.issuer_tid);
    int64_t end = r.staged;
    for (int64_t t : {r.submitted, r.io_done, r.callback_done, r.reaped}) end = std::max(end, t);
    add("{\"ph\": \"b\", " + common + ", \"ts\": " + ts(r.staged) + ", \"args\": " + args + "}");
    if (r.submitted != 0 && r.io_done != 0) {
      const std::string nested = "\"pid\": 1, \"cat\": \"io\", \"id\": " + std::to_string(id) +
                                 ", \"name\": \"in flight\", \"tid\": " + thread(r.issuer_tid);
      add("{\"ph\": \"b\", " + nested + ", \"ts\": " + ts(r.submitted) + "}");
      add("{\"ph\": \"e\", " + nested + ", \"ts\": " + ts(r.io_done) + "}");
    }
    add("{\"ph\": \"e\", " + common + ", \"ts\": " + ts(end) + "}");
    if (r.exec_begin != 0 && r.exec_end != 0)
      add("{\"ph\": \"X\", \"pid\": 1, \"cat\": \"io.syscall\", \"name\": " +
          quoted(std::string(r.write ? "pwritev " : "preadv ") + name.substr(name.find(' ') + 1)) +
          ", \"tid\": " + thread(r.executor_tid) + ", \"ts\": " + ts(r.exec_begin) +
          ", \"dur\": " + dur(r.exec_begin, r.exec_end) + ", \"args\": " + args + "}");
    if (r.io_done != 0 && r.callback_done != 0)
      add("{\"ph\": \"X\", \"pid\": 1, \"cat\": \"io.complete\", \"name\": " +
          quoted("complete " + name) + ", \"tid\": " + thread(r.completer_tid) +
          ", \"ts\": " + ts(r.io_done) + ", \"dur\": " + dur(r.io_done, r.callback_done) + "}");
  }

  static const char* status(const IoTraceRecord& r) {
    switch (aio::IoStatus(r.status)) {
      case aio::IoStatus::kOk:
        return "ok";
      case aio::IoStatus::kPartial:
        return "partial";
      case aio::IoStatus::kError:
        return "error";
      case aio::IoStatus::kInvalidPage:
        return "invalid page";
      case aio::IoStatus::kUnknown:
        break;
    }
    return "unfinished";
  }

  // +1 at each submission, -1 at each result, in time order.
  void in_flight() {
    std::vector<std::pair<int64_t, int>> steps;
    for (size_t i = 0; i < trace_.io_count(); ++i) {
      const IoTraceRecord& r = trace_.io(i);
      if (r.submitted == 0) continue;
      steps.emplace_back(r.submitted, +1);
      if (r.io_done != 0) steps.emplace_back(r.io_done, -1);
    }
    std::sort(steps.begin(), steps.end());
    int64_t level = 0;
    for (const auto& [t, d] : steps) {
      level += d;
      add("{\"ph\": \"C\", \"pid\": 1, \"name\": \"I/Os in flight\", \"ts\": " + ts(t) +
          ", \"args\": {\"I/Os\": " + std::to_string(level) + "}}");
    }
  }

  void event(const TraceEvent& e) {
    if (e.is_wait) {
      add(std::string("{\"ph\": \"X\", \"pid\": 1, \"cat\": \"wait\", \"name\": \"wait: ") +
          wait_event_name(e.wait) + "\", \"tid\": " + thread(e.tid) + ", \"ts\": " + ts(e.begin) +
          ", \"dur\": " + dur(e.begin, e.end) + ", \"args\": {\"wait_event_type\": \"" +
          wait_event_type_name(e.wait) + "\"}}");
      return;
    }
    int64_t value = e.value;
    if (e.counter == TraceCounter::kBufferHits || e.counter == TraceCounter::kBufferReads) {
      // Cumulative per thread: counted from the thread's first sample.
      auto [it, first] = base_.try_emplace({e.tid, int(e.counter)}, e.value);
      value -= it->second;
    }
    std::string name = trace_counter_name(e.counter);
    if (e.label != nullptr) name += std::string(", ") + e.label;
    if (e.tid != info_.query_tid) name += " (" + thread_label(e.tid) + ")";
    add("{\"ph\": \"C\", \"pid\": 1, \"name\": " + quoted(name) + ", \"ts\": " + ts(e.begin) +
        ", \"args\": {\"value\": " + std::to_string(value) + "}}");
  }

  std::string thread_label(pid_t tid) const {
    if (tid == info_.query_tid) return "query";
    std::string name = trace_thread_name(tid);
    return name.empty() ? "thread " + std::to_string(tid) : name;
  }

  // Every thread an event names, and each I/O worker; the query thread first, I/O
  // workers last.
  void thread_names() {
    seen_.insert(info_.threads.begin(), info_.threads.end());
    for (pid_t tid : seen_) {
      const std::string label = thread_label(tid);
      const int order = tid == info_.query_tid ? 0 : label.rfind("io worker", 0) == 0 ? 2 : 1;
      add("{\"ph\": \"M\", \"pid\": 1, \"tid\": " + std::to_string(tid) +
          ", \"name\": \"thread_name\", \"args\": {\"name\": " + quoted(label) + "}}");
      add("{\"ph\": \"M\", \"pid\": 1, \"tid\": " + std::to_string(tid) +
          ", \"name\": \"thread_sort_index\", \"args\": {\"sort_index\": " + std::to_string(order) +
          "}}");
    }
  }

  const IoTrace& trace_;
  const TraceFileInfo& info_;
  std::string out_;
  std::set<pid_t> seen_;
  std::map<std::pair<pid_t, int>, int64_t> base_;
};

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw Error("could not " + what + " I/O trace file \"" + path + "\": " + std::strerror(err));
}

// The directory `path` would be created in, resolved (symlinks, "..").
std::string resolved_parent(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string parent = slash == std::string::npos ? "."
                             : slash == 0               ? "/"
                                                        : path.substr(0, slash);
  char buf[PATH_MAX];
  return ::realpath(parent.c_str(), buf) ? std::string(buf) : parent;
}

bool inside(const std::string& dir, const std::string& root) {
  return dir == root || (dir.size() > root.size() && dir.compare(0, root.size(), root) == 0 &&
                         (root.back() == '/' || dir[root.size()] == '/'));
}

}  // namespace

std::string trace_file_path(const std::string& name, const std::string& trace_dir) {
  if (trace_dir.empty()) return name;
  if (name.empty() || name == "." || name == ".." || name.size() > 255 ||
      name.find('/') != std::string::npos || name.find('\0') != std::string::npos)
    throw Error("invalid value for parameter \"io_trace\": \"" + name + "\"",
                "The server writes I/O traces only into its trace directory.",
                "Give a plain file name, such as 'scan.json'.")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  return trace_dir + "/" + name;
}

std::string trace_json(const IoTrace& trace, const TraceFileInfo& info) {
  return Writer(trace, info).json();
}

void write_trace_file(const std::string& path, const std::string& json,
                      const std::string& data_dir) {
  char root[PATH_MAX];
  if (::realpath(data_dir.c_str(), root) && inside(resolved_parent(path), root))
    throw Error("will not write I/O trace \"" + path + "\" inside the data directory", "",
                "Choose a file outside it for io_trace.");
  // O_NONBLOCK: a FIFO opens at once (and is then refused) instead of waiting for a
  // writer; O_NOFOLLOW: a symbolic link is refused, not followed.
  if (int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK); fd >= 0) {
    struct stat st {};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const std::string marker = kTraceFileMarker;
    std::string head(marker.size(), '\0');
    const ssize_t n = regular ? ::pread(fd, head.data(), head.size(), 0) : -1;
    ::close(fd);
    if (!regular)
      throw Error("will not overwrite \"" + path + "\": it is not a regular file", "",
                  "Choose another file name for io_trace.");
    if (n != ssize_t(head.size()) || head != marker)
      throw Error("will not overwrite \"" + path + "\": it is not an I/O trace tidepool wrote", "",
                  "Choose another file name for io_trace, or move that file away.");
  } else if (errno == ELOOP) {
    throw Error("will not overwrite \"" + path + "\": it is a symbolic link", "",
                "Choose another file name for io_trace.");
  } else if (errno != ENOENT) {
    fail("open", path, errno);
  }
  // Unique among the sessions of this process too (O_EXCL would refuse a second one).
  static std::atomic<uint64_t> serial{0};
  const std::string tmp = path + ".tidepool-" + std::to_string(::getpid()) + "-" +
                          std::to_string(serial.fetch_add(1)) + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) fail("create", tmp, errno);
  size_t done = 0;
  while (done < json.size()) {
    const ssize_t n = ::write(fd, json.data() + done, json.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmp.c_str());
      fail("write", tmp, err);
    }
    done += size_t(n);
  }
  if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("write", path, err);
  }
}

std::string trace_summary_line(const IoTrace& trace, const std::string& path) {
  return "I/O Trace: " + std::to_string(trace.io_count()) + " I/Os, " +
         std::to_string(trace.event_count()) + " events, " +
         std::to_string(trace.ios_dropped() + trace.events_dropped()) + " dropped -> " + path;
}

}  // namespace tp
