#include "cli/stopped_summary.h"

#include <algorithm>

#include "runtime/job_setup.h"
#include "runtime/output/figures_reached.h"
#include "runtime/output/summary.h"

namespace pstwin::cli {

nlohmann::json stopped_variant_summary(const Scenario& run, const VariantStatus& status, const std::string& dir,
                                       const std::string& why, const std::string& signal) {
  if (status.exit_code == -1) {  // never started
    auto summary = unfinished_summary(run, "simulated", stopped_variant_reason(status, why), signal);
    summary["started"] = false;
    return summary;
  }
  nlohmann::json figures = nlohmann::json::object();
  add_figures_reached(figures, dir + "/metrics.csv", run.training.target_metric, scenario_metric_goal(run));
  // The time the run reached, as a stopped launch's (the stop's): the last the child told with
  // its progress, or its last evaluation's when later (the child tells in 0.1% steps). A trial's
  // stopped simulate gave the last evaluation's time, and launch the stop's.
  VariantStatus reached = status;
  reached.sim_time_s = std::max(status.sim_time_s, figures.value("sim_time_s", 0.0));
  auto summary = unfinished_summary(run, "simulated", stopped_variant_reason(reached, why), signal);
  summary["progress"] = reached.fraction;
  summary.update(figures);
  summary["sim_time_s"] = reached.sim_time_s;
  return summary;
}

}  // namespace pstwin::cli
