#include "runtime/job_checks.h"

#include "runtime/errors.h"
#include "runtime/job_setup.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/count_text.h"

namespace pstwin {

void check_servers_have_keys(const Scenario& scenario, std::uint64_t keys) {
  if (scenario.cluster.servers > keys)
    throw ScenarioError("/cluster/servers",
                        count_text(scenario.cluster.servers, "server") + " for a model of " +
                            count_text(keys, "key") + "; every server needs at least one");
  const std::uint64_t per_server = (keys + scenario.cluster.servers - 1) / scenario.cluster.servers;
  if (per_server > 0xffffffffULL)
    throw ScenarioError("/cluster/servers",
                        "a model of " + count_text(keys, "key") + " over " +
                            count_text(scenario.cluster.servers, "server") +
                            " gives a server more than 2^32 - 1 keys; add servers");
  // Each block is a key range: a message per worker and clock, and a 32-bit range id.
  const PartitionSpec& p = scenario.partition;
  if (p.scheme != PartitionScheme::kRange && (keys + p.block_keys - 1) / p.block_keys > kMaxBlocks)
    throw ScenarioError("/partition/block_keys",
                        count_text(p.block_keys, "key") + " per block cut a model of " + count_text(keys, "key") +
                            " into more than " + std::to_string(kMaxBlocks) + " blocks; use larger blocks");
}

void check_workers_have_rows(const Scenario& scenario, std::uint64_t rows, const std::string& source) {
  const std::uint32_t workers = scenario.cluster.workers;
  if (rows < workers)
    throw ScenarioError("/cluster/workers", count_text(workers, "worker") + " but only " +
                                                count_text(rows, "training row") + " in " + source);
}

void check_training_set_size(const Scenario& scenario, std::uint64_t rows, const std::string& source,
                             bool exact) {
  check_workers_have_rows(scenario, rows, source);
  (void)iterations_per_worker(scenario, rows);
  if (!exact) return;
  const std::uint64_t smallest = rows / scenario.cluster.workers;
  const std::uint64_t batch = scenario.training.batch_size;
  if (batch > smallest)
    throw ScenarioError("/training/batch_size",
                        "a batch of " + count_text(batch, "example") + " is larger than a worker's partition (" +
                            count_text(rows, "training row") + " in " + source + " over " +
                            count_text(scenario.cluster.workers, "worker") + ": " + std::to_string(smallest) +
                            " for the smallest), so one gradient would use some examples twice; use at most " +
                            std::to_string(smallest));
}

void check_target_metric(const Scenario& scenario) {
  const auto& target = scenario.training.target_metric;
  if (!target || scenario.model.type == "synthetic") return;
  // The test metric of each model type (Model::metric_name): RMSE for matrix factorisation,
  // accuracy for the classifiers.
  const bool accuracy = scenario_metric_goal(scenario).higher_is_better;
  if (accuracy ? (*target <= 0.0 || *target > 1.0) : *target <= 0.0)
    throw ScenarioError("/training/target_metric",
                        std::string("a target ") + (accuracy ? "accuracy" : "rmse") + " must be " +
                            (accuracy ? "in (0, 1] (a fraction, not a percentage)" : "positive") + ", got " +
                            scenario_json::format_number(*target));
}

}  // namespace pstwin
