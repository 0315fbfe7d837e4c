// Validation of the parts of "cluster" beyond its counts: host groups (one, or a list of them),
// per-node overrides, the topology and where servers sit. Internal to runtime/scenario/:
// parse_cluster calls these. Each throws ScenarioError at the offending value's pointer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runtime/scenario/scenario.h"

namespace pstwin::scenario_sections {

/// {"bandwidth": "10Gbps", "latency": "50us"}.
LinkSpec parse_link(const nlohmann::json& v, const std::string& ptr);

/// "intra_host": a preset name (link_presets.h) or {"bandwidth", "latency"}.
LinkSpec parse_intra_host_link(const nlohmann::json& v, const std::string& ptr);

/// "worker" or "server": one group {"device", "link"} for all `count` nodes, or a list of groups
/// {"count", "device", "link"} whose counts sum to `count`, each a multiple of `multiple_of`
/// (workers_per_host for workers: a machine's workers share one NIC). Returns the hardware of
/// each node in order and sets `first` to the first group's.
std::vector<HostGroupSpec> parse_host_groups(const nlohmann::json& v, const std::string& ptr, std::uint32_t count,
                                             std::uint32_t multiple_of, HostGroupSpec& first);

/// "messaging": {"send_per_message", "send_per_byte", "receive_per_message",
/// "receive_per_byte"}, each a duration ("25us", "0.4ns"; per byte: seconds per encoded byte),
/// and "io_share", a number in [0, 1] (the I/O thread's part of them); each optional (absent:
/// 0). cluster_costs.cc.
MessagingSpec parse_messaging(const nlohmann::json& v, const std::string& ptr);

/// Refuses a messaging "io_share" above 0 (any node's) where the simulation cannot give the node an
/// I/O thread: with "simulation.nic_window" (its receive window is the role's own), and with
/// fault tolerance or failures (a failed node's I/O thread is not modelled). Throws ScenarioError
/// at "/cluster" naming the node, or at "/simulation/nic_window". cluster_costs.cc.
void check_io_share_applies(const ClusterSection& c, const SimulationSection& sim, bool fault_tolerance);

/// "cpu": {"cores": N >= 1, "machines": "one" | "per_host"}, both required. cluster_costs.cc.
CpuSpec parse_cpu(const nlohmann::json& v, const std::string& ptr);

/// "overrides": {"worker:3": {"link": ...}, "server:0": {"device": ...}} replaces that node's
/// device, link or messaging in c.worker_nodes / c.server_nodes. With workers_per_host > 1 a worker's link
/// is its machine's NIC, so only a machine's first worker may override it.
void apply_overrides(const nlohmann::json& v, const std::string& ptr, ClusterSection& c);

/// "topology": "star" or {"type": ..., parameters}; checks that the machines of `c` (counted
/// with its workers_per_host and server placement) fit the fabric's leaves.
TopologySpec parse_topology(const nlohmann::json& v, const std::string& ptr, const ClusterSection& c);

/// "server_placement": "separate", "spread" or "colocated" (servers <= worker machines).
ServerPlacement parse_server_placement(const nlohmann::json& v, const std::string& ptr, const ClusterSection& c);

/// Machines the job occupies: worker machines, then server machines unless co-located, then
/// the scheduler's.
std::uint64_t machine_count(const ClusterSection& c);

/// The longest way through the topology between two machines' NICs, as one link: the slowest
/// bandwidth on it (infinity when it crosses none: star) and the sum of its latencies (racks:
/// two uplinks; fat_tree: two links per level; torus: half of each ring; dragonfly: up to seven
/// links). For checks that must hold for every pair of machines (heartbeat timeouts).
LinkSpec fabric_worst_path(const ClusterSection& c);

}  // namespace pstwin::scenario_sections
