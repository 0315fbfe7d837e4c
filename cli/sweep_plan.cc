#include "cli/sweep_plan.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/override_note.h"
#include "cli/run_checks.h"
#include "cli/sweep_variants.h"
#include "runtime/errors.h"

namespace pstwin::cli {

namespace {

/// Whether `dir` holds the finished run of `variant` whose summary.json records `expected` as its
/// config. A folder without a readable summary is an interrupted run (run again); a summary of
/// other settings is refused, since reusing or overwriting it would silently mix two experiments.
bool finished_run_in(const std::string& dir, const nlohmann::json& expected, const std::string& variant) {
  std::ifstream in(dir + "/summary.json");
  if (!in) return false;
  nlohmann::json s;
  try {
    in >> s;
  } catch (const nlohmann::json::exception&) {
    return false;  // cut short while being written
  }
  if (!s.is_object()) return false;
  const nlohmann::json config = s.value("config", nlohmann::json());
  if (s.value("variant", "") != variant || config != expected) {
    std::string what = "variant \"" + s.value("variant", "") + "\"";
    if (s.value("variant", "") == variant) {
      const auto patch = nlohmann::json::diff(config, expected);
      what = patch.empty() ? "other settings" : patch[0].value("path", "/");
      what = "other settings (" + (what.empty() ? std::string("/") : what) + " differs)";
    }
    throw SweepPlanError(dir + "/summary.json records a run of " + what +
                         " than this sweep asks for; remove the folder or choose another --out");
  }
  return s.value("completed", false);
}

}  // namespace

SweepPlan make_sweep_plan(const std::string& scenario_path, const std::vector<std::string>& overrides,
                          const std::vector<GridAxis>& axes, unsigned seeds, const std::string& out) {
  SweepPlan plan;
  plan.axes = axes;
  plan.points = grid_points(axes);
  for (const auto& axis : axes)
    if (axis.pointer == "/seed" && seeds > 1)
      throw SweepPlanError("--seeds " + std::to_string(seeds) +
                           " and --grid /seed=... both set the seed; give one of them");
  unsigned long long base_seed = 0;
  try {
    base_seed = load_scenario(scenario_path, overrides).seed;
  } catch (const ScenarioError& e) {
    throw SweepPlanError("invalid scenario " + scenario_path + ": " + e.what() +
                         override_note(overrides_of(overrides), e.pointer(), e.what()));
  }
  std::map<std::string, std::size_t> folders;
  RunCheckCache checks;  // the points mostly share their data: each is read once
  for (std::size_t p = 0; p < plan.points.size(); ++p) {
    for (unsigned k = 0; k < seeds; ++k) {
      std::vector<std::string> sets = overrides;
      // What the user gave, for the note on an error: --set, then this point's --grid values.
      std::vector<ScenarioOverride> given = overrides_of(overrides);
      for (std::size_t a = 0; a < axes.size(); ++a) {
        sets.push_back(axes[a].pointer + "=" + plan.points[p].values[a]);
        given.push_back({"--grid", sets.back()});
      }
      if (seeds > 1) sets.push_back("/seed=" + std::to_string(base_seed + k));
      SweepSetting setting;
      setting.point = p;
      std::string where = point_folder_name(axes, plan.points[p], base_seed + k);
      try {
        setting.scenario = load_scenario(scenario_path, sets);
        // As validate, simulate and launch do, for every grid point before any runs (sweep_plan.h):
        // a model's size that only the whole data tells is read here, once per data set, since
        // no run reads the data before its own child starts.
        setting.memory = check_runs(setting.scenario, /*read_whole=*/true, checks).memory;
      } catch (const ScenarioError& e) {
        throw SweepPlanError("invalid scenario " + scenario_path + " at " + where + ": " + e.what() +
                             override_note(given, e.pointer(), e.what()));
      } catch (const RunDataError& e) {
        throw SweepPlanError("at " + where + ": " + e.what());
      }
      setting.seed = setting.scenario.seed;
      setting.folder = point_folder_name(axes, plan.points[p], setting.seed);
      const auto [it, added] = folders.emplace(setting.folder, p);
      if (!added)
        throw SweepPlanError("two grid points share the run folder " + setting.folder +
                             " (their values differ only in characters a folder name drops)");
      plan.settings.push_back(std::move(setting));
    }
  }
  for (std::size_t i = 0; i < plan.settings.size(); ++i) {
    const auto names = sweep_variant_names(plan.settings[i].scenario);
    for (std::size_t v = 0; v < names.size(); ++v) {
      SweepRun run;
      run.setting = i;
      run.variant = v;
      run.variant_name = names[v];
      run.dir = (std::filesystem::path(out) / plan.settings[i].folder / names[v]).string();
      run.complete = finished_run_in(run.dir, recorded_config(plan.settings[i].scenario, v), names[v]);
      plan.runs.push_back(std::move(run));
    }
  }
  return plan;
}

}  // namespace pstwin::cli
