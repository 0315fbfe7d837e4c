// The one place where a sweep meets the scenario's variant model: which variants a scenario has,
// and how one of them is run: each variant resolves to a scenario of its own
// (scenario_for_variant: the "consistency" shorthand or a "variants" entry with its overrides).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/scenario/scenario.h"
#include "sim/simulation.h"

namespace pstwin::cli {

/// The names of the scenario's variants, in the scenario's order (folder-safe, distinct).
std::vector<std::string> sweep_variant_names(const Scenario& scenario);

/// What summary.json's "config" holds after a run of variant `index` of `scenario`: the source of
/// the variant's resolved scenario (its overrides applied). A sweep keeps a finished run only
/// when its recorded config equals this.
nlohmann::json recorded_config(const Scenario& scenario, std::size_t index);

/// Loads the variant's data (each run its own: the partition depends on the workers and seed,
/// which a grid or the variant may change), then simulates variant `index` (REQUIRES index < sweep_variant_names(scenario).size()) into
/// `dir`, once per process. Returns 0, or 2 after printing the reason for bad data or a scenario
/// the data does not fit. Throws what simulate_variant throws (a run that failed).
int simulate_sweep_variant(const Scenario& scenario, std::size_t index, const std::string& dir,
                           const ProgressFn& progress);

}  // namespace pstwin::cli
