// Server: owns one shard of the parameters, applies pushes under the consistency model,
// answers pulls when the model allows, and reports snapshots to the scheduler.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "runtime/consistency/controller.h"
#include "runtime/env.h"
#include "runtime/optimizer.h"
#include "runtime/partition.h"
#include "runtime/roles/job.h"

namespace pstwin {

/// One parameter-server shard. Protocol (all through Env):
///   1. wait for kStart from the scheduler: the key range and initial values;
///   2. loop: kPush -> ConsistencyController decides apply / buffer / barrier / drop;
///            kPull -> answered at once or queued until can_serve_pull;
///            each time the shard clock reaches a multiple of eval_every, a kSnapshot goes to the
///            scheduler; kStop -> final kSnapshot (flag kFinal), then return.
/// Throws ProtocolError for a message that breaks the protocol, and std::runtime_error when
/// nothing arrives for spec.stall_timeout_s.
class Server {
 public:
  Server(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels);
  void run();

 private:
  struct PendingPull {
    NodeId worker;
    std::int64_t clock;
    std::uint64_t request_id;
  };

  void handle_start(const Message& m);
  void handle_push(Message m);
  void apply_barrier();
  void apply_one(const std::vector<float>& grad, std::int64_t staleness, double scale);
  void record_staleness(std::int64_t staleness);
  void serve_ready_pulls();
  void send_pull_reply(const PendingPull& p);
  void maybe_snapshot();
  void send_snapshot(bool final);

  Env& env_;
  const JobSpec& spec_;
  std::uint32_t index_;
  KernelBackend& kernels_;
  ConsistencyController controller_;
  KeyRange range_;
  bool synthetic_;
  std::vector<float> params_;
  std::unique_ptr<ServerOptimizer> optimizer_;
  // BSP: gradients of the current clock by worker index (empty = not arrived), and their versions.
  std::vector<std::vector<float>> buffered_;
  std::vector<std::int64_t> buffered_version_;
  std::vector<bool> arrived_;
  std::vector<float> aggregate_;
  std::vector<PendingPull> pending_;
  std::int64_t last_snapshot_clock_ = -1;
  // Gradients applied since the last snapshot, by staleness.
  std::vector<std::uint32_t> staleness_counts_;
};

}  // namespace pstwin
