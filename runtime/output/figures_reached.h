// The figures a run cut short had reached, read back from the metrics.csv it left (a variant
// process killed when simulate or sweep was stopped writes no summary of its own).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/output/run_recorder.h"

namespace pstwin {

/// Sets in `summary` what the metrics.csv at `path` (kMetricsCsvHeader's columns, whole rows
/// only, as tidy_killed_run_folder leaves it) says the run reached, with the keys and meaning
/// make_summary gives them: final_test_metric, final_test_loss and final_train_loss (its last
/// row's; null when empty or not finite), final_clock and updates (its last row's),
/// staleness_max (the largest of its rows' windows) and staleness_mean (its rows' window means,
/// each weighted by the gradients applied in its window: the growth of updates since the row
/// before; 0 when none were), sim_time_s
/// (its last row's time_s), metric (goal.name; null when empty), target_metric (`target`) and
/// time_to_target_s (the time_s of the first row whose test_metric reaches `target`: >= when
/// goal.higher_is_better, else <=; null when none does or no target). A file that is missing or
/// holds no row gives null figures, final_clock, updates and the staleness figures 0 and
/// sim_time_s 0; reading stops at
/// the first row that does not parse (the rows before it count). Throws nothing.
void add_figures_reached(nlohmann::json& summary, const std::string& path, std::optional<double> target,
                         const MetricGoal& goal);

}  // namespace pstwin
