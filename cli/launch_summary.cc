#include "cli/launch_summary.h"

#include <filesystem>
#include <fstream>
#include <iostream>

#include "runtime/output/failure_accounting.h"
#include "runtime/output/late_stop.h"
#include "runtime/output/output_file.h"
#include "runtime/output/summary.h"

namespace fs = std::filesystem;

namespace pstwin::cli {

std::string launched_node_name(const Scenario& scenario, std::size_t index) {
  const std::size_t r = index - 1;
  const bool server = r < scenario.cluster.servers;
  return (server ? "server:" : "worker:") + std::to_string(server ? r : r - scenario.cluster.servers);
}

std::string node_exit_text(const Scenario& scenario, std::size_t index, const ChildExit& end) {
  return launched_node_name(scenario, index) + " " + end.text();
}

void append_events(const std::string& dir, const std::vector<nlohmann::json>& events) {
  if (events.empty()) return;
  const std::string path = dir + "/summary.json";
  try {
    {
      OutputFileStream out(dir + "/events.jsonl", OutputOpen::kAppend);
      for (const auto& e : events) out << e.dump() << "\n";
    }
    if (!fs::exists(path)) return;  // the scheduler itself was killed
    auto summary = nlohmann::json::parse(std::ifstream(path));
    set_failure_fields(summary, read_events_jsonl(dir + "/events.jsonl"),
                       summary.value("sim_time_s", 0.0));
    write_summary(dir, summary);
  } catch (const std::exception& e) {
    std::cerr << "pstwin launch: cannot update " << path << ": " << e.what() << "\n";
  }
}

void write_missing_summary(const std::string& dir, const Scenario& run, const std::string& reason,
                           const std::string& stopped_by) {
  write_summary(dir, unfinished_summary(run, "zmq", reason, stopped_by));
}

std::vector<std::string> mark_variants_not_run(const std::vector<Scenario>& runs, std::size_t first,
                                               const std::string& out, const std::string& reason,
                                               const std::string& stopped_by) {
  std::vector<std::string> names;
  for (std::size_t i = first; i < runs.size(); ++i) {
    const ConsistencyVariant& variant = runs[i].consistency.front();
    const std::string dir = out + "/" + variant.name;
    fs::create_directories(dir);
    auto summary = unfinished_summary(runs[i], "zmq", reason, stopped_by);
    summary["started"] = false;
    write_summary(dir, summary);
    names.push_back(variant.name);
  }
  return names;
}

void note_late_stop_in_folder(const std::string& dir, const std::string& why) {
  const std::string path = dir + "/summary.json";
  if (!fs::exists(path)) return;
  try {
    auto summary = nlohmann::json::parse(std::ifstream(path));
    if (!late_stop_to_note(summary)) return;
    for (const auto& e : read_events_jsonl(dir + "/events.jsonl"))
      if (e.value("type", "") == "stopped_after_completion") return;  // the scheduler saw the stop itself
    nlohmann::json event{{"time_s", summary.value("sim_time_s", 0.0)}, {"type", "stopped_after_completion"}};
    event.update(add_late_stop_note(summary, why));
    {
      OutputFileStream out(dir + "/events.jsonl", OutputOpen::kAppend);
      out << event.dump() << "\n";
    }
    write_summary(dir, summary);
  } catch (const std::exception& e) {
    std::cerr << "pstwin launch: cannot update " << path << ": " << e.what() << "\n";
  }
}

nlohmann::json summary_in(const std::string& dir) {
  try {
    auto summary = nlohmann::json::parse(std::ifstream(dir + "/summary.json"));
    if (summary.is_object()) return summary;
  } catch (const std::exception&) {
  }
  return nlohmann::json::object();
}

void record_job_lost(const std::string& dir, const Scenario& scenario, std::size_t index, const ChildExit& end,
                     const std::string& why) {
  const std::string path = dir + "/summary.json";
  if (!fs::exists(path)) return;  // write_missing_summary's case
  try {
    auto summary = nlohmann::json::parse(std::ifstream(path));
    if (summary.value("completed", false)) return;  // it ended by itself after all
    const std::string cause = node_exit_text(scenario, index, end) + why;
    // When the scheduler wrote that it was stopped: the launcher stopped it just then.
    double time_s = summary.value("sim_time_s", 0.0);
    for (const auto& e : read_events_jsonl(dir + "/events.jsonl"))
      if (e.value("type", "") == "job_stopped") time_s = e.value("time_s", time_s);
    {
      OutputFileStream out(dir + "/events.jsonl", OutputOpen::kAppend);
      nlohmann::json event{{"time_s", time_s}, {"type", "job_lost"},
                           {"node", launched_node_name(scenario, index)}, {"exit_status", end.shell_status()}};
      if (end.signal != 0) event["signal"] = end.signal;
      event["reason"] = cause;
      out << event.dump() << "\n";
    }
    summary["reason"] = cause + "; the launcher stopped the job: " + summary.value("reason", std::string());
    write_summary(dir, summary);
  } catch (const std::exception& e) {
    std::cerr << "pstwin launch: cannot update " << path << ": " << e.what() << "\n";
  }
}

}  // namespace pstwin::cli
