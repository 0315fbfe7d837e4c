#include "runtime/model_size_checks.h"

#include "runtime/errors.h"
#include "runtime/job_checks.h"
#include "runtime/wire_limit_check.h"

namespace pstwin {

ModelKeys model_keys(const Model& model) {
  return ModelKeys{model.num_parameters() / model.values_per_key(), model.values_per_key(), model.sparse()};
}

std::optional<ModelKeys> synthetic_model_keys(const Scenario& run) {
  if (run.model.type != "synthetic") return std::nullopt;
  return ModelKeys{run.model.parameters, 1, false};
}

void check_job_fits_model(const Scenario& run, const ModelKeys& keys) {
  check_servers_have_keys(run, keys.keys);
  check_messages_fit_the_wire(run, keys.keys, keys.values_per_key, keys.sparse);
  check_target_metric(run);
}

namespace {

void check_one(const Scenario& run, const KeysOfRun& keys_of) {
  if (const std::optional<ModelKeys> keys = keys_of(run)) check_job_fits_model(run, *keys);
  else check_target_metric(run);
}

}  // namespace

void check_runs_fit_their_models(const Scenario& scenario, const KeysOfRun& keys_of) {
  // The base first, so that what every run inherits is blamed on the base, not on a variant.
  check_one(scenario, keys_of);
  for (std::size_t i = 0; i < scenario.consistency.size(); ++i) {
    const Scenario run = scenario_for_variant(scenario, i);
    try {
      check_one(run, keys_of);
    } catch (const ScenarioError& e) {
      throw_in_variant(e, scenario, i);
    }
  }
}

}  // namespace pstwin
