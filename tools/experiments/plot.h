// Charts: a small description (series of points, axes, marks) turned into a
// gnuplot script and a PNG. The script and its data stay next to the PNG, so a
// reader can restyle a chart or plot it at another size.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tp::experiments {

struct Series {
  explicit Series(std::string name = {}, bool is_dashed = false)
      : title(std::move(name)), dashed(is_dashed) {}
  std::string title;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in this order
  bool dashed = false;
  std::string colour;  // "#rrggbb"; empty: the palette's colour for the series' position
};

// A vertical line at x with a label ("index = seq: 0.2%").
struct XMark {
  double x = 0;
  std::string label;
};

struct Chart {
  std::string title;
  std::string xlabel, ylabel;  // with units: "selectivity (% of rows, log scale)"
  bool log_x = false, log_y = false;
  // Category axis: point x = i is labelled xtic_labels[i] (empty = numeric axis).
  std::vector<std::string> xtic_labels;
  // Numeric axis: tics only at these x values (empty = gnuplot's choice).
  std::vector<double> xtics;
  std::vector<Series> series;
  std::vector<XMark> marks;
  std::string key_position = "top left";  // gnuplot "set key" position
};

// Writes <png_path minus .png>.gp and .dat and runs gnuplot. Throws tp::Error
// naming the chart when gnuplot is missing or fails (its message included).
void render_chart(const Chart& chart, const std::string& png_path);

}  // namespace tp::experiments
