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
/// Dense models push and pull the whole shard (kWholeShard). Sparse models (JobSpec::sparse())
/// use kKeyed messages: a pull names the keys it wants and is answered with their rows only; a
/// push carries the rows of the keys it names and only those rows are updated. ASP/SSP apply a
/// keyed push on arrival with step scale 1/W, as for dense pushes. BSP sums each key's gradient
/// rows over the clock's pushes in worker-index order, scaled by 1/(pushes counted) exactly as
/// the dense mean (a worker that did not touch a key contributes zero to it), then takes one
/// optimizer step on the touched rows only (ServerOptimizer::apply_rows). Snapshots are always
/// the whole shard.
/// Throws ProtocolError for a message that breaks the protocol (wrong sizes, keys outside the
/// shard or unsorted), and std::runtime_error when nothing arrives for spec.stall_timeout_s.
class Server {
 public:
  Server(Env& env, const JobSpec& spec, std::uint32_t index, KernelBackend& kernels);
  void run();

 private:
  struct PendingPull {
    NodeId worker;
    std::int64_t clock;
    std::uint64_t request_id;
    bool keyed = false;
    std::vector<std::uint32_t> rows;  ///< keyed: local rows (key - range begin) wanted
  };

  void handle_start(const Message& m);
  void handle_push(Message m);
  /// Local row indices of a keyed message's keys; throws ProtocolError when one is outside the
  /// shard or they are not strictly increasing.
  std::vector<std::uint32_t> local_rows(const Message& m) const;
  void apply_barrier();
  void apply_keyed_barrier(std::uint32_t count, Cost& cost);
  void apply_one(const Message& m, const std::vector<std::uint32_t>& rows, std::int64_t staleness,
                 double scale);
  void record_staleness(std::int64_t staleness);
  /// Every worker's push of every iteration has arrived.
  bool all_pushes_in() const;
  /// Answers `p` now if the consistency model allows, else queues it.
  void queue_pull(PendingPull p);
  /// Answers the queued pulls that the shard clock now allows.
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
  std::size_t width_;  ///< floats per key
  std::vector<float> params_;
  std::unique_ptr<ServerOptimizer> optimizer_;
  // BSP: gradients of the current clock by worker index (empty = not arrived), their versions,
  // and for keyed pushes their local rows.
  std::vector<std::vector<float>> buffered_;
  std::vector<std::vector<std::uint32_t>> buffered_rows_;
  std::vector<std::int64_t> buffered_version_;
  std::vector<bool> arrived_;
  std::vector<float> aggregate_;
  std::vector<bool> touched_;  // keyed BSP: rows of aggregate_ holding a sum (kept all-false between barriers)
  std::vector<PendingPull> pending_;
  std::int64_t last_snapshot_clock_ = -1;
  std::int64_t scanned_clock_ = -1;
  bool stop_pending_ = false;  // a normal stop arrived before the last pushes  // shard clock at the last scan of pending_
  // Gradients applied since the last snapshot, by staleness.
  std::vector<std::uint32_t> staleness_counts_;
};

}  // namespace pstwin
