#include "runtime/roles/scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "runtime/errors.h"
#include "runtime/roles/cpu_report.h"
#include "runtime/roles/stall_wait.h"
#include "runtime/seconds_text.h"
#include "runtime/wire_json.h"
#include "runtime/roles/shard_state.h"
#include "runtime/roles/membership.h"
#include "runtime/roles/server_load.h"
#include "runtime/span_scope.h"

namespace pstwin {

Scheduler::Scheduler(Env& env, const JobSpec& spec, KernelBackend& kernels)
    : env_(env),
      spec_(spec),
      kernels_(kernels),
      snapshots_(ranges_, spec.values_per_key(), spec.synthetic ? 0 : spec.num_parameters()) {}

void Scheduler::run() {
  start_job();
  try {
    while (!finals_.complete()) {
      const std::optional<Message> m = next_message();
      if (m && !fenced(*m)) handle(*m);
      if (spec_.fault.enabled) check_heartbeats();
    }
  } catch (const JobStopped& e) {
    if (!training_over()) stop_from_outside(e.what());
    note_late_stop(e.what());
  }
  finish();
  // The scheduler's own CPU, its evaluations included (the other nodes' came in their reports).
  if (const auto use = env_.cpu_use()) record_node_cpu(JobLayout::scheduler(), *use);
}

// ---- The lifecycle.

void Scheduler::start_job() {
  const JobLayout& layout = spec_.layout;
  failover_ = Failover(layout, spec_.fault.replication, initial_membership(spec_));
  // Servers that join later are not in the job yet: not watched, not told memberships.
  const std::uint32_t first_joiner = layout.servers - spec_.partition.joining_servers;
  for (std::uint32_t i = 0; i < layout.servers; ++i) {
    if (i < first_joiner) ring_servers_.push_back(i);
    else failover_.leave(layout.server(i));
  }
  heartbeats_ = Heartbeats(layout.nodes(), env_.now(), spec_.fault.heartbeat_timeout_s,
                           spec_.fault.heartbeat_interval_s);
  worker_done_.assign(layout.workers, false);
  ranges_ = spec_.key_ranges();
  for (const KeyRange& r : ranges_)
    if (r.size() > 0xffffffffULL)
      throw std::invalid_argument("a server's key range exceeds 2^32 keys; add servers");
  std::vector<float> init;
  if (!spec_.synthetic && !spec_.resume) {
    init.assign(spec_.num_parameters(), 0.0f);
    spec_.model->init(init.data(), env_.rng());
  }
  // Every replica of a range starts from the same values (or the same checkpoint).
  for (std::uint32_t r = 0; r < ranges_.size(); ++r)
    for (NodeId server : failover_.membership().replicas[r])
      env_.send(server, range_start_message(spec_, r, ranges_[r], init));
  for (std::uint32_t w = 0; w < layout.workers; ++w) env_.send(layout.worker(w), worker_start());
  finals_ = RangeAssembly(ranges_, spec_.values_per_key(),
                          spec_.synthetic ? 0 : spec_.num_parameters(), "final snapshot");
  last_activity_ = env_.now();
}

Message Scheduler::worker_start() const {
  Message m;
  m.header.type = MsgType::kStart;
  for (std::uint32_t r = 0; r < ranges_.size(); ++r) {
    m.keys.push_back(r);
    m.lengths.push_back(static_cast<std::uint32_t>(ranges_[r].size()));
  }
  return m;
}

std::optional<Message> Scheduler::next_message() {
  // With heartbeats, wake up in time to notice the first node that falls silent.
  // A worker computing (for hours, under a straggler's factor) keeps the job alive.
  double wait = stall_deadline(env_, last_activity_, spec_.stall_timeout_s) - env_.now();
  if (spec_.fault.enabled) wait = std::min(wait, spec_.fault.heartbeat_interval_s);
  auto m = wait > 0 ? receive(wait) : std::nullopt;
  if (all_workers_dead_since_ && env_.now() - *all_workers_dead_since_ >= spec_.stall_timeout_s)
    lose_job("all " + std::to_string(spec_.layout.workers) +
             " workers failed before any finished, and none came back within " +
             seconds_text(spec_.stall_timeout_s) + " s; training stopped after clock " +
             std::to_string(std::max<std::int64_t>(last_eval_clock_, 0)) + " of " +
             std::to_string(spec_.iterations));
  if (!m && !all_workers_dead_since_ &&
      env_.now() >= stall_deadline(env_, last_activity_, spec_.stall_timeout_s))
    throw std::runtime_error("scheduler: nothing received for " +
                             seconds_text(spec_.stall_timeout_s) +
                             " s (its stall timeout) while no worker computed; a node is stuck or "
                             "gone, or a message takes longer than that (a slow link)");
  return m;
}

std::optional<Message> Scheduler::receive(double timeout_s) {
  std::optional<Message> m = env_.recv(timeout_s);
  if (spec_.fault.enabled) {
    // Before noting what came: it was heard after the delay, not during it.
    const double delay = heartbeats_.scheduler_turn(env_.now());
    if (delay >= spec_.fault.heartbeat_timeout_s / 2)
      env_.metrics().event(env_.now(), "scheduler_delayed",
                           {{"delay_s", delay}, {"heartbeat_timeout_s", spec_.fault.heartbeat_timeout_s}});
  }
  if (m) note(*m);
  return m;
}

void Scheduler::note(const Message& m) {
  heartbeats_.heard(m.header.sender, env_.now());
  if (m.header.type != MsgType::kHeartbeat) last_activity_ = env_.now();
}

bool Scheduler::fenced(const Message& m) const {
  // A node declared dead may only be cut off: it must rejoin as a new process.
  // A worker's kWorkerDone still counts: it did all its clocks, whatever was thought of it
  // meanwhile (its heartbeats may have been late on a loaded machine).
  return m.header.sender < spec_.layout.nodes() && failover_.dead(m.header.sender) &&
         m.header.type != MsgType::kRejoin && m.header.type != MsgType::kWorkerDone;
}

void Scheduler::handle(const Message& m) {
  switch (m.header.type) {
    case MsgType::kHeartbeat:
      break;
    case MsgType::kSnapshot:
      report_staleness(m, env_.metrics());
      if (m.header.flags & msg_flags::kFinal) handle_final(m);
      else if (!diverged_) handle_snapshot(m);  // ones in flight when workers finished count too
      break;
    case MsgType::kWorkerDone:
      handle_worker_done(m);
      break;
    case MsgType::kAbort:
      handle_abort(m);
      break;
    case MsgType::kRejoin:
      handle_rejoin(m);
      break;
    case MsgType::kCheckpointDone:
      handle_checkpoint_done(m);
      break;
    case MsgType::kReplicaAck:  // a primary confirms that a new backup holds its range
      failover_.backup_synced(m.header.range, m.header.subject);
      complete_moves();
      break;
    default:
      throw ProtocolError("scheduler: unexpected " + std::string(msg_type_name(m.header.type)) +
                          " from node " + std::to_string(m.header.sender));
  }
}

void Scheduler::handle_worker_done(const Message& m) {
  const NodeId node = m.header.sender;
  if (!spec_.layout.is_worker(node))
    throw ProtocolError("scheduler: worker-done from node " + std::to_string(node) +
                        ", which is not a worker");
  absorb_traffic_report(m);
  const std::uint32_t worker = spec_.layout.worker_index(node);
  worker_done_[worker] = true;
  if (failover_.dead(node)) {
    // Declared dead too early: it finished all the same, so the job has a finished worker.
    env_.metrics().event(env_.now(), "worker_finished_after_declared_dead", {{"worker", worker}});
    all_workers_dead_since_.reset();
  }
  failover_.leave(node);
  if (all_workers_finished() && !stopping_) {
    draining_ = true;
    stop_servers(StopMode::kDrain);
  }
}

void Scheduler::handle_abort(const Message& m) {
  if (stopping_) return;
  const std::uint32_t worker = spec_.layout.worker_index(m.header.sender);
  diverged_ = true;
  reason_ = "training diverged: worker " + std::to_string(worker) +
            " saw a non-finite mini-batch loss at clock " + std::to_string(m.header.clock);
  env_.metrics().event(env_.now(), "diverged", {{"worker", worker}, {"clock", m.header.clock}});
  abort_job();
}

void Scheduler::handle_snapshot(const Message& m) {
  const std::int64_t clock = m.header.clock;
  if (clock <= last_eval_clock_) return;  // a promoted primary's repeat of an evaluated clock
  if (!stop_rule_.empty()) return;        // stopped by a rule: that evaluation was the last
  std::optional<RangeAssembly> done = snapshots_.add(m);
  if (!done) return;
  if (evaluate(clock, done->params(), done->time_s())) {
    // The job's result should its final snapshots never come (a stop after training was over).
    if (clock >= static_cast<std::int64_t>(spec_.iterations)) last_clock_sha256_ = params_sha256(done->params());
    return;
  }
  diverged_ = true;
  reason_ = "training diverged: non-finite loss at global clock " + std::to_string(clock);
  env_.metrics().event(env_.now(), "diverged", {{"clock", clock}});
  abort_job();
}

void Scheduler::handle_final(const Message& m) {
  absorb_traffic_report(m);
  finals_.add(m);  // false for a promoted primary's second final: nothing to do
}

void Scheduler::handle_checkpoint_done(const Message& m) {
  auto& got = checkpoint_ranges_[m.header.clock];
  if (got.empty()) got.assign(ranges_.size(), false);
  if (m.header.range >= got.size())
    throw ProtocolError("scheduler: checkpoint of unknown key range " + std::to_string(m.header.range));
  got[m.header.range] = true;
  if (!std::all_of(got.begin(), got.end(), [](bool b) { return b; })) return;
  checkpoint_ranges_.erase(m.header.clock);
  if (CheckpointStore* store = env_.checkpoints())
    store->complete(m.header.clock, static_cast<std::uint32_t>(ranges_.size()), env_.now());
  env_.metrics().event(env_.now(), "checkpoint", {{"clock", m.header.clock}});
}

void Scheduler::finish() {
  report_joins_not_made();
  if (!stop_rule_.empty()) {
    // The evaluation that met the rule is the run's result: its parameters, not the ones the
    // servers reached while the stop was on its way.
    env_.metrics().finish(stopped_params_sha256_, false, reason_);
    return;
  }
  if (!finals_.complete()) {
    // Stopped after training was over, before every final snapshot came (note_late_stop).
    const bool last_clock = last_eval_clock_ >= static_cast<std::int64_t>(spec_.iterations);
    if (!last_clock)
      reason_ += "; the final snapshots had not all come, so the figures are those of clock " +
                 std::to_string(std::max<std::int64_t>(last_eval_clock_, 0)) +
                 ", the last evaluated, and params_sha256 is unknown";
    env_.metrics().finish(last_clock ? last_clock_sha256_ : "", false, reason_);
    return;
  }
  const std::int64_t clock = finals_.clock();
  if (!diverged_ && clock != last_eval_clock_ &&
      !evaluate(clock, finals_.params(), finals_.time_s())) {
    diverged_ = true;
    reason_ = "training diverged: non-finite loss at the final clock " + std::to_string(clock);
    env_.metrics().event(env_.now(), "diverged", {{"clock", clock}});
  }
  env_.metrics().finish(params_sha256(finals_.params()), diverged_, reason_);
}

bool Scheduler::evaluate(std::int64_t clock, const std::vector<float>& params, double time_s) {
  last_eval_clock_ = clock;
  SpanScope evaluating(env_, "evaluate");
  Cost spent;
  const std::optional<EvalRow> row = evaluate_model(spec_, kernels_, clock, params, time_s, &spent);
  // Free in a simulation unless the scheduler shares CPU cores with the roles ("cpu").
  env_.account(spent);
  if (row) {
    env_.metrics().eval(*row);
    apply_stop_rules(*row, params);
  }
  return row.has_value();
}

void Scheduler::apply_stop_rules(const EvalRow& row, const std::vector<float>& params) {
  if (stopping_) return;
  const StopDecision stop = stop_rule_met(spec_, row);
  if (stop.rule.empty()) return;
  stop_rule_ = stop.rule;
  reason_ = stop.reason;
  stopped_params_sha256_ = params_sha256(params);
  env_.metrics().event(env_.now(), "stopped",
                       {{"why", stop_rule_}, {"clock", row.clock}, {"test_metric", row.test_metric}});
  // As an abort, but not a failure: servers send their final snapshots at once, workers stop.
  snapshots_.clear();
  stop_servers(StopMode::kNow);
  stop_workers();
}

void Scheduler::absorb_traffic_report(const Message& m) {
  if (m.data.empty()) return;
  const std::string what = "scheduler: report from node " + std::to_string(m.header.sender);
  const auto report = wire_json::parse_object(m.data, what);
  if (report.contains("bytes_sent"))
    reported_bytes_sent_ += wire_json::integer_member<std::uint64_t>(report, "bytes_sent", what);
  if (report.contains("compute_s")) {
    if (m.header.type != MsgType::kWorkerDone || !spec_.layout.is_worker(m.header.sender))
      throw ProtocolError(what + ": only a worker's worker-done reports compute_s");
    const double seconds = wire_json::number_member(report, "compute_s", what);
    if (seconds < 0) throw ProtocolError(what + ": compute_s must be >= 0, got " + std::to_string(seconds));
    // A restarted worker's report replaces its earlier process's (only the last one finishes).
    reported_compute_s_.resize(spec_.layout.workers, 0.0);
    reported_compute_s_[spec_.layout.worker_index(m.header.sender)] = seconds;
  }
  if (report.contains("cpu"))
    record_node_cpu(m.header.sender, cpu_use_from_json(report["cpu"], what));
  if (report.contains("bytes_from_workers"))
    env_.metrics().bytes_to_servers(
        wire_json::integer_member<std::uint64_t>(report, "bytes_from_workers", what));
  if (report.contains("load") && spec_.layout.is_server(m.header.sender)) {
    // One line per server in events.jsonl; the summary's server_load adds them up.
    nlohmann::json fields = ServerLoad::from_json(report["load"], what).to_json();
    fields["server"] = spec_.layout.server_index(m.header.sender);
    env_.metrics().event(env_.now(), "server_load", std::move(fields));
  }
}

bool Scheduler::all_workers_finished() const {
  for (std::uint32_t w = 0; w < spec_.layout.workers; ++w)
    if (failover_.active(spec_.layout.worker(w))) return false;
  return true;
}

void Scheduler::record_node_cpu(NodeId node, const CpuUse& use) {
  nlohmann::json fields = cpu_use_json(use);
  fields["node"] = node_name(node);
  env_.metrics().event(env_.now(), "node_cpu", std::move(fields));
}

std::string Scheduler::node_name(NodeId n) const {
  if (n == JobLayout::scheduler()) return "scheduler";
  if (spec_.layout.is_server(n)) return "server:" + std::to_string(spec_.layout.server_index(n));
  return "worker:" + std::to_string(spec_.layout.worker_index(n));
}

}  // namespace pstwin
