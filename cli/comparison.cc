#include "cli/comparison.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "cli/command_name.h"
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
/// reached (a trial's all-stopped table read "final test metric"); with no run completed and
/// none stopped after it started there is no value at all, final or at a stop (a trial's table
/// of variants all stopped before starting read "test metric at stop").
std::string metric_title(const std::vector<nlohmann::json>& summaries) {
  std::string metric = "metric";
  for (const auto& s : summaries)
    if (s.contains("metric") && s["metric"].is_string()) metric = s["metric"].get<std::string>();
  bool any_completed = false, any_stopped = false, any_stopped_running = false;
  for (const auto& s : summaries) {
    any_completed = any_completed || s.value("completed", false);
    any_stopped = any_stopped || was_stopped(s);
    any_stopped_running = any_stopped_running || (was_stopped(s) && s.value("started", true));
  }
  if (!any_stopped) return "final test " + metric;
  if (any_completed) return "last test " + metric;
  return any_stopped_running ? "test " + metric + " at stop" : "test " + metric;
}

/// A comparison.csv column and the summary.json key it is read from. The metric and loss are the
/// last evaluation's: final for a completed run, those reached for a stopped one, so the columns
/// say "last" (summary.json keeps its "final_" keys, whose completed and stop_reason say which).
struct Column {
  const char* name;
  const char* key;
};

const std::vector<Column>& csv_columns() {
  static const std::vector<Column> columns = {
      {"variant", "variant"},
      {"mode", "mode"},
      {"time_to_target_s", "time_to_target_s"},
      {"last_test_metric", "final_test_metric"},
      {"last_test_loss", "final_test_loss"},
      {"updates", "updates"},
      {"staleness_mean", "staleness_mean"},
      {"staleness_max", "staleness_max"},
      {"sim_time_s", "sim_time_s"},
      {"wall_time_s", "wall_time_s"},
      {"time_lost_s", "time_lost_s"},
      {"bytes_sent", "bytes_sent"},
      {"bytes_to_servers", "bytes_to_servers"},
      {"params_sha256", "params_sha256"},
      {"stop_reason", "stop_reason"}};
  return columns;
}

}  // namespace

void write_comparison_csv(const std::string& path, const std::vector<nlohmann::json>& summaries) {
  std::ostringstream out;
  const auto& cols = csv_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i].name;
  out << ",status\n";
  for (const auto& s : summaries) {
    for (std::size_t i = 0; i < cols.size(); ++i)
      out << (i ? "," : "") << format_field(s, cols[i].key, true);
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

std::string outputs_text(const std::string& out, const std::vector<std::string>& names) {
  std::string files = "comparison.csv, <variant>/metrics.csv, summary.json, events.jsonl";
  // Written only by some runs (a trace always but where it failed early; link loads with
  // output.link_load): named when any variant has one, so the line lists what is there.
  for (const char* optional : {"trace.json", "link_load.csv"})
    for (const std::string& name : names)
      if (std::filesystem::is_regular_file(std::filesystem::path(out) / name / optional)) {
        files += std::string(", ") + optional;
        break;
      }
  return out + "/ (" + files + ")";
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
    std::cerr << error_prefix() << e.what() << "\n";
    all_ok = false;
  }
  std::cout << "scenario " << scenario.name << ": " << count_text(scenario.cluster.workers, "worker")
            << ", " << count_text(scenario.cluster.servers, "server");
  if (scenario.training.target_metric)
    std::cout << ", target test metric " << *scenario.training.target_metric;
  std::cout << "\n\n";
  print_comparison_table(std::cout, summaries);
  std::cout << "\noutputs: " << outputs_text(out, names) << "\n";
  for (const auto& s : summaries)
    if (s.value("diverged", false))
      std::cout << "note: " << s.value("variant", "?") << ": " << s.value("reason", "") << "\n";
  return all_ok ? 0 : 1;
}

}  // namespace pstwin::cli
