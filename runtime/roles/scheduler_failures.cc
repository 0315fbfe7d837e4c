// The scheduler's side of failures (docs/DESIGN.md, "Replication and failover"): heartbeats
// checked, nodes declared dead, ranges failed over (the decisions are Failover's), nodes that
// rejoin, and a job lost when a range has no replica left. The lifecycle is in scheduler.cc.
#include <algorithm>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>

#include "runtime/roles/scheduler.h"

namespace pstwin {

bool Scheduler::any_overdue() const {
  const double now = env_.now();
  for (NodeId n = 1; n < spec_.layout.nodes(); ++n)
    if (failover_.watched(n, finals_.ranges_in()) && heartbeats_.overdue(n, now)) return true;
  return false;
}

void Scheduler::check_heartbeats() {
  if (!any_overdue()) return;
  // What already arrived counts first: a scheduler that was busy (an evaluation, a loaded
  // machine) finds the heartbeats of that time queued, and must not take them for silence.
  while (!finals_.complete()) {
    const std::optional<Message> m = receive(0.0);
    if (!m) break;
    if (!fenced(*m)) handle(*m);
  }
  const double now = env_.now();
  std::vector<NodeId> overdue;
  for (NodeId n = 1; n < spec_.layout.nodes(); ++n)
    if (failover_.watched(n, finals_.ranges_in()) && heartbeats_.overdue(n, now)) overdue.push_back(n);
  // Checked again: declaring one dead may end another's watch (a stopped server's final is in).
  for (NodeId n : overdue)
    if (failover_.watched(n, finals_.ranges_in()) && heartbeats_.overdue(n, now))
      declare_dead(n, true, static_cast<std::uint32_t>(overdue.size()));
}

void Scheduler::declare_dead(NodeId node, bool tell_it, std::uint32_t silent_together) {
  // Why, in numbers: the silence the clock shows, the part that was the scheduler's own delay
  // (not counted), and how many nodes fell silent together (many at once hints at the machine).
  nlohmann::json fields = {{"node", node_name(node)},
                           {"silent_s", heartbeats_.silent_s(node, env_.now())},
                           {"why", tell_it ? "heartbeat timeout" : "restarted"}};
  if (tell_it) {
    fields["scheduler_delay_s"] = heartbeats_.scheduler_delay_s(node);
    fields["heartbeat_timeout_s"] = spec_.fault.heartbeat_timeout_s;
    fields["silent_together"] = silent_together;
  }
  env_.metrics().event(env_.now(), "node_dead", std::move(fields));
  if (tell_it) stop_now(node);
  if (spec_.layout.is_worker(node)) {
    failover_.worker_dead(node);
    broadcast_membership();
    after_worker_death();
    return;
  }
  const Failover::ServerLoss loss = failover_.server_dead(node);
  for (const RangeServer& p : loss.promoted)
    env_.metrics().event(env_.now(), "promoted", {{"range", p.range}, {"server", node_name(p.server)}});
  if (!loss.lost.empty()) {
    std::string ranges;
    for (auto r : loss.lost) {
      if (!ranges.empty()) ranges += ", ";
      ranges.append("range ").append(std::to_string(r)).append(" (keys [")
          .append(std::to_string(ranges_[r].begin)).append(", ")
          .append(std::to_string(ranges_[r].end)).append("))");
    }
    // Say what the scheduler knows: a silent node may be cut off rather than failed.
    std::ostringstream why;
    why << std::setprecision(3);  // "0.025 s", not "0.0249999 s"
    if (tell_it) {
      why << " was declared dead after " << heartbeats_.silent_s(node, env_.now())
          << " s without a heartbeat (heartbeat_timeout " << spec_.fault.heartbeat_timeout_s << " s";
      if (const double delay = heartbeats_.scheduler_delay_s(node); delay > 0)
        why << "; " << delay << " s of it the scheduler's own delay, not counted";
      why << ")";
    }
    else
      why << " restarted";
    lose_job(node_name(node) + why.str() + " and no live replica holds " + ranges +
                 " (replication " + std::to_string(spec_.fault.replication) +
                 "): their parameters are lost",
             {{"ranges", loss.lost}});
  }
  announce_backups(loss.backups);
  broadcast_membership();
  // Stopping already: a newly promoted primary owes the final snapshot of its new range.
  if (servers_stopped_)
    for (const auto& set : failover_.membership().replicas)
      stop_server(set.front(), diverged_ ? StopMode::kNow : StopMode::kDrain);
}

void Scheduler::after_worker_death() {
  if (!all_workers_finished() || stopping_) return;
  // The survivors did all their clocks; or the last clock is evaluated already, so every
  // worker pushed all of them and only its kWorkerDone (or its heartbeats) came late.
  if (std::find(worker_done_.begin(), worker_done_.end(), true) != worker_done_.end() ||
      last_eval_clock_ >= static_cast<std::int64_t>(spec_.iterations)) {
    stop_servers(StopMode::kDrain);
    return;
  }
  all_workers_dead_since_ = env_.now();
  last_activity_ = env_.now();  // the wait for a rejoin starts now
  env_.metrics().event(env_.now(), "all_workers_dead", {{"clock", last_eval_clock_}});
}

void Scheduler::handle_rejoin(const Message& m) {
  const NodeId node = m.header.sender;
  const JobLayout& layout = spec_.layout;
  if (!spec_.fault.enabled || stopping_ || node == 0 || node >= layout.nodes()) {
    stop_now(node);
    return;
  }
  if (layout.is_server(node) &&
      std::find(ring_servers_.begin(), ring_servers_.end(), layout.server_index(node)) == ring_servers_.end()) {
    handle_join(node);
    return;
  }
  // Restarted before its silence gave it away: its former process is dead all the same, and a
  // server's ranges must fail over before it comes back empty.
  if (!failover_.dead(node) && layout.is_server(node)) declare_dead(node, /*tell_it=*/false);
  env_.metrics().event(env_.now(), "node_rejoined", {{"node", node_name(node)}});
  if (layout.is_worker(node)) {
    failover_.worker_back(node);
    all_workers_dead_since_.reset();
    broadcast_membership();  // the rejoining worker included: it routes by it
    env_.send(node, worker_start());
    return;
  }
  // A restarted server holds nothing: it becomes a backup where one is missing.
  announce_backups(failover_.server_back(node));
  broadcast_membership();
}

void Scheduler::announce_backups(const std::vector<RangeServer>& backups) {
  for (const RangeServer& b : backups)
    env_.metrics().event(env_.now(), "backup_assigned", {{"range", b.range}, {"server", node_name(b.server)}});
}

void Scheduler::broadcast_membership() {
  const Message m = failover_.membership().to_message();
  for (NodeId n : failover_.to_tell()) env_.send(n, m);
}

void Scheduler::lose_job(const std::string& reason, nlohmann::json fields) {
  reason_ = reason;
  fields["reason"] = reason;
  env_.metrics().event(env_.now(), "job_lost", std::move(fields));
  abort_job();
  throw std::runtime_error(reason);
}

}  // namespace pstwin
