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
    std::uint32_t shards = 0;
    double time_s = 0.0;  // when the last shard reached the clock (latest snapshot stamp)
  };

  void start_job();
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
  std::vector<bool> worker_finished_;  // sent kWorkerDone, or told to stop
  bool diverged_ = false;
  std::string reason_;
};

}  // namespace pstwin
