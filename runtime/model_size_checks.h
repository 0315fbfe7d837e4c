// The checks of a job against its model's size: every server gets keys, every message fits the
// wire (runtime/wire_limit_check.h), and the target is one the model's metric can reach. Made
// before anything starts, for each run of a scenario: from the scenario alone for the synthetic
// model, from the data's shape for a real one; and again by build_model when a node builds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "runtime/model/model.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// A model's size as the servers hold it: `keys` keys of `values_per_key` float32 each, pushed
/// and pulled with an explicit key list when `sparse` (Model::sparse).
struct ModelKeys {
  std::uint64_t keys = 0;
  std::size_t values_per_key = 1;
  bool sparse = false;
};

/// The keys of `model`: num_parameters() / values_per_key().
ModelKeys model_keys(const Model& model);

/// The synthetic model's keys (its `parameters`, one float32 each); nullopt for a real model,
/// whose size comes from its data.
std::optional<ModelKeys> synthetic_model_keys(const Scenario& run);

/// For one run with a model of `keys`: check_servers_have_keys, check_messages_fit_the_wire and
/// check_target_metric. Throws ScenarioError at /cluster/servers, /partition/block_keys or
/// /training/target_metric.
void check_job_fits_model(const Scenario& run, const ModelKeys& keys);

/// The keys of a run's model (called with the base and with each variant's scenario); nullopt
/// when not known (a real model whose data was not measured), which checks the target alone.
/// May throw ScenarioError (a model the data does not fit, at /model/type).
using KeysOfRun = std::function<std::optional<ModelKeys>(const Scenario& run)>;

/// check_job_fits_model for the base scenario and then for each of its runs
/// (scenario_for_variant), with the keys `keys_of` gives. The base's errors keep their pointers;
/// a variant's are put where the variant wrote their cause (throw_in_variant), e.g.
/// "/variants/1/set/~1cluster~1servers". Throws ScenarioError.
void check_runs_fit_their_models(const Scenario& scenario, const KeysOfRun& keys_of);

}  // namespace pstwin
