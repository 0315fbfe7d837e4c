// What a sweep will run: every grid point x seed x variant, each with its scenario and run folder,
// and which of those folders already hold the finished run (so an interrupted sweep resumes).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/memory_fit.h"
#include "cli/sweep_grid.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// A sweep that cannot start as asked (a run folder of other settings, two points sharing a
/// folder, --seeds together with a grid over /seed). what() is the whole message.
class SweepPlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One run of a sweep.
struct SweepRun {
  std::size_t setting = 0;   ///< index into SweepPlan::settings
  std::size_t variant = 0;   ///< index into sweep_variant_names(settings[setting].scenario)
  std::string variant_name;
  std::string dir;           ///< OUT/<point folder>/<variant>
  bool complete = false;     ///< dir/summary.json says it completed, for the same settings
};

/// One grid point with one seed: the scenario every variant of it runs.
struct SweepSetting {
  std::size_t point = 0;          ///< index into SweepPlan::points
  unsigned long long seed = 0;    ///< the scenario's seed at this setting
  std::string folder;             ///< point_folder_name(...)
  Scenario scenario;
  std::vector<RunMemory> memory;  ///< by variant (check_runs)
};

/// The whole sweep.
struct SweepPlan {
  std::vector<GridAxis> axes;
  std::vector<GridPoint> points;
  std::vector<SweepSetting> settings;  ///< points x seeds, the point varying slowest
  std::vector<SweepRun> runs;          ///< settings x variants, the setting varying slowest
};

/// Builds the plan of `scenario_path` with the --set `overrides`, then for each grid point the
/// axes' values as more overrides, then (when seeds > 1) "/seed=S" for S = the scenario's seed
/// + 0..seeds-1. Loads every setting's scenario before anything runs. Runs go in
/// OUT/<point_folder_name>/<variant>, each setting with its variants' memory (check_runs).
/// Throws SweepPlanError "invalid scenario FILE at <folder>: /pointer: what", with
/// override_note's " (the value of --set P=V)" or " (the value of --grid P=V)" when an override
/// put the value there, for a value the scenario refuses (a pointer it does not have
/// included; what check_runs finds: the data as far as that is cheap, a model too large for the
/// wire or its servers), "at <folder>: bad data ..." for a data file check_runs refuses, and
/// for a run folder whose summary.json records other settings (naming the first differing
/// pointer), two points that map to one folder, or seeds > 1 with an axis over /seed.
SweepPlan make_sweep_plan(const std::string& scenario_path, const std::vector<std::string>& overrides,
                          const std::vector<GridAxis>& axes, unsigned seeds, const std::string& out);

}  // namespace pstwin::cli
