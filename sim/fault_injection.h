// Failures inside the simulation: heartbeats from every node's host, and the injector that turns
// hosts and links off and on at the times a scenario says.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/scenario/failure_schedule.h"
#include "sim/sim_env.h"

#include <simgrid/forward.h>

namespace pstwin {

/// Per-node facts the fault machinery shares with the driver (indexed by NodeId).
struct SimNodeStates {
  std::vector<std::uint32_t> incarnation;  ///< 0 at start; +1 at each restart
  std::vector<bool> running;               ///< the current incarnation's role has not returned
  std::vector<bool> failed_once;           ///< a failure was injected into it: its end is expected
  bool job_over = false;                   ///< the scheduler returned: inject nothing more
  std::vector<simgrid::s4u::ActorPtr> actors;  ///< the current incarnation's role actor
};

/// Starts a daemon actor on `host` that sends kHeartbeat from `node` to the scheduler every
/// `interval_s` simulated seconds while incarnation `incarnation` of the node's role runs. It
/// dies with its host, as a real node's heartbeat thread dies with its machine.
void start_heartbeats(SimWorld& world, SimNodeStates& states, NodeId node,
                      simgrid::s4u::Host* host, double interval_s);

/// What the injector asks of the driver.
struct InjectorHooks {
  /// Starts the role of `node` again on its (turned on) host, as a restarted process.
  std::function<void(NodeId)> restart;
  /// Ends the whole simulation with this error (the scheduler failed).
  std::function<void(const std::string&)> fail_job;
};

/// Starts a daemon actor that carries out `schedule` (times in simulated seconds): a node failure
/// turns its host off (its actors die, messages to it are lost) and, at recover_at, turns it on,
/// moves the node to a fresh mailbox (what was in flight to the old process is gone) and calls
/// hooks.restart; a link failure cuts the node off until recover_at: what it sends or is sent
/// meanwhile waits (SimWorld::parked) and arrives after the link is back, as over TCP; a cut
/// longer than the heartbeat timeout gets the node declared dead and fenced.
/// A failure of the scheduler calls hooks.fail_job: the scheduler is not replicated. Each action
/// is an event in events.jsonl: "node_failed", "node_restarted", "link_failed", "link_restored".
/// Once states.job_over is set, it stops.
void start_failure_injector(SimWorld& world, SimNodeStates& states,
                            const std::vector<simgrid::s4u::Host*>& hosts,
                            std::vector<FailureEvent> schedule, InjectorHooks hooks);

}  // namespace pstwin
