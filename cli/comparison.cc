#include "cli/comparison.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "cli/run_status.h"
#include "runtime/output/atomic_file.h"
#include "runtime/count_text.h"

namespace pstwin::cli {

namespace {

std::string format_field(const nlohmann::json& s, const std::string& key, bool for_csv) {
  if (!s.contains(key) || s[key].is_null()) return for_csv ? "" : "-";
  const auto& v = s[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  char buf[32];
  std::snprintf(buf, sizeof buf, for_csv ? "%.9g" : "%.4g", v.get<double>());
  return buf;
}

/// The metric column's title: final values unless a run was stopped, whose value is the one it
/// reached (a trial's all-stopped table read "final test metric").
std::string metric_title(const std::vector<nlohmann::json>& summaries) {
  std::string metric = "metric";
  for (const auto& s : summaries)
    if (s.contains("metric") && s["metric"].is_string()) metric = s["metric"].get<std::string>();
  bool any_completed = false, any_stopped = false;
  for (const auto& s : summaries) {
    any_completed = any_completed || s.value("completed", false);
    any_stopped = any_stopped || was_stopped(s);
  }
  if (!any_stopped) return "final test " + metric;
  return any_completed ? "last test " + metric : "test " + metric + " at stop";
}

}  // namespace

const std::vector<std::string>& comparison_columns() {
  static const std::vector<std::string> columns = {
      "variant",          "mode",           "time_to_target_s", "final_test_metric",
      "final_test_loss",  "updates",        "staleness_mean",   "staleness_max",
      "sim_time_s",       "wall_time_s",    "time_lost_s",      "bytes_sent",
      "bytes_to_servers", "params_sha256",  "stop_reason"};
  return columns;
}

void write_comparison_csv(const std::string& path, const std::vector<nlohmann::json>& summaries) {
  std::ostringstream out;
  const auto& cols = comparison_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
  out << ",status\n";
  for (const auto& s : summaries) {
    for (std::size_t i = 0; i < cols.size(); ++i)
      out << (i ? "," : "") << format_field(s, cols[i], true);
    out << ',' << run_status(s) << '\n';
  }
  write_file_atomically(path, out.str());
}

void print_comparison_table(std::ostream& out, const std::vector<nlohmann::json>& summaries) {
  // The table leaves out the hash and bytes (they are in comparison.csv) to fit a terminal. The
  // metric column is named after the model's metric ("final test rmse") when a summary says it.
  // Launched runs measure their job time by the wall clock, not in simulated seconds.
  std::string time_title = "sim time (s)";
  for (const auto& s : summaries)
    if (s.value("environment", "simulated") != "simulated") time_title = "job time (s)";
  const std::vector<std::pair<std::string, std::string>> shown = {
      {"variant", "variant"},         {"time_to_target_s", "time to target (s)"},
      {"final_test_metric", metric_title(summaries)}, {"updates", "updates"},
      {"staleness_mean", "staleness mean"}, {"staleness_max", "max"},
      {"sim_time_s", time_title},       {"wall_time_s", "wall (s)"},
      {"time_lost_s", "time lost (s)"}, {"stop_reason", "stopped by"}};
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header;
  for (const auto& [key, title] : shown) header.push_back(title);
  header.push_back("status");
  cells.push_back(header);
  for (const auto& s : summaries) {
    std::vector<std::string> row;
    for (const auto& [key, title] : shown) row.push_back(format_field(s, key, false));
    row.push_back(run_status_text(s));
    cells.push_back(row);
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& row : cells)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (std::size_t r = 0; r < cells.size(); ++r) {
    for (std::size_t i = 0; i < cells[r].size(); ++i) {
      const auto& c = cells[r][i];
      // Names left-aligned, figures right-aligned.
      if (i + 1 == cells[r].size())
        out << c;  // the status, last: no padding after it
      else if (i == 0)
        out << c << std::string(width[i] - c.size(), ' ');
      else
        out << std::string(width[i] - c.size(), ' ') << c;
      out << (i + 1 < cells[r].size() ? "  " : "\n");
    }
    if (r == 0) {
      std::size_t total = 0;
      for (auto w : width) total += w + 2;
      out << std::string(total - 2, '-') << '\n';
    }
  }
}

int report_comparison(const Scenario& scenario, const std::string& out,
                      const std::vector<std::string>& names, const std::vector<int>& exit_codes) {
  std::vector<nlohmann::json> summaries;
  bool all_ok = true;
  for (std::size_t i = 0; i < names.size(); ++i) {
    nlohmann::json s;
    std::ifstream in(out + "/" + names[i] + "/summary.json");
    if (in) {
      try {
        in >> s;
      } catch (const nlohmann::json::exception&) {
        s = nlohmann::json::object();
      }
    }
    if (!s.is_object() || s.empty()) s = {{"variant", names[i]}, {"completed", false}};
    if (exit_codes[i] != 0) {
      s["completed"] = false;
      all_ok = false;
    }
    summaries.push_back(s);
  }
  try {
    write_comparison_csv(out + "/comparison.csv", summaries);
  } catch (const std::exception& e) {
    std::cerr << "pstwin: " << e.what() << "\n";
    all_ok = false;
  }
  std::cout << "scenario " << scenario.name << ": " << count_text(scenario.cluster.workers, "worker")
            << ", " << count_text(scenario.cluster.servers, "server");
  if (scenario.training.target_metric)
    std::cout << ", target test metric " << *scenario.training.target_metric;
  std::cout << "\n\n";
  print_comparison_table(std::cout, summaries);
  std::cout << "\noutputs: " << out << "/ (comparison.csv, <variant>/metrics.csv, summary.json, "
            << "events.jsonl)\n";
  for (const auto& s : summaries)
    if (s.value("diverged", false))
      std::cout << "note: " << s.value("variant", "?") << ": " << s.value("reason", "") << "\n";
  return all_ok ? 0 : 1;
}

}  // namespace pstwin::cli
