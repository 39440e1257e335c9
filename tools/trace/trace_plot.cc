#include "tools/trace/trace_plot.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <queue>
#include <set>
#include <sstream>

#include "engine/core/error.h"
#include "tools/trace/gnuplot.h"

namespace tp::trace {

namespace {

const char* kInFlight = "#0072B2";
const char* kStagedToReaped = "#c8c8c8";
const char* kSyscall = "#E69F00";
const char* kComplete = "#009E73";
const char* kWait = "#D55E00";
const char* kDistanceColours[] = {"#CC79A7", "#000000", "#56B4E9", "#F0E442", "#999999"};

constexpr int kTopPixels = 250, kLanePixels = 56, kAxisPixels = 70;

// The data file, as gnuplot "index" blocks, and the plot clauses that use them.
class Blocks {
 public:
  explicit Blocks(std::string dat) : dat_(std::move(dat)) {}
  // Adds a block when `rows` is not empty; returns the clause prefix `"file" index N`.
  bool add(const std::string& rows, const std::string& style, std::vector<std::string>& plot) {
    if (rows.empty()) return false;
    data_ << rows << "\n\n";
    plot.push_back(gnuplot_quoted(dat_) + " index " + std::to_string(count_++) + " " + style);
    return true;
  }
  std::string text() const { return data_.str(); }

 private:
  std::string dat_;
  std::ostringstream data_;
  int count_ = 0;
};

std::string num(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

std::string truncated(std::string s, size_t n) {
  for (char& c : s)
    if (c == '\n' || c == '\t') c = ' ';
  return s.size() > n ? s.substr(0, n - 3) + "..." : s;
}

// I/Os in flight as steps, from the I/Os themselves (every submission and result).
std::string in_flight_rows(const TraceData& t) {
  std::string rows = "0 0\n";
  int level = 0;
  for (const auto& [ts, d] : t.in_flight_steps()) {
    level += d;
    rows += num(ts / 1000) + " " + std::to_string(level) + "\n";
  }
  return rows + num(t.end_us() / 1000) + " " + std::to_string(level) + "\n";
}

// Gantt rows for one issuer's I/Os: the lowest free row at each I/O's staging.
std::vector<int> pack(const std::vector<const TraceIo*>& ios, int* rows_used) {
  using Busy = std::pair<double, int>;  // (free again at, row)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<>> busy;
  std::set<int> free_rows;
  std::vector<int> row(ios.size());
  int next = 0;
  for (size_t i = 0; i < ios.size(); ++i) {
    while (!busy.empty() && busy.top().first <= ios[i]->staged_us) {
      free_rows.insert(busy.top().second);
      busy.pop();
    }
    if (free_rows.empty()) free_rows.insert(next++);
    row[i] = *free_rows.begin();
    free_rows.erase(free_rows.begin());
    busy.emplace(std::max(ios[i]->reaped_us, ios[i]->staged_us), row[i]);
  }
  *rows_used = std::max(next, 1);
  return row;
}

void lane_rows(const TraceData& t, int64_t tid, double y, std::string rows[5]) {
  std::vector<const TraceIo*> mine;
  for (const TraceIo& io : t.ios)
    if (io.issuer_tid == tid) mine.push_back(&io);
  std::sort(mine.begin(), mine.end(),
            [](const TraceIo* a, const TraceIo* b) { return a->staged_us < b->staged_us; });
  int used = 1;
  const std::vector<int> row = pack(mine, &used);
  const double band = 0.47, step = band / used;
  for (size_t i = 0; i < mine.size(); ++i) {
    const TraceIo& io = *mine[i];
    const double ry = y - 0.45 + (row[i] + 0.5) * step;
    if (io.reaped_us >= io.staged_us)
      rows[0] += num(io.staged_us / 1000) + " " + num(ry) + " " +
                 num((io.reaped_us - io.staged_us) / 1000) + " 0\n";
    if (io.in_flight_known())
      rows[1] += num(io.submitted_us / 1000) + " " + num(ry) + " " +
                 num((io.done_us - io.submitted_us) / 1000) + " 0\n";
  }
  for (const TraceSlice& s : t.slices) {
    if (s.tid != tid) continue;
    const int k = s.kind == SliceKind::kSyscall ? 2 : s.kind == SliceKind::kComplete ? 3 : 4;
    const double sy = y + 0.12 * (k - 1);
    rows[k] += num(s.begin_us / 1000) + " " + num(sy) + " " + num(s.dur_us / 1000) + " 0\n";
  }
}

class Script {
 public:
  Script(const std::vector<PlotPanel>& panels, const std::string& png, const std::string& dat)
      : panels_(panels), blocks_(dat) {
    for (const PlotPanel& p : panels) {
      x_max_ = std::max(x_max_, p.trace->end_us() / 1000);
      height_ += kTopPixels + kAxisPixels + kLanePixels * int(std::max<size_t>(1, lanes(p).size()));
    }
    x_max_ = std::max(x_max_ * 1.01, 0.001);
    g_ << "set terminal pngcairo noenhanced size 1500," << height_ << " font 'sans,10'\n"
       << "set output " << gnuplot_quoted(png) << "\n"
       << "set multiplot\nset lmargin at screen 0.12\nset rmargin at screen 0.72\n"
       << "set key outside right top Left reverse width 2\nset grid x\n"
       << "set xrange [0:" << num(x_max_) << "]\n";
  }

  void draw() {
    int top = height_;
    for (const PlotPanel& p : panels_) {
      const int lane_px = kAxisPixels + kLanePixels * int(std::max<size_t>(1, lanes(p).size()));
      counters(p, top, top - kTopPixels);
      threads(p, top - kTopPixels, top - kTopPixels - lane_px);
      top -= kTopPixels + lane_px;
    }
    g_ << "unset multiplot\n";
  }

  std::string script() const { return g_.str(); }
  std::string data() const { return blocks_.text(); }

 private:
  static std::vector<int64_t> lanes(const PlotPanel& p) { return p.trace->threads(); }

  void area(int top_px, int bottom_px) {
    g_ << "set origin 0," << num(double(bottom_px) / height_) << "\nset size 1,"
       << num(double(top_px - bottom_px) / height_) << "\n";
  }

  void counters(const PlotPanel& p, int top_px, int bottom_px) {
    const TraceData& t = *p.trace;
    area(top_px, bottom_px);
    const std::string title = p.title.empty() ? t.statement : p.title;
    g_ << "set title " << gnuplot_quoted(truncated(title, 120)) << " font ',12'\n"
       << "set ylabel 'I/Os in flight'\nset xlabel ''\nset format x ''\n"
       << "set ytics auto nomirror\nset yrange [0:*]\n"
       << "set y2label 'look-ahead distance (buffers)'\nset y2tics auto\nset y2range [0:*]\n"
       << "set tmargin 2.5\nset bmargin 0.5\n"
       // Right of the second axis' label (an outside key would sit on it).
       << "set key at screen 0.78," << num(double(top_px - 40) / height_) << " left top\n";
    std::vector<std::string> plot;
    // In flight as a light area, so that the distance lines stay visible over it.
    blocks_.add(in_flight_rows(t),
                "using 1:2 with fillsteps fs solid 0.35 noborder lc rgb '" +
                    std::string(kInFlight) + "' title \"I/Os in flight\"",
                plot);
    int colour = 0;
    for (const auto& [name, samples] : t.counters) {
      if (name.rfind("look-ahead distance", 0) != 0 || samples.empty()) continue;
      std::string rows;
      for (const auto& [ts, v] : samples) rows += num(ts / 1000) + " " + num(v) + "\n";
      rows += num(t.end_us() / 1000) + " " + num(samples.back().second) + "\n";
      blocks_.add(rows,
                  "using 1:2 axes x1y2 with steps lw 2 lc rgb '" +
                      std::string(kDistanceColours[colour++ % 5]) + "' title " +
                      gnuplot_quoted("look-ahead, " + name.substr(name.find(", ") + 2)),
                  plot);
    }
    emit(plot);
  }

  void threads(const PlotPanel& p, int top_px, int bottom_px) {
    const TraceData& t = *p.trace;
    area(top_px, bottom_px);
    const std::vector<int64_t> tids = lanes(p);
    const int n = int(std::max<size_t>(1, tids.size()));
    g_ << "unset title\nset ylabel ''\nunset y2label\nunset y2tics\nset key outside right top\n"
       << "set xlabel 'milliseconds since the statement began'\n"
       << "set format x '%g'\nset tmargin 0.5\nset bmargin 3\nset yrange [-0.6:" << n - 0.4
       << "]\nset ytics (";
    std::string rows[5];
    for (int i = 0; i < int(tids.size()); ++i) {
      const double y = n - 1 - i;
      g_ << (i ? ", " : "") << gnuplot_quoted(t.thread_name(tids[i])) << " " << y;
      lane_rows(t, tids[i], y, rows);
    }
    g_ << ")\n";
    const std::string lw = "lw 3";
    const char* colours[5] = {kStagedToReaped, kInFlight, kSyscall, kComplete, kWait};
    const char* titles[5] = {"I/O staged to reaped (issuer's lane)", "I/O in flight", "system call",
                             "completion", "wait"};
    std::vector<std::string> plot;
    for (int k = 0; k < 5; ++k)
      blocks_.add(rows[k],
                  "using 1:2:3:4 with vectors nohead " + lw + " lc rgb '" + colours[k] +
                      "' title " + gnuplot_quoted(titles[k]),
                  plot);
    emit(plot);
    g_ << "set ytics auto\n";
  }

  void emit(const std::vector<std::string>& plot) {
    g_ << "plot ";
    if (plot.empty()) g_ << "NaN notitle";
    for (size_t i = 0; i < plot.size(); ++i) g_ << (i ? ", \\\n     " : "") << plot[i];
    g_ << "\n";
  }

  const std::vector<PlotPanel>& panels_;
  Blocks blocks_;
  std::ostringstream g_;
  double x_max_ = 0;
  int height_ = 0;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw Error("trace plot: could not write \"" + path + "\"");
}

}  // namespace

void plot_traces(const std::vector<PlotPanel>& panels, const std::string& png_path) {
  if (panels.empty()) throw Error("trace plot: no trace to draw");
  std::string base = png_path;
  if (base.size() > 4 && base.substr(base.size() - 4) == ".png") base.resize(base.size() - 4);
  const std::string gp = base + ".gp", dat = base + ".dat";
  Script script(panels, png_path, dat);
  script.draw();
  write_file(dat, script.data());
  write_file(gp, script.script());
  run_gnuplot(gp, "trace plot \"" + png_path + "\"");
}

}  // namespace tp::trace
