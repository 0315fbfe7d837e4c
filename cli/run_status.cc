#include "cli/run_status.h"

#include <cmath>

namespace pstwin::cli {

bool was_stopped(const nlohmann::json& summary) {
  if (!summary.is_object() || summary.value("completed", false)) return false;
  const auto by = summary.find("stop_reason");
  if (by == summary.end() || !by->is_string()) return false;
  const std::string& why = by->get_ref<const std::string&>();
  return why.rfind("SIG", 0) == 0 || why == "launcher_died";
}

std::string run_status(const nlohmann::json& summary) {
  if (was_stopped(summary)) return "stopped";
  if (!summary.is_object() || !summary.value("completed", false)) return "FAILED";
  if (summary.value("diverged", false)) return "DIVERGED";
  return "ok";
}

std::string run_status_text(const nlohmann::json& summary) {
  if (!was_stopped(summary)) return run_status(summary);
  const std::string head = "stopped (" + summary["stop_reason"].get<std::string>() + ")";
  if (!summary.value("started", true)) return head + " before it started";
  const auto progress = summary.find("progress");
  if (progress == summary.end() || !progress->is_number()) return head;
  // Rounded down: a run one clock short of its end is not "at 100%".
  return head + " at " + std::to_string(static_cast<int>(std::floor(progress->get<double>() * 100.0))) + "%";
}

}  // namespace pstwin::cli
