#include "cli/sweep_csv.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cli/run_status.h"
#include "runtime/output/atomic_file.h"

namespace pstwin::cli {

namespace {

/// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (const char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number_field(const nlohmann::json& s, const char* key) {
  if (!s.contains(key) || !s[key].is_number()) return "";
  if (s[key].is_number_integer() || s[key].is_number_unsigned()) return s[key].dump();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", s[key].get<double>());
  return buf;
}

nlohmann::json read_summary(const std::string& dir) {
  std::ifstream in(dir + "/summary.json");
  nlohmann::json s;
  if (!in) return nlohmann::json::object();
  try {
    in >> s;
  } catch (const nlohmann::json::exception&) {
    return nlohmann::json::object();
  }
  return s.is_object() ? s : nlohmann::json::object();
}

}  // namespace

std::size_t write_sweep_csv(const std::string& path, const std::string& out, const SweepPlan& plan) {
  std::ostringstream csv;
  for (const auto& axis : plan.axes) csv << csv_field(axis.pointer) << ',';
  csv << "seed,variant,mode,metric,target_metric,time_to_target_s,last_test_metric,bytes_sent,"
         "sim_time_s,wall_time_s,status,run\n";
  std::size_t not_ok = 0;
  for (const auto& run : plan.runs) {
    const auto& setting = plan.settings[run.setting];
    const nlohmann::json s = read_summary(run.dir);
    const std::string status = run_status(s);
    if (status != "ok") ++not_ok;
    for (const auto& value : plan.points[setting.point].values) csv << csv_field(value) << ',';
    const std::string metric = s.contains("metric") && s["metric"].is_string() ? s["metric"].get<std::string>() : "";
    csv << setting.seed << ',' << csv_field(run.variant_name) << ','
        << csv_field(s.value("mode", "")) << ',' << csv_field(metric) << ','
        << number_field(s, "target_metric") << ',' << number_field(s, "time_to_target_s") << ','
        << number_field(s, "final_test_metric") << ',' << number_field(s, "bytes_sent") << ','
        << number_field(s, "sim_time_s") << ',' << number_field(s, "wall_time_s") << ',' << status
        << ',' << csv_field(std::filesystem::relative(run.dir, out).string()) << '\n';
  }
  write_file_atomically(path, csv.str());
  return not_ok;
}

}  // namespace pstwin::cli
