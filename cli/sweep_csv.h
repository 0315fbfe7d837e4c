// sweep.csv: one row per run of a sweep, for plot_sweep.py and other tools.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/sweep_plan.h"

namespace pstwin::cli {

/// Reads each run's summary.json (a missing or unreadable one counts as failed) and writes
/// `path`: a header of the swept pointers ("/cluster/workers", ...), then seed, variant, mode,
/// metric, target_metric, time_to_target_s, last_test_metric (the summary's final_test_metric:
/// the last evaluation's), bytes_sent, sim_time_s, wall_time_s, status (run_status: ok,
/// DIVERGED, stopped or FAILED; a stopped run's figures are those it reached, and one stopped
/// before it started has its metric and target but no figures), run (the run folder relative to
/// `out`); one row
/// per run in plan order. Grid values are written as given; empty fields for null figures.
/// Returns the number of rows whose status is not ok. Throws std::runtime_error if it cannot write.
std::size_t write_sweep_csv(const std::string& path, const std::string& out, const SweepPlan& plan);

}  // namespace pstwin::cli
