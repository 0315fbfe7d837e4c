// Validation of each scenario section. Internal to runtime/scenario/: parse_scenario calls these
// in order, passing what later sections depend on (the model type, the number of workers).
// Each throws ScenarioError at the offending value's pointer; `ptr` is the section's own pointer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin::scenario_sections {

/// "data". Relative paths that do not exist as given but do under `base_dir` are rewritten.
DataSection parse_data(const nlohmann::json& v, const std::string& ptr, const std::string& base_dir);

/// "model".
ModelSection parse_model(const nlohmann::json& v, const std::string& ptr);

/// "training"; batch_size and learning_rate are required unless `synthetic`.
TrainingSection parse_training(const nlohmann::json& v, const std::string& ptr, bool synthetic);

/// "cluster", with its two host groups.
ClusterSection parse_cluster(const nlohmann::json& v, const std::string& ptr);

/// "consistency": one variant per entry, with default and unique names; backup_workers < `workers`.
std::vector<ConsistencyVariant> parse_consistency(const nlohmann::json& v, const std::string& ptr,
                                                  std::uint32_t workers);

/// "stragglers"; every worker index < `workers`.
std::vector<StragglerSpec> parse_stragglers(const nlohmann::json& v, const std::string& ptr,
                                            std::uint32_t workers);

}  // namespace pstwin::scenario_sections
