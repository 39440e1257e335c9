// The iomethod experiment's tables, chart and comparison with the published
// tables (iomethod.h): pure functions of the measured results.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "engine/core/error.h"
#include "tools/experiments/iomethod.h"
#include "tools/experiments/lab.h"
#include "tools/experiments/output.h"

namespace tp::experiments {

namespace {

constexpr IoSetup kSetups[] = {IoSetup::kSync, IoSetup::kWorker, IoSetup::kWorkerScaled,
                               IoSetup::kIoUring};
const char* const kModes[] = {"buffered", "direct"};
// Okabe-Ito colours, one per configuration (buffered solid, direct dashed).
const char* const kSetupColours[] = {"#D55E00", "#0072B2", "#56B4E9", "#009E73"};
// Buffered and direct have converged once direct is within 5% of buffered.
constexpr double kConvergedPct = 95;

// Andres Freund's table (ClickBench Q2 on 64 GB, ms at 0, 1, 2, 4 parallel workers).
struct PublishedRow {
  const char* label;
  double ms[4];
};
const int kAndresWorkers[] = {0, 1, 2, 4};
const PublishedRow kAndres[] = {
    {"master (sync, buffered)", {65753, 33246, 21095, 12918}},
    {"AIO worker, buffered", {21519, 12636, 10450, 10004}},
    {"AIO io_uring, buffered", {31446, 17745, 12889, 10395}},
    {"AIO io_uring, buffered (other run)", {23497, 13824, 10881, 10589}},
    {"AIO worker, direct", {22377, 11989, 9915, 9772}},
    {"AIO io_uring, direct", {24502, 12603, 10058, 9759}},
};
// David Rowley's io_uring buffered vs direct (ms) at 0..64 workers.
const int kRowleyWorkers[] = {0, 1, 2, 4, 8, 16, 32, 64};
const double kRowleyBuffered[] = {58880, 33622, 24573, 18557, 14844, 12491, 11802, 11895};
const double kRowleyDirect[] = {102852, 53538, 40436, 27359, 17330, 12754, 11956, 11941};
constexpr size_t kRowleyPoints = std::size(kRowleyWorkers);

std::string pct(double x) {
  return std::isnan(x) ? "-" : fixed(x, 0) + "%";
}

// The first index from which every value is >= kConvergedPct (-1: never).
int converged_from(const std::vector<double>& cmp) {
  int from = -1;
  for (size_t i = 0; i < cmp.size(); ++i) {
    if (std::isnan(cmp[i])) continue;
    if (cmp[i] >= kConvergedPct) {
      if (from < 0) from = int(i);
    } else {
      from = -1;
    }
  }
  return from;
}

std::string speedup(double at0, double at4) {
  return fixed(at0 / at4, 2) + "x";
}

}  // namespace

const char* io_setup_label(IoSetup setup) {
  switch (setup) {
    case IoSetup::kSync:
      return "sync";
    case IoSetup::kWorker:
      return "worker";
    case IoSetup::kWorkerScaled:
      return "worker (scaled)";
    case IoSetup::kIoUring:
      return "io_uring";
  }
  return "?";
}

const char* io_setup_method(IoSetup setup) {
  switch (setup) {
    case IoSetup::kSync:
      return "sync";
    case IoSetup::kWorker:
    case IoSetup::kWorkerScaled:
      return "worker";
    case IoSetup::kIoUring:
      return "io_uring";
  }
  return "?";
}

int scaled_io_workers(int parallel_workers) {
  return std::clamp(parallel_workers + 1, kDefaultIoWorkers, 32);
}

int io_workers_for(IoSetup setup, int parallel_workers) {
  return setup == IoSetup::kWorkerScaled ? scaled_io_workers(parallel_workers) : kDefaultIoWorkers;
}

bool scaled_is_default(int parallel_workers) {
  return scaled_io_workers(parallel_workers) == kDefaultIoWorkers;
}

double IoCell::median_s() const {
  return seconds.empty() ? NAN : median(seconds);
}

IoMethodResults::IoMethodResults(std::vector<int> worker_counts, std::vector<int> sweep_values)
    : workers(std::move(worker_counts)),
      sweep_io_workers(std::move(sweep_values)),
      sweep(sweep_io_workers.size()) {
  for (auto& modes : grid)
    for (auto& cells : modes) cells.resize(workers.size());
}

const IoCell& IoMethodResults::cell(IoSetup setup, int direct, size_t column) const {
  if (setup == IoSetup::kWorkerScaled && scaled_is_default(workers[column]))
    setup = IoSetup::kWorker;
  return grid[size_t(setup)][size_t(direct)][column];
}

double IoMethodResults::median_s(IoSetup setup, int direct, size_t column) const {
  return cell(setup, direct, column).median_s();
}

double IoMethodResults::cmp_pct(IoSetup setup, size_t column) const {
  return 100 * median_s(setup, 0, column) / median_s(setup, 1, column);
}

int IoMethodResults::column_of(int parallel_workers) const {
  auto it = std::find(workers.begin(), workers.end(), parallel_workers);
  return it == workers.end() ? -1 : int(it - workers.begin());
}

std::string grid_table(const IoMethodResults& r) {
  std::vector<std::string> header = {"io_method", "mode"};
  for (int w : r.workers) header.push_back(std::to_string(w));
  std::vector<std::vector<std::string>> rows;
  for (IoSetup s : kSetups) {
    for (int d = 0; d < 2; ++d) {
      std::vector<std::string> row = {io_setup_label(s), kModes[d]};
      for (size_t c = 0; c < r.workers.size(); ++c) {
        const IoCell& cell = r.cell(s, d, c);
        std::string text = fixed(cell.median_s(), 2);
        if (cell.launched >= 0 && cell.launched < r.workers[c])
          text += " (" + std::to_string(cell.launched) + " launched)";
        row.push_back(text);
      }
      rows.push_back(row);
    }
    std::vector<std::string> cmp = {io_setup_label(s), "cmp"};
    for (size_t c = 0; c < r.workers.size(); ++c) cmp.push_back(pct(r.cmp_pct(s, c)));
    rows.push_back(cmp);
  }
  std::vector<bool> right(header.size(), true);
  right[0] = right[1] = false;
  std::vector<std::string> scaled = {"", "io_workers (scaled)"};
  for (int w : r.workers) scaled.push_back(std::to_string(scaled_io_workers(w)));
  rows.push_back(scaled);
  return markdown_table(header, rows, right);
}

std::string published_tables() {
  std::ostringstream md;
  std::vector<std::string> header = {"published (Andres Freund)"};
  for (int w : kAndresWorkers) header.push_back(std::to_string(w));
  std::vector<std::vector<std::string>> rows;
  for (const PublishedRow& p : kAndres) {
    std::vector<std::string> row = {p.label};
    for (double ms : p.ms) row.push_back(fixed(ms / 1000, 2));
    rows.push_back(row);
  }
  md << markdown_table(header, rows, {false, true, true, true, true}) << "\n";
  header = {"published (David Rowley, io_uring)"};
  for (int w : kRowleyWorkers) header.push_back(std::to_string(w));
  std::vector<std::string> buffered = {"buffered"}, direct = {"direct"}, cmp = {"cmp"};
  for (size_t i = 0; i < kRowleyPoints; ++i) {
    buffered.push_back(fixed(kRowleyBuffered[i] / 1000, 2));
    direct.push_back(fixed(kRowleyDirect[i] / 1000, 2));
    cmp.push_back(pct(100 * kRowleyBuffered[i] / kRowleyDirect[i]));
  }
  std::vector<bool> right(header.size(), true);
  right[0] = false;
  md << markdown_table(header, {buffered, direct, cmp}, right);
  return md.str();
}

double lowest_share_at_zero_workers(const IoMethodResults& r, std::string* which) {
  const int c0 = r.column_of(0);
  double lowest = NAN;
  if (c0 < 0) return lowest;
  for (IoSetup s : kSetups)
    for (int d = 0; d < 2; ++d) {
      if (s == IoSetup::kSync) continue;  // one read at a time per process
      double best = NAN;
      for (size_t c = 0; c < r.workers.size(); ++c)
        if (std::isnan(best) || r.median_s(s, d, c) < best) best = r.median_s(s, d, c);
      const double share = best / r.median_s(s, d, size_t(c0));
      if (!std::isnan(share) && (std::isnan(lowest) || share < lowest)) {
        lowest = share;
        *which = io_setup_label(s) + std::string(" ") + kModes[d];
      }
    }
  return lowest;
}

// NOLINTNEXTLINE(readability-function-size): one paragraph per comparison, in order
std::string shape_comparison(const IoMethodResults& r) {
  std::ostringstream md;
  const int c0 = r.column_of(0), c4 = r.column_of(4);
  md << "Speed-up from 0 to 4 parallel workers (time at 0 / time at 4): ";
  if (c0 < 0 || c4 < 0) {
    md << "not measured (`--workers` needs 0 and 4)";
  } else {
    for (IoSetup s : kSetups)
      for (int d = 0; d < 2; ++d)
        md << (s == IoSetup::kSync && d == 0 ? "" : ", ") << io_setup_label(s) << " " << kModes[d]
           << " " << speedup(r.median_s(s, d, size_t(c0)), r.median_s(s, d, size_t(c4)));
  }
  md << ". Published: ";
  for (size_t i = 0; i < std::size(kAndres); ++i)
    md << (i ? ", " : "") << kAndres[i].label << " " << speedup(kAndres[i].ms[0], kAndres[i].ms[3])
       << " (" << fixed(kAndres[i].ms[0] / 1000, 1) << " -> " << fixed(kAndres[i].ms[3] / 1000, 1)
       << " s)";
  md << "; David Rowley's io_uring buffered " << speedup(kRowleyBuffered[0], kRowleyBuffered[3])
     << ", direct " << speedup(kRowleyDirect[0], kRowleyDirect[3]) << ".\n\n";

  md << "Share of each configuration's best throughput reached with 0 workers (its fastest time "
        "/ its time at 0 workers): ";
  if (c0 < 0) {
    md << "not measured (`--workers` needs 0)";
  } else {
    for (IoSetup s : kSetups)
      for (int d = 0; d < 2; ++d) {
        double best = NAN;
        for (size_t c = 0; c < r.workers.size(); ++c)
          if (std::isnan(best) || r.median_s(s, d, c) < best) best = r.median_s(s, d, c);
        md << (s == IoSetup::kSync && d == 0 ? "" : ", ") << io_setup_label(s) << " " << kModes[d]
           << " " << pct(100 * best / r.median_s(s, d, size_t(c0)));
      }
  }
  const double rowley_best_b = *std::min_element(kRowleyBuffered, kRowleyBuffered + kRowleyPoints);
  const double rowley_best_d = *std::min_element(kRowleyDirect, kRowleyDirect + kRowleyPoints);
  md << ". Published (David Rowley, io_uring): buffered "
     << pct(100 * rowley_best_b / kRowleyBuffered[0]) << ", direct "
     << pct(100 * rowley_best_d / kRowleyDirect[0])
     << ": there one backend was far from the disk's limit, so workers multiplied the rate.\n\n";

  md << "Where buffered and direct converge (direct within 5% of buffered or faster: cmp = "
        "buffered / direct >= "
     << fixed(kConvergedPct, 0) << "% at that worker count and every larger one measured): ";
  for (IoSetup s : kSetups) {
    std::vector<double> cmp;
    for (size_t c = 0; c < r.workers.size(); ++c) cmp.push_back(r.cmp_pct(s, c));
    int from = converged_from(cmp);
    md << (s == IoSetup::kSync ? "" : ", ") << io_setup_label(s) << " ";
    if (from < 0)
      md << "not within the measured counts";
    else
      md << "from " << r.workers[size_t(from)] << " workers (" << pct(cmp[size_t(from)]) << ")";
    if (c0 >= 0) md << " [cmp at 0 workers " << pct(cmp[size_t(c0)]) << "]";
  }
  std::vector<double> published_cmp;
  for (size_t i = 0; i < kRowleyPoints; ++i)
    published_cmp.push_back(100 * kRowleyBuffered[i] / kRowleyDirect[i]);
  const size_t pf = size_t(std::max(0, converged_from(published_cmp)));
  md << ". Published (David Rowley, io_uring): cmp " << pct(published_cmp[0])
     << " at 0 workers, converged from " << kRowleyWorkers[pf] << " workers ("
     << pct(published_cmp[pf]) << ": " << fixed(kRowleyBuffered[pf] / 1000, 1) << " vs "
     << fixed(kRowleyDirect[pf] / 1000, 1) << " s), where the disk is the limit.\n\n";

  double best = NAN;
  std::string best_label;
  for (IoSetup s : kSetups)
    for (int d = 0; d < 2; ++d)
      for (size_t c = 0; c < r.workers.size(); ++c) {
        double t = r.median_s(s, d, c);
        if (!std::isnan(t) && (std::isnan(best) || t < best)) {
          best = t;
          best_label = std::string(io_setup_label(s)) + " " + kModes[d] + " with " +
                       std::to_string(r.workers[c]) + " workers";
        }
      }
  if (!std::isnan(best)) {
    md << "Fastest here: " << best_label << ", " << fixed(best, 2) << " s ("
       << fixed(r.table_mb / best, 0) << " MB/s)";
    if (!std::isnan(r.device_seq_mb_s))
      md << ", " << fixed(100 * r.table_mb / best / r.device_seq_mb_s, 0)
         << "% of the raw device's sequential direct rate measured in this run ("
         << fixed(r.device_seq_mb_s, 0) << " MB/s: " << fixed(r.table_mb / r.device_seq_mb_s, 2)
         << " s for the table, the line in the chart)";
    md << ".";
    if (!std::isnan(r.device_seq_buffered_mb_s))
      md << " Buffered, the raw device read " << fixed(r.device_seq_buffered_mb_s, 0) << " MB/s ("
         << fixed(r.table_mb / r.device_seq_buffered_mb_s, 2)
         << " s for the table, the grey line).";
    md << " A scan faster than its mode's line is served by what the probe's file did not "
          "have: the kernel's readahead beyond 16 x 128 kB, or a cache below the guest still "
          "holding the table (on a VM, the host's, for a table written or read just before).\n\n";
  }
  return md.str();
}

std::string sweep_table(const IoMethodResults& r) {
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const std::string& label, const IoCell& buffered, const IoCell& direct) {
    double b = buffered.median_s(), d = direct.median_s();
    rows.push_back({label, fixed(b, 2), fixed(r.table_mb / b, 0), fixed(d, 2),
                    fixed(r.table_mb / d, 0), pct(100 * b / d)});
  };
  const int c0 = r.column_of(0);
  auto grid_row = [&](IoSetup s, const std::string& label) {
    if (c0 >= 0) add(label, r.cell(s, 0, size_t(c0)), r.cell(s, 1, size_t(c0)));
  };
  grid_row(IoSetup::kSync, "sync");
  std::vector<std::pair<int, size_t>> order;  // io_workers, sweep index (SIZE_MAX: grid's 3)
  for (size_t i = 0; i < r.sweep_io_workers.size(); ++i)
    order.emplace_back(r.sweep_io_workers[i], i);
  if (c0 >= 0) order.emplace_back(kDefaultIoWorkers, SIZE_MAX);
  std::sort(order.begin(), order.end());
  for (auto [n, i] : order) {
    const std::string label = "worker " + std::to_string(n);
    if (i == SIZE_MAX)
      grid_row(IoSetup::kWorker, label);
    else
      add(label, r.sweep[i][0], r.sweep[i][1]);
  }
  grid_row(IoSetup::kIoUring, "io_uring");
  return markdown_table(
      {"io_method (0 parallel workers)", "buffered s", "MB/s", "direct s", "MB/s", "cmp"}, rows,
      {false, true, true, true, true, true});
}

Chart grid_chart(const IoMethodResults& r) {
  Chart chart;
  chart.title = "Cold scan of " + grouped(r.table_pages) + " pages (" + fixed(r.table_mb, 0) +
                " MB) by parallel workers";
  chart.xlabel = "parallel workers (Workers Planned; the leader also scans)";
  chart.ylabel = "scan time (s)";
  chart.key_position = "below";
  for (int w : r.workers) chart.xtic_labels.push_back(std::to_string(w));
  for (IoSetup s : kSetups)
    for (int d = 0; d < 2; ++d) {
      Series series(std::string(io_setup_label(s)) + " " + kModes[d], d == 1);
      series.colour = kSetupColours[size_t(s)];
      for (size_t c = 0; c < r.workers.size(); ++c)
        series.points.emplace_back(double(c), r.median_s(s, d, c));
      chart.series.push_back(series);
    }
  for (int d = 1; d >= 0; --d) {
    const double rate = d ? r.device_seq_mb_s : r.device_seq_buffered_mb_s;
    if (std::isnan(rate)) continue;
    Series floor(
        "raw device, sequential " + std::string(kModes[d]) + " (" + fixed(rate, 0) + " MB/s)",
        d == 0);
    floor.colour = d ? "#000000" : "#777777";
    for (size_t c = 0; c < r.workers.size(); ++c)
      floor.points.emplace_back(double(c), r.table_mb / rate);
    chart.series.push_back(floor);
  }
  return chart;
}

std::vector<int> parse_worker_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string item;
  auto bad = [&](const std::string& why) {
    return Error("invalid --workers list \"" + text + "\": " + why, "",
                 "give ascending worker counts separated by commas, e.g. 0,1,2,4");
  };
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0 || v > 1024)
      throw bad("\"" + item + "\" is not a worker count 0..1024");
    if (!out.empty() && v <= out.back()) throw bad("counts must be ascending and distinct");
    out.push_back(int(v));
  }
  if (out.empty() || text.back() == ',') throw bad("empty entry");
  return out;
}

}  // namespace tp::experiments
