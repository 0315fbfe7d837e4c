#include "cli/sweep_variants.h"

#include <iostream>

#include "cli/scenario_options.h"

namespace pstwin::cli {

std::vector<std::string> sweep_variant_names(const Scenario& scenario) {
  std::vector<std::string> names;
  for (const auto& v : scenario.consistency) names.push_back(v.name);
  return names;
}

nlohmann::json recorded_config(const Scenario& scenario, std::size_t index) {
  return scenario_for_variant(scenario, index).source;
}

int simulate_sweep_variant(const Scenario& scenario, std::size_t index, const std::string& dir,
                           const ProgressFn& progress) {
  // A variant may change the data, the model or the workers: it is prepared on its own.
  const Scenario run = scenario_for_variant(scenario, index);
  const auto prepared = prepare_training_or_report(run);
  if (!prepared) return 2;
  simulate_variant(run, run.consistency.front(), *prepared, dir, progress);
  return 0;
}

}  // namespace pstwin::cli
