// The simulated cluster: a star of hosts around one non-blocking switch.
#pragma once

#include <string>
#include <vector>

#include "runtime/job_layout.h"
#include "runtime/scenario/scenario.h"

namespace simgrid::s4u {
class Host;
}

namespace pstwin {

/// Host name of a node: "scheduler", "server-<i>", "worker-<i>".
std::string host_name(const JobLayout& layout, NodeId node);

/// Builds the platform inside the current SimGrid engine: one host per node (speed = its group's
/// device peak flop/s) with a private full-duplex link of its group's bandwidth and latency to the
/// switch; the scheduler is equipped like a server. Returns hosts indexed by NodeId.
/// Must be called once, before actors are created.
std::vector<simgrid::s4u::Host*> build_star_platform(const ClusterSection& cluster,
                                                     const JobLayout& layout);

}  // namespace pstwin
