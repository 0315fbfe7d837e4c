// The one place that turns a node id into its role: used by every environment that runs roles
// (sim/simulation.cc, net/real_job.cc), so a simulated and a real job start the same roles the
// same way (DESIGN.md, "Roles").
#pragma once

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/message.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// Constructs the role of node `node` of the job `spec` describes and runs it on `env` until it
/// returns: the Scheduler for node 0, a Server for spec.layout.is_server(node), a Worker
/// otherwise (node numbering: JobLayout). `rejoining` starts a server or worker as a restarted
/// node (it sends kRejoin first); the scheduler ignores it. The role computes with `kernels`.
/// REQUIRES: env.self() == node; `env`, `spec` and `kernels` outlive the call. Throws
/// std::invalid_argument naming the node and the layout when node >= spec.layout.nodes(), before
/// anything is sent; otherwise whatever the role throws (ProtocolError, a stall, ...).
void run_role(Env& env, const JobSpec& spec, NodeId node, KernelBackend& kernels,
              bool rejoining = false);

}  // namespace pstwin
