// The topology builders behind build_platform (sim/platform.h), one file each, and the machine
// they all place. Internal to sim/.
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "runtime/job_layout.h"
#include "runtime/scenario/scenario.h"
#include "sim/machines.h"

namespace pstwin::topology {

/// What the builders share: the cluster, the layout, and the hosts made so far (by NodeId).
struct Build {
  const ClusterSection& cluster;
  const JobLayout& layout;
  std::vector<simgrid::s4u::Host*>& hosts;
  /// The zone the topology's own zone goes under, or null when it is the platform's root (it is,
  /// unless the cluster has "cpu": the machines' cores are then a zone beside it).
  simgrid::s4u::NetZone* parent = nullptr;
};

/// A machine as its parent zone sees it: a host (gateway null), or a zone and its gateway.
struct Leaf {
  simgrid::kernel::routing::NetPoint* netpoint = nullptr;
  simgrid::kernel::routing::NetPoint* gateway = nullptr;
};

/// Adds machine `m` under `parent`: a bare host when it holds one node and `as_zone` and
/// `nic_inside` are false; otherwise a star zone named after it whose gateway router stands for
/// the NIC, each node's host hanging off it by its local link (Machine::local; none for a lone
/// node). With `nic_inside` the NIC link is the gateway's own route in that zone (for fabrics,
/// whose own links start at the leaf); without, the caller routes the leaf to its parent through
/// the NIC (add_machine_to_star). SimGrid 3.32 finds routes only in zones that hold hosts alone
/// or zones alone (a host beside a zone is routed as if inside it), so a zone that holds any
/// machine zone must hold every machine as a zone: `as_zone`.
Leaf add_machine(simgrid::s4u::NetZone* parent, const Machine& m, bool nic_inside, bool as_zone, const Build& b);

/// add_machine without nic_inside, then the route from the machine to `star`'s centre through
/// its NIC (a split-duplex link "link-<name>"): what a star or a rack does with each machine.
void add_machine_to_star(simgrid::s4u::NetZone* star, const Machine& m, bool as_zone, const Build& b);

void build_star(const MachinePlan& plan, const Build& b);
void build_racks(const MachinePlan& plan, const Build& b);
/// fat_tree, dragonfly and torus: SimGrid's cluster zones, one leaf per machine in
/// plan.leaf_order, unused leaves a router each.
void build_fabric(const MachinePlan& plan, const Build& b);

}  // namespace pstwin::topology
