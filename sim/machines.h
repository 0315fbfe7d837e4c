// Which nodes share a machine, and through which links they reach the network: the plan the
// topology builders wire up (DESIGN.md, "Topologies"). No SimGrid here.
#pragma once

#include <string>
#include <vector>

#include "runtime/job_layout.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// One machine: a host per node on it, and one NIC to the network.
struct Machine {
  /// The node's host name for a machine of one node ("worker-3"); "machine-<h>" for worker
  /// machine h when it holds several nodes (workers_per_host > 1 or a co-located server).
  std::string name;
  std::vector<NodeId> nodes;
  LinkSpec nic;  ///< its link to the network: the first worker's (or the server's) link
  /// Per node, the link between the node and the machine's NIC: the intra-host link for the
  /// workers of a shared machine, the loopback for a co-located server (and for the lone worker
  /// beside it). Empty when the machine holds one node.
  std::vector<LinkSpec> local;
  /// Per node, what its local link is, as link_load.h's kLinkKindProperty names it:
  /// "intra_host" or "loopback".
  std::vector<const char*> local_kind;
  bool shared() const { return nodes.size() > 1; }
};

/// The job's machines.
struct MachinePlan {
  std::vector<Machine> workers;  ///< worker machine h holds workers h*k .. h*k+k-1 (k = workers_per_host)
  std::vector<Machine> servers;  ///< one per server; empty when servers are co-located
  Machine scheduler;
  /// Fabric leaves (fat_tree, dragonfly, torus) in order: worker machines, then servers' and
  /// the scheduler's; with "spread" placement server i follows worker machine
  /// ceil((i + 1) * H / S) - 1, so servers sit evenly among the H worker machines.
  std::vector<const Machine*> leaf_order(ServerPlacement placement) const;
};

/// Plans the machines of `cluster` for `layout`. `loopback` is the link between co-located
/// processes of one machine (SimGrid's network/loopback-bw and network/loopback-lat).
MachinePlan plan_machines(const ClusterSection& cluster, const JobLayout& layout, const LinkSpec& loopback);

}  // namespace pstwin
