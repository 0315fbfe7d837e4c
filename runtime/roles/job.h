// What every role of one job knows before it starts: who is who, and the training setup.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/consistency/controller.h"
#include "runtime/data/dataset.h"
#include "runtime/job_layout.h"
#include "runtime/key_placement.h"
#include "runtime/message.h"
#include "runtime/model/model.h"
#include "runtime/roles/compression_config.h"
#include "runtime/optimizer.h"

namespace pstwin {

/// The timing-only model: gradients are sized, never computed (scale studies).
struct SyntheticModel {
  std::uint64_t parameters = 0;
  double flops_per_iteration = 0.0;
  double bytes_per_iteration = 0.0;
};

/// Fault tolerance of a job (scenario section "fault_tolerance"; README "Fault tolerance").
struct FaultConfig {
  /// Heartbeats flow, the scheduler declares silent nodes dead, and workers have their last
  /// pushes acknowledged (msg_flags::kAckRequested) before they report done.
  bool enabled = false;
  std::uint32_t replication = 1;     ///< servers holding each key range: a primary and backups
  double heartbeat_interval_s = 0.2;  ///< how often each node's environment sends kHeartbeat
  double heartbeat_timeout_s = 1.0;  ///< silence after which the scheduler declares a node dead
  std::uint64_t checkpoint_every_clocks = 0;  ///< 0: no clock-driven checkpoints
  double checkpoint_every_s = 0.0;            ///< 0: no time-driven checkpoints
};

/// Where a resumed job starts: every key range's state at one checkpointed clock.
struct ResumePoint {
  std::int64_t clock = 0;
  /// By range: params (key_count x width floats) and the optimizer's state.
  std::vector<std::vector<float>> params;
  std::vector<std::vector<float>> optimizer_first, optimizer_second;
  std::vector<std::uint64_t> optimizer_steps;
};

/// The training setup shared by all roles of a job. Pointers are non-owning and must outlive the
/// roles; `model`, `train` and `test` are null for the synthetic model.
struct JobSpec {
  JobLayout layout;
  ConsistencyConfig consistency;
  /// Workers sharing one machine (cluster.workers_per_host): workers 0..k-1 are host 0, k..2k-1
  /// host 1, and so on. Only hybrid synchronisation (consistency.sync) acts on it.
  std::uint32_t workers_per_host = 1;
  std::uint64_t iterations = 0;      ///< clocks per worker
  std::uint64_t batch_size = 0;
  double learning_rate = 0.0;
  OptimizerSpec optimizer;           ///< kind ("sgd", "momentum", "adagrad", "adam"), betas, epsilon
  double momentum = 0.0;
  std::uint64_t eval_every = 0;      ///< global clocks between evaluations
  /// Stopping rules, checked by the scheduler at each evaluation (training.stop_at_target,
  /// training.time_budget): the job stops at the first evaluation whose test metric reaches
  /// `stop_at_metric` (>= when higher_is_better, else <=), or whose time (Env::now seconds) is
  /// at or past `time_budget_s`.
  std::optional<double> stop_at_metric;
  bool higher_is_better = true;
  std::optional<double> time_budget_s;
  double stall_timeout_s = 3600.0;   ///< a role waiting this long with nothing to do fails
  FaultConfig fault;
  CompressionConfig compression;     ///< scenario "compression": clipping, packed pushes and pulls
  /// How keys are cut into key ranges and placed on servers (scenario section "partition").
  PartitionSpec partition;
  /// Set when the job resumes from a checkpoint (pstwin launch --resume): the scheduler starts
  /// the servers from it and the workers at its clock.
  std::optional<ResumePoint> resume;
  const Model* model = nullptr;
  std::optional<SyntheticModel> synthetic;
  const Dataset* train = nullptr;
  const Dataset* test = nullptr;
  /// Rows of `train` owned by each worker (partition), and the rows used for train_loss.
  std::vector<std::vector<std::uint32_t>> worker_rows;
  std::vector<std::uint32_t> train_eval_rows;

  std::uint64_t num_parameters() const {
    return synthetic ? synthetic->parameters : model->num_parameters();
  }
  /// Floats per key: 1 for dense and synthetic models, the row width of a sparse model.
  std::uint64_t values_per_key() const { return model ? model->values_per_key() : 1; }
  /// Keys of the model; server key ranges partition [0, num_keys()).
  std::uint64_t num_keys() const { return num_parameters() / values_per_key(); }
  /// The job's key ranges by range index (key_ranges of `partition`): one per server under the
  /// range partition, one per block of keys otherwise.
  std::vector<KeyRange> key_ranges() const { return pstwin::key_ranges(num_keys(), layout.servers, partition); }
  /// Hybrid synchronisation: the workers of a host reduce inside the host, one leader per host
  /// talks to the servers (DESIGN.md, "Hybrid synchronisation").
  bool hybrid() const { return consistency.sync == SyncMode::kHybrid; }
  /// How many nodes push to and pull from the servers, which the servers' consistency models
  /// count: every worker, or under hybrid one leader per host.
  std::uint32_t pushers() const { return hybrid() ? layout.workers / workers_per_host : layout.workers; }
  /// Worker w's place among the pushers: w itself, or under hybrid its host. REQUIRES
  /// is_pusher(w).
  std::uint32_t pusher_slot(std::uint32_t w) const { return hybrid() ? w / workers_per_host : w; }
  /// Whether worker w pushes and pulls: every worker, or under hybrid its host's leader, the
  /// host's last worker (where the in-host sum ends).
  bool is_pusher(std::uint32_t w) const { return !hybrid() || w == leader_of(w); }
  /// The leader of worker w's host: its last worker.
  std::uint32_t leader_of(std::uint32_t w) const { return w - w % workers_per_host + workers_per_host - 1; }
  /// True when workers pull and push only the keys their mini-batch touches (msg_flags::kKeyed).
  bool sparse() const { return model && model->sparse(); }
};

}  // namespace pstwin
