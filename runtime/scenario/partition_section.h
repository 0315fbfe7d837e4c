// "partition": how keys are spread over the servers (README, "Partitioning"). Internal to
// runtime/scenario/.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/key_placement.h"

namespace pstwin::scenario_sections {

/// "partition": a scheme name ("range", "consistent_hash", "balanced"), or an object
/// {"scheme": name, "virtual_nodes": n, "block_keys": n}. virtual_nodes (>= 1, default 100) is
/// for consistent_hash only and block_keys (>= 1, default 256) for consistent_hash and balanced;
/// giving either to a scheme that does not use it is an error, not a silent no-op. Throws
/// ScenarioError at the offending value's pointer. The result has no block owners yet (balanced
/// places blocks once the data is read: make_job_spec).
PartitionSpec parse_partition(const nlohmann::json& v, const std::string& ptr);

}  // namespace pstwin::scenario_sections
