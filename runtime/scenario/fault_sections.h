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

/// Bytes of a heartbeat on the wire, rounded up: a message header with no payload (codec.h;
/// tests/fault_sections_test.cc checks it against encoded_size).
inline constexpr double kHeartbeatBytes = 128;

/// Seconds a heartbeat takes to reach the scheduler from the farthest node of `cluster`, as the
/// simulation prices it (SimGrid's LV08 model: 13.01 x the latencies of the node's link, the
/// scheduler's, the topology's longest way between machines (fabric_worst_path) and the
/// intra-host link when workers share machines, plus kHeartbeatBytes over 0.97 x the slowest of
/// their bandwidths), over every node's link.
double heartbeat_delivery_s(const ClusterSection& cluster);

/// The shortest heartbeat_timeout that never declares a live node dead: 2 x `interval_s` +
/// heartbeat_delivery_s(cluster). A live node's beats reach the scheduler an interval apart (its
/// first one an interval plus the delivery time after the start, when the scheduler starts
/// counting); the second interval lets one beat be late or missed (a real node's heartbeat thread
/// delayed, or a beat still queued when the scheduler judges). A timeout must be MORE than this.
double min_heartbeat_timeout_s(double interval_s, const ClusterSection& cluster);

/// Throws ScenarioError at `ptr` unless ft.heartbeat_timeout_s is more than
/// min_heartbeat_timeout_s(ft.heartbeat_interval_s, cluster); the message gives the reason and
/// the least value.
void check_heartbeat_margin(const FaultToleranceSection& ft, const ClusterSection& cluster, const std::string& ptr);

/// "fault_tolerance": replication in [1, cluster.servers], heartbeat_interval > 0,
/// heartbeat_timeout > min_heartbeat_timeout_s(heartbeat_interval, cluster) (the error gives the
/// reason and that least value), checkpoint_every_clocks in [0, 2^63), checkpoint_every >= 0,
/// checkpoint_bandwidth > 0. Sets `enabled` (the section is present).
FaultToleranceSection parse_fault_tolerance(const nlohmann::json& v, const std::string& ptr,
                                            const ClusterSection& cluster);

/// "failures": a list whose entries have exactly one of "node", "link" or "random" (see
/// FailureSpec), naming nodes that `cluster` has.
std::vector<FailureSpec> parse_failures(const nlohmann::json& v, const std::string& ptr,
                                        const ClusterSection& cluster);

}  // namespace pstwin::scenario_sections
