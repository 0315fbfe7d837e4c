// The CPU cores of the simulated machines (scenario "cluster.cpu"), and host work spent on them
// (DESIGN.md, "Cost model"). Internal to sim/.
#pragma once

#include <vector>

#include "runtime/job_layout.h"
#include "runtime/scenario/scenario.h"

namespace simgrid::s4u {
class Host;
class NetZone;
}  // namespace simgrid::s4u

namespace pstwin {

/// A core's speed on the hosts that stand for a machine's cores: work is given to them in
/// seconds of one core times this. Any positive figure would do; 1 Gflop/s keeps amounts readable.
inline constexpr double kCoreFlops = 1e9;

/// Creates, in `zone` (a zone of its own that nothing is routed to), one host per machine with
/// cpu.cores cores of kCoreFlops each: "cpu" for machines "one"; for "per_host", "cpu-<machine>"
/// for each machine of plan_machines (worker hosts with their co-located servers, each other
/// server, the scheduler). Returns, by NodeId, the host whose cores run that node's host work.
/// SimGrid's CPU model shares a host's cores fairly among the executions on it, none faster than
/// one core. REQUIRES cluster.cpu.
std::vector<simgrid::s4u::Host*> build_cpu_hosts(simgrid::s4u::NetZone* zone, const ClusterSection& cluster,
                                                 const JobLayout& layout);

/// Spends `seconds` of host work of the calling actor, which blocks until it is done: on
/// `cores` (one core's seconds, shared with the other work on that machine) when it is not
/// null, else on the actor's own host, taking exactly `seconds` alone (the model without
/// "cpu"). Nothing for seconds <= 0.
void spend_host_work(simgrid::s4u::Host* cores, double seconds);

}  // namespace pstwin
