// Scheduler: the job's lifecycle. Starts every node, evaluates snapshots, fails over, stops
// the job and reports its result (docs/DESIGN.md, "Protocol" and "Replication and failover").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/partition.h"
#include "runtime/roles/evaluation.h"
#include "runtime/roles/failover.h"
#include "runtime/roles/heartbeats.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// Seconds a scheduler stopped from outside (Scheduler::run) waits at most for what the nodes
/// send as they stop (the servers' final snapshots, a real job's last spans) before it evaluates
/// the newest parameters it has and reports: short enough to fit the launcher's grace for a
/// stopped job's processes (10 s, cli/child_process.h) with an evaluation to spare.
inline constexpr double kStopWindDown_s = 2.0;

/// The job's scheduler (node 0). Its decisions live in its parts: Failover (who holds which
/// range, who is dead), Heartbeats, and evaluation.h (snapshots, evaluation, the hash).
class Scheduler {
 public:
  /// `spec` and `kernels` must outlive the scheduler. Throws nothing.
  Scheduler(Env& env, const JobSpec& spec, KernelBackend& kernels);

  /// Runs the job to its end: every range's final snapshot in, the final clock evaluated, and
  /// MetricsSink::finish called with the parameters' hash (a divergence ends the run normally,
  /// as diverged). Throws std::invalid_argument for a job it cannot start (a bad replication
  /// factor, a range over 2^32 keys); std::runtime_error when the job is lost (a range without a
  /// replica, every worker dead for the stall timeout) or nothing arrives for the stall
  /// timeout; ProtocolError for a message that breaks the protocol; JobStopped when the Env was
  /// stopped from outside (a signal) before training was over, after a "job_stopped" event and
  /// telling every node to stop. A stop that comes once training is over (training_over) does not
  /// throw: the job completed, and the stop cuts short only the wait for the final snapshots
  /// (see finish).
  void run();

  /// Whether run() was stopped from outside after training was over (the job still completed).
  bool stopped_after_completion() const { return !late_stop_.empty(); }

  /// Bytes the other nodes reported sending (real jobs, where each node counts its own).
  std::uint64_t reported_bytes_sent() const { return reported_bytes_sent_; }
  /// Seconds each worker reported computing, straggler holds included (real jobs, where each
  /// worker measures its own; 0 for a worker that reported none), by worker index.
  const std::vector<double>& reported_compute_s() const { return reported_compute_s_; }

 private:
  /// How servers are told to stop: after the pushes in flight to them, or at once (an abort).
  enum class StopMode { kDrain, kNow };

  // The lifecycle.
  void start_job();
  /// A worker's kStart: every key range's size, in range order.
  Message worker_start() const;
  /// The next message, or nullopt after waiting in vain until the next heartbeat check. Throws
  /// std::runtime_error when the stall timeout has passed with nothing to do.
  std::optional<Message> next_message();
  /// env_.recv(timeout_s); with heartbeats, first tells them the scheduler looked now (a long
  /// gap is its own delay, logged as "scheduler_delayed" from half the timeout), then notes `m`.
  std::optional<Message> receive(double timeout_s);
  /// Records that `m` arrived now: its sender is alive, and the job is active unless m is a
  /// heartbeat.
  void note(const Message& m);
  /// A node declared dead is fenced: what it sends, but kRejoin and a worker's kWorkerDone
  /// (it finished all its clocks: a finished worker is never a failed one), is ignored.
  bool fenced(const Message& m) const;
  void handle(const Message& m);
  void handle_worker_done(const Message& m);
  void handle_abort(const Message& m);
  void handle_snapshot(const Message& m);
  void handle_final(const Message& m);
  void handle_checkpoint_done(const Message& m);
  /// Evaluates the final clock unless it was evaluated already, then reports the result. After a
  /// late stop (note_late_stop) without every final snapshot, reports the last evaluation instead.
  void finish();
  /// Evaluates `params` at global clock `clock` and records the row; false if it diverged.
  bool evaluate(std::int64_t clock, const std::vector<float>& params, double time_s);
  /// Stops the job cleanly after evaluation `row` (of `params`) when a stopping rule of the spec
  /// holds (stop_at_metric, time_budget_s): records why ("stopped" event, reason), keeps the
  /// parameters' hash, and tells servers and workers to stop now.
  void apply_stop_rules(const EvalRow& row, const std::vector<float>& params);
  /// Adds a node's report (data on kWorkerDone and final snapshots, each key optional:
  /// "bytes_sent", where nodes count their own traffic; "compute_s" on a worker's kWorkerDone;
  /// a server's "bytes_from_workers"). Throws ProtocolError for a malformed one.
  void absorb_traffic_report(const Message& m);
  /// Every worker sent kWorkerDone, was told to stop, or is dead.
  bool all_workers_finished() const;

  // Stopping.
  /// Tells every server to stop, once in the job; the job is stopping from now on.
  void stop_servers(StopMode mode);
  /// Tells server `node` to stop, unless it was told already or is dead.
  void stop_server(NodeId node, StopMode mode);
  /// Tells every worker still running to stop.
  void stop_workers();
  /// Ends the job early (a divergence, a lost job): nothing more is evaluated; servers stop at
  /// once, then workers.
  void abort_job();
  /// Sends `node` a kStop that takes effect at once (msg_flags::kStopNow).
  void stop_now(NodeId node);

  // Failures (the decisions are Failover's).
  /// Whether a watched node has been silent for longer than the heartbeat timeout.
  bool any_overdue() const;
  /// Declares every watched node silent for longer than the heartbeat timeout dead, after
  /// handling what already arrived (recv with timeout 0), so queued heartbeats count.
  void check_heartbeats();
  /// Declares `node` dead and fails over its ranges; with `tell_it` (a heartbeat timeout, found
  /// with `silent_together` overdue nodes in all), also sends it kStop (it may only be cut off).
  /// Throws std::runtime_error when a range is left with no replica.
  void declare_dead(NodeId node, bool tell_it = true, std::uint32_t silent_together = 1);
  /// After a worker's death: stop normally if the others are done; if every worker is dead and
  /// none finished, wait (up to the stall timeout) for one to rejoin.
  void after_worker_death();
  void handle_rejoin(const Message& m);
  /// A server absent at the start joins (elastic servers, DESIGN.md "Partitioning"): the ring
  /// with it decides which ranges move; it becomes their backup, then their holder once synced.
  void handle_join(NodeId node);
  /// Logs "join_not_happened" for each joining server that never joined (the job ended first):
  /// otherwise a join scheduled after the run's end would pass in silence.
  void report_joins_not_made();
  /// After a backup synced: hands over the ranges whose move is ready (not once stopping).
  void complete_moves();
  /// Logs each new backup ("backup_assigned").
  void announce_backups(const std::vector<RangeServer>& backups);
  /// Sends the current membership to every active node.
  void broadcast_membership();
  /// The Env's recv threw JobStopped(`why`): tells every node to stop, winds down
  /// (wind_down_after_stop), writes a "job_stopped" event and throws JobStopped naming the last
  /// evaluated clock.
  [[noreturn]] void stop_from_outside(const std::string& why);
  /// After a stop from outside, every node told to stop: takes what they still send for at most
  /// kStopWindDown_s (Env::recv_after_stop; nothing where the nodes end with the scheduler):
  /// staleness and traffic reports, the servers' final snapshots, periodic snapshots (assembled,
  /// not evaluated). Then evaluates the newest parameters among them once, unless they are no
  /// newer than the last evaluation: the job's figures are then those at the stop rather than an
  /// evaluation that lagged it. Returns how many complete snapshots went unevaluated. A message
  /// that breaks the protocol ends the wait, keeping what came before it.
  std::uint64_t wind_down_after_stop();
  /// Whether training is over while the job still runs, so that a stop from outside no longer
  /// cuts it short: every worker finished its clocks (the servers drain), the last clock was
  /// evaluated, or a stopping rule ended it. Never after a divergence.
  bool training_over() const;
  /// The Env's recv threw JobStopped(`why`) once training_over(): writes a
  /// "stopped_after_completion" event, keeps `why` for the reason, and tells the nodes not yet
  /// told to stop now (nothing more is received).
  void note_late_stop(const std::string& why);
  /// Writes `reason` as "job_lost", aborts the job and throws std::runtime_error(reason).
  [[noreturn]] void lose_job(const std::string& reason, nlohmann::json fields = {});
  /// A "node_cpu" event {"node": node_name, "role_thread_s", "process_s", "wall_s"}: the CPU node
  /// `node` measured from its role's start to its last report (Env::cpu_use).
  void record_node_cpu(NodeId node, const CpuUse& use);
  /// "server:1", "worker:3": how scenarios and events name a node.
  std::string node_name(NodeId n) const;

  Env& env_;
  const JobSpec& spec_;
  KernelBackend& kernels_;
  std::vector<KeyRange> ranges_;
  Failover failover_;
  /// Server indices on the hash ring: those there from the start, then each that joined.
  std::vector<std::uint32_t> ring_servers_;
  Heartbeats heartbeats_;
  SnapshotAssembler snapshots_;
  RangeAssembly finals_;
  std::int64_t last_eval_clock_ = -1;
  bool stopping_ = false;
  bool servers_stopped_ = false;
  bool draining_ = false;    // every worker finished: the servers were told to drain
  std::string late_stop_;    // why the job was stopped after training was over; empty: it was not
  std::string last_clock_sha256_;  // the hash of the parameters evaluated at the last clock
  std::uint64_t reported_bytes_sent_ = 0;
  std::vector<double> reported_compute_s_;  // by worker
  std::vector<bool> worker_done_;  // by worker: sent kWorkerDone
  std::optional<double> all_workers_dead_since_;  // every worker dead, none done: waiting for one
  double last_activity_ = 0.0;     // last message other than a heartbeat
  std::map<std::int64_t, std::vector<bool>> checkpoint_ranges_;  // clock -> ranges stored
  bool diverged_ = false;
  std::string reason_;
  std::string stop_rule_;              // "target_metric" or "time_budget" once a rule stopped the job
  std::string stopped_params_sha256_;  // the hash of the evaluation that stopped it
};

}  // namespace pstwin
