#include "tools/experiments/selectivity_regret.h"

#include <sstream>

#include "tools/experiments/output.h"

namespace tp::experiments {

std::string SweepWorld::name() const {
  std::string cache = cached <= 0   ? "cold"
                      : cached >= 1 ? "all cached"
                                    : fixed(cached * 100, 0) + "% cached";
  return std::string(prefetch ? "prefetch on" : "prefetch off") + ", " + cache;
}

SettingList SweepWorld::settings() const {
  if (prefetch) return {{"index_prefetch", "on"}};
  return {{"effective_io_concurrency", "0"}, {"index_prefetch", "off"}};
}

std::vector<std::string> SweepWorld::plans() const {
  if (prefetch) return {"seq", "index+prefetch", "bitmap"};
  return {"seq eic=0", "index", "bitmap eic=0"};
}

std::vector<CostModelChoice> cost_model_choices(double rpc_estimate) {
  const std::string est = fixed(rpc_estimate, 2);
  return {
      {"pg15, rpc 4", {{"cost_model", "pg15"}, {"random_page_cost", "4"}}},
      {"pg15, rpc " + fixed(rpc_estimate, 1), {{"cost_model", "pg15"}, {"random_page_cost", est}}},
      {"prefetch_aware", {{"cost_model", "prefetch_aware"}}}};
}

namespace {

std::string short_node(const std::string& node) {
  if (node == "Seq Scan") return "seq";
  if (node == "Index Scan") return "index";
  if (node == "Bitmap Heap Scan") return "bitmap";
  return node.empty() ? "-" : node;
}

std::string pct_label(double v) {
  return fixed(v, v < 0.1 ? 3 : 2) + "%";
}

}  // namespace

std::string worst_regret_table(const std::vector<SweepWorld>& worlds,
                               const std::vector<CostModelChoice>& models,
                               const std::vector<double>& fractions_pct, const PickTable& picks) {
  std::vector<std::string> header = {"cost model"};
  for (const SweepWorld& w : worlds) header.push_back("worst regret, " + w.name());
  std::vector<std::vector<std::string>> rows;
  for (size_t m = 0; m < models.size(); ++m) {
    std::vector<std::string> row = {models[m].name};
    for (size_t w = 0; w < worlds.size(); ++w) {
      double worst = NAN;
      size_t at = 0;
      for (size_t f = 0; f < fractions_pct.size(); ++f) {
        const double r = picks[w][m][f].regret();
        if (!std::isnan(r) && (std::isnan(worst) || r > worst)) {
          worst = r;
          at = f;
        }
      }
      row.push_back(std::isnan(worst) ? "-"
                                      : fixed(worst, 2) + "x at " + pct_label(fractions_pct[at]) +
                                            " (" + short_node(picks[w][m][at].node) + ")");
    }
    rows.push_back(row);
  }
  std::vector<bool> right(header.size(), true);
  right[0] = false;
  return markdown_table(header, rows, right);
}

double worst_regret(const PickTable& picks, size_t world, size_t model) {
  double worst = NAN;
  for (const Pick& p : picks[world][model]) {
    const double r = p.regret();
    if (!std::isnan(r) && (std::isnan(worst) || r > worst)) worst = r;
  }
  return worst;
}

std::string regret_tables(const std::vector<SweepWorld>& worlds,
                          const std::vector<CostModelChoice>& models,
                          const std::vector<double>& fractions_pct, const PickTable& picks,
                          const std::map<std::string, std::vector<std::vector<double>>>& plan_ms) {
  std::ostringstream md;
  for (size_t w = 0; w < worlds.size(); ++w) {
    const std::vector<std::string> plans = worlds[w].plans();
    std::vector<std::string> header = {"selectivity"};
    for (const std::string& p : plans) header.push_back(p + " ms");
    for (const CostModelChoice& m : models) {
      header.push_back(m.name);
      header.push_back("regret");
    }
    std::vector<std::vector<std::string>> rows;
    const auto& ms = plan_ms.at(worlds[w].name());
    for (size_t f = 0; f < fractions_pct.size(); ++f) {
      std::vector<std::string> row = {pct_label(fractions_pct[f])};
      bool any = false;
      for (size_t p = 0; p < plans.size(); ++p) {
        row.push_back(fixed(ms[p][f], 1));
        any = any || !std::isnan(ms[p][f]);
      }
      if (!any) continue;
      for (size_t m = 0; m < models.size(); ++m) {
        row.push_back(short_node(picks[w][m][f].node));
        row.push_back(fixed(picks[w][m][f].regret(), 2));
      }
      rows.push_back(row);
    }
    if (rows.empty()) continue;
    std::vector<bool> right(header.size(), true);
    for (size_t m = 0; m < models.size(); ++m) right[1 + plans.size() + 2 * m] = false;
    md << "**" << worlds[w].name() << "** ("
       << (worlds[w].prefetch ? "defaults, index_prefetch = on"
                              : "effective_io_concurrency = 0, index_prefetch = off")
       << "):\n\n"
       << markdown_table(header, rows, right) << "\n";
  }
  return md.str();
}

}  // namespace tp::experiments
