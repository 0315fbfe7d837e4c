#include "sim/fault_injection.h"

#include <algorithm>

#include <simgrid/s4u.hpp>

#include "sim/platform.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

namespace {

NodeId node_of(const JobLayout& layout, const NodeRef& ref) {
  switch (ref.role) {
    case NodeRef::Role::kScheduler: return JobLayout::scheduler();
    case NodeRef::Role::kServer: return layout.server(ref.index);
    case NodeRef::Role::kWorker: return layout.worker(ref.index);
  }
  return JobLayout::scheduler();
}

/// One thing the injector does at one time.
struct Action {
  double at_s;
  enum class What { kFailNode, kRestartNode, kFailLink, kRestoreLink, kJoinNode } what;
  NodeId node;
  std::string name;
};

}  // namespace

void start_heartbeats(SimWorld& world, SimNodeStates& states, NodeId node, sg4::Host* host,
                      double interval_s) {
  const std::uint32_t incarnation = states.incarnation[node];
  sg4::Actor::create(host_name(world.layout, node) + "-heartbeat", host,
                     [&world, &states, node, interval_s, incarnation] {
                       for (;;) {
                         sg4::this_actor::sleep_for(interval_s);
                         if (states.incarnation[node] != incarnation || !states.running[node]) return;
                         Message beat;
                         beat.header.type = MsgType::kHeartbeat;
                         sim_send(world, node, JobLayout::scheduler(), std::move(beat));
                       }
                     })
      ->daemonize();
}

void start_failure_injector(SimWorld& world, SimNodeStates& states,
                            const std::vector<sg4::Host*>& hosts, std::vector<FailureEvent> schedule,
                            InjectorHooks hooks) {
  std::vector<Action> actions;
  for (const auto& e : schedule) {
    const NodeId node = node_of(world.layout, e.target);
    if (e.kind == FailureSpec::Kind::kJoin) {
      actions.push_back({e.at_s, Action::What::kJoinNode, node, e.target.text()});
      continue;
    }
    const bool link = e.kind == FailureSpec::Kind::kLink;
    actions.push_back({e.at_s, link ? Action::What::kFailLink : Action::What::kFailNode, node,
                       e.target.text()});
    if (e.recover_at_s)
      actions.push_back({*e.recover_at_s, link ? Action::What::kRestoreLink : Action::What::kRestartNode,
                         node, e.target.text()});
  }
  std::stable_sort(actions.begin(), actions.end(),
                   [](const Action& a, const Action& b) { return a.at_s < b.at_s; });
  // On the scheduler's host: if that host fails the job is over anyway.
  sg4::Actor::create("failure-injector", hosts.at(0), [&world, &states, hosts, actions, hooks] {
    for (const Action& a : actions) {
      const double wait = a.at_s - sg4::Engine::get_clock();
      if (wait > 0) sg4::this_actor::sleep_for(wait);
      if (states.job_over) return;
      const double now = sg4::Engine::get_clock();
      switch (a.what) {
        case Action::What::kFailNode:
          if (!hosts[a.node]->is_on()) break;  // already down
          world.metrics->event(now, "node_failed", {{"node", a.name}});
          if (a.node == JobLayout::scheduler()) {
            hooks.fail_job("the scheduler failed at " + std::to_string(now) +
                           " s (simulated); pstwin does not replicate the scheduler, so the job "
                           "ended there");
            return;
          }
          states.failed_once[a.node] = true;
          states.running[a.node] = false;
          // Messages for the dead node wait, undelivered, in a mailbox nobody reads: SimGrid may
          // not start a transfer to a host that is off.
          world.mailboxes[a.node]->set_receiver(nullptr);
          world.mailboxes[a.node] = sg4::Mailbox::by_name(host_name(world.layout, a.node) + "#down" +
                                                          std::to_string(states.incarnation[a.node]));
          hosts[a.node]->turn_off();
          break;
        case Action::What::kRestartNode: {
          if (hosts[a.node]->is_on()) break;
          hosts[a.node]->turn_on();
          const std::uint32_t inc = ++states.incarnation[a.node];
          world.mailboxes[a.node] = sg4::Mailbox::by_name(host_name(world.layout, a.node) + "#" +
                                                          std::to_string(inc));
          world.metrics->event(now, "node_restarted", {{"node", a.name}});
          hooks.restart(a.node);
          break;
        }
        case Action::What::kJoinNode:
          // A server that was not there at the start: its first process starts now and asks to
          // join (Server with `rejoining`: it holds nothing yet).
          world.metrics->event(now, "node_started", {{"node", a.name}});
          hooks.restart(a.node);
          break;
        case Action::What::kFailLink:
          world.metrics->event(now, "link_failed", {{"node", a.name}});
          states.failed_once[a.node] = true;
          world.link_down[a.node] = true;
          break;
        case Action::What::kRestoreLink:
          world.metrics->event(now, "link_restored", {{"node", a.name}});
          world.link_down[a.node] = false;
          release_parked(world, hosts);
          break;
      }
    }
  })->daemonize();
}

}  // namespace pstwin
