// Validation of "fault_tolerance" and "failures". Internal to runtime/scenario/ (parse_node_ref
// is also for tools that name nodes the way scenarios do). Each throws ScenarioError at the
// offending value's pointer; `ptr` is the section's own pointer.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin::scenario_sections {

/// "scheduler", "server:<i>" or "worker:<i>" (i a decimal index, 0-based) naming a node that
/// `cluster` has. Throws ScenarioError at `ptr` for any other spelling, and for an index out of
/// range ("worker:7 does not exist: the cluster has 4 workers").
NodeRef parse_node_ref(const std::string& text, const std::string& ptr, const ClusterSection& cluster);

/// "fault_tolerance": replication in [1, cluster.servers], heartbeat_timeout > heartbeat_interval
/// > 0, checkpoint_every_clocks in [0, 2^63), checkpoint_every >= 0, checkpoint_bandwidth > 0. Sets
/// `enabled` (the section is present).
FaultToleranceSection parse_fault_tolerance(const nlohmann::json& v, const std::string& ptr,
                                            const ClusterSection& cluster);

/// "failures": a list whose entries have exactly one of "node", "link" or "random" (see
/// FailureSpec), naming nodes that `cluster` has.
std::vector<FailureSpec> parse_failures(const nlohmann::json& v, const std::string& ptr,
                                        const ClusterSection& cluster);

}  // namespace pstwin::scenario_sections
