// Scheduler: starts the job, assembles server snapshots into evaluations, and stops the job.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "runtime/env.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"
#include "runtime/roles/membership.h"

namespace pstwin {

/// The job's scheduler. Protocol (all through Env):
///   1. compute the key ranges (range partitioning of JobSpec::num_keys(), in keys of
///      values_per_key floats) and the initial parameters (Model::init with
///      the node's Rng); send each server kStart with its range and values, each worker kStart
///      with every range;
///   2. loop: kSnapshot -> when every server's snapshot of global clock c is in, evaluate the
///      model (train loss on the evaluation rows, test loss and Model::metric: accuracy or RMSE)
///      and record an EvalRow;
///      kWorkerDone -> once all workers are done, kStop to every server;
///      kAbort -> record the divergence and send kStop to every node;
///      final snapshots (kFinal) from every server -> evaluate, hash the parameters, finish.
/// Evaluation is a measurement, not part of the simulated system: it charges no compute time.
/// A non-finite evaluation loss also stops the job as diverged.
///
/// Fault tolerance (JobSpec::fault.enabled): every node's environment sends kHeartbeat every
/// heartbeat_interval_s; a server or worker silent for heartbeat_timeout_s is declared dead
/// ("node_dead" event) and told to stop, in case it is only cut off. A dead server leaves every
/// key range it held: where it was the primary, the first backup is promoted; ranges below the
/// replication factor get a backup from the live servers holding the fewest ranges (the primary
/// rebuilds it from its state); the epoch grows and the new Membership goes to every live node.
/// A range left with no replica ends the job: kStop (abort) to every node, then
/// std::runtime_error naming the lost key ranges. So does losing every worker before any finished,
/// once none has come back within the stall timeout. A dead worker is marked in the membership, so
/// servers drop it from barriers, and is no longer waited for. kRejoin brings a restarted worker
/// back (membership, then kStart to it) or a restarted server (as a backup where one is missing,
/// else a spare). Servers' kCheckpointDone complete a checkpoint once every range stored it.
class Scheduler {
 public:
  Scheduler(Env& env, const JobSpec& spec, KernelBackend& kernels);
  void run();

  /// Bytes the other nodes reported sending (real jobs, where each node counts its own).
  std::uint64_t reported_bytes_sent() const { return reported_bytes_sent_; }

  /// SHA-256 (hex) of params as little-endian float32 in key order.
  static std::string params_sha256(const std::vector<float>& params);

 private:
  struct Assembly {
    std::vector<float> params;
    std::vector<bool> seen;  // by key range (a promoted primary may resend one)
    std::uint32_t shards = 0;
    double time_s = 0.0;  // when the last shard reached the clock (latest snapshot stamp)
  };

  void start_job();
  /// A worker's kStart: every key range's size, in range order.
  Message worker_start() const;
  /// Sends `node` a kStop that takes effect at once (msg_flags::kStopNow).
  void stop_now(NodeId node);
  /// Adds a snapshot; returns true when the snapshot completed an assembly that was evaluated.
  void handle_snapshot(const Message& m);
  /// When the server took snapshot `m` (seconds, its Env::now()).
  static double snapshot_time(const Message& m);
  /// Adds a node's traffic report (data {"bytes_sent": N} on kWorkerDone and final snapshots).
  void absorb_traffic_report(const Message& m);
  /// Reports a snapshot's staleness histogram (and, from shard 0, the update count).
  void absorb_staleness(const Message& m);
  /// Evaluates `params` at global clock `clock` and records the row. Returns false if diverged.
  bool evaluate(std::int64_t clock, const std::vector<float>& params, double time_s);
  void stop_all(bool include_workers);
  /// Sends kStop to server `node` unless it had one.
  void stop_server(NodeId node, bool immediate);
  /// Declares nodes silent for longer than the heartbeat timeout dead.
  void check_heartbeats();
  /// Marks `node` dead, fails over its ranges (or ends the job when one has no replica left) and
  /// announces the new membership; with `tell_it`, also sends it kStop (it may only be cut off).
  void declare_dead(NodeId node, bool tell_it = true);
  /// Gives every range below the replication factor a backup from the live servers.
  void refill_replicas();
  void broadcast_membership();
  void handle_rejoin(const Message& m);
  void handle_checkpoint_done(const Message& m);
  void handle_final(const Message& m);
  bool all_workers_finished() const;
  /// After a worker's death: stop normally if the others are done; if every worker is dead and
  /// none finished, wait (up to the stall timeout) for one to rejoin.
  void after_worker_death();
  bool server_live(NodeId n) const { return !dead_.at(n); }
  /// "server:1", "worker:3": how scenarios and events name a node.
  std::string node_name(NodeId n) const;

  Env& env_;
  const JobSpec& spec_;
  KernelBackend& kernels_;
  std::vector<KeyRange> ranges_;
  std::map<std::int64_t, Assembly> assemblies_;
  Assembly final_;
  std::int64_t last_eval_clock_ = -1;
  bool stopping_ = false;
  std::uint64_t reported_bytes_sent_ = 0;
  bool servers_stopped_ = false;
  std::vector<bool> worker_finished_;  // sent kWorkerDone, told to stop, or dead
  std::vector<bool> worker_done_;      // sent kWorkerDone
  std::optional<double> all_workers_dead_since_;  // every worker dead, none done: waiting for one
  Membership membership_;
  std::vector<double> last_seen_;     // by node: when anything last came from it
  std::vector<bool> dead_;            // by node: declared dead (and not back)
  std::vector<bool> stop_sent_;       // by node (servers)
  std::vector<bool> final_got_;       // by key range
  std::uint32_t finals_ = 0;
  std::int64_t final_clock_ = 0;
  double last_activity_ = 0.0;        // last message other than a heartbeat
  std::map<std::int64_t, std::vector<bool>> checkpoint_ranges_;  // clock -> ranges stored
  /// By range: backups assigned since the start whose primary has not yet confirmed they hold
  /// the range's state; never promoted.
  std::vector<std::vector<NodeId>> unsynced_;
  bool diverged_ = false;
  std::string reason_;
};

}  // namespace pstwin
