#include "cli/stopped_summary.h"

#include "runtime/job_setup.h"
#include "runtime/output/figures_reached.h"
#include "runtime/output/summary.h"

namespace pstwin::cli {

nlohmann::json stopped_variant_summary(const Scenario& run, const VariantStatus& status, const std::string& dir,
                                       const std::string& why, const std::string& signal) {
  auto summary = unfinished_summary(run, "simulated", stopped_variant_reason(status, why), signal);
  if (status.exit_code == -1) {  // never started
    summary["started"] = false;
    return summary;
  }
  summary["progress"] = status.fraction;
  add_figures_reached(summary, dir + "/metrics.csv", run.training.target_metric, scenario_metric_goal(run));
  return summary;
}

}  // namespace pstwin::cli
