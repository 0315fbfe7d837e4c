// Running one consistency variant of a scenario inside SimGrid, and writing its outputs.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/job_setup.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Called as the workers push, at each 0.1% of the job's clocks, with the simulated time and the
/// share of clocks done (clocks_share, runtime/output/summary.h; below 1), and with 1 once the
/// simulation has ended (its outputs are then written).
using ProgressFn = std::function<void(double sim_time_s, double fraction)>;

/// Simulates `variant` of `scenario` in this process and writes into `dir`: metrics.csv,
/// events.jsonl and summary.json (see README "Outputs"). Returns the summary. SimGrid allows one
/// engine per process: call this once per process (the CLI forks a child per variant).
/// A diverged run is not an error: its summary says so. Throws std::runtime_error when a role
/// failed or did not finish (deadlock), after writing what it can of the outputs, and
/// SimGridOptionError (sim/simgrid_options.h) before the simulation starts when SimGrid refuses
/// one of scenario.simulation.cfg, its own options, which the engine is given as --cfg=NAME:VALUE.
/// The roles' math runs on make_backend(device) (kernels/select_backend.h): "cpu" by default,
/// since simulated time comes from the cluster's device specs, not from the machine running the
/// simulation; "cuda" (or a resolved "auto") only changes where the real math is done.
nlohmann::json simulate_variant(const Scenario& scenario, const ConsistencyVariant& variant,
                                const PreparedTraining& prepared, const std::string& dir,
                                const ProgressFn& progress = {}, const std::string& device = "cpu");

}  // namespace pstwin
