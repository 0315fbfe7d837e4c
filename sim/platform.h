// The simulated cluster: machines wired as the scenario's topology says (README, "Topologies").
#pragma once

#include <string>
#include <vector>

#include "kernels/device_spec.h"
#include "runtime/job_layout.h"
#include "runtime/scenario/scenario.h"

namespace simgrid::s4u {
class Host;
}

namespace pstwin {

/// Host name of a node: "scheduler", "server-<i>", "worker-<i>".
std::string host_name(const JobLayout& layout, NodeId node);

/// The device node `node` computes on: its worker's or server's group (after overrides); the
/// scheduler is equipped like the first server group. REQUIRES node < layout.nodes().
const DeviceSpec& node_device(const ClusterSection& cluster, const JobLayout& layout, NodeId node);

/// The host costs of node `node`'s messages (scenario "messaging"), taken as node_device takes
/// its device. REQUIRES node < layout.nodes().
const MessagingSpec& node_messaging(const ClusterSection& cluster, const JobLayout& layout, NodeId node);

/// Builds the platform inside the current SimGrid engine: a host per node (speed = its
/// device's peak flop/s) on machines (sim/machines.h) wired by cluster.topology: "star" (each
/// machine's full-duplex NIC to one non-blocking switch), "racks", "fat_tree", "dragonfly" or
/// "torus" (SimGrid's zones). Returns hosts indexed by NodeId. Must be called once per engine,
/// before actors are created; SimGrid's fat tree keeps a process-wide leaf counter, so a process
/// builds at most one fat tree (simulate runs each variant in a process of its own).
/// With cluster.cpu, the topology goes under a root zone "job" beside a zone "cpus" of hosts
/// standing for the machines' cores (sim/host_cpus.h), nothing routed to them; `cpu_hosts`, when
/// given, receives by NodeId the host whose cores run that node's host work (left empty without
/// "cpu", when the platform is exactly the one it was before "cpu" existed).
std::vector<simgrid::s4u::Host*> build_platform(const ClusterSection& cluster, const JobLayout& layout,
                                                std::vector<simgrid::s4u::Host*>* cpu_hosts = nullptr);

}  // namespace pstwin
