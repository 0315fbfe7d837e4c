// The summary a simulate or sweep parent writes for a variant it stopped: why, and the figures
// the variant had reached (its process was killed before it could write a summary of its own).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/variant_processes.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// The summary.json of the variant of `run` (the variant's own scenario, its overrides applied:
/// its target and model) whose process `status` says was stopped (VariantStatus::stopped),
/// writing into `dir`: unfinished_summary with the reason stopped_variant_reason(status, `why`)
/// and stop_reason `signal` ("SIGINT"). One never started gets "started": false; one cut short
/// gets "progress" (status.fraction, the share of clocks done the child last told: clocks_share)
/// and "sim_time_s" (status.sim_time_s, the simulated time it told with it, or its last
/// evaluation's when later; the reason gives the same), and the figures its
/// metrics.csv holds (add_figures_reached: last test metric, clock, time to target; REQUIRES:
/// the folder tidied first, tidy_variant_folder).
nlohmann::json stopped_variant_summary(const Scenario& run, const VariantStatus& status, const std::string& dir,
                                       const std::string& why, const std::string& signal);

}  // namespace pstwin::cli
