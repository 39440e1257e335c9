#include "tools/experiments/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "engine/core/error.h"
#include "tools/trace/gnuplot.h"

namespace tp::experiments {

namespace {

std::string quoted(const std::string& s) {
  return trace::gnuplot_quoted(s);
}

// Colour-blind-safe palette (Okabe-Ito), one colour per series in order.
const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                          "#E69F00", "#56B4E9", "#000000", "#F0E442"};

bool finite_point(std::pair<double, double> p) {
  return std::isfinite(p.first) && std::isfinite(p.second);
}

bool has_points(const Series& s) {
  return std::any_of(s.points.begin(), s.points.end(), finite_point);
}

// One data block per series (gnuplot's "index i"), non-finite points left out.
void write_data(const Chart& chart, const std::string& dat) {
  std::ofstream out(dat, std::ios::trunc);
  for (const Series& s : chart.series) {
    out << "# " << s.title << "\n";
    for (auto point : s.points)
      if (finite_point(point)) out << point.first << " " << point.second << "\n";
    out << "\n\n";  // gnuplot data blocks are separated by two blank lines
  }
  if (!out) throw Error("chart \"" + chart.title + "\": could not write \"" + dat + "\"");
}

// Terminal, titles, key and the axes' scales and tics.
void write_axes(std::ostream& g, const Chart& chart, const std::string& png_path) {
  g << "set terminal pngcairo size 1000,620 noenhanced font 'DejaVu Sans,11'\n";
  g << "set output " << quoted(png_path) << "\n";
  g << "set title " << quoted(chart.title) << " font ',13'\n";
  g << "set xlabel " << quoted(chart.xlabel) << "\n";
  g << "set ylabel " << quoted(chart.ylabel) << "\n";
  g << "set grid lc rgb '#dddddd'\n";
  if (chart.key_position == "below") {
    // gnuplot does not reserve room for a boxed key under the x label: make it.
    size_t drawn = size_t(std::count_if(chart.series.begin(), chart.series.end(), has_points));
    g << "set key below maxcols 2 box opaque\n";
    g << "set bmargin " << 5 + (drawn + 1) / 2 << "\n";
  } else {
    g << "set key " << chart.key_position << " box opaque\n";
  }
  if (chart.log_x) g << "set logscale x\n";
  if (chart.log_y)
    g << "set logscale y\n";
  else
    g << "set yrange [0:*]\n";  // linear axes start at zero so heights compare honestly
  if (!chart.xtic_labels.empty()) {
    g << "set xtics (";
    for (size_t i = 0; i < chart.xtic_labels.size(); ++i)
      g << (i ? ", " : "") << quoted(chart.xtic_labels[i]) << " " << i;
    g << ")\nset xrange [-0.5:" << double(chart.xtic_labels.size()) - 0.5 << "]\n";
  }
  if (!chart.xtics.empty()) {
    g << "set xtics (";
    for (size_t i = 0; i < chart.xtics.size(); ++i) g << (i ? ", " : "") << chart.xtics[i];
    g << ")\n";
  }
}

// The x range of the data (the data's extent, not gnuplot's rounded one: a log axis
// would run to the next decade) and the marks, whose labels in the right half of it go
// to the left of their line so they stay inside the plot.
void write_x_range_and_marks(std::ostream& g, const Chart& chart) {
  double xmin = NAN, xmax = NAN;
  for (const Series& s : chart.series)
    for (auto point : s.points)
      if (finite_point(point)) {
        xmin = std::isnan(xmin) ? point.first : std::min(xmin, point.first);
        xmax = std::isnan(xmax) ? point.first : std::max(xmax, point.first);
      }
  auto right_half = [&](double x) {
    if (std::isnan(xmin)) return false;
    if (chart.log_x && xmin > 0 && x > 0)
      return std::log(x) > (std::log(xmin) + std::log(xmax)) / 2;
    return x > (xmin + xmax) / 2;
  };
  if (chart.xtic_labels.empty() && !std::isnan(xmin) && xmax > xmin) {
    if (chart.log_x && xmin > 0)
      g << "set xrange [" << xmin / 1.1 << ":" << xmax * 1.1 << "]\n";
    else
      g << "set xrange [" << xmin - (xmax - xmin) * 0.02 << ":" << xmax + (xmax - xmin) * 0.02
        << "]\n";
  }
  for (size_t i = 0; i < chart.marks.size(); ++i) {
    const XMark& m = chart.marks[i];
    g << "set arrow from " << m.x << ", graph 0 to " << m.x
      << ", graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'\n";
    g << "set label " << quoted(m.label) << " at " << m.x << ", graph " << 0.95 - 0.06 * double(i)
      << (right_half(m.x) ? " right offset -0.5,0" : " left offset 0.5,0")
      << " font ',10' textcolor rgb '#333333'\n";
  }
}

void write_plot(std::ostream& g, const Chart& chart, const std::string& dat) {
  g << "plot ";
  bool any = false;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const Series& s = chart.series[i];
    if (!has_points(s)) continue;  // gnuplot refuses an empty data block
    g << (any ? ", \\\n     " : "") << quoted(dat) << " index " << i
      << " using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '"
      << (s.colour.empty() ? kColours[i % 8] : s.colour.c_str()) << "'" << (s.dashed ? " dt 2" : "")
      << " title " << quoted(s.title);
    any = true;
  }
  if (!any) g << "NaN notitle";
  g << "\n";
}

}  // namespace

void render_chart(const Chart& chart, const std::string& png_path) {
  std::string base = png_path;
  if (base.size() > 4 && base.substr(base.size() - 4) == ".png") base.resize(base.size() - 4);
  const std::string dat = base + ".dat", gp = base + ".gp";
  write_data(chart, dat);
  std::ofstream g(gp, std::ios::trunc);
  write_axes(g, chart, png_path);
  write_x_range_and_marks(g, chart);
  write_plot(g, chart, dat);
  g.close();
  if (!g) throw Error("chart \"" + chart.title + "\": could not write \"" + gp + "\"");
  trace::run_gnuplot(gp, "chart \"" + chart.title + "\"");
}

}  // namespace tp::experiments
